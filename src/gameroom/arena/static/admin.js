// The administrator's page: the workers' games in flight, the queue, pause / resume, invite
// codes (refreshed every second), and the season's overview (refreshed every five seconds):
// each competition's participants (those without a bot first), its bots with their latest
// version, failures and ejections by reason, disable / enable, freeze / thaw, the CSV of its
// standings for grading, and its finals.
const $ = (id) => document.getElementById(id);
let paused = false;
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "");

function cell(value, attrs = {}) {
  const td = document.createElement("td");
  td.textContent = value ?? "";
  for (const [key, val] of Object.entries(attrs)) td.setAttribute(key, val);
  return td;
}
const node = (tag, value, attrs = {}) => {
  const made = document.createElement(tag);
  made.textContent = value ?? "";
  for (const [key, val] of Object.entries(attrs)) made.setAttribute(key, val);
  return made;
};

function tableOf(headings, rows, attrs = {}) {
  const wrap = node("div", "", { class: "tablewrap" });
  const table = node("table", "", attrs);
  const head = document.createElement("tr");
  for (const h of headings) head.append(node("th", h, { scope: "col" }));
  const thead = document.createElement("thead");
  thead.append(head);
  const body = document.createElement("tbody");
  body.append(...rows);
  table.append(thead, body);
  wrap.append(table);
  return wrap;
}

async function post(path, body) {
  const reply = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const answer = await reply.json();
  $("acted").textContent = reply.ok ? "" : answer.error;
  $("acted").className = reply.ok ? "" : "error";
  await season();
  return reply.ok;
}

function botRow(bot) {
  const tr = document.createElement("tr");
  tr.dataset.bot = bot.bot;
  const name = document.createElement("td");
  name.append(node("a", bot.bot, { href: `/arena/bots/${encodeURIComponent(bot.bot)}` }));
  const latest = bot.latest ? `v${bot.latest.version} ${bot.latest.language}: ${bot.latest.status}` : "";
  const connection = bot.connection ? (bot.connection.connected ? `connected (${bot.connection.state})` : `disconnected, last seen ${when(bot.connection.seen) || "never"}`) : "";
  const failures = bot.failures.map((f) => `v${f.version}: ${f.reason}`).join("\n");
  const ejections = Object.entries(bot.ejections).map(([kind, count]) => `${kind} ${count}`).join(", ");
  const act = document.createElement("td");
  if (bot.disabled) {
    act.append(node("span", `disabled: ${bot.disabled} `, { class: "disabled" }));
    const enable = node("button", "enable", { type: "button", class: "enable" });
    enable.addEventListener("click", () => post(`/api/arena/admin/bots/${encodeURIComponent(bot.bot)}`, { disabled: null }));
    act.append(enable);
  } else {
    const reason = node("input", "", { class: "reason", placeholder: "why", "aria-label": `why ${bot.bot} is disabled`, maxlength: "300" });
    const disable = node("button", "disable", { type: "button", class: "disable" });
    disable.addEventListener("click", () => post(`/api/arena/admin/bots/${encodeURIComponent(bot.bot)}`, { disabled: reason.value || "no reason given" }));
    act.append(reason, disable);
  }
  tr.append(name, cell(bot.owner), cell(latest, { class: "latest" }), cell(bot.playing || "—"), cell(connection),
    cell(failures, { class: "failures" }), cell(ejections, { class: "ejections" }), act);
  return tr;
}

function competitionOf(c) {
  const box = node("section", "", { "data-competition": c.name });
  box.append(node("h3", `${c.name} — ${c.game}`));
  const state = c.frozen ? `frozen by ${c.frozen_by} at ${when(c.frozen_at)}` + (c.frozen_table ? `; table frozen after ${c.frozen_table.games} ladder games` : "; waiting for its games in flight")
    : c.paused ? "paused" : "running";
  const line = node("p", `${state}${c.freeze_at ? `; freeze scheduled at ${when(c.freeze_at)}` : ""}; `, { class: "state" });
  const toggle = node("button", c.frozen ? "thaw" : "freeze", { type: "button", class: "freeze" });
  toggle.addEventListener("click", () => post(`/api/arena/admin/${encodeURIComponent(c.name)}/freeze`, { frozen: !c.frozen }));
  line.append(toggle, " ", node("a", "standings as CSV", { href: `/api/arena/admin/${encodeURIComponent(c.name)}/standings.csv`, class: "csv" }));
  box.append(line);
  box.append(node("h4", `Participants (${c.participants.length}, ${c.without_bot} without a bot)`));
  box.append(tableOf(["username", "bots"], c.participants.map((p) => {
    const tr = document.createElement("tr");
    tr.dataset.username = p.username;
    tr.append(cell(p.username), cell(p.bots.length ? p.bots.join(", ") : "no bot", { class: p.bots.length ? "" : "nobot" }));
    return tr;
  }), { class: "participants" }));
  const totals = Object.entries(c.ejections).map(([kind, count]) => `${kind} ${count}`).join(", ") || "none";
  box.append(node("h4", `Bots (ejections by reason: ${totals})`));
  box.append(tableOf(["bot", "owner", "latest version", "playing", "remote", "failures", "ejections", ""],
    c.bots.map(botRow), { class: "bots" }));
  if (c.finals.length) {
    box.append(node("h4", "Finals"));
    const list = document.createElement("ul");
    for (const f of c.finals) list.append(node("li", `final ${f.number} (${f.format}): ${f.status}${f.winner ? `, won by ${f.winner}` : ""}`));
    box.append(list);
  }
  return box;
}

async function season() {
  const reply = await fetch("/api/arena/admin/overview");
  if (!reply.ok) return;
  const body = await reply.json();
  $("overview").classList.remove("hidden");
  const typing = document.activeElement && document.activeElement.classList.contains("reason");
  if (!typing) $("seasons").replaceChildren(...body.competitions.map(competitionOf));   // not under the cursor
}

async function refresh() {
  const reply = await fetch("/api/arena/admin");
  const body = await reply.json();
  if (!reply.ok) {
    $("refused").textContent = body.error;
    $("refused").classList.remove("hidden");
    return false;
  }
  $("panel").classList.remove("hidden");
  paused = Object.values(body.paused).some(Boolean);
  $("pause").textContent = paused ? "resume" : "pause";
  $("pause").setAttribute("aria-pressed", String(paused));
  $("summary").textContent = `${body.running.length} of ${body.workers} workers busy (${body.backend}, sandbox ${body.sandbox}); `
    + `queue ${body.queue}; ${body.games_per_second} games/s${paused ? "; paused" : ""}`;
  $("running").tBodies[0].replaceChildren(...body.running.map((r) => {
    const tr = document.createElement("tr");
    tr.append(cell(r.kind), cell(r.competition), cell(r.index), cell(r.bots.join(", ")), cell(r.seconds));
    return tr;
  }));
  if (!$("competition").options.length) {
    $("competition").replaceChildren(...Object.keys(body.paused).map((name) => {
      const option = document.createElement("option");
      option.value = option.textContent = name;
      return option;
    }));
  }
  return true;
}

$("pause").addEventListener("click", async () => {
  await fetch("/api/arena/admin/pause", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ paused: !paused }) });
  refresh();
});

$("inviteform").addEventListener("submit", async (event) => {
  event.preventDefault();
  const reply = await fetch("/api/arena/admin/invites", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ competition: $("competition").value, count: Number($("count").value) }) });
  const body = await reply.json();
  $("codes").textContent = reply.ok ? body.codes.join("\n") : body.error;
});

if (await refresh()) {
  setInterval(refresh, 1000);
  await season();
  setInterval(season, 5000);
}
