// The Q picture a spectator gets, drawn in the browser from the spectator's view: the same
// SVG text, character for character, as render.py's render_svg draws of the state concealed
// for a spectator (the hands and the pile by their sizes) with the narrator's outline of
// the tiles just placed — so the viewer of stored games is sent views, not pictures
// (docs/boards.md, "Pictures drawn in the browser"). tests/web/test_drawings.py draws
// the same states both ways and compares the text.
//
//   draw(view, caption, before)   view: {"map": JMap, "tile*": pile size,
//                                        "players": [{"name", "score", "tile*": hand size}]}
//                                 before: the view of the step before (null at the first);
//                                 the tiles on view's map and not on before's are outlined.
//
// Numbers are written as Python writes them (an int, a float's shortest repr with ".0" when
// whole, "{:.2f}" rounded half to even then trimmed), text is escaped as Python escapes it.

const FILL = { red: "#d62728", green: "#2ca02c", blue: "#1f77b4", yellow: "#e8c000", orange: "#ff7f0e", purple: "#8e44ad" };
const CELL = 36, MIN_CELL = 14, MAP_BOX = [720, 460], SMALL = 24, MARGIN = 28;
const FONT = "font-family='sans-serif'";
const CHAR_EM = 0.6;

// -- numbers and text as Python writes them ---------------------------------------------------

// A value Python holds as a float (it prints "70.0", not "70"); ints are written with String.
class Float { constructor(value) { this.value = value; } }
const num = (v) => (v instanceof Float ? v.value : v);
function py(v) {   // str() of an int or a float
  if (!(v instanceof Float)) return String(v);
  const x = v.value;
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  return String(x);
}
const add = (a, b) => (a instanceof Float || b instanceof Float ? new Float(num(a) + num(b)) : a + b);
const sub = (a, b) => (a instanceof Float || b instanceof Float ? new Float(num(a) - num(b)) : a - b);

