// What the match page and the room page share of drawing: the game's SVG picture scaled to
// the space it has (no scrolling, nothing cut off), or at its own size when zoomed, in the
// picture's own layout for narrow screens when it has one (docs/boards.md), and a line of
// the story added to the log, kept scrolled to the newest.

import { clearTargets } from "/static/board.js";

export const NARROW = 700;   // px: a window narrower than this is a phone's

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

export function fit(board, picture) {
  const svg = picture.querySelector("svg");
  if (!svg) return;
  layout(svg, window.innerWidth < NARROW);
  const box = svg.viewBox.baseVal;
  const w = box && box.width ? box.width : Number(svg.getAttribute("width")) || 800;
  const h = box && box.height ? box.height : Number(svg.getAttribute("height")) || 600;
  if (!svg.getAttribute("viewBox")) svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const room = board.clientWidth || w;
  const narrow = window.innerWidth < NARROW;
  const tall = Math.max(240, window.innerHeight - (narrow ? 150 : 130));
  // zoomed: the picture at its own size, the board scrolls inside its box (small pieces on a phone)
  const scale = board.classList.contains("zoomed") ? 1 : Math.min(room / w, narrow ? room / w : tall / h, 2);
  svg.setAttribute("width", String(Math.floor(w * scale)));
  svg.setAttribute("height", String(Math.floor(h * scale)));
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

export function tell(log, text, kind = "") {
  const item = document.createElement("li");
  item.textContent = text;
  if (kind) item.className = kind;
  log.append(item);
  log.scrollTop = log.scrollHeight;
}
