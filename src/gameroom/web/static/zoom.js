// How big the board is drawn, so that every target a person may click is big enough for a
// mouse or a thumb (docs/boards.md, "Targets a finger can hit"): at least 24 px on a
// laptop and 44 px on a phone. The picture is first fitted to the window (picture.js); when
// a prompt's targets are smaller than that there, the board zooms in on them by itself (the
// layout grows the pieces being chosen) and scrolls inside its box to show them. A person
// may ask for the whole board (the zoom button): targets still too small there are only
// marked ("far": not clickable, pointer events pass through) and a tap on the board zooms
// into the region tapped. Focusing a far target with the keyboard zooms to it too.
// The shapes stay the same nodes throughout: zooming only scales the <svg>.

export const NARROW = 700;     // px: a window narrower than this is a phone's
const MAX_ZOOM = 12;           // never more than this over the fitted picture
const MARGIN = 1.06;           // a target is made this much bigger than the least allowed
const READABLE = 12;           // px: the smallest text a zoom for reading shows

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

// The zoom that makes the picture's smallest text readable (1: it is already).
function readingZoom() {
  const sizes = [...state.picture.querySelectorAll("svg text")].map((t) => t.getBoundingClientRect().height)
    .filter((h) => h > 0);
  if (!sizes.length) return 1;
  return Math.max(1, READABLE * 1.15 / (Math.min(...sizes) / state.zoom));
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
  if (!nodes.length) {
    if (state.manual === null && state.zoom !== 1) apply(1);
    return;
  }
  const base = nodes.map((n) => size(n) / state.zoom);   // each target's size on the fitted picture
  const needed = Math.min(MAX_ZOOM, Math.max(1, need * MARGIN / Math.min(...base)));
  const wanted = state.whole ? 1 : (state.manual !== null ? state.manual : needed);
  const changed = Math.abs(wanted - state.zoom) > 0.01;
  if (changed) apply(wanted);
  nodes.forEach((n) => classify(n, size(n) >= need - 0.5));
  const targets = nodes.filter((n) => n.classList.contains("target"));
  if (state.zoom > 1.01 && targets.length && ((changed && state.manual === null) || !targets.some(visible))) {
    show(targets);
  }
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
