// The room page: one room of the lobby server (docs/lobby.md), for any game, over the web
// room's relay /api/lobby/ws — the same rooms people at terminals (gameroom connect) and bots
// are in. /rooms/new?game=G&players=N[&private=1][&bots=a,b][&OPTION=value...] creates a room
// and seats the chosen bots, /rooms/ID joins room ID (a person's seat: log in first), and
// /rooms/ID?watch=1 watches it. The game is drawn from the lobby's GAME_STATEs (asked with
// views and pictures), played on the board through the game's board module
// (/boards/{game}.js): a room played by calls answers the referee's CALLs with REPLY, a room
// played by events sends the offered events as GAME_EVENT. The narrator's lines are the story.
// A lost websocket is opened again with back-off, and a page loaded again comes back to the
// seat it held (remembered in localStorage): the relay logs in under the same name, the lobby
// gives the held seat back with its view and the call waiting for it (docs/lobby.md, "Coming
// back"), and the page is rebuilt from that GAME_STATE.
import { showAccount } from "/static/session.js";
import { boardControls, fit as fitPicture, tell } from "/static/picture.js";
import { counted, endPrompt as closeTurn, offer, playOnBoard, startClock } from "/static/prompt.js";
import { installZoom } from "/static/zoom.js";
import { markTurn, markWinners, turnText } from "/static/seats.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const watching = params.get("watch") === "1";
let roomId = location.pathname.endsWith("/new") ? null : Number(location.pathname.split("/").pop());
let socket = null;
let me = null;          // the name the lobby knows this browser by
let games = [];         // GET_GAMES' games
let game = null;        // this room's game
let board = null;       // its board module
let latest = null;      // the newest GAME_STATE
let prompt = null;      // the decision this person is asked: {choices, method, call, event}
let sentMove = null;    // the prompt of the move waiting for its ACK (a NACK asks again)
let over = false;
let gaveUp = false;     // the lobby refused this browser: no reconnecting
let retry = 500;        // the next reconnect's delay (ms), doubled up to 8 s
let shownStep = 0;      // the newest step whose story is in the page (a reconnect repeats it)
const seats = [];
const bots = (params.get("bots") || "").split(",").filter((b) => b);

function el(tag, text) { const n = document.createElement(tag); if (text !== undefined) n.textContent = text; return n; }
function send(message) { socket.send(JSON.stringify(message)); }
function logLine(text, kind = "") { tell($("events"), text, kind); }

// -- coming back to a seat ------------------------------------------------------------------

function heldKey() { return `gameroom.room.${roomId}`; }
function held() {   // the seat this browser held in this room: {me, game, seats}, or null
  try { const record = JSON.parse(localStorage.getItem(heldKey()) || "null"); return record && record.me === me ? record : null; }
  catch { return null; }
}
function hold() {
  if (!watching && seats.includes(me)) localStorage.setItem(heldKey(), JSON.stringify({ me, game: game.name, seats }));
}
function forget() { if (roomId !== null) localStorage.removeItem(heldKey()); }

async function rejoined(record) {   // the lobby gave the seat back: the page is the game's again
  game = games.find((g) => g.name === record.game) || game;
  seats.splice(0, seats.length, ...record.seats);
  drawSeats();
  entered(roomId);
  status("playing");
  $("addbot").classList.add("hidden");
  document.body.dataset.game = game.name;
  document.body.dataset.rejoined = String(Number(document.body.dataset.rejoined || 0) + 1);
  if (!board) await loadBoard(game.name);
  logLine("back in the game");
  if (latest) show(latest);
  if (prompt) ask(prompt);
}

function status(value) { $("status").textContent = value; $("status").dataset.status = value; }

function drawSeats() {
  $("seats").replaceChildren();
  seats.forEach((name, i) => {
    const row = el("tr");
    row.dataset.seat = name;
    row.append(el("td", `P${i + 1}`), el("td", name + (name === me ? " (you)" : "")));
    $("seats").append(row);
  });
}

// -- drawing ------------------------------------------------------------------------------

function fit() { fitPicture($("board"), $("picture")); }
installZoom($("board"), $("picture"), $("zoom"), fit);   // targets big enough to hit (zoom.js)

