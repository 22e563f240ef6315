// The Q board of the web room (docs/boards.md): the game's own SVG picture made
// interactive. Pick a tile of your hand, then a highlighted cell; repeat for more tiles of
// the same turn (the cells where each further tile is legal are asked of the referee's own
// check over the socket); undo takes the last tile back; confirm sends the whole turn.
// "replace all my tiles" and "pass" are buttons. The tiles placed in the last turn are
// marked on every picture.
import { clickPaths, keyed, target, chosen } from "/static/board.js";

const SVGNS = "http://www.w3.org/2000/svg";
const cellKey = (r, c) => `cell:${r},${c}`;
const tileName = (t) => `${t.color} ${t.shape}`;
const placement = (p) => ({ coordinate: { row: p.row, column: p.column }, "1tile": p.tile });

function mapCells(view) {   // JMap: [[row, [column, tile], ...], ...] -> Map "r,c" -> tile
  const cells = new Map();
  for (const [row, ...rest] of view.map) for (const [column, tile] of rest) cells.set(`${row},${column}`, tile);
  return cells;
}

export function play(ui) {
  if (ui.prompt.method !== "take-turn" || !ui.view || !ui.view.map) { clickPaths(ui, () => []); return; }
  const me = ui.view.players[0];
  const hand = me["tile*"];
  const name = me.name;
  const cells = mapCells(ui.view);
  const geometry = ui.picture.querySelector("g.map");
  const x0 = Number(geometry.dataset.x0), y0 = Number(geometry.dataset.y0), size = Number(geometry.dataset.size);
  const first = new Map();   // tile name -> cells where it may go first (the offered one-tile turns)
  const others = [];
  ui.prompt.choices.forEach((choice, index) => {
    if (Array.isArray(choice.action) && choice.action.length === 1) {
      const p = choice.action[0];
      const key = tileName(p["1tile"]);
      if (!first.has(key)) first.set(key, []);
      first.get(key).push([p.coordinate.row, p.coordinate.column]);
    } else if (!Array.isArray(choice.action)) {
      others.push({ index, label: choice.label });
    }
  });
  const placed = [];   // {index, tile, row, column}: this turn's tiles so far
  let selected = null;
  let legal = null;    // after the first tile: tile name -> cells, from the referee's check

  const free = (r, c) => !cells.has(`${r},${c}`) && !placed.some((p) => p.row === r && p.column === c);
  const filled = (r, c) => cells.has(`${r},${c}`) || placed.some((p) => p.row === r && p.column === c);

  function candidates() {   // free cells in the line of this turn's tiles, beside a tile
    const rows = new Set(placed.map((p) => p.row)), cols = new Set(placed.map((p) => p.column));
    const out = [];
    const near = (r, c) => filled(r - 1, c) || filled(r + 1, c) || filled(r, c - 1) || filled(r, c + 1);
    const walk = (r, c, dr, dc) => {   // along the line until two free cells in a row
      for (let k = 1, gap = 0; gap < 2 && k < 60; k++) {
        const rr = r + dr * k, cc = c + dc * k;
        if (free(rr, cc)) { gap++; if (near(rr, cc)) out.push([rr, cc]); } else gap = 0;
      }
    };
    for (const p of placed) {
      if (rows.size === 1) { walk(p.row, p.column, 0, 1); walk(p.row, p.column, 0, -1); }
      if (cols.size === 1) { walk(p.row, p.column, 1, 0); walk(p.row, p.column, -1, 0); }
    }
    return [...new Map(out.map((rc) => [rc.join(","), rc])).values()];
  }

  async function ask() {   // which tile may go where next, by the referee's own rules
    const unused = hand.map((t, i) => ({ t, i })).filter(({ i }) => !placed.some((p) => p.index === i));
    const kinds = [...new Map(unused.map(({ t }) => [tileName(t), t])).values()];
    const tries = [];
    for (const t of kinds) for (const [r, c] of candidates()) tries.push({ t, r, c });
    const problems = tries.length
      ? await ui.check(tries.map(({ t, r, c }) => [...placed.map(placement), placement({ row: r, column: c, tile: t })]))
      : [];
    legal = new Map();
    tries.forEach(({ t, r, c }, k) => {
      if (problems[k] !== null) return;
      if (!legal.has(tileName(t))) legal.set(tileName(t), []);
      legal.get(tileName(t)).push([r, c]);
    });
  }

  const svg = ui.svg;
  const drawn = svg.getAttribute("viewBox");
  function outer(node) {   // a shape's box in its parent's units (its own transform applied)
    const b = node.getBBox(), m = node.transform.baseVal.consolidate();
    if (!m) return { x: b.x, y: b.y, right: b.x + b.width, bottom: b.y + b.height };
    const { a, d, e, f } = m.matrix;   // translations and scales only
    return { x: a * b.x + e, y: d * b.y + f, right: a * (b.x + b.width) + e, bottom: d * (b.y + b.height) + f };
  }
  function grow() {   // the picture grows to show the tiles and cells placed beyond its edge
    const [x, y, w, h] = drawn.split(/[ ,]+/).map(Number);
    let left = x, top = y, right = x + w, bottom = y + h;
    for (const node of svg.children) {   // the background (100% of the box) left out
      if (!(node instanceof SVGGraphicsElement) || node.matches("rect:first-of-type")) continue;
      const b = outer(node);
      left = Math.min(left, b.x - 4); top = Math.min(top, b.y - 4);
      right = Math.max(right, b.right + 4); bottom = Math.max(bottom, b.bottom + 4);
    }
    svg.setAttribute("viewBox", `${left} ${top} ${right - left} ${bottom - top}`);
  }

  // Tiles placed beyond the drawn map must not be drawn over the players' panel (right of
  // the map) nor the caption (above it): those move aside, and the picture grows.
  const grid = ui.picture.querySelector("g.grid");
  const panel = [], above = [];
  if (grid) {
    const box = grid.getBBox();
    for (const node of svg.children) {
      if (node === geometry || node === grid || !(node instanceof SVGGraphicsElement) || node.matches("rect:first-of-type")) continue;
      const b = node.getBBox();
      if (b.x >= box.x + box.width + 8) panel.push(node);
      else if (b.y + b.height <= box.y - 14) above.push(node);
    }
  }
  function makeRoom() {
    const extra = [...geometry.querySelectorAll(".tentative")].map(outer);
    const box = grid ? grid.getBBox() : null;
    const shift = (nodes, amount, how) => nodes.forEach((n) => {
      if (amount > 0) n.setAttribute("transform", how(amount)); else n.removeAttribute("transform");
    });
    if (box) {
      const right = Math.max(box.x + box.width, ...extra.map((b) => b.right));
      const top = Math.min(box.y, ...extra.map((b) => b.y));
      shift(panel, right - (box.x + box.width), (d) => `translate(${d},0)`);
      shift(above, box.y - top, (d) => `translate(0,${-d})`);
    }
    grow();
  }
  function cellTarget(r, c) {
    let node = keyed(ui.picture, cellKey(r, c));
    if (!node) {   // a free cell the picture did not draw (beside a tile placed this turn)
      node = document.createElementNS(SVGNS, "rect");
      for (const [k, v] of Object.entries({ x: x0 + c * size + 3, y: y0 + r * size + 3, width: size - 6, height: size - 6,
                                            fill: "none", stroke: "#cfd8dc", "data-key": cellKey(r, c), class: "tentative" })) {
        node.setAttribute(k, String(v));
      }
      geometry.append(node);
    }
    return node;
  }

  function drawPlaced() {
    for (const p of placed) {
      const source = keyed(ui.picture, `hand:${name}:${p.index}`);
      const copy = source.cloneNode(true);
      copy.removeAttribute("data-key");
      copy.classList.add("tentative");
      const box = source.getBBox();
      const scale = size / (box.width + 2);
      copy.setAttribute("transform", `translate(${x0 + p.column * size - box.x * scale}, ${y0 + p.row * size - box.y * scale}) scale(${scale})`);
      geometry.append(copy);
      chosen(source);
    }
  }

  function refresh() {
    ui.clear();
    drawPlaced();
    const options = placed.length ? legal : new Map([...first].map(([k, v]) => [k, v.filter(([r, c]) => free(r, c))]));
    if (selected === null) {
      hand.forEach((t, i) => {
        if (placed.some((p) => p.index === i)) return;
        const where = options.get(tileName(t)) || [];
        if (!where.length) return;
        target(keyed(ui.picture, `hand:${name}:${i}`), `your tile ${tileName(t)}`, () => { selected = i; refresh(); });
      });
      ui.say(placed.length ? `${placed.length} tile(s) placed: pick another tile, or confirm` : "pick a tile of your hand");
    } else {
      const t = hand[selected];
      chosen(keyed(ui.picture, `hand:${name}:${selected}`));
      for (const [r, c] of options.get(tileName(t)) || []) {
        target(cellTarget(r, c), `place ${tileName(t)} at row ${r}, column ${c}`, async () => {
          placed.push({ index: selected, tile: t, row: r, column: c });
          selected = null;
          ui.clear();   // no target while the rules are asked (a second click placed a tile of no index)
          ui.say("asking where the next tile may go…");
          await ask();
          refresh();
        });
      }
      ui.say(`place your ${tileName(t)}: click a highlighted cell`);
    }
    if (placed.length) {
      ui.button(`confirm ${placed.length} tile(s)`, () => ui.send(placed.map(placement)), true);
    }
    if (placed.length || selected !== null) {
      ui.button("undo", async () => {
        if (selected !== null) selected = null; else { placed.pop(); if (placed.length) await ask(); }
        refresh();
      });
    } else {
      for (const o of others) ui.button(o.label, () => ui.choose(o.index));
    }
    makeRoom();
  }
  refresh();
}

export function mark(ui, frame, before) {   // the tiles placed since the last picture
  if (!before || !before.view || !frame.view || !frame.view.map || !before.view.map) return;
  const was = mapCells(before.view);
  const geometry = ui.picture.querySelector("g.map");
  if (!geometry) return;
  const x0 = Number(geometry.dataset.x0), y0 = Number(geometry.dataset.y0), size = Number(geometry.dataset.size);
  for (const key of mapCells(frame.view).keys()) {
    if (was.has(key)) continue;
    const [r, c] = key.split(",").map(Number);
    const box = document.createElementNS(SVGNS, "rect");
    for (const [k, v] of Object.entries({ x: x0 + c * size + 1, y: y0 + r * size + 1, width: size - 2, height: size - 2,
                                          fill: "none", class: "last-move", stroke: "#7b2cbf", "stroke-width": 3 })) {
      box.setAttribute(k, String(v));
    }
    box.append(Object.assign(document.createElementNS(SVGNS, "title"), { textContent: "placed in the last turn" }));
    geometry.append(box);
  }
}
