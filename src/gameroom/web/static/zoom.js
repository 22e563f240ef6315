// How big the board is drawn, so that every target a person may click is big enough for a
// mouse or a thumb (docs/boards.md, "Targets a finger can hit"): at least 24 px on a
// laptop and 44 px on a phone. The picture is first fitted to the window (picture.js); when
// a prompt's targets are smaller than that there, the board zooms in on them by itself (the
// layout grows the pieces being chosen) and scrolls inside its box to show them. A person
// may ask for the whole board (the zoom button): targets still too small there are only
// marked ("far": not clickable, pointer events pass through) and a tap on the board zooms
// into the region tapped. Focusing a far target with the keyboard zooms to it too.
// The shapes stay the same nodes throughout: zooming only scales the <svg>.
// Text of the picture that would be drawn under READABLE px at the current zoom is not
// shown ("fine": hidden, recomputed after every fit, zoom and resize); it appears when the
// person zooms in (the zoom button and a tap zoom to READABLE). What a person needs to
// decide a move stays readable: the text of the targets (an island's towers, a card's
// trait) is part of them, so the board zooms until it is readable as it does until they
// are big enough; a step made with buttons alone (confirm, "buy nothing") zooms to read.

export const NARROW = 700;     // px: a window narrower than this is a phone's
const MAX_ZOOM = 12;           // never more than this over the fitted picture
const MARGIN = 1.06;           // a target is made this much bigger than the least allowed
const READABLE = 12;           // px: the smallest text shown, and what a zoom for reading reaches

const state = {
  zoom: 1,        // the scale over the fitted picture (1: the whole board)
  whole: false,   // the person asked for the whole board
  manual: null,   // a zoom the person chose (a tap on a region, the zoom button)
  refit: null,    // redraws the picture at the current zoom (picture.js's fit of this page)
  board: null,
  picture: null,
  button: null,
  scheduled: false,
};

// The least size (px) of a target on this screen: a thumb's on a phone, a mouse's elsewhere.
export function least() {
  const coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  return window.innerWidth < NARROW || coarse ? 44 : 24;
}

export function zoomLevel() { return state.zoom; }

function size(node) { const r = node.getBoundingClientRect(); return Math.min(r.width, r.height); }

// The page's board: `refit()` draws the picture again at zoomLevel() (picture.js's fit).
export function installZoom(board, picture, button, refit) {
  Object.assign(state, { board, picture, button, refit });
  window.addEventListener("resize", () => { refit(); scheduleSettle(); });
  const controls = document.getElementById("controls");   // its height is taken from the board's
  if (controls && window.ResizeObserver) new ResizeObserver(() => { refit(); scheduleSettle(); }).observe(controls);
  // a tap on the board outside every target: zoom into that region (when there is a reason to)
  board.addEventListener("click", (event) => {
    if (event.defaultPrevented || !picture.querySelector("svg")) return;
    const factor = regionZoom(event.clientX, event.clientY);
    if (factor > 1.01) zoomAround(factor, event.clientX, event.clientY);
  });
  picture.addEventListener("focusin", (event) => {   // the keyboard reached a far target: show it
    const node = event.target.closest && event.target.closest(".far");
    if (node) zoomTo(node);
  });
  button.addEventListener("click", () => {
    if (state.zoom > 1.01) { state.whole = true; state.manual = null; apply(1); settle(); return; }
    state.whole = false;
    const targets = [...picture.querySelectorAll(".far")];
    const factor = Math.max(2, readingZoom(), ...targets.map((n) => least() * MARGIN / (size(n) / state.zoom)));
    state.manual = Math.min(MAX_ZOOM, factor);
    const box = (targets[0] || picture.querySelector("svg")).getBoundingClientRect();
    zoomAround(state.manual, box.left + box.width / 2, box.top + box.height / 2);
  });
  label();
}

// A new prompt: the board chooses its zoom again (what the person chose was for the last one).
export function newPrompt() { state.whole = false; state.manual = null; }

// Targets changed (board.js's target(), clearTargets): settle once the board module is done.
export function scheduleSettle() {
  if (state.scheduled || !state.picture) return;
  state.scheduled = true;
  queueMicrotask(() => { state.scheduled = false; settle(); });
}

function label() {
  if (!state.button) return;
  const zoomed = state.zoom > 1.01;
  state.button.textContent = zoomed ? "whole board" : "zoom in";
  state.button.setAttribute("aria-pressed", String(zoomed));
  state.button.setAttribute("aria-label", zoomed ? "show the whole board" : "zoom in on the board");
}

function apply(zoom) {
  state.zoom = Math.max(1, Math.min(MAX_ZOOM, zoom));
  label();
  if (state.refit) state.refit();
}

// The size (px) a text of the picture is drawn at: its font size in the picture's units
// times the scale from them to the screen (0 when it is not drawn: a hidden layout's).
function textSize(node) {
  const ctm = node.getScreenCTM && node.getScreenCTM();
  if (!ctm || !node.getClientRects().length) return 0;
  return parseFloat(getComputedStyle(node).fontSize) * Math.sqrt(Math.abs(ctm.a * ctm.d - ctm.b * ctm.c));
}

// Hide the picture's text too small to read at the current zoom, show the rest.
export function markFine(picture = state.picture) {
  if (!picture) return;
  for (const node of picture.querySelectorAll("svg text")) {
    const drawn = textSize(node);
    node.classList.toggle("fine", drawn > 0 && drawn < READABLE - 0.01);
  }
}