function show(state) {
  $("caption").textContent = state.caption ? `step ${state.step}: ${state.caption}` : `step ${state.step}`;
  if (state.svg) {
    $("picture").innerHTML = state.svg;
    $("view").classList.add("hidden");
    fit();
  } else {   // a game whose secrets cannot be drawn: the view as text
    $("picture").textContent = "";
    $("view").textContent = JSON.stringify(state.state, null, 1);
    $("view").classList.remove("hidden");
  }
  if (board && board.mark && state.svg) {
    try { board.mark({ picture: $("picture"), seat: me, view: state.state }, { ...state, view: state.state }, null); }
    catch (e) { console.error(e); }
  }
}

// -- a person's move ----------------------------------------------------------------------

function boardUi() {
  return {
    picture: $("picture"),
    svg: $("picture").querySelector("svg"),
    seat: me,
    view: latest ? latest.state : null,
    frame: latest,
    prompt,
    choose(index) { move(prompt.choices[index].action); },
    send(action) { move(action); },
    // what the game's rules find wrong with tentative answers: the lobby's CHECK, 256 at a time
    check(actions) {
      if (prompt.event) return Promise.resolve(actions.map(() => "only the offered moves are taken"));
      const asked = [];
      for (let i = 0; i < actions.length; i += 256) {
        const results = actions.slice(i, i + 256);
        asked.push(new Promise((resolve) => { checks.push({ resolve, n: results.length }); request({ type: "CHECK", results }); }));
      }
      return Promise.all(asked).then((parts) => parts.flat());
    },
    ...boardControls(),
  };
}

function endPrompt(text) {
  prompt = null;
  closeTurn(text);
}

function move(action) {
  if (!prompt) return;
  $("refused").textContent = "";
  sentMove = prompt;
  if (prompt.event) request({ ...action, type: "GAME_EVENT" });
  else request({ type: "REPLY", call: prompt.call, result: action });
  counted("sent");
  endPrompt("move sent");
}

function ask(next) {
  endPrompt();
  if (!next.choices.length) return;
  prompt = next;
  counted("prompts");   // tells tests (and people) a new prompt came
  $("controls").classList.remove("hidden");
  offer(next.choices, (index) => move(next.choices[index].action));
  startClock(next.limit);
  if (board && latest) playOnBoard(board, boardUi(), "moves");
}

// -- the room ---------------------------------------------------------------------------------

async function loadBoard(name) {
  try { board = await import(`/boards/${encodeURIComponent(name)}.js`); }
  catch (e) { board = await import("/static/generic-board.js"); logLine(`the ${name} board did not load (${e})`); }
}

function roomLink(id) { return `${location.origin}/rooms/${id}`; }

function entered(id) {   // in a room: its link to share, and (while it fills) a bot for the next seat
  roomId = id;
  history.replaceState(null, "", `/rooms/${id}${watching ? "?watch=1" : ""}`);
  $("title").textContent = `${game ? game.name : ""} room ${id}`;
  $("sharelink").textContent = roomLink(id);
  $("sharelink").href = roomLink(id);
  $("share").classList.remove("hidden");
  if (!watching && game && game.bots.length) {
    $("strategy").replaceChildren(...game.bots.map((b) => { const o = el("option", b); o.value = b; return o; }));
    $("addbot").classList.remove("hidden");
  }
}

function roomRequest() {   // what this page asks of the lobby once logged in
  const settings = { person: true, views: true, pictures: true };
  if (watching) return { type: "WATCH_ROOM", id: roomId, views: true, pictures: true };
  if (roomId !== null) return { type: "ACCESS_ROOM", id: roomId, ...settings };
  const request = { type: "CREATE_ROOM", game: game.name, numberOfPlayers: Number(params.get("players")),
                    isPrivate: params.get("private") === "1", ...settings };
  for (const option of game.options) {
    if (!params.has(option.name)) continue;
    const text = params.get(option.name);
    if (option.kind === "flag") request[option.name] = text === "true" || text === "1" || text === "on";
    else if (option.kind === "int" || option.kind === "float") request[option.name] = text === "" ? null : Number(text);
    else if (option.kind === "list") request[option.name] = text.split(",").filter((v) => v);
    else request[option.name] = text === "" ? null : text;
  }
  return request;
}

