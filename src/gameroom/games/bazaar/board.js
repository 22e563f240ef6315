// The Bazaar board of the web room (docs/boards.md): the game's own SVG picture made
// interactive. First action: click the bank for a pebble, or the side of an equation you
// give (once or twice in a row) and confirm, or "trade nothing". Then click the visible
// cards to buy (in any order; the best order of the same cards is sent) or "buy nothing".
import { clickPaths } from "/static/board.js";

const sorted = (colours) => [...colours].sort().join(",");
const tradeKey = ([give, get]) => `trade:${sorted(give)}>${sorted(get)}`;
const cardKey = (card) => `card:${sorted(card.pebbles)}:${card["face?"] ? "face" : "plain"}`;

export function play(ui) {
  if (ui.prompt.method === "request-pebble-or-trades") {
    clickPaths(ui, (action) => action === false
      ? [{ key: "bank", label: "take a pebble from the bank" }]
      : action.map((e) => ({ key: tradeKey(e), label: `give ${e[0].join(" ")} for ${e[1].join(" ")}` })),
    { intro: "click the bank for a pebble, or the side of an equation you give" });
    return;
  }
  if (ui.prompt.method === "request-cards") {
    clickPaths(ui, (cards) => cards.map((c) => ({ key: cardKey(c), label: `buy the card ${c.pebbles.join(" ")}${c["face?"] ? " (face)" : ""}` })),
               { unordered: true, intro: "click the cards to buy, or buy nothing" });
    return;
  }
  clickPaths(ui, () => []);
}
