// A bot's page: its versions with their build logs, every ejection with the call it failed
// on, the reason and its stderr tail, and its recent games (replay in the viewer, JSON Lines).
const $ = (id) => document.getElementById(id);
const name = decodeURIComponent(location.pathname.split("/").pop());
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

function render(data) {
  $("name").textContent = `${data.bot} — ${data.competition}`;
  document.title = `gameroom arena — ${data.bot}`;
  $("versions").replaceChildren(...data.versions.map((v) => {
    const box = document.createElement("article");
    box.className = "version";
    box.dataset.status = v.status;
    const h = document.createElement("h3");
    h.textContent = `v${v.version} (${v.language}): ${v.status}`;
    const log = document.createElement("pre");
    log.className = "log";
    log.textContent = v.log;
    box.append(h, log);
    return box;
  }));
  $("ejections").tBodies[0].replaceChildren(...data.ejections.map((e) => {
    const tr = document.createElement("tr");
    const game = document.createElement("td");
    game.append(link(`#${e.game}`, `/results/games/${e.game}`));
    tr.append(game, cell(e.bot), cell(e.call, { class: "call" }), cell(e.kind), cell(e.reason, { class: "reason" }),
      cell(e.stderr, { class: "stderr" }));
    return tr;
  }));
  $("games").tBodies[0].replaceChildren(...data.games.map((g) => {
    const tr = document.createElement("tr");
    const game = document.createElement("td");
    game.append(link(`#${g.id}`, `/results/games/${g.id}`));
    const replay = document.createElement("td");
    replay.append(link("view", `/results/games/${g.id}`), " ", link("JSON Lines", `/api/arena/games/${g.id}/replay.jsonl`));
    tr.append(game, cell(g.kind), cell(g.seats.join(", ")), cell(g.ejected ? "ejected" : g.rank), replay);
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
