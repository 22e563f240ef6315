"""Eriantys for learning agents: the encoding behind ``gameroom.rl`` (``core.learning``).

Options: ``players`` (2-4, default 2; with 4, seats 0 and 2 play against 1 and 3) and
``expert`` (character cards, default False). The game is the descriptor's: set up from the
seed and played by the in-process Eriantys referee under its ``referee`` policy.

**Actions**: every ``GAME_EVENT`` the seat could send, one index each (86 in simple mode,
231 in expert mode): play assistant card 1-10; move a student of a colour from the
entrance to the table (5) or to island 0-11 (60); move Mother Nature 1-7 steps; choose
cloud 0-3; and in expert mode activate character card 0-11, move a student of a colour from
the card to island 0-11 (60) or to the table (5), choose a colour (5), choose island 0-11,
swap a card's student for an entrance student (5 x 5), swap an entrance student for a
table student (5 x 5), end the selection. Each event is one decision (the three student
moves of a turn are three). Legal: exactly the events the server's own checks accept
(``rules.check_parsed``, on every event of a type the situation accepts); a refused index goes to the referee as that event, which NACKs
it and ejects the seat.

**Observation** (a vector; everything in Eriantys is public, so it is the §6.5 snapshot the
seat is sent): for each seat, oneself first then clockwise: entrance / 9 and dining room /
10 per colour, assistant cards in hand, the assistant played this round, coins / 20; per
colour the professor's owner (relative seat one-hot, or none); each team's towers in
supply / 8 (one's own team first); the twelve island places (present, students / 10 per
colour, towers / 8, the team owning them, no-entry tiles / 4, Mother Nature); the four
clouds' students / 4; the phase; students still to move / 4; Mother Nature's limit / 7;
the activated and the pending character card (one-hot ids), the inputs remaining / 3, the
mushroom colour; the last round; round / 10; bag / 120; bank / 20; the three character
cards (id one-hot, price / 4, used, students / 6, no-entry tiles / 4).

**Rewards** at the end: the winners (the winning team) +1 and the others by
``core.learning.rank_rewards`` of [winners, the others]; an ejected seat -1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.core.learning import (
    Learning,
    LearningTable,
    Option,
    flag,
    integer,
    rank_rewards,
)
from gameroom.core.record import MatchResult
from gameroom.games.eriantys.pieces import COLORS, ISLANDS
from gameroom.games.eriantys.referee import run_game
from gameroom.games.eriantys.rules import accepted_now, check_parsed, parse_event
from gameroom.games.eriantys.state import GameState, from_snapshot, new_game
from gameroom.games.eriantys.strategies import STRATEGIES

__all__ = ["LEARNING"]

PHASES = ("PLANNING_PHASE", "ACTION_PHASE_ONE", "ACTION_PHASE_TWO", "ACTION_PHASE_THREE")
TOWER_COLORS = ("BLACK", "WHITE", "GREY")
CARDS = 12
MOST_STEPS = 7      # 5 for the assistant, 2 more with the Magic Mailman
CLOUDS = 4


def _catalogue(expert: bool) -> list[dict[str, Any]]:
    """Every event, in index order."""
    events: list[dict[str, Any]] = []
    events += [{"eventType": "PLAY_ASSISTANT_CARD", "assistantCard": v} for v in range(1, 11)]
    events += [{"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", "color": c} for c in COLORS]
    events += [{"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", "color": c, "islandIndex": i}
               for c in COLORS for i in range(ISLANDS)]
    events += [{"eventType": "MOVE_MOTHER_NATURE", "amount": n} for n in range(1, MOST_STEPS + 1)]
    events += [{"eventType": "CHOOSE_CLOUD", "cloudIndex": i} for i in range(CLOUDS)]
    if expert:
        events += [{"eventType": "ACTIVATE_CHARACTER_CARD", "cardId": i} for i in range(CARDS)]
        events += [{"eventType": "MOVE_STUDENT_FROM_CARD_TO_ISLAND", "color": c, "islandIndex": i}
                   for c in COLORS for i in range(ISLANDS)]
        events += [{"eventType": "MOVE_STUDENT_FROM_CARD_TO_TABLE", "color": c} for c in COLORS]
        events += [{"eventType": "CHOOSE_COLOR", "color": c} for c in COLORS]
        events += [{"eventType": "CHOOSE_ISLAND", "islandIndex": i} for i in range(ISLANDS)]
        events += [{"eventType": "SWAP_STUDENT_CARD_ENTRANCE", "studentFromCard": a, "studentFromEntrance": b}
                   for a in COLORS for b in COLORS]
        events += [{"eventType": "SWAP_STUDENT_ENTRANCE_TABLE", "studentFromEntrance": a, "studentFromTable": b}
                   for a in COLORS for b in COLORS]
        events += [{"eventType": "END_SELECTION"}]
    return events


def _groups(events: list[dict[str, Any]]) -> dict[str, list[tuple[int, list[int]]]]:
    """The catalogue by event type: (index, parsed arguments) of each event."""
    groups: dict[str, list[tuple[int, list[int]]]] = {}
    for i, event in enumerate(events):
        parsed = parse_event(event)
        assert parsed is not None, event
        groups.setdefault(parsed[0], []).append((i, parsed[1]))
    return groups


def _label(event: dict[str, Any]) -> str:
    words = event["eventType"].lower().replace("_", " ")
    facts = ", ".join(f"{k} {v}" for k, v in event.items() if k != "eventType")
    return f"{words}: {facts}" if facts else words


class _Turn:
    """One event."""

    __slots__ = ("coder", "event", "snap", "state")

    def __init__(self, coder: _Coder, snap: dict[str, Any]) -> None:
        self.coder = coder
        self.snap = snap
        self.state: Any = from_snapshot(snap)   # GameState (its slots are not annotated)
        self.event: dict[str, Any] | None = None

    def observation(self) -> list[float]:
        return self.coder.encode(self.snap)

    def legal(self) -> list[int]:
        # The server's own checks (rules.check_parsed) on every event of an accepted type.
        state, groups = self.state, self.coder.groups
        if state.finished:
            return []
        seat = state.current
        out: list[int] = []
        for kind in accepted_now(state):
            out += [i for i, args in groups.get(kind, ()) if check_parsed(state, seat, kind, args) is None]
        return sorted(out)

    def choose(self, action: int) -> bool:
        self.event = dict(self.coder.events[action])
        return True

    def answer(self) -> Any:
        return self.event

    def refuse(self, action: int) -> Any:
        return dict(self.coder.events[action])


class _Coder:
    """One seat: its seat number (``setup``), then a turn per ``act``."""

    def __init__(self, players: int, expert: bool, events: list[dict[str, Any]],
                 groups: dict[str, list[tuple[int, list[int]]]]) -> None:
        self.players, self.expert, self.events, self.groups = players, expert, events, groups
        self.teams = 3 if players == 3 else 2
        self.seat = 0

    def turn(self, method: str, args: tuple[Any, ...]) -> _Turn | None:
        if method == "setup":
            self.seat = args[0]
            if (len(args[1]), bool(args[2])) != (self.players, self.expert):
                raise ValueError(f"this encoding is for {self.players} players{' in expert mode' if self.expert else ''}, "
                                 f"the game has {len(args[1])}{' in expert mode' if args[2] else ''}")
        elif method == "act":
            return _Turn(self, args[0])
        return None

    def team(self, seat: int) -> int:
        return seat if self.players == 3 else seat % 2

    def encode(self, snap: dict[str, Any]) -> list[float]:
        n, me = self.players, snap.get("currentPlayer", self.seat)
        if me is None:
            me = self.seat
        values: list[float] = []
        seats = [(me + k) % n for k in range(n)]
        by_seat = {p["seat"]: p for p in snap["players"]}
        for s in seats:
            p = by_seat[s]
            values += [p["entrance"][c] / 9 for c in COLORS]
            values += [p["diningRoom"][c] / 10 for c in COLORS]
            hand = set(p["hand"])
            values += [1.0 if v in hand else 0.0 for v in range(1, 11)]
            played = p.get("playedAssistant")
            values += [1.0 if played == v else 0.0 for v in range(1, 11)]
            values.append((p.get("coins") or 0) / 20)
        for c in COLORS:
            owner = snap["professors"][c]
            one = [0.0] * (n + 1)
            one[n if owner is None else (owner - me) % n] = 1.0
            values += one
        mine = self.team(me)
        supply = snap["towers"]
        for k in range(self.teams):
            colour = TOWER_COLORS[(mine + k) % self.teams]
            values.append(supply.get(colour, 0) / 8)
        islands = snap["islands"]
        for i in range(ISLANDS):
            if i < len(islands):
                island = islands[i]
                values.append(1.0)
                values += [island["students"][c] / 10 for c in COLORS]
                values.append(island["towers"] / 8)
                owner = [0.0] * self.teams
                if island["towerColor"] is not None:
                    owner[(TOWER_COLORS.index(island["towerColor"]) - mine) % self.teams] = 1.0
                values += owner
                values += [island["noEntry"] / 4, 1.0 if snap["motherNature"] == i else 0.0]
            else:
                values += [0.0] * (9 + self.teams)
        clouds = snap["clouds"]
        for i in range(CLOUDS):
            values += [clouds[i][c] / 4 for c in COLORS] if i < len(clouds) else [0.0] * 5
        values += [1.0 if snap["phase"] == phase else 0.0 for phase in PHASES]
        turn = snap["turn"]
        values.append(turn["studentsToMove"] / 4)
        values.append((turn["motherNatureLimit"] or 0) / MOST_STEPS)
        activated, pending = turn["activatedCard"], turn["pendingInput"]
        values += [1.0 if activated == i else 0.0 for i in range(CARDS)]
        values += [1.0 if pending is not None and pending["card"] == i else 0.0 for i in range(CARDS)]
        values.append((pending["remaining"] if pending is not None else 0) / 3)
        values += [1.0 if turn["mushroomColor"] == c else 0.0 for c in COLORS]
        values += [1.0 if snap["lastRound"] else 0.0, snap["round"] / 10, snap["bag"] / 120,
                   (snap["bank"] or 0) / 20]
        cards = snap["characterCards"]
        for k in range(3):
            if k < len(cards):
                card = cards[k]
                values += [1.0 if card["id"] == i else 0.0 for i in range(CARDS)]
                values += [card["price"] / 4, 1.0 if card["used"] else 0.0]
                students = card["students"] or {}
                values += [students.get(c, 0) / 6 for c in COLORS]
                values.append((card["noEntryTiles"] or 0) / 4)
            else:
                values += [0.0] * (CARDS + 8)
        return values


def _text(state: GameState) -> str:
    """The terminal client's board (``text.board``), without its styles."""
    from gameroom.games.eriantys.state import snapshot
    from gameroom.games.eriantys.text import board

    return "".join(text for _style, text in board(snapshot(state), None)).rstrip("\n")


