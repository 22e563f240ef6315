// The Fish board of the web room (docs/boards.md): the game's own SVG picture made
// interactive. Placing: click a highlighted free tile. Moving: click one of your penguins,
// then one of the tiles it can reach. The tile a penguin just reached is marked.
import { clickPaths, keyed } from "/static/board.js";

const at = ([r, c]) => `tile:${r},${c}`;
const words = ([r, c]) => `row ${r}, column ${c}`;

export function play(ui) {
  if (ui.prompt.method === "setup") {   // placement (the protocol's setup call): one click, the tile
    clickPaths(ui, (action) => [{ key: at(action), label: `place a penguin on ${words(action)}` }],
               { intro: "place a penguin: click a highlighted tile" });
    return;
  }
  clickPaths(ui, ([from, to]) => [{ key: at(from), label: `move the penguin on ${words(from)}` },
                                  { key: at(to), label: `to ${words(to)}` }],
             { intro: "click one of your penguins, then where it goes" });
}

export function mark(ui, frame, before) {
  if (!before || !frame.view || !before.view) return;
  const was = new Set(before.view.players.flatMap((p) => p.places.map(at)));
  for (const player of frame.view.players) {
    for (const place of player.places) {
      const node = keyed(ui.picture, at(place));
      if (!was.has(at(place)) && node) node.classList.add("last-move");
    }
  }
}
