// The Eriantys board of the web room (docs/boards.md): the game's own SVG picture made
// interactive. Planning: click an assistant card of your school. Action: click a student
// of your entrance, then your dining table of its colour or an island; click the island
// Mother Nature goes to; click a cloud. A character card is activated by a click on it,
// and its inputs (students, islands, colours) are picked the same way; a colour that is
// no shape (a card's student, a colour to name) is a button.
import { clickPaths } from "/static/board.js";

export function play(ui) {
  const snap = ui.view;
  const me = snap.currentPlayer;
  const islands = snap.islands.length;
  const steps = (e) => {
    switch (e.eventType) {
      case "PLAY_ASSISTANT_CARD":
        return [{ key: `assistant:${me}:${e.assistantCard}`, label: `play assistant card ${e.assistantCard}` }];
      case "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE":
        return [{ key: `entrance:${me}:${e.color}`, label: `a ${e.color.toLowerCase()} student of your entrance` },
                { key: `table:${me}:${e.color}`, label: `to your ${e.color.toLowerCase()} table` }];
      case "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND":
        return [{ key: `entrance:${me}:${e.color}`, label: `a ${e.color.toLowerCase()} student of your entrance` },
                { key: `island:${e.islandIndex}`, label: `to island ${e.islandIndex}` }];
      case "MOVE_MOTHER_NATURE": {
        const to = (snap.motherNature + e.amount) % islands;
        return [{ key: `island:${to}`, label: `Mother Nature ${e.amount} step(s), to island ${to}` }];
      }
      case "CHOOSE_CLOUD":
        return [{ key: `cloud:${e.cloudIndex}`, label: `take the students of cloud ${e.cloudIndex}` }];
      case "ACTIVATE_CHARACTER_CARD":
        return [{ key: `character:${e.cardId}`, label: `activate character card ${e.cardId}` }];
      case "MOVE_STUDENT_FROM_CARD_TO_ISLAND":
        return [{ key: `card-student:${e.color}`, label: `the card's ${e.color.toLowerCase()} student` },
                { key: `island:${e.islandIndex}`, label: `to island ${e.islandIndex}` }];
      case "MOVE_STUDENT_FROM_CARD_TO_TABLE":
        return [{ key: `table:${me}:${e.color}`, label: `the card's ${e.color.toLowerCase()} student to your table` }];
      case "SWAP_STUDENT_CARD_ENTRANCE":
        return [{ key: `card-student:${e.studentFromCard}`, label: `the card's ${e.studentFromCard.toLowerCase()} student` },
                { key: `entrance:${me}:${e.studentFromEntrance}`, label: `for your ${e.studentFromEntrance.toLowerCase()} entrance student` }];
      case "SWAP_STUDENT_ENTRANCE_TABLE":
        return [{ key: `entrance:${me}:${e.studentFromEntrance}`, label: `your ${e.studentFromEntrance.toLowerCase()} entrance student` },
                { key: `table:${me}:${e.studentFromTable}`, label: `for a ${e.studentFromTable.toLowerCase()} student of your tables` }];
      case "CHOOSE_ISLAND":
        return [{ key: `island:${e.islandIndex}`, label: `choose island ${e.islandIndex}` }];
      case "CHOOSE_COLOR":
        return [{ key: `color:${e.color}`, label: `choose ${e.color.toLowerCase()}` }];
      default:
        return [];   // END_SELECTION and anything new: a button with the offer's label
    }
  };
  clickPaths(ui, steps, { intro: "your move: click a highlighted piece" });
}
