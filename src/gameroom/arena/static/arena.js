// The standings page: every competition's table (or its frozen table), its rules and limits
// and its finals, pushed again over the websocket at every change; a logged-in participant
// joins with an invite code, uploads bots, registers remote bots and follows "my bots" here.
const $ = (id) => document.getElementById(id);
const text = (tag, value, attrs = {}) => {
  const node = document.createElement(tag);
  node.textContent = value ?? "";
  for (const [key, val] of Object.entries(attrs)) node.setAttribute(key, val);
  return node;
};
const botLink = (name) => text("a", name, { href: `/arena/bots/${encodeURIComponent(name)}` });
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "never");
let me = {};
let uploaded = null;   // {bot, version} of this page's last upload: its status follows the pushes
let latest = null;     // the last data pushed

function connectionText(connection) {
  if (!connection) return "";
  if (connection.connected) return connection.state === "playing" ? "connected (playing)" : "connected (waiting)";
  return `disconnected, last seen ${when(connection.seen)}`;
}

function tableOf(competition, rows, caption) {
  const table = text("table", "", { class: "standings", "data-competition": competition.name });
  if (caption) table.append(text("caption", caption));
  const head = document.createElement("tr");
  for (const h of ["#", "bot", "owner", "rating", "±", "games", "wins", "ejections", "history", "version", "remote"]) {
    head.append(text("th", h, { scope: "col" }));
  }
  table.append(head);
  const live = new Map(competition.standings.map((row) => [row.bot, row]));
  for (const row of rows) {
    const tr = document.createElement("tr");
    tr.dataset.bot = row.bot;
    if (row.disabled) tr.dataset.disabled = "true";
    tr.append(text("td", row.rank));
    const cell = document.createElement("td");
    cell.append(botLink(row.bot));
    if (row.disabled) cell.append(text("span", " (disabled)", { class: "disabled" }));
    tr.append(cell);
    tr.append(text("td", row.owner, { class: "owner" }));
    tr.append(text("td", row.rating === null ? "—" : row.rating.toFixed(2)));
    tr.append(text("td", row.sigma === null ? "" : `± ${(3 * row.sigma).toFixed(2)}`));
    tr.append(text("td", row.games, { class: "games" }));
    tr.append(text("td", row.wins));
    tr.append(text("td", row.ejections, { class: "ejections" }));
    const spark = document.createElement("td");
    spark.innerHTML = (live.get(row.bot) || row).spark || "";   // an SVG the server drew from numbers alone
    tr.append(spark);
    const version = document.createElement("td");
    if (row.version) version.append(text("a", `v${row.version.version} ${row.version.status}`, { href: `/arena/bots/${encodeURIComponent(row.bot)}` }));
    tr.append(version);
    const now = live.get(row.bot);
    tr.append(text("td", connectionText(now ? now.connection : row.connection), { class: "connection" }));
    table.append(tr);
  }
  return table;
}

function rulesOf(competition) {
  const box = text("details", "", { class: "rules" });
  box.append(text("summary", "Rules, options and time limits"));
  const list = document.createElement("ul");
  for (const line of competition.rules.lines) list.append(text("li", line));
  box.append(list);
  return box;
}

function render(data) {
  latest = data;
  const root = $("competitions");
  root.replaceChildren();
  for (const competition of data.competitions) {
    const section = document.createElement("section");
    section.setAttribute("aria-label", `competition ${competition.name}`);
    section.dataset.competition = competition.name;
    const state = competition.frozen ? " (frozen)" : competition.paused ? " (paused)" : "";
    section.append(text("h2", `${competition.name} — ${competition.game}${state}`));
    section.append(text("p", `${competition.games} ladder games`, { class: "gamecount", "data-games": competition.games }));
    section.append(rulesOf(competition));
    const wrap = text("div", "", { class: "tablewrap" });
    const frozen = competition.frozen_table;
    if (competition.frozen && !frozen) {
      section.append(text("p", `Freezing: ${competition.in_flight} ladder game(s) in flight are being written; then the table is frozen.`, { class: "freezing" }));
    }
    if (frozen) {
      section.append(text("p", `Frozen table of ${when(frozen.at)}, after ${frozen.games} ladder games: every final is seeded from it.`, { class: "frozen", "data-games": frozen.games }));
      wrap.append(tableOf(competition, frozen.rows, "the frozen table"));
    } else {
      wrap.append(tableOf(competition, competition.standings, ""));
    }
    section.append(wrap);
    for (const final of competition.finals) section.append(finalOf(final));
    root.append(section);
  }
  showMine(data);
}

