// The lobby page: the games, a form to start a match, the matches and the lobby server's rooms
// (a form to create one of any game, links to join or watch each: the room page, room.js).
// A person's seat needs a log-in (the header says who is logged in); bots-only matches do not.
import { showAccount } from "/static/session.js";

const $ = (id) => document.getElementById(id);
let games = [];

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function current() { return games.find((g) => g.name === $("game").value); }

function drawSeats() {
  const game = current();
  const count = Math.max(game.players[0], Math.min(game.players[1], Number($("count").value) || game.players[0]));
  $("count").min = game.players[0]; $("count").max = game.players[1]; $("count").value = count;
  const kept = [...document.querySelectorAll("#seats select")].map((s) => s.value);
  $("seats").replaceChildren();
  for (let i = 0; i < count; i++) {
    const row = el("div", undefined, { class: "seat-row" });
    row.append(el("span", `P${i + 1}`));
    const select = el("select", undefined, { "data-seat": String(i), "aria-label": `seat P${i + 1}` });
    const kinds = [...game.strategies, ...(game.policies || []), ...(game.human ? ["human"] : [])];
    for (const kind of kinds) select.append(el("option", kind, { value: kind }));
    select.value = kinds.includes(kept[i]) ? kept[i] : game.strategies[i % game.strategies.length];
    row.append(select);
    $("seats").append(row);
  }
}

// Limits are per seat: the bots' limit of one call, a person's time for one decision (the
// game's, never less than the room allows a person: a bot's limit would eject them).
function chooseGame() {
  const game = current();
  $("limit").value = game.time_limit ?? "";
  $("person-limit").value = game.person_limit ?? "";
  $("person-limit").min = Math.min(game.least_person_limit ?? 10, game.person_limit ?? 10);
  drawSeats();
}

async function loadGames() {
  games = await (await fetch("/api/games")).json();
  const body = $("games").querySelector("tbody");
  for (const g of games) {
    const row = el("tr", undefined, { "data-game": g.name });
    row.append(el("td", g.name), el("td", `${g.players[0]}–${g.players[1]}`),
               el("td", [...g.strategies, ...(g.policies || []).map((p) => `${p} (trained)`)].join(", ")
                          + (g.human ? " (or a person)" : "")));
    body.append(row);
    $("game").append(el("option", g.name, { value: g.name }));
  }
  chooseGame();
}

async function start(event) {
  event.preventDefault();
  $("error").textContent = "";
  const body = {
    game: $("game").value,
    seats: [...document.querySelectorAll("#seats select")].map((s) => s.value),
    seed: Number($("seed").value),
    pace: Number($("pace").value),
  };
  if ($("limit").value !== "") body.time_limit = Number($("limit").value);
  const personLimit = $("person-limit").value;   // sent when changed: the room's own otherwise
  if (body.seats.includes("human") && personLimit !== "" && Number(personLimit) !== current().person_limit) {
    body.person_limit = Number(personLimit);
  }
  const reply = await fetch("/api/matches", { method: "POST", body: JSON.stringify(body),
                                              headers: { "content-type": "application/json" } });
  const answer = await reply.json();
  if (!reply.ok) {
    $("error").textContent = answer.error;
    if (reply.status === 401) {
      const login = el("a", " log in", { href: `/login?next=${encodeURIComponent("/")}`, id: "loginlink" });
      $("error").append(login);
    }
    return;
  }
  const seats = Object.entries(answer.tokens);
  const link = (seat, token) => `/matches/${answer.id}?seat=${seat}&token=${encodeURIComponent(token)}`;
  if (seats.length <= 1) {
    window.location = seats.length ? link(...seats[0]) : `/matches/${answer.id}`;
    return;
  }
  $("links").replaceChildren(el("p", "one link per person (the match starts when every seat is taken):"));
  for (const [seat, token] of seats) {
    const a = el("a", `play as ${seat}`, { href: link(seat, token), target: "_blank" });
    $("links").append(a, el("br"));
  }
}

async function loadMatches() {
  const matches = await (await fetch("/api/matches")).json();
  const body = $("matches").querySelector("tbody");
  body.replaceChildren();
  for (const m of matches.reverse()) {
    const row = el("tr", undefined, { "data-match": m.id });
    const cell = el("td"); cell.append(el("a", m.id, { href: `/matches/${m.id}` }));
    row.append(cell, el("td", m.status, { class: `status-${m.status}` }),
               el("td", m.seats.map((s) => `${s.name} ${s.player}`).join(", ")),
               el("td", m.result ? (m.result.winners.join(", ") || "none") : ""));
    body.append(row);
  }
}

let lobbyGames = [];

