// The Evolution board of the web room (docs/boards.md): the game's own SVG picture made
// interactive.
//
// Choosing card actions (spec 3.4): the whole turn is composed on the board, in any order
// the rules allow. Click a card of your hand (or "another card"), then where it goes: the food card (a
// button), the slot for a new species (the card pays for it), a new species of this turn
// (its trait), the population or the body of one of your species (old or new), or one of
// their traits (replaced by the card's). Each card's possible places are the ones the
// dealer's own check finds legal (ui.check), so no rule is written twice; undo takes the
// last use back; "done" sends the turn once a food card is chosen. The offered whole turns
// stay in the list of legal actions.
// Feeding: click your species to feed (then the fat to store, a button), or your
// carnivore and then the species it attacks.
import { chosen, clickPaths, keyed, target } from "/static/board.js";

const SVGNS = "http://www.w3.org/2000/svg";
const BOARD_W = 150, BOARD_H = 96, GAP = 8;   // the species boards of the picture (render.py)
const MAX_TRAITS = 3;

export function play(ui) {
  const mine = myRow(ui);
  const players = ui.view && ui.view.others ? ui.view.others.length + 1 : 1;
  if (ui.prompt.method === "choose" && ui.view && ui.view.me && keyed(ui.picture, "newboard")) {
    compose(ui);
    return;
  }
  if (ui.prompt.method === "feedNext") {
    clickPaths(ui, (choice) => {
      if (typeof choice === "number") return [{ key: `species:${mine}:${choice}`, label: `feed your species ${choice}` }];
      if (choice.length === 2) {
        return [{ key: `species:${mine}:${choice[0]}`, label: `feed your species ${choice[0]}` },
                { key: `fat:${choice[1]}`, label: `store ${choice[1]} fat food` }];
      }
      const [c, k, a] = choice;   // the others in turn order after this player
      const row = (mine + 1 + k) % players;
      return [{ key: `species:${mine}:${c}`, label: `your carnivore, species ${c}` },
              { key: `species:${row}:${a}`, label: `attacks species ${a} of player ${row + 1}` }];
    }, { intro: "click one of your species to feed it" });
    return;
  }
  clickPaths(ui, () => []);
}

// -- a whole turn of card actions ---------------------------------------------------------

