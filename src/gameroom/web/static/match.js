// The match page: the live board over the match's websocket (players and spectators), whose
// turn with its clock, the events, a person's moves made on the board through the game's
// board module (/boards/{game}.js, docs/boards.md), the result, and a replay scrubber at
// the end. A connection lost before the end is made again and the page restored from the
// frames the room sends a new connection. Under /results/games/{id} the same page shows a
// game stored in the results database: its seats, result and ejections, and its replay.
import { showAccount } from "/static/session.js";
import { boardControls, fit as fitPicture, tell } from "/static/picture.js";
import { counted, endPrompt as closeTurn, offer, playOnBoard, startClock } from "/static/prompt.js";
import { installZoom } from "/static/zoom.js";
import { drawScores, markTurn, markWinners, scoreText, turnText } from "/static/seats.js";
import { StoredSteps } from "/static/steps.js";

const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.split("/").pop());
const stored = location.pathname.startsWith("/results/games/");
const replayUrl = stored ? `/api/results/games/${id}/replay` : `/api/matches/${id}/replay`;
const params = new URLSearchParams(location.search);
const seat = params.get("seat");
let states = [];           // the replay's frames, once the match is over
let source = null;         // the replay's steps: the frames above, or a stored game's pages (steps.js)
let shownAt = 0;           // the step asked for last (a page that comes late does not move the page back)
let latest = null;         // the newest state frame, drawn at the next animation frame
let prior = null;          // the one before it (its board module marks what changed)
let drawn = null;
let pending = null;        // the prompt waiting for this person's move
let board = null;          // the game's board module
let socket = null;
let over = false;
let fatal = false;
let asks = 0;
const waiting = new Map(); // check requests waiting for their "checked" frame
const toldOut = new Set(); // seats whose ejection the events already tell (once each)

function el(tag, text) { const n = document.createElement(tag); n.textContent = text; return n; }

// -- drawing ------------------------------------------------------------------------------

function fit() { fitPicture($("board"), $("picture")); }

function show(frame) {
  $("caption").textContent = frame.caption === `step ${frame.step}` ? frame.caption : `step ${frame.step}: ${frame.caption}`;
  if (frame.svg) {
    $("picture").innerHTML = frame.svg;
    $("view").classList.add("hidden");
    fit();
  } else if (frame.view === null || frame.view === undefined) {   // a stored game's call, without a picture
    $("picture").textContent = frame.caption;
    $("view").classList.add("hidden");
  } else {   // a game whose secrets cannot be drawn: its view as text
    $("picture").textContent = "";
    $("view").textContent = JSON.stringify(frame.view, null, 1);
    $("view").classList.remove("hidden");
  }
}

let scheduled = false;
function redraw() {   // at most once per animation frame: a reconnect's history comes in a burst
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    if (states.length) return;
    if (latest && latest !== drawn) {
      show(latest);
      if (board && board.mark && latest.svg) {
        try { board.mark(boardUi(), latest, prior); } catch (e) { console.error(e); }
      }
      drawn = latest;
      if (pending) interact();
    }
  });
}

installZoom($("board"), $("picture"), $("zoom"), fit);   // targets big enough to hit (zoom.js)

// -- a person's move ----------------------------------------------------------------------

function boardUi() {
  return {
    picture: $("picture"),
    svg: $("picture").querySelector("svg"),
    seat,
    view: latest ? latest.view : null,
    frame: latest,
    prompt: pending,
    choose(index) { sendMove({ choice: index }); },
    send(action) { sendMove({ action }); },
    check(actions) {
      const ask = ++asks;
      socket.send(JSON.stringify({ check: actions, ask }));
      return new Promise((resolve) => waiting.set(ask, resolve));
    },
    ...boardControls(),
  };
}

function interact() {
  if (pending && board) playOnBoard(board, boardUi(), "actions");
}

function endPrompt(text) {
  pending = null;
  closeTurn(text);
}

function sendMove(value) {
  $("refused").textContent = "";
  socket.send(JSON.stringify(value));
  if ("choice" in value || "action" in value) {
    counted("sent");
    endPrompt("move sent");
  }
}

function prompt(frame) {
  endPrompt();
  counted("prompts");   // tells tests (and people) a new prompt came
  if (!frame.choices.length) {   // no decision: the prompt is gone (the room's message says why, if it says)
    if (frame.message) $("turn").textContent = frame.message;
    return;
  }
  pending = frame;
  offer(frame.choices, (index) => sendMove({ choice: index }));
  startClock(frame.limit, frame.deadline);
  if (drawn === latest) interact(); else redraw();
}

// -- the rest of the page -------------------------------------------------------------------

function logEvent(text) { tell($("events"), text); }

function logNarration(lines) {   // the narrator's lines, one per move, as gameroom play prints them
  for (const line of lines || []) if (line.trim()) tell($("events"), line.trimEnd(), line.startsWith(" ") ? "aside" : "");
}

// -- who sits where -------------------------------------------------------------------------

const seated = new Map();   // seat name -> the hello frame's seat ({name, player, account?})

