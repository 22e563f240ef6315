// A game's leaderboard from the results database: the figures `gameroom ratings` prints.
const $ = (id) => document.getElementById(id);
const game = decodeURIComponent(location.pathname.split("/").pop());
$("title").textContent = `${game} leaderboard`;

function cell(text) { const td = document.createElement("td"); td.textContent = text; return td; }

const reply = await fetch(`/api/results/ratings/${encodeURIComponent(game)}`);
const rows = await reply.json();
if (!reply.ok) {
  $("nodb").textContent = rows.error;
  $("nodb").classList.remove("hidden");
} else if (!rows.length) {
  $("empty").textContent = `no rated ${game} games in the database`;
  $("empty").classList.remove("hidden");
} else {
  const body = $("leaderboard").querySelector("tbody");
  for (const r of rows) {
    const row = document.createElement("tr");
    row.dataset.bot = r.bot;
    row.append(cell(String(r.rank)), cell(r.bot), cell(r.rating.toFixed(2)), cell(r.mu.toFixed(2)),
               cell(r.sigma.toFixed(2)), cell(String(r.games)), cell(String(r.wins)), cell(String(r.ejections)));
    body.append(row);
  }
  $("leaderboard").classList.remove("hidden");
}
