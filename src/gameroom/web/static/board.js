// What every board module shares (see docs/boards.md): making shapes of the picture into
// targets a person clicks (or reaches with the keyboard), and the click-path engine that
// turns the offered answers of a prompt into steps on the board. Every change of targets
// lets zoom.js settle the board's zoom (targets big enough for a mouse or a thumb).
import { scheduleSettle } from "/static/zoom.js";

// Shapes of the picture carry data-key="..." (the game's render.py puts them there).
export function keyed(root, key) {
  return root.querySelector(`[data-key="${CSS.escape(key)}"]`);
}

// Forget every target and mark of an earlier step.
export function clearTargets(root) {
  for (const node of root.querySelectorAll(".target, .far, .chosen")) {
    node.classList.remove("target", "far", "chosen");
    node.removeAttribute("tabindex");
    node.removeAttribute("role");
    node.removeAttribute("aria-label");
    if (node._pick) { node.removeEventListener("click", node._pick); node.removeEventListener("keydown", node._key); }
    node._pick = null;
  }
  scheduleSettle();
}

// Make `node` a legal target: highlighted, clickable, focusable, named for screen readers.
// One too small to hit where the board is drawn becomes "far" (zoom.js): marked, reached by
// zooming in (a tap on its region, the keyboard's focus), clicked once it is big enough.
export function target(node, label, onPick) {
  node.classList.add("target");
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", label);
  node._pick = (event) => { event.stopPropagation(); onPick(); };
  node._key = (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); onPick(); } };
  node.addEventListener("click", node._pick);
  node.addEventListener("keydown", node._key);
  scheduleSettle();
}

export function chosen(node) { if (node) node.classList.add("chosen"); }

// The click-path engine: every offered answer is a path of steps ({key, label}; stepsOf
// returns null for an answer the board does not show). After each click the answers whose
// path begins with the clicks so far remain; their next steps are the targets (a step
// whose key no shape carries becomes a button). A path completed with no longer one left
// is sent at once; a completed path that others extend waits for "confirm".
// `unordered`: a path is a set (Bazaar's cards: any order of the same cards).
export function clickPaths(ui, stepsOf, { unordered = false, intro = "" } = {}) {
  const options = [];
  ui.prompt.choices.forEach((choice, index) => {
    const steps = stepsOf(choice.action, choice.label);
    if (steps) options.push({ index, label: choice.label, steps });
  });
  const path = [];
  const same = (option) => {
    if (!unordered) return path.every((key, i) => option.steps[i] && option.steps[i].key === key);
    const keys = option.steps.map((s) => s.key);
    return path.every((key) => keys.includes(key));
  };
  const refresh = () => {
    ui.clear();
    const left = options.filter(same);
    const complete = left.filter((o) => o.steps.length === path.length);
    const next = new Map();
    for (const o of left) {
      if (o.steps.length <= path.length) continue;
      for (const step of unordered ? o.steps.filter((s) => !path.includes(s.key)) : [o.steps[path.length]]) {
        if (!next.has(step.key)) next.set(step.key, step);
      }
    }
    if (complete.length && !next.size && path.length) { ui.choose(complete[0].index); return; }
    for (const key of path) chosen(keyed(ui.picture, key));
    for (const [key, step] of next) {
      const pick = () => { path.push(key); refresh(); };
      const node = keyed(ui.picture, key);
      if (node) target(node, step.label, pick); else ui.button(step.label, pick);
    }
    if (complete.length && path.length) ui.button(`confirm: ${complete[0].label}`, () => ui.choose(complete[0].index), true);
    for (const o of complete.filter(() => !path.length)) ui.button(o.label, () => ui.choose(o.index));
    if (path.length) ui.button("undo", () => { path.pop(); refresh(); });
    ui.say(path.length ? "next: pick a highlighted target" : (intro || "your move: pick a highlighted target"));
  };
  refresh();
}
