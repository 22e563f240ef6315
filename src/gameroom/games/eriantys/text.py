"""Eriantys for a person at a terminal: the board as styled text and the typed commands
(pure: the terminal client of the lobby prints the fragments and sends the events).

The board is a list of ``(style, text)`` fragments (prompt_toolkit's formatted text):
the island ring in order with Mother Nature, students, towers and no-entry tiles; the
clouds; each school (entrance, dining room, professors, towers, coins, hand); the
character cards in expert mode; and whose turn it is and what the game expects. Beside
it: the game's narrator for a room's broadcasts (:func:`narrator`, the sentences
``gameroom play`` prints), what one turn of a seat is (:func:`turn`: the board is drawn
once per turn) and the commands legal now (:func:`legal_commands`, the lobby's own checks).
"""

from __future__ import annotations

from typing import Any

from gameroom.core.narration import Narrator
from gameroom.games.eriantys.narrator import TEAMS, EriantysNarrator
from gameroom.games.eriantys.pieces import CARD_INPUTS, CARD_NAMES, COLORS

__all__ = ["board", "parse_command", "command_of", "HELP", "expected", "narrator", "turn", "legal_commands",
           "SELF_TOLD"]

SELF_TOLD = frozenset({"END_GAME", "PLAYER_DISCONNECT"})
"""Broadcasts the terminal client tells in its own words (not the narrator's)."""

Fragments = list[tuple[str, str]]

COLOR_STYLE = {"GREEN": "fg:ansigreen bold", "RED": "fg:ansired bold", "YELLOW": "fg:ansiyellow bold",
               "PINK": "fg:ansimagenta bold", "BLUE": "fg:ansiblue bold"}
TOWER_STYLE = {"BLACK": "bg:ansiblack fg:ansiwhite", "WHITE": "bg:ansiwhite fg:ansiblack",
               "GREY": "bg:ansigray fg:ansiblack"}
_SHORT = {"GREEN": "G", "RED": "R", "YELLOW": "Y", "PINK": "P", "BLUE": "B"}

HELP = """commands in a game (colours: green red yellow pink blue, or g r y p b):
  card V            play the assistant card of value V (planning)
  table C           move a student of colour C from your entrance to your dining room
  island C I        move a student of colour C from your entrance to island I
  mother N          move Mother Nature N steps
  cloud I           take the students of cloud I
  use ID            activate character card ID (expert mode)
  card-island C I   Monk: the card's student C to island I
  card-table C      Spoiled Princess: the card's student C to your dining room
  swap C1 C2        Jester: card C1 <-> entrance C2; Minstrel: entrance C1 <-> table C2
  pick I            Grandma Herbs / Herald: island I
  color C           Mushroom Man / Thief: colour C
  done              end a Jester or Minstrel selection
  hint              suggest a legal command"""


def _students(counts: dict[str, int]) -> Fragments:
    out: Fragments = []
    for color in COLORS:
        if counts.get(color):
            out.append((COLOR_STYLE[color], f"{_SHORT[color]}{counts[color]} "))
    return out or [("fg:ansibrightblack", "- ")]


def expected(snap: dict[str, Any], seat: int | None) -> str:
    """What the game waits for, in words."""
    if snap.get("finished"):
        return "the game is over"
    if snap.get("suspended"):
        return "the game is suspended (too few players connected)"
    current = snap["currentPlayer"]
    who = "your" if current == seat else f"{snap['players'][current]['username']}'s"
    turn = snap["turn"]
    pending = turn.get("pendingInput")
    if pending:
        what = f"input for the {CARD_NAMES[pending['card']]}: " + ", ".join(
            _COMMAND_OF_TYPE.get(t, t) for t in pending["accepts"])
    elif snap["phase"] == "PLANNING_PHASE":
        what = "an assistant card (card V)"
    elif snap["phase"] == "ACTION_PHASE_ONE":
        what = f"{turn['studentsToMove']} student move(s) (table C / island C I)"
    elif snap["phase"] == "ACTION_PHASE_TWO":
        what = f"Mother Nature, 1 to {turn['motherNatureLimit']} steps (mother N)"
    else:
        what = "a cloud (cloud I)"
    return f"{who} turn: {what}"


