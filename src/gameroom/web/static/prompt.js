// What the match page and the room page share of a person's prompt (#play, #turn, #choices,
// #clock, #controls): the keyboard's fallback list of every legal answer, the clock of the
// time left, the game's board module asked to play it, the counters tests (and people) read
// on <body> (data-prompts: prompts come; data-sent: moves sent), and ending it.

import { closePrompt } from "/static/picture.js";
import { newPrompt } from "/static/zoom.js";

const $ = (id) => document.getElementById(id);
let clock = null;

// One more of `key` on <body>'s data set (a new prompt, a move sent): tests wait for it.
export function counted(key) {
  document.body.dataset[key] = String(Number(document.body.dataset[key] || 0) + 1);
}

export function stopClock() { if (clock) clearInterval(clock); clock = null; $("clock").textContent = ""; }

// The time left of `limit` seconds (none: no clock), ending at `deadline` (epoch seconds)
// when that is sooner: a page restored mid-turn, the time already gone.
export function startClock(limit, deadline = null) {
  stopClock();
  if (!limit) return;
  let ends = Date.now() + limit * 1000;
  if (deadline) ends = Math.min(ends, deadline * 1000);
  const tick = () => {
    const left = Math.max(0, (ends - Date.now()) / 1000);
    $("clock").textContent = `${left.toFixed(0)} s left of ${limit} s`;
    $("clock").classList.toggle("low", left < Math.min(10, limit / 3));
  };
  tick();
  clock = setInterval(tick, 250);
}

// The prompt is over (answered, gone, the game ended): its clock, list and board put away;
// `text` (if any) says so where "your turn" stood.
export function endPrompt(text) {
  stopClock();
  closePrompt();
  if (text !== undefined) $("turn").textContent = text;
}

// "your turn", and a button per legal answer (the keyboard's fallback): `pick(index)`.
export function offer(choices, pick) {
  $("play").classList.remove("hidden");
  $("turn").textContent = "your turn";
  choices.forEach((choice, index) => {
    const button = document.createElement("button");
    button.textContent = choice.label;
    button.type = "button";
    button.dataset.choice = String(index);
    button.addEventListener("click", () => pick(index));
    $("choices").append(button);
  });
}

// The game's board module plays the prompt through `ui` (docs/boards.md); a board that
// fails leaves the list of legal `answers` to the person.
export function playOnBoard(board, ui, answers) {
  $("controls").classList.remove("hidden");
  newPrompt();
  ui.clear();
  try { board.play(ui); } catch (e) { console.error(e); ui.say(`the board failed (${e}): use the list of legal ${answers}`); }
}
