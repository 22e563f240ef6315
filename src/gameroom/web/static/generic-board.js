// The board of a game that ships no board module: the picture as it is, and every offered
// answer as a button beside it (a plug-in game can be played by people all the same).
import { clickPaths } from "/static/board.js";

export function play(ui) {
  clickPaths(ui, () => [], { intro: "your move: choose one of the legal actions" });
}
