// The results database page: the stored games of one game, newest first, a page at a time
// (paged by the last id seen: `before`), each linked to its replay; a link to the game's
// leaderboard.
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let cursors = [null];   // the `before` of each page seen so far; the last is this page's
let next = null;

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

async function load() {
  const game = $("game").value;
  $("ratings").href = `/results/ratings/${game}`;
  const before = cursors[cursors.length - 1];
  history.replaceState(null, "", `/results?game=${game}`);
  const reply = await fetch(`/api/results/games?game=${encodeURIComponent(game)}` + (before ? `&before=${before}` : ""));
  const answer = await reply.json();
  if (!reply.ok) { $("nodb").textContent = answer.error; $("nodb").classList.remove("hidden"); return; }
  next = answer.next;
  $("heading").textContent = `Stored ${game} games (${answer.total})`;
  $("pageinfo").textContent = `page ${cursors.length} of ${Math.max(1, Math.ceil(answer.total / answer.per_page))}`;
  $("newer").disabled = cursors.length <= 1;
  $("older").disabled = next === null;
  const body = $("stored").querySelector("tbody");
  body.replaceChildren();
  for (const g of answer.games) {
    const row = el("tr", undefined, { "data-stored": String(g.id) });
    const link = el("td"); link.append(el("a", `#${g.id}`, { href: `/results/games/${g.id}` }));
    const where = g.league ? `${g.league} #${g.index}` : (g.tournament || "");
    row.append(link, el("td", g.finished_at.replace("T", " ").slice(0, 19)), el("td", where),
               el("td", g.seats.map((s) => `${s.bot} (${s.rank})`).join(", ")),
               el("td", g.winners.join(", ") || "none"),
               el("td", g.ejected.map((e) => `${e.seat}: ${e.reason}`).join("; ")));
    body.append(row);
  }
  $("list").classList.remove("hidden");
}

const overview = await (await fetch("/api/results")).json();
if (overview.message) {
  $("nodb").textContent = overview.message;
  $("nodb").classList.remove("hidden");
} else {
  for (const g of overview.games) $("game").append(el("option", `${g.name} (${g.stored} stored)`, { value: g.name }));
  const stored = overview.games.find((g) => g.stored > 0);
  $("game").value = params.get("game") || (stored ? stored.name : overview.games[0].name);
  $("picker").classList.remove("hidden");
  $("game").addEventListener("change", () => { cursors = [null]; load(); });
  $("newer").addEventListener("click", () => { if (cursors.length > 1) cursors.pop(); load(); });
  $("older").addEventListener("click", () => { if (next !== null) { cursors.push(next); load(); } });
  await load();
}