function compose(ui) {
  const me = Object.fromEntries(ui.view.me);
  const hand = me.cards || [];
  const species = (me.species || []).map((s) => Object.fromEntries(s));
  const existing = species.length;
  const named = (c) => `${hand[c][0] > 0 ? "+" : ""}${hand[c][0]} ${hand[c][1]}`;
  let turn = { food: null, gp: [], gb: [], bt: [], rt: [] };   // the Action4 so far
  const history = [];        // the turns before each use (undo)
  let selected = null;       // the card whose place is being chosen
  let places = [];           // its legal places: [{use, label}]
  let asking = 0;            // the newest check asked (an older answer is ignored)

  const used = (t) => [t.food, ...t.gp.map((u) => u[1]), ...t.gb.map((u) => u[1]), ...t.bt.flat(),
                       ...t.rt.map((u) => u[2])].filter((c) => c !== null);
  const wire = (t) => [t.food, t.gp, t.gb, t.bt, t.rt];
  const copy = (t) => JSON.parse(JSON.stringify(t));
  const boardName = (b) => (b < existing ? `species ${b}` : `the new species ${b}`);

  function apply(t, use, c) {   // the turn with card c put to `use`
    const next = copy(t);
    if (use.kind === "food") next.food = c;
    else if (use.kind === "gp") next.gp.push([use.board, c]);
    else if (use.kind === "gb") next.gb.push([use.board, c]);
    else if (use.kind === "bt") next.bt.push([c]);
    else if (use.kind === "trait") next.bt[use.board - existing].push(c);
    else if (use.kind === "rt") next.rt.push([use.board, use.trait, c]);
    return next;
  }

  function traitsOf(b) {   // the traits board b carries in this turn's picture (before replacements)
    return b < existing ? species[b].traits : turn.bt[b - existing].slice(1).map((c) => hand[c][1]);
  }

  function usesFor(c) {   // every place card c might go now (the dealer's check decides)
    const uses = [];
    if (turn.food === null) uses.push({ kind: "food", label: `${named(c)} as the food card` });
    uses.push({ kind: "bt", label: `pay ${named(c)} for a new species` });
    const boards = existing + turn.bt.length;
    for (let b = 0; b < boards; b++) {
      if (b >= existing && turn.bt[b - existing].length <= MAX_TRAITS) {
        uses.push({ kind: "trait", board: b, label: `${named(c)}: its trait on ${boardName(b)}` });
      }
      uses.push({ kind: "gp", board: b, label: `${named(c)} grows the population of ${boardName(b)}` });
      uses.push({ kind: "gb", board: b, label: `${named(c)} grows the body of ${boardName(b)}` });
      traitsOf(b).forEach((trait, i) => uses.push({ kind: "rt", board: b, trait: i,
                                                    label: `${named(c)} replaces ${trait} on ${boardName(b)}` }));
    }
    return uses;
  }

  async function select(c) {
    selected = c;
    places = [];
    const ask = ++asking;
    refresh();
    ui.say(`where does ${named(c)} go? asking the dealer's rules…`);
    const uses = usesFor(c);
    const tries = [], kept = [];
    for (const use of uses) {
      const t = apply(turn, use, c);
      if (t.food === null) {   // any card left may still be the food card: check with one of them
        const spare = hand.findIndex((_, i) => !used(t).includes(i));
        if (spare < 0) continue;
        t.food = spare;
      }
      tries.push(wire(t));
      kept.push(use);
    }
    const problems = tries.length ? await ui.check(tries) : [];
    if (ask !== asking) return;
    places = kept.filter((_, k) => problems[k] === null);
    refresh();
  }

  function put(use) {
    history.push(turn);
    turn = apply(turn, use, selected);
    selected = null;
    places = [];
    refresh();
  }

  function summary() {
    const parts = [];
    if (turn.food !== null) parts.push(`food card ${named(turn.food)}`);
    turn.bt.forEach(([p, ...traits], k) => parts.push(`new species ${existing + k} (paid with ${named(p)})`
      + (traits.length ? ` with ${traits.map((t) => hand[t][1]).join(", ")}` : "")));
    for (const [b, c] of turn.gp) parts.push(`population of ${boardName(b)} +1 (${named(c)})`);
    for (const [b, c] of turn.gb) parts.push(`body of ${boardName(b)} +1 (${named(c)})`);
    for (const [b, i, c] of turn.rt) parts.push(`${traitsOf(b)[i]} of ${boardName(b)} becomes ${hand[c][1]}`);
    return parts.join("; ");
  }

  function refresh() {
    ui.clear();
    const shapes = drawNewBoards(ui, turn, hand, existing);
    drawChanges(ui, turn, hand, species);
    const taken = used(turn);
    for (const c of taken) chosen(keyed(ui.picture, `card:${c}`));
    if (selected !== null) chosen(keyed(ui.picture, `card:${selected}`));
    if (selected === null) {   // every card left has a place (at least: paying for a new species)
      hand.forEach((_, c) => {
        if (!taken.includes(c)) target(keyed(ui.picture, `card:${c}`), `choose where ${named(c)} goes`, () => select(c));
      });
    }
    for (const use of places) {
      const node = placeNode(ui, shapes, use);
      if (node) target(node, use.label, () => put(use)); else ui.button(use.label, () => put(use));
    }
    if (selected !== null) ui.button("another card", () => { selected = null; asking++; places = []; refresh(); });
    if (turn.food !== null && selected === null) ui.button("done: play these cards", () => ui.send(wire(turn)), true);
    if (history.length) {
      ui.button("undo", () => { turn = history.pop(); selected = null; places = []; refresh(); });
    }
    const sofar = summary();
    if (selected !== null) {
      ui.say(places.length ? `${named(selected)}: click where it goes${sofar ? ` (so far: ${sofar})` : ""}`
        : `${named(selected)} cannot go anywhere more: pick another card`);
    } else {
      ui.say(sofar ? `${sofar}. Another card, or done${turn.food === null ? " once a food card is chosen" : ""}`
        : "click a card of your hand, then where it goes (a food card is needed; the rest in any order)");
    }
  }
  refresh();
}

// The shape standing for a place of a card: the picture's own (an existing species'
// population, body, trait; the new-species slot) or the drawn new species' parts.
function placeNode(ui, shapes, use) {
  switch (use.kind) {
    case "bt": return keyed(ui.picture, "newboard");
    case "trait": return shapes.addTrait.get(use.board) || null;
    case "gp": return keyed(ui.picture, `pop:${use.board}`);
    case "gb": return keyed(ui.picture, `body:${use.board}`);
    case "rt": return keyed(ui.picture, `trait:${use.board}:${use.trait}`);
    default: return null;   // the food card: a button
  }
}

