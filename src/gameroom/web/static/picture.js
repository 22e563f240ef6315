// What the match page and the room page share of drawing: the game's SVG picture scaled to
// the space it has (no scrolling, nothing cut off), or at its own size when zoomed, and a
// line of the story added to the log, kept scrolled to the newest.

export function fit(board, picture) {
  const svg = picture.querySelector("svg");
  if (!svg) return;
  const box = svg.viewBox.baseVal;
  const w = box && box.width ? box.width : Number(svg.getAttribute("width")) || 800;
  const h = box && box.height ? box.height : Number(svg.getAttribute("height")) || 600;
  if (!svg.getAttribute("viewBox")) svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const room = board.clientWidth || w;
  const narrow = window.innerWidth < 700;
  const tall = Math.max(240, window.innerHeight - (narrow ? 150 : 130));
  // zoomed: the picture at its own size, the board scrolls inside its box (small pieces on a phone)
  const scale = board.classList.contains("zoomed") ? 1 : Math.min(room / w, narrow ? room / w : tall / h, 2);
  svg.setAttribute("width", String(Math.floor(w * scale)));
  svg.setAttribute("height", String(Math.floor(h * scale)));
}

export function tell(log, text, kind = "") {
  const item = document.createElement("li");
  item.textContent = text;
  if (kind) item.className = kind;
  log.append(item);
  log.scrollTop = log.scrollHeight;
}