function finalOf(final) {
  // one final: its seeds (and who was left out, and why), then each result with how it was decided
  const box = text("div", "", { class: "final", "data-final": final.number });
  const result = final.result || {};
  box.append(text("h3", `Final ${final.number} (${final.format})${final.status === "done" ? `, ${result.games} games` : `: ${final.status}`}`));
  if (result.frozen) box.append(text("p", `Seeded from the frozen table of ${when(result.frozen.at)} (${result.frozen.games} ladder games).`));
  if (result.seeds) {
    box.append(text("p", "Seeds: " + result.seeds.map((s) => `${s.seed}. ${s.bot} (place ${s.place})`).join(", "), { class: "seeds" }));
  }
  for (const out of result.left_out || []) {
    box.append(text("p", `Left out: ${out.bot} (place ${out.place}): ${out.reason}`, { class: "leftout" }));
  }
  if (result.error) box.append(text("p", `Stopped: ${result.error}`, { class: "error" }));
  if (result.table) {
    const list = text("ul", "", { class: "finaltable" });   // each line says its place
    for (const row of result.table) list.append(text("li", row.text, { "data-decided": row.decided_by }));
    box.append(list);
    box.append(text("p", `winner: ${result.winner}`, { class: "champion" }));
  } else if (result.rounds) {
    for (const round of result.rounds) {
      box.append(text("h4", `round ${round.round}`));
      const list = document.createElement("ul");
      for (const bye of round.bye_texts || []) list.append(text("li", bye));
      for (const match of round.matches) list.append(text("li", match.text, { "data-decided": match.decided_by }));
      box.append(list);
    }
    box.append(text("p", result.champion_text, { class: "champion" }));
  }
  return box;
}

function showMine(data) {
  // "my bots": this account's entries with their latest version's status, each a link to its page
  if (!me.username) return;
  const mine = data.competitions.flatMap((c) => c.standings.filter((row) => row.owner === me.username)
    .map((row) => ({ competition: c.name, ...row })));
  $("mine").classList.remove("hidden");
  $("mybots").replaceChildren(...(mine.length ? mine.map((row) => {
    const item = document.createElement("li");
    item.dataset.bot = row.bot;
    item.append(botLink(row.bot));
    const status = row.version ? `v${row.version.version} ${row.version.status}` : "";
    const rating = row.rating === null ? "" : `, rating ${row.rating.toFixed(2)}, place ${row.rank}`;
    item.append(text("span", ` (${row.competition}): ${status}${rating}${row.disabled ? ", disabled by staff" : ""}`, { class: "status" }));
    return item;
  }) : [text("li", "none yet: upload one below")]));
  if (uploaded) {
    const row = mine.find((r) => r.bot === uploaded.bot);
    if (row && row.version && row.version.version === uploaded.version) showUploaded(uploaded.bot, uploaded.version, row.version.status);
  }
}

function showUploaded(bot, version, status) {
  const box = $("uploaded");
  box.className = "";
  box.replaceChildren(`${bot} v${version}: ${status} — `, text("a", "its page", { href: `/arena/bots/${encodeURIComponent(bot)}` }));
  box.dataset.status = status;
}

async function start() {
  const reply = await fetch("/api/arena");
  const data = await reply.json();
  me = data.me;
  render(data);
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
    me = again.me;
    showUpload(again.me.role === "admin" ? again.competitions.map((c) => c.name) : again.me.competitions,
      again.me.languages);
    render(again);
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
  if (!reply.ok) {
    $("uploaded").textContent = body.error;
    $("uploaded").className = "error";
    return;
  }
  uploaded = { bot: body.bot, version: body.version };
  showUploaded(body.bot, body.version, body.status);
  if (latest) showMine(latest);
});

start();

$("remoteform").addEventListener("submit", async (event) => {
  event.preventDefault();
  const reply = await fetch(`/api/arena/${encodeURIComponent($("competition").value)}/remote`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: $("remotename").value }) });
  const body = await reply.json();
  // the token is shown this once: the arena keeps only its hash
  $("remote").textContent = reply.ok
    ? `${body.bot} v${body.version}: connect to ${body.host}:${body.port} and sign up with the token ${body.token} `
      + `(shown once), e.g. ${body.command}`
    : body.error;
  $("remote").className = reply.ok ? "" : "error";
});