function fixed2(x) {   // f"{x:.2f}": the nearest, a tie (an odd multiple of 1/8) to the even hundredth
  let text = x.toFixed(2);   // a tie goes away from zero
  const eighths = x * 8;
  if (Number.isInteger(eighths) && eighths % 2 !== 0) {
    const hundredths = Math.round(Math.abs(x) * 100);   // the away-from-zero candidate
    if (hundredths % 2 === 1) text = (Math.sign(x) * (hundredths - 1) / 100).toFixed(2);
  }
  return text;
}
function fmt(v) {   // render.py's _fmt
  let text = fixed2(num(v));
  if (text.includes(".")) text = text.replace(/0+$/, "").replace(/\.$/, "");
  return text === "-0" ? "0" : text;
}
function g(v) {   // f"{x:g}" of the small whole or decimal numbers a caption uses
  const x = num(v);
  return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(6)));
}
const xmlEscape = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const attr = (text) => xmlEscape(text).replace(/'/g, "&#39;");
const htmlEscape = (text) => xmlEscape(text).replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
const length = (text) => Array.from(text).length;   // Python's len: code points
const SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;   // str.split()

// -- core/pictures.py: the caption, wrapped ---------------------------------------------------

function wrap(text, width, size) {
  const perLine = Math.max(8, Math.trunc(width / (size * CHAR_EM)));
  const lines = [];
  let line = "";
  for (let word of text.split(SPACE).filter((w) => w)) {
    let points = Array.from(word);
    while (points.length > perLine) {
      if (line) { lines.push(line); line = ""; }
      lines.push(points.slice(0, perLine).join(""));
      points = points.slice(perLine);
    }
    word = points.join("");
    if (!line) line = word;
    else if (length(line) + 1 + length(word) <= perLine) line += " " + word;
    else { lines.push(line); line = word; }
  }
  if (line) lines.push(line);
  return lines.length ? lines : [""];
}

function captionSvg(text, x, y, width, size = 16, weight = "bold", css = "caption") {
  const lines = wrap(text, width, size);
  const step = size * 1.25;
  const spans = lines.map((line, i) => `<tspan x="${g(x)}" dy="${i === 0 ? "0" : g(step)}">${htmlEscape(line)}</tspan>`).join("");
  const element = `<text class="${css}" x="${g(x)}" y="${g(y)}" font-family="sans-serif" font-size="${g(size)}" `
    + `font-weight="${weight}">${spans}</text>`;
  return [element, new Float((lines.length - 1) * step + size * 0.35)];
}

// -- render.py --------------------------------------------------------------------------------

function starPoints(cx, cy, outer, inner, tips) {
  const points = [];
  for (let i = 0; i < 2 * tips; i++) {
    const radius = i % 2 === 0 ? outer : inner;
    const angle = Math.PI * i / tips - Math.PI / 2;
    points.push(`${fmt(cx + radius * Math.cos(angle))},${fmt(cy + radius * Math.sin(angle))}`);
  }
  return points.join(" ");
}

function shapeSvg(shape, cx, cy, size, fill) {
  const r = size * 0.36;
  const paint = `fill='${fill}' stroke='#222' stroke-width='${fmt(Math.max(size / 40, 0.5))}'`;
  if (shape === "star") return `<polygon points='${starPoints(cx, cy, r, r * 0.38, 4)}' ${paint}/>`;
  if (shape === "8star") return `<polygon points='${starPoints(cx, cy, r, r * 0.62, 8)}' ${paint}/>`;
  if (shape === "square") {
    const side = r * 1.6;
    return `<rect x='${fmt(cx - side / 2)}' y='${fmt(cy - side / 2)}' width='${fmt(side)}' height='${fmt(side)}' ${paint}/>`;
  }
  if (shape === "circle") return `<circle cx='${fmt(cx)}' cy='${fmt(cy)}' r='${fmt(r * 0.9)}' ${paint}/>`;
  if (shape === "clover") {
    const leaf = r * 0.48, d = r * 0.5;
    const leaves = [[0, -d], [d, 0], [0, d], [-d, 0]]
      .map(([dx, dy]) => `<circle cx='${fmt(cx + dx)}' cy='${fmt(cy + dy)}' r='${fmt(leaf)}'/>`).join("");
    return `<g ${paint}>${leaves}<circle cx='${fmt(cx)}' cy='${fmt(cy)}' r='${fmt(leaf * 0.8)}'/></g>`;
  }
  return `<polygon points='${fmt(cx)},${fmt(cy - r)} ${fmt(cx + r * 0.75)},${fmt(cy)} `
    + `${fmt(cx)},${fmt(cy + r)} ${fmt(cx - r * 0.75)},${fmt(cy)}' ${paint}/>`;
}

function tileSvg(tile, x, y, size, data) {
  const X = num(x), Y = num(y);
  const background = `<rect x='${fmt(X + 1)}' y='${fmt(Y + 1)}' width='${fmt(size - 2)}' height='${fmt(size - 2)}' `
    + `rx='${fmt(size / 8)}' fill='#f7f3e8' stroke='#999' stroke-width='1'/>`;
  return `<g class='tile' ${data}><title>${tile.color} ${tile.shape}</title>${background}`
    + `${shapeSvg(tile.shape, X + size / 2, Y + size / 2, size, FILL[tile.color])}</g>`;
}

function text(x, y, content, size = 12, anchor = "start", weight = "normal") {
  return `<text x='${fmt(x)}' y='${fmt(y)}' font-size='${size}' ${FONT} text-anchor='${anchor}' `
    + `font-weight='${weight}'>${xmlEscape(content)}</text>`;
}

function backs(count, x, y) {
  let out = "";
  for (let i = 0; i < count; i++) {
    out += `<rect class='tile-back' x='${fmt(num(x) + i * (SMALL + 2) + 1)}' y='${fmt(num(y) + 1)}' `
      + `width='${SMALL - 2}' height='${SMALL - 2}' rx='3' fill='#c9bfa8' stroke='#999'/>`;
  }
  return out;
}

function cells(view) {   // JMap -> [[row, column, tile], ...] in row-major order
  const out = [];
  for (const [row, ...rest] of view.map) for (const [column, tile] of rest) out.push([row, column, tile]);
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

export function draw(view, caption, before) {
  const placedTiles = cells(view);
  const occupied = new Set(placedTiles.map(([r, c]) => `${r},${c}`));
  const was = before && before.map ? new Set(cells(before).map(([r, c]) => `${r},${c}`)) : null;
  const placed = was ? placedTiles.filter(([r, c]) => !was.has(`${r},${c}`)).map(([r, c]) => [r, c]) : [];
  let rmin = 0, rmax = 0, cmin = 0, cmax = 0;
  if (placedTiles.length) {
    rmin = Math.min(...placedTiles.map((t) => t[0])); rmax = Math.max(...placedTiles.map((t) => t[0]));
    cmin = Math.min(...placedTiles.map((t) => t[1])); cmax = Math.max(...placedTiles.map((t) => t[1]));
  }
  rmin -= 1; rmax += 1; cmin -= 1; cmax += 1;
  const rows = rmax - rmin + 1, cols = cmax - cmin + 1;
  const cell = Math.max(MIN_CELL, Math.min(CELL, Math.floor(MAP_BOX[0] / cols), Math.floor(MAP_BOX[1] / rows)));
  const mapW = cols * cell, mapH = rows * cell;

  const players = view.players || [];
  const names = players.map((p, i) => (p.name === null || p.name === undefined ? `player ${i + 1}` : p.name));
  let panelW = 220;
  players.forEach((p, i) => { panelW = Math.max(panelW, p["tile*"] * (SMALL + 2), 9 * length(names[i]) + 100); });
  panelW = Math.max(panelW, 20);   // no pile tile is shown to a spectator
  const panelX = MARGIN + 30 + mapW + 2 * MARGIN;
  const width = panelX + panelW + MARGIN;
  const parts = [];
  let top = MARGIN;
  if (caption) {
    const [element, height] = captionSvg(caption, MARGIN, MARGIN + 6, width - 2 * MARGIN);
    parts.push(element);
    top = add(add(MARGIN + 6, height), 12);
  }
  const mapX = MARGIN + 30, mapY = add(top, 18);

  const grid = [`<rect x='${mapX}' y='${py(mapY)}' width='${mapW}' height='${mapH}' fill='#ffffff' stroke='#bbb'/>`];
  for (let i = 1; i < cols; i++) {
    const x = mapX + i * cell;
    grid.push(`<line x1='${x}' y1='${py(mapY)}' x2='${x}' y2='${py(add(mapY, mapH))}' stroke='#eee'/>`);
  }
  for (let j = 1; j < rows; j++) {
    const y = add(mapY, j * cell);
    grid.push(`<line x1='${mapX}' y1='${py(y)}' x2='${mapX + mapW}' y2='${py(y)}' stroke='#eee'/>`);
  }
  parts.push(`<g class='grid'>${grid.join("")}</g>`);
  const every = cell >= 24 ? 1 : (cell >= 18 ? 2 : 3);
  const labels = [];
  for (let c = cmin; c <= cmax; c++) {
    if (c % every === 0) labels.push(text(mapX + (c - cmin) * cell + cell / 2, num(mapY) - 5, String(c), 10, "middle"));
  }
  for (let r = rmin; r <= rmax; r++) labels.push(text(mapX - 5, num(mapY) + (r - rmin) * cell + cell / 2 + 4, String(r), 10, "end"));
  parts.push(`<g class='labels'>${labels.join("")}</g>`);
  const inset = Math.max(2, Math.floor(cell / 12));
  const free = new Map();
  for (const [r, c] of placedTiles) {
    for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
      const key = `${r + dr},${c + dc}`;
      if (!occupied.has(key)) free.set(key, [r + dr, c + dc]);
    }
  }
  const freeCells = [...free.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([r, c]) =>
    `<rect class='free-cell' data-cell='${r},${c}' data-key='cell:${r},${c}' x='${mapX + (c - cmin) * cell + inset}' `
    + `y='${py(add(add(mapY, (r - rmin) * cell), inset))}' width='${cell - 2 * inset}' height='${cell - 2 * inset}' `
    + `fill='none' stroke='#cfd8dc' stroke-dasharray='3,2' pointer-events='all'/>`);
  parts.push(`<g class='free'>${freeCells.join("")}</g>`);
  parts.push(`<g class='map' data-x0='${mapX - cmin * cell}' data-y0='${py(sub(mapY, rmin * cell))}' data-size='${cell}'>`
    + placedTiles.map(([r, c, tile]) => tileSvg(tile, mapX + (c - cmin) * cell, add(mapY, (r - rmin) * cell), cell,
                                                `data-cell='${r},${c}'`)).join("") + "</g>");
  const marks = placed.map(([r, c]) =>
    `<rect data-cell='${r},${c}' x='${mapX + (c - cmin) * cell + 1}' y='${py(add(add(mapY, (r - rmin) * cell), 1))}' `
    + `width='${cell - 2}' height='${cell - 2}' rx='${fmt(cell / 8)}' fill='none' stroke='#000' stroke-width='3'>`
    + "<title>placed in the last turn</title></rect>");
  if (marks.length) parts.push(`<g class='placed'>${marks.join("")}</g>`);

  let y = add(top, 14);
  parts.push(text(panelX, y, "Players (first = active)", 14, "start", "bold"));
  y = add(y, 12);
  players.forEach((p, i) => {
    const count = p["tile*"];
    const label = `${i === 0 ? "▶ " : ""}${names[i]}: ${p.score}` + (count > 0 ? ` (${count} tiles)` : "");
    parts.push(`<g class='player' data-player='${attr(names[i])}'>`
      + text(panelX, add(y, 14), label, 13, "start", i === 0 ? "bold" : "normal")
      + backs(count, panelX, add(y, 20)) + "</g>");
    y = add(y, 20 + SMALL + 14);
  });
  if (!players.length) {
    parts.push(text(panelX, add(y, 14), "(no players)", 12));
    y = add(y, 24);
  }
  y = add(y, 10);
  const pile = view["tile*"];
  const pileParts = [text(panelX, add(y, 14), `Pile: ${pile} tile(s)`, 14, "start", "bold")];
  if (pile > 0) pileParts.push(text(panelX + 4, sub(add(add(y, 20), SMALL), 6), "…", 14));
  parts.push(`<g class='pile' data-count='${pile}'>${pileParts.join("")}</g>`);
  y = add(y, 20 + SMALL + 10);

  const height = add(Math.max(num(add(mapY, mapH)), num(y)), MARGIN);
  return `<svg xmlns='http://www.w3.org/2000/svg' width='${width}' height='${fmt(height)}' `
    + `viewBox='0 0 ${width} ${fmt(height)}'><title>${xmlEscape(caption || "Q state")}</title>`
    + "<rect width='100%' height='100%' fill='#fafafa'/>" + parts.join("") + "</svg>";
}