// The zoom that makes the smallest of these texts readable (1: it is already); by default
// the whole picture's.
function readingZoom(texts = state.picture.querySelectorAll("svg text")) {
  const sizes = [...texts].map(textSize).filter((size) => size > 0);
  if (!sizes.length) return 1;
  return Math.max(1, READABLE * 1.02 / (Math.min(...sizes) / state.zoom));
}

// A move is being made with the board's buttons alone (no target on the picture): the
// person reads the board to decide, so it is zoomed for reading rather than shown whole.
function buttonsOnly() {
  return Boolean(document.querySelector("#controls:not(.hidden) #buttons button"));
}

// How much a tap at (x, y) zooms: enough for the far target nearest to it, else (no move
// being made: watching) enough to read; 1 when zoomed in already.
function regionZoom(x, y) {
  if (state.zoom > 1.01) return 1;
  let nearest = null, best = Infinity;
  for (const node of state.picture.querySelectorAll(".far")) {
    const r = node.getBoundingClientRect();
    const d = Math.hypot(r.left + r.width / 2 - x, r.top + r.height / 2 - y);
    if (d < best) { best = d; nearest = node; }
  }
  if (nearest && best < 160) return Math.min(MAX_ZOOM, least() * MARGIN / size(nearest));
  if (state.picture.querySelector(".target")) return 1;   // a move's targets are all big: a missed click
  return Math.min(MAX_ZOOM, readingZoom());
}

// Zoom to `factor` over the fitted picture, keeping the picture's point under (x, y) (a tap,
// the middle of a target) in the middle of the board's box.
function zoomAround(factor, x, y) {
  const svg = state.picture.querySelector("svg");
  const before = svg.getBoundingClientRect();
  const fx = (x - before.left) / before.width, fy = (y - before.top) / before.height;
  state.whole = false;
  state.manual = factor;
  apply(factor);
  centre(fx, fy);
  settle();
}

function zoomTo(node) {
  const r = node.getBoundingClientRect();
  zoomAround(Math.min(MAX_ZOOM, least() * MARGIN / (size(node) / state.zoom)), r.left + r.width / 2, r.top + r.height / 2);
}

// Scroll the board's box so the picture's point at fractions (fx, fy) of its size is in its middle.
function centre(fx, fy) {
  const svg = state.picture.querySelector("svg");
  const board = state.board;
  const box = svg.getBoundingClientRect(), frame = board.getBoundingClientRect();
  const offsetX = box.left - frame.left + board.scrollLeft, offsetY = box.top - frame.top + board.scrollTop;
  board.scrollLeft = offsetX + fx * box.width - board.clientWidth / 2;
  board.scrollTop = offsetY + fy * box.height - board.clientHeight / 2;
}

// Make a target clickable (big enough) or only marked (far: a tap zooms to it instead).
function classify(node, big) {
  node.classList.toggle("target", big);
  node.classList.toggle("far", !big);
  if (big) node.setAttribute("role", "button"); else node.removeAttribute("role");
}

function visible(node) {
  const r = node.getBoundingClientRect(), frame = state.board.getBoundingClientRect();
  return r.right > frame.left && r.left < frame.right && r.bottom > frame.top && r.top < frame.bottom;
}

// The targets of the moment are all big enough, or the board zooms in on them (or, showing
// the whole board at the person's wish, the small ones are marked far).
export function settle() {
  if (!state.picture || !state.picture.querySelector("svg")) return;
  const nodes = [...state.picture.querySelectorAll(".target, .far")];
  const need = least();
  if (!nodes.length) {   // watching (the whole board), or a step of a move made with buttons (read)
    const wanted = state.manual !== null ? state.manual : (!state.whole && buttonsOnly() ? readingZoom() : 1);
    if (Math.abs(wanted - state.zoom) > 0.01) apply(wanted);
    markFine();
    return;
  }
  const base = nodes.map((n) => size(n) / state.zoom);   // each target's size on the fitted picture
  // big enough to hit, and the targets' own text (an island's towers, a card's trait) readable
  const labels = nodes.flatMap((n) => [...n.querySelectorAll("text")]);
  const needed = Math.min(MAX_ZOOM, Math.max(1, need * MARGIN / Math.min(...base), readingZoom(labels)));
  const wanted = state.whole ? 1 : (state.manual !== null ? state.manual : needed);
  const changed = Math.abs(wanted - state.zoom) > 0.01;
  if (changed) apply(wanted);
  nodes.forEach((n) => classify(n, size(n) >= need - 0.5));
  const targets = nodes.filter((n) => n.classList.contains("target"));
  if (state.zoom > 1.01 && targets.length && ((changed && state.manual === null) || !targets.some(visible))) {
    show(targets);
  }
  markFine();
}

// Scroll the zoomed board to the targets: all of them if they fit in its box, else the
// smallest (the reason for zooming).
function show(targets) {
  const rects = targets.map((n) => n.getBoundingClientRect());
  let left = Math.min(...rects.map((r) => r.left)), right = Math.max(...rects.map((r) => r.right));
  let top = Math.min(...rects.map((r) => r.top)), bottom = Math.max(...rects.map((r) => r.bottom));
  if (right - left > state.board.clientWidth || bottom - top > state.board.clientHeight) {
    const smallest = rects.reduce((a, b) => (Math.min(a.width, a.height) <= Math.min(b.width, b.height) ? a : b));
    ({ left, right, top, bottom } = smallest);
  }
  const svg = state.picture.querySelector("svg").getBoundingClientRect();
  centre(((left + right) / 2 - svg.left) / svg.width, ((top + bottom) / 2 - svg.top) / svg.height);
}
