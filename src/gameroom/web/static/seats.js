// What the match page and the room page share of the seats table (#seats) and the end of a
// game: whose turn it is (the seat to play highlighted, said in the game's words, never
// the protocol's wire names), and at game over the winners alone highlighted; a result's
// scores drawn readably (a game's score may be an object: Evolution's bag and score).

function el(tag, text) { const n = document.createElement(tag); n.textContent = text; return n; }

// The seat `seat` (a row's data-seat) is to play: only its row is highlighted.
export function markTurn(table, seat) {
  for (const row of table.querySelectorAll("tr")) row.classList.toggle("to-play", seat !== null && row.dataset.seat === seat);
}

// "to play: NAME (WHAT)": `asks` is what the seat decides in the game's words (the turn
// frame's `asks`), left out when the room does not say it; never the wire's method name.
export function turnText(name, asks) {
  return asks ? `to play: ${name} (${asks})` : `to play: ${name}`;
}

// The game is over: nobody is to play; the winners' rows (by data-seat) are marked.
export function markWinners(table, winners) {
  for (const row of table.querySelectorAll("tr")) {
    const won = winners.includes(row.dataset.seat);
    row.classList.remove("to-play");
    row.classList.toggle("winner", won);
    const mark = row.querySelector("td.won");
    if (won && !mark) row.append(Object.assign(el("td", "winner"), { className: "won" }));
    if (!won && mark) mark.remove();
  }
}

// A score as words: a number as it is, an object as "key value, key value".
export function scoreText(score) {
  if (score === null || score === undefined) return "";
  if (typeof score !== "object") return String(score);
  if (Array.isArray(score)) return score.map(scoreText).join(", ");
  return Object.entries(score).map(([key, value]) => `${key} ${scoreText(value)}`).join(", ");
}

// The result's scores as rows (seat, score), best first as the result lists them.
export function drawScores(table, scores, name = (seat) => seat) {
  table.replaceChildren();
  for (const [seat, score] of Object.entries(scores || {})) {
    const row = document.createElement("tr");
    row.append(el("td", name(seat)), el("td", scoreText(score)));
    table.append(row);
  }
}