def _make(players: int, expert: bool) -> LearningTable:
    events = _catalogue(expert)
    groups = _groups(events)
    sample = _Coder(players, expert, events, groups)
    teams = sample.teams
    size = (players * 31 + 5 * (players + 1) + teams + ISLANDS * (9 + teams) + CLOUDS * 5 + 4 + 2
            + 2 * CARDS + 1 + 5 + 4 + 3 * (CARDS + 8))

    def deal(seed: int, names: Sequence[str]) -> GameState:
        return new_game(list(names), expert, seed)[0]

    def play(seed: int, seats: Sequence[Any], observers: Sequence[Any]) -> MatchResult:
        return run_game(seats, seed, MatchContext(observers=observers), expert=expert)

    def rewards(result: MatchResult, names: Sequence[str]) -> list[float]:
        others = [seat for seat in range(len(names)) if seat not in result.winner_seats]
        return rank_rewards(len(names), [result.winner_seats, others], result.misbehaved_seats)

    # Students on an island or a card can pile up (130 in all): their bounds are loose.
    return LearningTable(
        game="eriantys", options={"players": players, "expert": expert}, players=players,
        actions=tuple(_label(e) for e in events), shape=(size,), low=[0.0] * size, high=[13.0] * size,
        play=play, coder=lambda: _Coder(players, expert, events, groups), rewards=rewards, text=_text, deal=deal,
        strategies=tuple(STRATEGIES))


LEARNING = Learning(
    options={
        "players": Option(2, integer(2, 4, "players"), "players at the table (4: two teams of two)"),
        "expert": Option(False, flag("expert"), "expert mode: coins and three character cards"),
    },
    make=_make,
    doc=__doc__ or "",
)
