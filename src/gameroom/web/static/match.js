// The match page: live pictures over the match's websocket, whose turn, the events, a
// person's choices with the time left, the result, and a replay scrubber at the end.
// Under /results/games/{id} the same page shows a game stored in the results database:
// its seats, result and ejections, and its replay to scrub.
import { showAccount } from "/static/session.js";

const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.split("/").pop());
const stored = location.pathname.startsWith("/results/games/");
const replayUrl = stored ? `/api/results/games/${id}/replay` : `/api/matches/${id}/replay`;
const params = new URLSearchParams(location.search);
const seat = params.get("seat");
let states = [];
let clock = null;

function el(tag, text) { const n = document.createElement(tag); n.textContent = text; return n; }

function show(frame) {
  $("caption").textContent = frame.caption === `step ${frame.step}` ? frame.caption : `step ${frame.step}: ${frame.caption}`;
  if (frame.svg) {
    $("picture").innerHTML = frame.svg;
    $("view").classList.add("hidden");
  } else {   // a game whose secrets cannot be drawn: its view as text
    $("picture").textContent = "";
    $("view").textContent = JSON.stringify(frame.view, null, 1);
    $("view").classList.remove("hidden");
  }
}

function logEvent(text) {
  const item = el("li", text);
  $("events").append(item);
  $("events").scrollTop = $("events").scrollHeight;
}

function status(value) {
  $("status").textContent = value;
  $("status").dataset.status = value;
}

function stopClock() { if (clock) clearInterval(clock); clock = null; $("clock").textContent = ""; }

let prompts = 0;
function prompt(frame) {
  stopClock();
  document.body.dataset.prompts = String(++prompts);   // tells tests (and people) a new prompt came
  $("choices").replaceChildren();
  if (!frame.choices.length) { $("play").classList.add("hidden"); return; }
  $("play").classList.remove("hidden");
  $("turn").textContent = "your turn";
  frame.choices.forEach((choice, index) => {
    const button = el("button", choice.label);
    button.type = "button";
    button.dataset.choice = String(index);
    button.addEventListener("click", () => {   // an offered action is taken: the prompt is done
      move({ choice: index });
      stopClock();
      $("choices").replaceChildren();
      $("play").classList.add("hidden");
      $("turn").textContent = "move sent";
    });
    $("choices").append(button);
  });
  if (frame.limit) {
    const deadline = Date.now() + frame.limit * 1000;
    const tick = () => {
      const left = Math.max(0, (deadline - Date.now()) / 1000);
      $("clock").textContent = `${left.toFixed(1)} s left of ${frame.limit} s`;
      $("clock").classList.toggle("low", left < Math.min(5, frame.limit / 3));
    };
    tick();
    clock = setInterval(tick, 100);
  }
}

let socket;
function move(value) {
  $("refused").textContent = "";
  socket.send(JSON.stringify(value));
}

function seats(match) {
  $("seats").replaceChildren();
  for (const s of match.seats) {
    const row = document.createElement("tr");
    row.append(el("td", s.name), el("td", s.player + (s.name === seat ? " (you)" : "")));
    $("seats").append(row);
  }
}

function finish(result) {
  stopClock();
  $("play").classList.add("hidden");
  $("turn").textContent = "";
  $("winners").textContent = result.error ? `stopped: ${result.error}`
    : `winners: ${result.winners.join(", ") || "none"}`;
  $("scores").replaceChildren();
  for (const [name, score] of Object.entries(result.scores || {})) {
    const row = document.createElement("tr");
    row.append(el("td", name), el("td", typeof score === "object" ? JSON.stringify(score) : String(score)));
    $("scores").append(row);
  }
  for (const e of result.ejected) logEvent(`ejected: ${e.seat} (${e.reason})`);
  startReplay();
}

async function startReplay() {
  const reply = await fetch(replayUrl);
  const text = await reply.text();
  if (!reply.ok) { logEvent(`no replay: ${text}`); return; }
  if (reply.headers.get("x-replay-verified") === "no") logEvent("the replay differs from the rules' re-run");
  states = text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
  if (!states.length) { $("picture").textContent = "no steps to show"; return; }
  $("replay").classList.remove("hidden");
  $("scrub").max = String(states.length - 1);
  goTo(states.length - 1);
}

function goTo(index) {
  index = Math.max(0, Math.min(states.length - 1, index));
  $("scrub").value = String(index);
  $("stepinfo").textContent = `step ${index + 1} of ${states.length}`;
  show(states[index]);
}

$("scrub").addEventListener("input", () => goTo(Number($("scrub").value)));
$("first").addEventListener("click", () => goTo(0));
$("last").addEventListener("click", () => goTo(states.length - 1));
$("back").addEventListener("click", () => goTo(Number($("scrub").value) - 1));
$("forward").addEventListener("click", () => goTo(Number($("scrub").value) + 1));
$("send").addEventListener("click", () => {
  let action;
  try { action = JSON.parse($("raw").value); } catch { $("refused").textContent = "that is not JSON"; return; }
  move({ action });
});

async function showStored() {
  const reply = await fetch(`/api/results/games/${id}`);
  const game = await reply.json();
  if (!reply.ok) { $("picture").textContent = ""; $("turn").textContent = game.error; return; }
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
               el("td", s.score === null ? "" : (typeof s.score === "object" ? JSON.stringify(s.score) : String(s.score))),
               el("td", s.winner ? "winner" : (s.ejected ? "ejected" : "")));
    $("seats").append(row);
  }
  $("winners").textContent = `winners: ${game.winners.join(", ") || "none"}`;
  for (const e of game.ejected) logEvent(`ejected: ${e.seat} on ${e.method} [${e.kind}] (${e.reason})`);
  await startReplay();
}

await showAccount();
if (stored) {
  await showStored();
} else {
  connect();
}

function connect() {
  const query = seat ? `?seat=${encodeURIComponent(seat)}&token=${encodeURIComponent(params.get("token") || "")}` : "";
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/matches/${id}/ws${query}`);
  socket.addEventListener("message", (message) => {
    const frame = JSON.parse(message.data);
    switch (frame.type) {
      case "hello":
        $("title").textContent = `${frame.match.game} match ${frame.match.id} (seed ${frame.match.seed})`;
        $("you").textContent = seat ? `you are ${seat}` : "spectator";
        status(frame.match.status);
        seats(frame.match);
        if (frame.match.status === "waiting") $("turn").textContent = "waiting for every person to sit down";
        break;
      case "status": status(frame.status); break;
      case "state":
        if (!frame.caption.startsWith("step ")) logEvent(frame.caption);
        if (!states.length) show(frame);
        break;
      case "turn":
        if (frame.seat !== seat) $("turn").textContent = `to play: ${frame.seat} (${frame.method})`;
        break;
      case "prompt": prompt(frame); break;
      case "refused": $("refused").textContent = `refused: ${frame.message}`; break;
      case "event": logEvent(frame.text); break;
      case "end": status("over"); finish(frame.result); break;
      case "error":
        if (frame.fatal) {
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
  socket.addEventListener("close", () => { if ($("status").dataset.status !== "over") logEvent("connection closed"); });
}