// A seat as people know it: its account's name (the hello frame's `account`, once the room
// knows it) or a bot's strategy, with the seat; else the seat's name.
function who(seatName) {
  const s = seated.get(seatName);
  if (!s) return seatName;
  if (s.account) return `${s.account} (${seatName})`;
  return s.player === "human" ? seatName : `${s.player} (${seatName})`;
}

function status(value) {
  $("status").textContent = value;
  $("status").dataset.status = value;
}

function seats(match) {
  $("seats").replaceChildren();
  seated.clear();
  for (const s of match.seats) {
    seated.set(s.name, s);
    const row = document.createElement("tr");
    row.dataset.seat = s.name;
    const player = s.account || (s.player === "human" ? "a person" : s.player);
    row.append(el("td", s.name), el("td", player + (s.name === seat ? " (you)" : "")));
    $("seats").append(row);
  }
}

function finish(result) {
  over = true;
  endPrompt("game over");
  markWinners($("seats"), result.winners);
  $("winners").textContent = result.error ? `stopped: ${result.error}`
    : `winners: ${result.winners.join(", ") || "none"}`;
  drawScores($("scores"), result.scores, who);
  for (const e of result.ejected) if (!toldOut.has(e.seat)) logEvent(`ejected: ${e.seat} (${e.reason})`);
  startReplay();
}

async function startReplay() {
  if (boardLoaded) await boardLoaded;
  const reply = await fetch(replayUrl);
  const text = await reply.text();
  if (!reply.ok) { logEvent(`no replay: ${text}`); return; }
  // the check's verdict in the command line's words (gameroom replay verify)
  const verdict = reply.headers.get("x-replay-verified");
  const message = reply.headers.get("x-replay-message");
  if (verdict === "no") logEvent(`the replay differs from the rules' re-run${message ? ` at ${message}` : ""}`);
  else if (message) logEvent(message);
  states = text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
  if (!states.length) { $("picture").textContent = "no steps to show"; return; }
  source = { length: states.length, done: true, frame: async (i) => states[i], here: (i) => states[i] || null };
  $("replay").classList.remove("hidden");
  $("scrub").max = String(states.length - 1);
  goTo(states.length - 1);
}

// A stored game: its steps a page at a time, the first shown as soon as it comes (the rest
// of a long game is still being re-run); the count, then the total and the check's verdict
// in the command line's words (gameroom replay verify) when the re-run is over.
// Asked for as the page starts, beside the game's summary and board: the first picture waits
// for nothing else.
function askStored() {
  const steps = new StoredSteps(id, (changed) => {
    if (source !== steps) return;
    $("scrub").max = String(Math.max(0, changed.length - 1));
    stepInfo(Number($("scrub").value));
    if (changed.done) verdict(changed.verified, changed.message);
  });
  return { steps, started: steps.start() };
}

async function startStored({ steps, started }) {
  source = steps;
  try {
    await started;
  } catch (e) {
    logEvent(`no replay: ${e.message}`);
    $("picture").textContent = "";
    return;
  }
  if (!steps.length) { $("picture").textContent = "no steps to show"; return; }
  $("replay").classList.remove("hidden");
  $("scrub").max = String(steps.length - 1);
  await goTo(0);
}

let told = false;
function verdict(verified, message) {
  if (told) return;
  told = true;
  if (verified === "no") logEvent(`the replay differs from the rules' re-run${message ? ` at ${message}` : ""}`);
  else if (message) logEvent(message);
}

function stepInfo(index) {
  const more = source.done ? "" : " so far (the game is being re-run)";
  $("stepinfo").textContent = `step ${index + 1} of ${source.length}${more}`;
}

async function goTo(index) {
  index = Math.max(0, Math.min(source.length - 1, index));
  shownAt = index;
  $("scrub").value = String(index);
  stepInfo(index);
  const frame = await source.frame(index);
  if (shownAt !== index || !frame) return;   // another step was asked for meanwhile
  show(frame);
  const before = source.here(index - 1);
  if (board && board.mark && frame.svg) {
    try { board.mark({ picture: $("picture"), seat, view: frame.view }, frame, before); }
    catch (e) { console.error(e); }
  }
  $("picture").dataset.step = String(index + 1);   // tells tests (and people) which step is drawn
}

$("scrub").addEventListener("input", () => goTo(Number($("scrub").value)));
$("first").addEventListener("click", () => goTo(0));
$("last").addEventListener("click", () => goTo(source.length - 1));
$("back").addEventListener("click", () => goTo(Number($("scrub").value) - 1));
$("forward").addEventListener("click", () => goTo(Number($("scrub").value) + 1));
$("send").addEventListener("click", () => {
  let action;
  try { action = JSON.parse($("raw").value); } catch { $("refused").textContent = "that is not JSON"; return; }
  $("refused").textContent = "";
  socket.send(JSON.stringify({ action }));
});