def board(snap: dict[str, Any], seat: int | None) -> Fragments:
    """The whole board as styled fragments, ending with a newline."""
    out: Fragments = [("bold", f"== round {snap['round']}, {snap['phase'].replace('_', ' ').lower()}"
                               f"{', last round' if snap.get('lastRound') else ''} ==\n")]
    out.append(("bold", "islands (clockwise):\n"))
    for i, island in enumerate(snap["islands"]):
        mother = i == snap["motherNature"]
        out.append(("reverse bold" if mother else "", f" {'M' if mother else ' '}{i:2} "))
        out.append(("", " "))
        out.extend(_students(island["students"]))
        if island["towers"]:
            out.append((TOWER_STYLE[island["towerColor"]], f" {island['towers']}x{island['towerColor']} "))
        if island["noEntry"]:
            out.append(("fg:ansired", f" no-entry x{island['noEntry']}"))
        out.append(("", "\n"))
    out.append(("bold", "clouds: "))
    for i, cloud in enumerate(snap["clouds"]):
        out.append(("", f"[{i}] "))
        out.extend(_students(cloud))
    out.append(("", f"  bag {snap['bag']}" + (f", bank {snap['bank']}" if snap.get("bank") is not None else "") + "\n"))
    professors = snap["professors"]
    for player in snap["players"]:
        s = player["seat"]
        mark = "*" if s == snap["currentPlayer"] and not snap.get("finished") else " "
        you = " (you)" if s == seat else ""
        state = "" if player["connected"] else (" [ejected]" if player["ejected"] else " [disconnected]")
        out.append(("bold" if s == seat else "", f"{mark}{s} {player['username']}{you}{state} "))
        out.append((TOWER_STYLE[player["towerColor"]], f" {player['towerColor']} "))
        out.append(("", f" towers {snap['towers'][player['towerColor']]}"
                        + (f", coins {player['coins']}" if player.get("coins") is not None else "")
                        + (f", played {player['playedAssistant']}" if player.get("playedAssistant") else "")
                        + "\n    entrance: "))
        out.extend(_students(player["entrance"]))
        out.append(("", "\n    dining:   "))
        out.extend(_students(player["diningRoom"]))
        owned = [c for c in COLORS if professors.get(c) == s]
        out.append(("", " professors: "))
        out.extend([(COLOR_STYLE[c], c.lower() + " ") for c in owned] or [("", "- ")])
        out.append(("", "\n    hand: " + " ".join(map(str, player["hand"])) + "\n"))
    for card in snap.get("characterCards", []):
        out.append(("", f"card {card['id']} {CARD_NAMES[card['id']]}: price {card['price']}"))
        if card.get("students"):
            out.append(("", ", students "))
            out.extend(_students(card["students"]))
        if card.get("noEntryTiles") is not None:
            out.append(("", f", {card['noEntryTiles']} no-entry tiles"))
        out.append(("", "\n"))
    out.append(("bold fg:ansicyan" if snap.get("currentPlayer") == seat else "bold", expected(snap, seat) + "\n"))
    return out


_COLOR_WORDS = {**{c.lower(): c for c in COLORS}, **{_SHORT[c].lower(): c for c in COLORS}}


def _color(word: str) -> str:
    color = _COLOR_WORDS.get(word.lower())
    if color is None:
        raise ValueError(f"{word!r} is not a colour (green red yellow pink blue)")
    return color