// The new species of this turn, drawn where the slot for a new species was (the slot moves
// on to their right), each keyed like the picture's own (pop:B, body:B, trait:B:I) with a
// place for one more trait (returned by board index).
function drawNewBoards(ui, turn, hand, existing) {
  const addTrait = new Map();
  const slot = keyed(ui.picture, "newboard");
  const frame = slot.querySelector("rect");
  const x0 = Number(frame.getAttribute("x")), y = Number(frame.getAttribute("y"));
  const row = slot.parentNode;
  const grown = (list, b) => list.filter(([board]) => board === b).length;
  turn.bt.forEach(([, ...traits], k) => {
    const b = existing + k, x = x0 + k * (BOARD_W + GAP);
    const g = svgNode("g", { class: "tentative", "data-species": b });
    g.append(svgNode("rect", { x, y, width: BOARD_W, height: BOARD_H, rx: 8, fill: "#e8f5e4", stroke: "#2e7d32",
                               "stroke-dasharray": "6,3" }));
    g.append(svgText(x + 8, y + 18, `#${b} new  pop ${1 + grown(turn.gp, b)}  body ${grown(turn.gb, b)}`));
    g.append(svgNode("rect", { x: x + 26, y: y + 5, width: 46, height: 18, fill: "none", stroke: "none",
                               "pointer-events": "all", "data-key": `pop:${b}` }));
    g.append(svgNode("rect", { x: x + 74, y: y + 5, width: 50, height: 18, fill: "none", stroke: "none",
                               "pointer-events": "all", "data-key": `body:${b}` }));
    traits.forEach((c, i) => {
      const replaced = turn.rt.filter(([rb, ri]) => rb === b && ri === i).pop();
      const shown = replaced ? `${hand[replaced[2]][1]} (was ${hand[c][1]})` : hand[c][1];
      g.append(svgText(x + 8, y + 52 + 14 * i, shown, { "font-style": "italic" }));
      g.append(svgNode("rect", { x: x + 4, y: y + 40 + 14 * i, width: BOARD_W - 8, height: 15, fill: "none",
                                 stroke: "none", "pointer-events": "all", "data-key": `trait:${b}:${i}` }));
    });
    if (traits.length < MAX_TRAITS) {
      const more = svgNode("g", { "data-key": `addtrait:${b}` });
      more.append(svgNode("rect", { x: x + 4, y: y + 40 + 14 * traits.length, width: BOARD_W - 8, height: 15,
                                    fill: "#fafafa", stroke: "#bbb", "stroke-dasharray": "3,2", "pointer-events": "all" }));
      more.append(svgText(x + 8, y + 52 + 14 * traits.length, "+ a trait", { fill: "#777" }));
      g.append(more);
      addTrait.set(b, more);
    }
    row.append(g);
  });
  const shift = turn.bt.length * (BOARD_W + GAP);
  if (shift) slot.setAttribute("transform", `translate(${shift},0)`); else slot.removeAttribute("transform");
  // the picture grows to the right when the new species need the room
  const svg = ui.picture.querySelector("svg");
  if (!svg.dataset.drawnViewbox) svg.dataset.drawnViewbox = svg.getAttribute("viewBox");
  const [vx, vy, vw, vh] = svg.dataset.drawnViewbox.split(/[ ,]+/).map(Number);
  const right = x0 + shift + BOARD_W + GAP;
  svg.setAttribute("viewBox", `${vx} ${vy} ${Math.max(vw, right - vx)} ${vh}`);
  return { addTrait };
}

// What the turn does to the species already on the board, written over their lines (the
// picture's own come back at the next step): the population and body grown, the traits
// replaced. Not clickable: the shapes under them stay the targets.
function drawChanges(ui, turn, hand, species) {
  const grown = (list, b) => list.filter(([board]) => board === b).length;
  species.forEach((s, b) => {
    const pop = keyed(ui.picture, `pop:${b}`);
    const more = grown(turn.gp, b), bigger = grown(turn.gb, b);
    if (pop && (more || bigger)) {
      const x = Number(pop.getAttribute("x")) - 22, y = Number(pop.getAttribute("y"));
      cover(pop, x, y, BOARD_W - 8, 18,
            `#${b}  pop ${s.population + more}  body ${s.body + bigger}  food ${s.food}`);
    }
    s.traits.forEach((trait, i) => {
      const replaced = turn.rt.filter(([rb, ri]) => rb === b && ri === i).pop();
      const line = keyed(ui.picture, `trait:${b}:${i}`);
      if (!replaced || !line) return;
      cover(null, Number(line.getAttribute("x")), Number(line.getAttribute("y")), BOARD_W - 8, 15,
            `${hand[replaced[2]][1]} (was ${trait})`, { "font-style": "italic" }, line);
    });
  });
}

// A line written over the picture's own, just under the shape `before` (a target keeps its
// mark above it) or, without one, over everything of the species `line` is in.
function cover(before, x, y, width, height, text, attributes = {}, line = null) {
  const g = svgNode("g", { class: "tentative", "pointer-events": "none" });
  g.append(svgNode("rect", { x, y, width, height, fill: "#e8f5e4", stroke: "#2e7d32", rx: 3 }));
  g.append(svgText(x + 4, y + height - 4, text, { fill: "#1b5e20", "font-weight": "bold", ...attributes }));
  if (before) before.parentNode.insertBefore(g, before); else line.parentNode.append(g);
}

function svgNode(tag, attributes) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  return node;
}

function svgText(x, y, text, attributes = {}) {
  const node = svgNode("text", { x, y, "font-size": 12, ...attributes });
  node.textContent = text;
  return node;
}

function myRow(ui) {   // the picture's row of the viewer: the one with the new-species slot
  const slot = ui.picture.querySelector("[data-key='newboard']");
  const rows = [...ui.picture.querySelectorAll("[data-key^='species:']")];
  if (slot && rows.length) {
    const y = slot.getBBox().y;
    const same = rows.find((n) => Math.abs(n.getBBox().y - y) < 2);
    if (same) return Number(same.dataset.key.split(":")[1]);
  }
  return 0;
}