let boardLoaded = null;   // the promise of the board module (a replay waits for its marks)
function loadBoard(game) {
  boardLoaded = boardLoaded || (async () => {
    try { board = await import(`/boards/${encodeURIComponent(game)}.js`); }
    catch (e) { board = await import("/static/generic-board.js"); logEvent(`the ${game} board did not load (${e}): the generic board is used`); }
  })();
  return boardLoaded;
}

async function showStored() {
  const asked = askStored();
  asked.started.catch(() => {});   // said when it is awaited, below
  const reply = await fetch(`/api/results/games/${id}`);
  const game = await reply.json();
  if (!reply.ok) { $("picture").textContent = ""; $("turn").textContent = game.error; return; }
  loadBoard(game.game);   // for the marks of the steps after the first
  const where = game.league ? `league ${game.league} #${game.index}` : (game.tournament || "");
  $("title").textContent = `stored ${game.game} game #${game.id} (${where}${game.seed !== null ? `, seed ${game.seed}` : ""})`;
  $("you").textContent = `finished ${game.finished_at.replace("T", " ").slice(0, 19)}`;
  status("over");
  $("seats").replaceChildren();
  const head = document.createElement("tr");
  for (const h of ["seat", "bot", "rank", "score", ""]) head.append(el("th", h));
  $("seats").append(head);
  for (const s of game.seats) {
    const row = document.createElement("tr");
    row.append(el("td", `P${s.position + 1}`), el("td", s.bot), el("td", String(s.rank)),
               el("td", scoreText(s.score)),
               el("td", s.winner ? "winner" : (s.ejected ? "ejected" : "")));
    $("seats").append(row);
  }
  $("winners").textContent = `winners: ${game.winners.join(", ") || "none"}`;
  for (const e of game.ejected) logEvent(`ejected: ${e.seat} on ${e.method} [${e.kind}] (${e.reason})`);
  await startStored(asked);
}

// -- the connection -------------------------------------------------------------------------

let retry = 500;
function connect() {
  const query = seat ? `?seat=${encodeURIComponent(seat)}&token=${encodeURIComponent(params.get("token") || "")}` : "";
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/matches/${id}/ws${query}`);
  let fresh = true;
  socket.addEventListener("message", async (message) => {
    const frame = JSON.parse(message.data);
    switch (frame.type) {
      case "hello":
        retry = 500;
        if (fresh) {   // a new connection sends the whole story again: start the page afresh
          fresh = false;
          $("events").replaceChildren();
          endPrompt("");
          latest = prior = drawn = null;
        }
        $("title").textContent = `${frame.match.game} match ${frame.match.id} (seed ${frame.match.seed})`;
        $("you").textContent = seat ? `you are ${seat}` : "spectator";
        document.body.dataset.game = frame.match.game;
        status(frame.match.status);
        seats(frame.match);
        if (frame.match.status === "waiting") $("turn").textContent = "waiting for every person to sit down";
        if (!board) {   // frames that come meanwhile are handled at once; the board joins when loaded
          await loadBoard(frame.match.game);
          drawn = null;   // drawn again with the board's marks, and its targets if a prompt came meanwhile
          redraw();
        }
        break;
      case "status":
        status(frame.status);
        if (frame.status === "running" && !pending) $("turn").textContent = "";
        break;
      case "state":
        logNarration(frame.narration);   // the caption sums these lines up on the picture
        prior = latest;
        latest = frame;
        redraw();
        break;
      case "turn":
        if (over) break;
        markTurn($("seats"), frame.seat);
        if (frame.seat !== seat) {
          endPrompt(turnText(frame.who || who(frame.seat), frame.asks));
          startClock(frame.limit, frame.deadline);
        }
        break;
      case "prompt": prompt(frame); break;
      case "checked": {
        const resolve = waiting.get(frame.ask);
        waiting.delete(frame.ask);
        if (resolve) resolve(frame.problems || []);
        break;
      }
      case "refused":
        $("refused").textContent = `refused: ${frame.message}`;
        break;
      case "event":
        if (frame.ejected) {   // one line says who is out and why; the narrator's own lines follow
          toldOut.add(frame.ejected);
          logEvent(frame.text);
          logNarration(frame.narration);
        } else if (frame.narration && frame.narration.length) logNarration(frame.narration);
        else logEvent(frame.text);
        break;
      case "end": status("over"); finish(frame.result); break;
      case "error":
        if (frame.fatal) {
          fatal = true;
          $("turn").textContent = frame.message;
          if (frame.login) {   // a person's seat needs a log-in: come back here after it
            $("loginlink").href = `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
            $("login").classList.remove("hidden");
          }
          if (frame.stored) window.location = frame.stored;   // over, and kept in the results database
        } else {
          $("refused").textContent = frame.message;
        }
        break;
    }
  });
  socket.addEventListener("close", () => {
    for (const resolve of waiting.values()) resolve([]);
    waiting.clear();
    if (over || fatal || $("status").dataset.status === "over") return;
    status("reconnecting");   // the room may be restarting: its journal gives the match back
    logEvent(`connection lost: trying again in ${(retry / 1000).toFixed(1)} s`);
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  });
}

if (stored) {
  showAccount();
  await showStored();
} else {
  await showAccount();
  connect();
}
