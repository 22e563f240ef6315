// The standings page: every competition's table, pushed again over the websocket at every
// change; a logged-in participant joins with an invite code and uploads bots here.
const $ = (id) => document.getElementById(id);
const text = (tag, value, attrs = {}) => {
  const node = document.createElement(tag);
  node.textContent = value ?? "";
  for (const [key, val] of Object.entries(attrs)) node.setAttribute(key, val);
  return node;
};

function render(data) {
  const root = $("competitions");
  root.replaceChildren();
  for (const competition of data.competitions) {
    const section = document.createElement("section");
    section.setAttribute("aria-label", `competition ${competition.name}`);
    const state = competition.frozen ? " (frozen)" : competition.paused ? " (paused)" : "";
    section.append(text("h2", `${competition.name} — ${competition.game}${state}`));
    section.append(text("p", `${competition.games} ladder games`, { class: "gamecount", "data-games": competition.games }));
    const wrap = text("div", "", { class: "tablewrap" });
    const table = text("table", "", { class: "standings", "data-competition": competition.name });
    const head = document.createElement("tr");
    for (const h of ["#", "bot", "rating", "±", "games", "wins", "ejections", "history", "version"]) head.append(text("th", h, { scope: "col" }));
    table.append(head);
    for (const row of competition.standings) {
      const tr = document.createElement("tr");
      tr.dataset.bot = row.bot;
      tr.append(text("td", row.rank));
      const cell = document.createElement("td");
      cell.append(text("a", row.bot, { href: `/arena/bots/${encodeURIComponent(row.bot)}` }));
      tr.append(cell);
      tr.append(text("td", row.rating === null ? "—" : row.rating.toFixed(2)));
      tr.append(text("td", row.sigma === null ? "" : `± ${(3 * row.sigma).toFixed(2)}`));
      tr.append(text("td", row.games, { class: "games" }));
      tr.append(text("td", row.wins));
      tr.append(text("td", row.ejections, { class: "ejections" }));
      const spark = document.createElement("td");
      spark.innerHTML = row.spark;   // an SVG the server drew from numbers alone
      tr.append(spark);
      tr.append(text("td", row.version ? `v${row.version.version} ${row.version.status}` : ""));
      table.append(tr);
    }
    wrap.append(table);
    section.append(wrap);
    if (competition.final) section.append(finalOf(competition.final));
    root.append(section);
  }
}

function finalOf(final) {
  // the final tournament: a round robin's table, or a knock-out's rounds and champion
  const box = text("div", "", { class: "final" });
  box.append(text("h3", `Final (${final.format}, ${final.games} games)`));
  if (final.table) {
    const list = document.createElement("ol");
    for (const row of final.table) list.append(text("li", `${row.bot}: ${row.wins} wins`));
    box.append(list);
  } else {
    for (const [at, round] of final.rounds.entries()) {
      box.append(text("p", `round ${at + 1}: ` + round.matches.map((m) => `${m.bots[0]} ${m.wins[0]}-${m.wins[1]} ${m.bots[1]}`).join("; ")
        + (round.byes.length ? `; bye: ${round.byes.join(", ")}` : "")));
    }
    box.append(text("p", `champion: ${final.champion}`, { class: "champion" }));
  }
  return box;
}

async function start() {
  const reply = await fetch("/api/arena");
  const data = await reply.json();
  render(data);
  const me = data.me;
  if (me.username) {
    $("me").textContent = `${me.username}${me.role ? ` (${me.role})` : ""}`;
    $("login").classList.add("hidden");
    $("signup").classList.add("hidden");
    $("participate").classList.remove("hidden");
    if (me.role === "admin") $("adminlink").classList.remove("hidden");
    const choices = me.role === "admin" ? data.competitions.map((c) => c.name) : me.competitions;
    showUpload(choices, me.languages);
  }
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/arena/ws`);
  socket.onmessage = (event) => render(JSON.parse(event.data).data);
}

function showUpload(choices, languages) {
  if (!choices.length) return;
  $("competition").replaceChildren(...choices.map((name) => text("option", name, { value: name })));
  if ($("language").options.length === 1) {
    for (const name of languages) $("language").append(text("option", name, { value: name }));
  }
  $("uploadform").classList.remove("hidden");
  $("remoteform").classList.remove("hidden");
}

$("joinform").addEventListener("submit", async (event) => {
  event.preventDefault();
  const reply = await fetch("/api/arena/join", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ code: $("code").value }) });
  const body = await reply.json();
  $("joined").textContent = reply.ok ? `joined ${body.competition}` : body.error;
  $("joined").className = reply.ok ? "" : "error";
  if (reply.ok) {
    const again = await (await fetch("/api/arena")).json();
    showUpload(again.me.role === "admin" ? again.competitions.map((c) => c.name) : again.me.competitions,
      again.me.languages);
  }
});

$("uploadform").addEventListener("submit", async (event) => {
  event.preventDefault();
  const file = $("file").files[0];
  const params = new URLSearchParams({ name: $("botname").value, filename: file.name });
  if ($("language").value) params.set("language", $("language").value);
  const reply = await fetch(`/api/arena/${encodeURIComponent($("competition").value)}/bots?${params}`,
    { method: "POST", body: file });
  const body = await reply.json();
  $("uploaded").textContent = reply.ok ? `${body.bot} v${body.version}: ${body.status}` : body.error;
  $("uploaded").className = reply.ok ? "" : "error";
});

start();

$("remoteform").addEventListener("submit", async (event) => {
  event.preventDefault();
  const reply = await fetch(`/api/arena/${encodeURIComponent($("competition").value)}/remote`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: $("remotename").value }) });
  const body = await reply.json();
  // the token is shown this once: the arena keeps only its hash
  $("remote").textContent = reply.ok
    ? `${body.bot} v${body.version}: connect to port ${body.port} and sign up with the token ${body.token} (shown once)`
    : body.error;
  $("remote").className = reply.ok ? "" : "error";
});
