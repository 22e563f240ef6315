// What the match page and the room page share of drawing: the game's SVG picture scaled to
// the space it has (no scrolling, nothing cut off), or zoomed in (zoom.js), in the
// picture's own layout for narrow screens when it has one (docs/boards.md), and a line of
// the story added to the log, kept scrolled to the newest.

import { clearTargets } from "/static/board.js";
import { NARROW, zoomLevel } from "/static/zoom.js";

// A picture with data-narrow-viewbox has a layout for narrow screens: that viewBox, and each
// shape with data-narrow moved by its transform (or hidden: "hide"). Applied or undone as
// the window is narrow or not; the shapes stay the same, so the board's targets do too.
function layout(svg, narrow) {
  const viewbox = svg.getAttribute("data-narrow-viewbox");
  if (!viewbox) return;
  if (!svg.hasAttribute("data-wide-viewbox")) svg.setAttribute("data-wide-viewbox", svg.getAttribute("viewBox") || "");
  if ((svg.dataset.layout === "narrow") === narrow) return;
  svg.dataset.layout = narrow ? "narrow" : "wide";
  svg.setAttribute("viewBox", narrow ? viewbox : svg.getAttribute("data-wide-viewbox"));
  for (const node of svg.querySelectorAll("[data-narrow]")) {
    const how = node.getAttribute("data-narrow");
    if (how === "hide") node.style.display = narrow ? "none" : "";
    else if (narrow) node.setAttribute("transform", how);
    else node.removeAttribute("transform");
  }
}

// The height the board may take so that the controls under it (the hint, confirm, undo)
// stay in the window without scrolling the page (at its top).
function roomBelow(board) {
  const controls = document.getElementById("controls");
  const reserve = Math.max(controls && !controls.classList.contains("hidden") ? controls.offsetHeight : 0, 48);
  const top = board.getBoundingClientRect().top + window.scrollY;
  return Math.max(200, window.innerHeight - top - reserve - 16);
}

// The picture fitted to the board's box (its width, and the window's height left above the
// controls), times the zoom (zoom.js) that makes the targets big enough: zoomed in, the box
// keeps the height it may take and scrolls (a finger pans the board).
export function fit(board, picture) {
  const svg = picture.querySelector("svg");
  if (!svg) return;
  layout(svg, window.innerWidth < NARROW);
  const box = svg.viewBox.baseVal;
  const w = box && box.width ? box.width : Number(svg.getAttribute("width")) || 800;
  const h = box && box.height ? box.height : Number(svg.getAttribute("height")) || 600;
  if (!svg.getAttribute("viewBox")) svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const room = board.clientWidth || w;
  const tall = roomBelow(board);
  const zoom = zoomLevel();
  const scale = Math.min(room / w, tall / h, 2) * zoom;
  svg.setAttribute("width", String(Math.floor(w * scale)));
  svg.setAttribute("height", String(Math.floor(h * scale)));
  board.classList.toggle("zoomed", zoom > 1.01);
  board.style.height = zoom > 1.01 ? `${Math.min(tall, Math.floor(h * scale))}px` : "";
}

// The hint and the buttons under the board, and clearing the board's targets: the part of
// a board module's `ui` (docs/boards.md) that both pages give alike (#hint, #buttons, #picture).
export function boardControls() {
  const $ = (id) => document.getElementById(id);
  return {
    say(text) { $("hint").textContent = text; },
    button(label, onClick, primary = false) {
      const button = document.createElement("button");
      button.textContent = label;
      button.type = "button";
      button.setAttribute("aria-label", label);
      if (primary) button.classList.add("primary");
      button.addEventListener("click", onClick);
      $("buttons").append(button);
      return button;
    },
    clear() {
      $("buttons").replaceChildren();
      $("hint").textContent = "";
      clearTargets($("picture"));
      for (const extra of $("picture").querySelectorAll(".tentative")) extra.remove();
    },
  };
}

// A prompt is over: the legal moves' list, the board's controls and targets put away.
export function closePrompt() {
  for (const id of ["play", "controls"]) document.getElementById(id).classList.add("hidden");
  document.getElementById("choices").replaceChildren();
  boardControls().clear();
}

// A line of the story added to the log; a text of several lines (Evolution's table of
// results) keeps its lines.
export function tell(log, text, kind = "") {
  const item = document.createElement("li");
  item.textContent = text;
  const classes = [kind, text.includes("\n") ? "block" : ""].filter((c) => c);
  if (classes.length) item.className = classes.join(" ");
  log.append(item);
  log.scrollTop = log.scrollHeight;
}