function roomGame() { return lobbyGames.find((g) => g.name === $("roomgame").value); }

function drawRoomForm() {   // the chosen game's sizes, room options (in its own words) and bots
  const game = roomGame();
  const kept = Number($("roomplayers").value);
  $("roomplayers").replaceChildren(...game.numberOfPlayers.map((n) => el("option", String(n), { value: String(n) })));
  if (game.numberOfPlayers.includes(kept)) $("roomplayers").value = String(kept);
  $("roomoptions").replaceChildren();
  for (const option of game.options) {
    const label = el("label", `${option.name} `, { title: option.help });
    const attrs = { "data-option": option.name, "aria-label": `${option.name}: ${option.help}` };
    let input;
    if (option.kind === "flag") {
      input = el("input", undefined, { ...attrs, type: "checkbox" });
      input.checked = Boolean(option.default);
    } else if (option.choices) {
      input = el("select", undefined, attrs);
      for (const c of [...(option.default === null ? [""] : []), ...option.choices]) input.append(el("option", c === "" ? "none" : String(c), { value: String(c) }));
      input.value = option.default === null ? "" : String(option.default);
    } else {
      input = el("input", undefined, { ...attrs, type: option.kind === "int" || option.kind === "float" ? "number" : "text",
                                        ...(option.low !== undefined ? { min: String(option.low) } : {}),
                                        ...(option.high !== undefined ? { max: String(option.high) } : {}) });
      input.value = option.default === null ? "" : String(option.default);
      if (option.default === null) input.placeholder = "none";
    }
    label.append(input, el("span", ` ${option.help}`, { class: "note" }));
    $("roomoptions").append(label);
  }
  drawRoomBots();
}

function drawRoomBots() {   // the seats after yours: a person (by the link) or a bot
  const game = roomGame();
  $("roombots").replaceChildren();
  for (let i = 1; i < Number($("roomplayers").value); i++) {
    const row = el("div", undefined, { class: "seat-row" });
    const select = el("select", undefined, { "data-bot": String(i), "aria-label": `seat P${i + 1}` });
    select.append(el("option", "a person (share the link)", { value: "" }));
    for (const bot of game.bots) select.append(el("option", `bot: ${bot}`, { value: bot }));
    row.append(el("span", `P${i + 1}`), select);
    $("roombots").append(row);
  }
}

function createRoom(event) {
  event.preventDefault();
  const query = new URLSearchParams({ game: $("roomgame").value, players: $("roomplayers").value });
  if ($("roomprivate").checked) query.set("private", "1");
  for (const input of document.querySelectorAll("#roomoptions [data-option]")) {
    query.set(input.dataset.option, input.type === "checkbox" ? String(input.checked) : input.value);
  }
  const bots = [...document.querySelectorAll("#roombots select")].map((s) => s.value).filter((b) => b);
  if (bots.length) query.set("bots", bots.join(","));
  window.location = `/rooms/new?${query}`;
}

async function loadRooms() {
  const lobby = await (await fetch("/api/lobby")).json();
  if (!lobby.server) return;
  if (lobby.error) { $("rooms").textContent = `${lobby.server}: ${lobby.error}`; return; }
  if (!lobbyGames.length && lobby.games.length) {
    lobbyGames = lobby.games;
    for (const g of lobbyGames) $("roomgame").append(el("option", g.name, { value: g.name }));
    drawRoomForm();
    $("newroom").classList.remove("hidden");
  }
  const table = el("table", undefined, { id: "roomlist" });
  table.append(el("tr")); table.firstChild.append(el("th", "room"), el("th", "status"), el("th", "players"), el("th", ""));
  for (const room of lobby.rooms) {
    const row = el("tr", undefined, { "data-room": String(room.id) });
    const links = el("td");
    links.append(el("a", "join", { href: `/rooms/${room.id}` }), el("span", " · "),
                 el("a", "watch", { href: `/rooms/${room.id}?watch=1` }));
    row.append(el("td", room.name), el("td", room.status), el("td", room.players.join(", ")), links);
    table.append(row);
  }
  $("rooms").replaceChildren(el("p", `${lobby.server}: ${lobby.rooms.length} room(s) waiting for players`), table);
}

await showAccount();
$("game").addEventListener("change", chooseGame);
$("count").addEventListener("change", drawSeats);
$("start").addEventListener("submit", start);
$("roomgame").addEventListener("change", drawRoomForm);
$("roomplayers").addEventListener("change", drawRoomBots);
$("newroom").addEventListener("submit", createRoom);
await loadGames();
await loadMatches();
await loadRooms();
setInterval(loadMatches, 2000);
setInterval(loadRooms, 5000);
