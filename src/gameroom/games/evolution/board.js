// The Evolution board of the web room (docs/boards.md): the game's own SVG picture made
// interactive. Choosing: click the card of your hand to give as food, then, for each
// other use of a card, the card and where it goes (the population or body of one of your
// species, one of its traits to replace, or the empty slot for a new species); confirm.
// Feeding: click your species to feed (then the fat to store, a button), or your
// carnivore and then the species it attacks.
import { clickPaths } from "/static/board.js";

const card = (i, label) => ({ key: `card:${i}`, label });

export function play(ui) {
  const svg = ui.picture;
  const hand = (ui.view && ui.view.me) ? Object.fromEntries(ui.view.me).cards || [] : [];
  const named = (i) => (hand[i] ? `${hand[i][0] > 0 ? "+" : ""}${hand[i][0]} ${hand[i][1]}` : `card ${i}`);
  // the row of the picture that is this person's (the one whose hand is drawn)
  const rows = [...new Set([...svg.querySelectorAll("[data-key^='species:']")].map((n) => Number(n.dataset.key.split(":")[1])))];
  const players = ui.view && ui.view.others ? ui.view.others.length + 1 : rows.length;
  const mine = myRow(ui);
  if (ui.prompt.method === "choose") {
    clickPaths(ui, ([food, population, body, boards, replace]) => {
      const steps = [card(food, `give ${named(food)} as food`)];
      for (const [p, ...traits] of boards) {
        steps.push(card(p, `pay ${named(p)} for a new species`), { key: "newboard", label: "a new species board" });
        for (const t of traits) steps.push(card(t, `with the trait ${named(t)}`));
      }
      for (const [b, c] of population) steps.push(card(c, `use ${named(c)}`), { key: `pop:${b}`, label: `to grow the population of species ${b}` });
      for (const [b, c] of body) steps.push(card(c, `use ${named(c)}`), { key: `body:${b}`, label: `to grow the body of species ${b}` });
      for (const [b, i, c] of replace) steps.push(card(c, `use ${named(c)}`), { key: `trait:${b}:${i}`, label: `to replace trait ${i} of species ${b}` });
      return steps;
    }, { intro: "click the card of your hand to give as food" });
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
