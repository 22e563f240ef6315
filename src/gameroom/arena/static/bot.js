// A bot's page: its versions with their figures (ladder, qualification, finals) and, for its
// owner and staff, their build logs; every ejection with the game's kind, the call it failed
// on and the reason (and, for its owner and staff, the program's stderr one line per line);
// its recent games (replay in the viewer, JSON Lines); a remote bot's connection.
const $ = (id) => document.getElementById(id);
const name = decodeURIComponent(location.pathname.split("/").pop());
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "never");
const cell = (value, attrs = {}) => {
  const td = document.createElement("td");
  td.textContent = value ?? "";
  for (const [key, val] of Object.entries(attrs)) td.setAttribute(key, val);
  return td;
};
const link = (label, href) => {
  const a = document.createElement("a");
  a.textContent = label;
  a.href = href;
  return a;
};

function figures(v) {
  return `ladder: ${v.ladder.games} games, ${v.ladder.wins} wins, ${v.ladder.ejections} ejections; `
    + `qualification: ${v.qualification.games} games, ${v.qualification.ejections} ejections; `
    + `finals: ${v.final.games} games, ${v.final.ejections} ejections`;
}

function render(data) {
  $("name").textContent = `${data.bot} — ${data.competition}, by ${data.owner}`;
  document.title = `gameroom arena — ${data.bot}`;
  $("privacy").textContent = data.private ? "You see this bot's build logs and stderr: they are shown to its owner and the staff only."
    : "Build logs, stderr and connection notes are shown to the bot's owner and the staff only.";
  $("privacy").classList.remove("hidden");
  $("disabled").classList.toggle("hidden", !data.disabled);
  $("disabled").textContent = data.disabled === true ? "Disabled by the staff: it plays no games."
    : data.disabled ? `Disabled by the staff: ${data.disabled}` : "";
  if (data.remote) {
    const r = data.remote;
    $("remote").classList.remove("hidden");
    $("connection").textContent = (r.connected ? `connected (${r.state})` : "disconnected")
      + `; last seen ${when(r.seen)}` + (r.port ? `; it connects to port ${r.port}` : "");
    $("connection").dataset.state = r.state;
    $("note").textContent = r.note ? `Last: ${r.note}` : "";
  }
  $("versions").replaceChildren(...data.versions.map((v) => {
    const box = document.createElement("article");
    box.className = "version";
    box.dataset.status = v.status;
    box.dataset.version = v.version;
    const h = document.createElement("h3");
    h.textContent = `v${v.version} (${v.language}): ${v.status}${data.playing === v.bot ? ", playing" : ""}`;
    box.append(h, Object.assign(document.createElement("p"), { textContent: v.summary, className: "summary" }),
      Object.assign(document.createElement("p"), { textContent: figures(v), className: "figures" }));
    if (v.log !== undefined) {
      const log = document.createElement("pre");
      log.className = "log";
      log.textContent = v.log;
      box.append(log);
    }
    return box;
  }));
  for (const th of document.querySelectorAll("#ejections th.private")) th.classList.toggle("hidden", !data.private);
  $("ejections").tBodies[0].replaceChildren(...data.ejections.map((e) => {
    const tr = document.createElement("tr");
    tr.dataset.kind = e.kind;
    const game = document.createElement("td");
    game.append(link(`#${e.game}`, `/results/games/${e.game}`));
    tr.append(game, cell(`v${e.version}`), cell(e.kind, { class: "kind" }), cell(e.call, { class: "call" }),
      cell(e.failure), cell(e.reason, { class: "reason" }));
    if (data.private) {
      const td = document.createElement("td");
      td.className = "stderr";
      const pre = document.createElement("pre");
      pre.className = "log";
      pre.textContent = e.stderr || "(no stderr)";
      td.append(pre);
      tr.append(td);
    }
    return tr;
  }));
  $("games").tBodies[0].replaceChildren(...data.games.map((g) => {
    const tr = document.createElement("tr");
    tr.dataset.kind = g.kind;
    const game = document.createElement("td");
    game.append(link(`#${g.id}`, `/results/games/${g.id}`));
    const replay = document.createElement("td");
    replay.append(link("view", `/results/games/${g.id}`), " ", link("JSON Lines", `/api/arena/games/${g.id}/replay.jsonl`));
    tr.append(game, cell(g.kind, { class: "kind" }), cell(`v${g.version}`), cell(g.seats.join(", ")),
      cell(g.ejected ? "ejected" : g.rank), replay);
    return tr;
  }));
}

async function start() {
  const reply = await fetch(`/api/arena/bots/${encodeURIComponent(name)}`);
  if (!reply.ok) {
    $("missing").textContent = (await reply.json()).error;
    $("missing").classList.remove("hidden");
    return;
  }
  render(await reply.json());
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/arena/ws?bot=${encodeURIComponent(name)}`);
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.data) render(message.data);
  };
}

start();