def _int(word: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise ValueError(f"{word!r} is not a number") from None


# command -> (event type, argument readers and field names)
_COMMANDS: dict[str, tuple[str, tuple[tuple[str, Any], ...]]] = {
    "card": ("PLAY_ASSISTANT_CARD", (("assistantCard", _int),)),
    "table": ("MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", (("color", _color),)),
    "island": ("MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", (("color", _color), ("islandIndex", _int))),
    "mother": ("MOVE_MOTHER_NATURE", (("amount", _int),)),
    "cloud": ("CHOOSE_CLOUD", (("cloudIndex", _int),)),
    "use": ("ACTIVATE_CHARACTER_CARD", (("cardId", _int),)),
    "card-island": ("MOVE_STUDENT_FROM_CARD_TO_ISLAND", (("color", _color), ("islandIndex", _int))),
    "card-table": ("MOVE_STUDENT_FROM_CARD_TO_TABLE", (("color", _color),)),
    "pick": ("CHOOSE_ISLAND", (("islandIndex", _int),)),
    "color": ("CHOOSE_COLOR", (("color", _color),)),
    "done": ("END_SELECTION", ()),
}
_SWAPS = {"SWAP_STUDENT_CARD_ENTRANCE": ("studentFromCard", "studentFromEntrance"),
          "SWAP_STUDENT_ENTRANCE_TABLE": ("studentFromEntrance", "studentFromTable")}
_COMMAND_OF_TYPE = {kind: name for name, (kind, _args) in _COMMANDS.items()}
_COMMAND_OF_TYPE.update({kind: "swap" for kind in _SWAPS})
GAME_COMMANDS = frozenset(_COMMANDS) | {"swap"}


def parse_command(words: list[str], snap: dict[str, Any] | None) -> dict[str, Any]:
    """The event object a typed command stands for; ValueError says what is wrong."""
    name, args = words[0].lower(), words[1:]
    if name == "swap":
        if len(args) != 2:
            raise ValueError("swap takes two colours")
        pending = (snap or {}).get("turn", {}).get("pendingInput") or {}
        kind = next((k for k in pending.get("accepts", ()) if k in _SWAPS), None)
        if kind is None:
            raise ValueError("swap is for the Jester (card 2) or the Minstrel (card 3), after 'use'")
        first, second = _SWAPS[kind]
        return {"eventType": kind, first: _color(args[0]), second: _color(args[1])}
    if name not in _COMMANDS:
        raise ValueError(f"unknown command {name!r} (type help)")
    kind, fields = _COMMANDS[name]
    if len(args) != len(fields):
        raise ValueError(f"{name} takes {len(fields)} argument(s): " + " ".join(f for f, _ in fields))
    event: dict[str, Any] = {"eventType": kind}
    for (field, read), word in zip(fields, args):
        event[field] = read(word)
    return event


def command_of(event: dict[str, Any]) -> str:
    """The typed command for an event (the inverse of :func:`parse_command`)."""
    kind = event["eventType"]
    if kind in _SWAPS:
        first, second = _SWAPS[kind]
        return f"swap {event[first].lower()} {event[second].lower()}"
    name = _COMMAND_OF_TYPE[kind]
    fields = _COMMANDS[name][1]
    return " ".join([name, *(str(event[f]).lower() for f, _ in fields)])


assert set(_COMMAND_OF_TYPE) | {"CHOOSE_CLOUD"} >= set(t for ts in CARD_INPUTS.values() for t in ts)


def narrator(players: list[str], snap: dict[str, Any] | None = None) -> Narrator:
    """The narrator of a room's game between ``players`` (seat order): it is fed every
    broadcast as a ``message`` event, as the in-process referee reports them. ``snap``:
    the game joined midway (a reconnection), whose rounds are counted on from its own."""
    told = EriantysNarrator("", list(players), TEAMS)
    if snap is not None and isinstance(snap.get("round"), int):
        told.round = snap["round"]
    return told


def turn(snap: dict[str, Any]) -> Any:
    """One turn of a seat: its planning decision, or its whole action phase (students,
    Mother Nature, cloud, cards), as the lobby counts turns."""
    return snap.get("round"), snap.get("phase") == "PLANNING_PHASE", snap.get("currentPlayer")


def legal_commands(snap: dict[str, Any], seat: int) -> list[str]:
    """Every command ``seat`` may type now (the lobby's own checks on the snapshot), in
    the rules' canonical order; none when it is not its move."""
    from gameroom.games.eriantys.state import from_snapshot
    from gameroom.games.eriantys.strategies import legal_events

    if snap.get("finished") or snap.get("currentPlayer") != seat:
        return []
    return [command_of(event) for event in legal_events(from_snapshot(snap), seat, activations=True)]