let expecting = [];   // the requests sent, in order: the lobby answers them in order
const checks = [];    // the CHECKs waiting for their CHECKED, in order
function request(message) { expecting.push(message.type); send(message); }

function onAnswer(m) {   // ACK, NACK, ROOM_ID or GAMES: the answer to the oldest request
  const asked = expecting.shift();
  if (asked === "GET_GAME_STATE" && m.type === "NACK") {   // the seat was not held (or no more)
    forget();
    logLine(`your seat in this room was given up (${m.errorMessage})`);
    request(roomRequest());
    return;
  }
  if (asked === "CHECK") {   // a refused check (the call is over): nothing is legal any more
    const waiting = checks.shift();
    if (waiting) waiting.resolve(m.type === "CHECKED" ? m.problems : Array(waiting.n).fill(m.errorMessage));
    return;
  }
  if (m.type === "NACK") {
    $("refused").textContent = `refused: ${m.errorMessage}`;
    if (asked === "ACCESS_ROOM" || asked === "CREATE_ROOM" || asked === "WATCH_ROOM") {
      if (/only watches/.test(m.errorMessage)) {
        $("loginlink").href = `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
        $("login").classList.remove("hidden");
      }
      $("turn").textContent = "not in the room";
    } else if ((asked === "REPLY" || asked === "GAME_EVENT") && sentMove) {
      ask(sentMove);   // a refused move: the same decision again
    }
    return;
  }
  if (asked === "GET_GAMES") {
    games = m.games;
    if (roomId === null) {
      game = games.find((g) => g.name === params.get("game"));
      if (!game) { $("turn").textContent = `no game ${params.get("game")} in this lobby`; return; }
    }
    if (roomId !== null && !watching && held()) request({ type: "GET_GAME_STATE" });   // still seated?
    else request(roomRequest());
  } else if (m.type === "ROOM_ID") {
    entered(m.id);
    for (const strategy of bots) request({ type: "ADD_BOT", strategy });
  } else if (asked === "ACCESS_ROOM" || asked === "WATCH_ROOM") {
    entered(roomId);
  }
}

async function onStart(m) {
  game = games.find((g) => g.name === m.game) || games.find((g) => g.default) || game;
  status("playing");
  $("addbot").classList.add("hidden");
  $("title").textContent = `${game.name} room ${roomId}`;
  document.body.dataset.game = game.name;
  await loadBoard(game.name);
  // a spectator's START_GAME before its WATCH_ROOM's ACK: the lobby tells one who comes
  // mid-game that the game started (its state follows), as the room was told
  const late = watching && expecting[0] === "WATCH_ROOM";
  if (late) $("turn").textContent = "watching a game under way";
  logLine(late ? `a game under way: ${seats.join(", ")}` : `the game starts: ${seats.join(", ")}`);
  hold();
  if (latest) show(latest);
  if (prompt) ask(prompt);
}

// A state of a game already under way when this page came (a spectator joining mid-game, no
// START_GAME for it): the room is playing; its game's board (for the marks of the last
// move) is the one the message names, else the one the lobby's listing gives the room.
async function underWay(m) {
  status("playing");
  $("addbot").classList.add("hidden");
  if (!$("turn").textContent) $("turn").textContent = watching ? "watching a game under way" : "";
  let name = m.game || (game && game.name);
  if (!name) {
    try {
      const listing = await (await fetch("/api/lobby")).json();
      const room = (listing.rooms || []).find((r) => r.id === roomId);
      name = room && room.game;
    } catch (e) { console.error(e); }
  }
  game = games.find((g) => g.name === name) || game;
  if (game) {
    $("title").textContent = `${game.name} room ${roomId}`;
    document.body.dataset.game = game.name;
    if (!board) await loadBoard(game.name);
  }
}

async function onState(m) {
  if (!over && $("status").dataset.status !== "playing") await underWay(m);
  latest = m;
  if (m.step > shownStep) {   // a reconnect's state was told already
    for (const line of m.narration || []) if (line.trim()) logLine(line.trimEnd(), line.startsWith(" ") ? "aside" : "");
    shownStep = m.step;
  }
  if (board || !game) show(m);
  const current = m.state && typeof m.state.currentPlayer === "number" ? seats[m.state.currentPlayer] : null;
  if (over) return;
  markTurn($("seats"), current);
  if (m.moves) ask({ choices: m.moves, method: "act", event: true, limit: m.limit });
  else if (prompt && prompt.event) endPrompt(current ? turnText(current) : "");
  else if (!prompt && current && current !== me) $("turn").textContent = turnText(current);
  else if (!prompt && $("turn").textContent === "move sent") $("turn").textContent = "the others play";
}

function onEnd(m) {
  over = true;
  forget();
  endPrompt("game over");
  markWinners($("seats"), m.winners || []);
  status("over");
  for (const line of m.narration || []) if (line.trim()) logLine(line.trimEnd());
  $("winners").textContent = m.error ? `stopped: ${m.error}` : `winners: ${(m.winners || []).join(", ") || "none"}`;
}

async function onMessage(m) {
  switch (m.type) {
    case "RELAY":
      me = m.username;
      $("you").textContent = m.guest ? `guest ${me} (watching)` : `you are ${me}`;
      expecting = ["LOGIN"];
      break;
    case "ACK": case "NACK": case "ROOM_ID": case "GAMES": case "CHECKED":
      if (m.fatal) { $("turn").textContent = m.errorMessage; gaveUp = true; break; }
      if (expecting[0] === "LOGIN") {
        expecting.shift();
        if (m.type === "NACK" && m.errorMessage === "Username was already taken" && (held() || opened > 1)) {
          socket.close();   // the lobby has not yet seen the lost connection go: try again
          break;
        }
        if (m.type === "NACK") { $("turn").textContent = `the lobby refused ${me}: ${m.errorMessage}`; gaveUp = true; break; }
        retry = 500;
        request({ type: "GET_GAMES" });
      } else {
        onAnswer(m);
      }
      break;
    case "ADD_PLAYER":
      seats[m.position] = m.username;
      drawSeats();
      if (!over && $("status").dataset.status !== "playing") status(`waiting for players (${seats.length} seated)`);
      break;
    case "PLAYER_DISCONNECT":
      logLine(`${m.username} left (${m.reason}${m.message ? `: ${m.message}` : ""})`);
      if (m.roomClosed) { over = true; forget(); endPrompt("the room was closed"); status("closed"); }
      else if ($("status").dataset.status !== "playing") { seats.splice(seats.indexOf(m.username), 1); drawSeats(); }
      if (m.username === me) { forget(); endPrompt("you are out of the game"); }
      break;
    case "START_GAME": await onStart(m); break;
    case "GAME_STATE":
      if (expecting[0] === "GET_GAME_STATE") { expecting.shift(); await rejoined(held() || { game: game && game.name, seats }); }
      if ("step" in m) await onState(m);
      break;
    case "CALL":
      if (!m.oneWay) ask({ choices: m.moves || [], method: m.method, call: m.call, limit: m.limit });
      break;
    case "END_GAME": onEnd(m); break;
    default: break;   // a game's own broadcasts: its views tell the same
  }
}

$("bot").addEventListener("click", () => request({ type: "ADD_BOT", strategy: $("strategy").value }));

let opened = 0;   // websockets this page opened (a reconnect's LOGIN may find its old one not yet gone)
function connect() {
  opened += 1;
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/lobby/ws`);
  let queue = Promise.resolve();   // one message at a time, in order (a board module loads meanwhile)
  socket.addEventListener("message", (message) => {
    const m = JSON.parse(message.data);
    queue = queue.then(() => onMessage(m)).catch((e) => console.error(e));
  });
  socket.addEventListener("close", () => {
    for (const waiting of checks.splice(0)) waiting.resolve(Array(waiting.n).fill("the connection was lost"));
    expecting = [];
    if (over || gaveUp) return;
    endPrompt(`the connection to the lobby was lost: trying again in ${(retry / 1000).toFixed(1)} s`);
    status("reconnecting");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  });
}

await showAccount();
if (roomId === null && !params.get("game")) $("turn").textContent = "no game named: /rooms/new?game=...&players=N";
else if (roomId !== null && !Number.isInteger(roomId)) $("turn").textContent = "not a room id";
else connect();
