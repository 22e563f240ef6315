"""The Eriantys game state, its seeded setup (eriantys.md 3.2, 3.8.1) and the §6.5 snapshot.

One :class:`GameState` holds everything of one game, including its random generator, so
that a state and the events applied to it replay a game exactly. It is mutable for speed;
:func:`gameroom.games.eriantys.rules.step` works on a copy (:meth:`GameState.copy`) and
``apply_event`` in place.

:func:`snapshot` renders the public ``GAME_STATE`` object of §6.5; :func:`from_snapshot`
rebuilds a state from one, good for every check of §4 (players use it to test candidate
events) but not for drawing students (the bag's colours are not public: only its size is
kept, and there is no generator).
"""

from __future__ import annotations

import operator
import random
from dataclasses import dataclass, field
from typing import Any, Sequence

from gameroom.core.wire import WireError
from gameroom.games.eriantys.pieces import (ACTION_ONE, BAG_PER_COLOR, BANK, CARD_INPUTS,
                                            CARD_STUDENTS, COLOR_INDEX, COLORS, ISLANDS, NO_ENTRY_TILES,
                                            PHASES, PLANNING, SETUP_ISLANDS, TOWER_COLORS, base_cost,
                                            Constants, constants, steps_of, team_of)

__all__ = ["Island", "Card", "TestHooks", "GameState", "HookError", "new_game", "snapshot", "from_snapshot",
           "encode_counts", "decode_counts"]


class HookError(WireError):
    """A test hook cannot be honoured (a listed draw colour is not in the bag): a broken
    configuration, reported like any bad input (8.1)."""


class Island:
    """One (possibly merged) island: students per colour, towers, their team, no-entry tiles."""

    __slots__ = ("students", "towers", "team", "no_entry")

    def __init__(self, students: list[int] | None = None, towers: int = 0, team: int | None = None,
                 no_entry: int = 0) -> None:
        self.students = students if students is not None else [0, 0, 0, 0, 0]
        self.towers = towers
        self.team = team
        self.no_entry = no_entry

    def copy(self) -> "Island":
        return Island(self.students[:], self.towers, self.team, self.no_entry)


class Card:
    """A character card in play: id, current price, whether used, students / no-entry tiles."""

    __slots__ = ("id", "price", "used", "students", "no_entry")

    def __init__(self, card_id: int, price: int, used: bool = False, students: list[int] | None = None,
                 no_entry: int | None = None) -> None:
        self.id = card_id
        self.price = price
        self.used = used
        self.students = students
        self.no_entry = no_entry

    def copy(self) -> "Card":
        return Card(self.id, self.price, self.used, None if self.students is None else self.students[:],
                    self.no_entry)


@dataclass
class TestHooks:
    """Deterministic set-ups for tests (§8.1 ``testHooks``): first player, the three
    character cards, the colours of the draws (setup bag and main bag, in game order)."""

    __test__ = False   # not a pytest class

    first_player: int | None = None
    character_cards: list[int] | None = None
    draws: list[int] = field(default_factory=list)


class GameState:
    """Everything of one game. Seats are 0..n-1; teams are tower colours 0..teams-1."""

    __slots__ = ("n", "expert", "usernames", "room_id", "rng", "draws", "c", "round", "phase", "current",
                 "planning_order", "action_order", "entrance", "dining", "hands", "played", "coins",
                 "supply", "professors", "islands", "mother_nature", "clouds", "bag", "bank", "cards",
                 "moves_left", "activated", "pending", "remaining", "mushroom", "bag_emptied", "finished",
                 "winners", "ejected", "connected", "eliminated", "suspended", "rng_shared")

    # Declared for the type checker (the slots hold them; new_game and from_snapshot set them).
    n: int
    expert: bool
    usernames: list[str]
    room_id: int | None
    rng: random.Random | None
    rng_shared: bool
    draws: list[int]
    c: Constants
    round: int
    phase: int
    current: int
    planning_order: list[int]
    action_order: list[int]
    entrance: list[list[int]]
    dining: list[list[int]]
    hands: list[list[int]]
    played: list[int | None]
    coins: list[int | None]
    supply: list[int]
    professors: list[int | None]
    islands: list[Island]
    mother_nature: int
    clouds: list[list[int]]
    bag: list[int] | None
    bank: int | None
    cards: list[Card]
    moves_left: int
    activated: int | None
    pending: int | None
    remaining: int
    mushroom: int | None
    bag_emptied: bool
    finished: bool
    winners: list[str]   # usernames, as END_GAME says
    ejected: list[bool]
    connected: list[bool]
    eliminated: set[int]
    suspended: bool

    def copy(self) -> "GameState":
        new = GameState.__new__(GameState)
        new.n, new.expert, new.usernames, new.room_id = self.n, self.expert, self.usernames, self.room_id
        # The generator is shared until one of the two states draws (copy on write): most
        # events draw nothing, and copying a Mersenne Twister costs more than the rest.
        new.rng = self.rng
        new.rng_shared = self.rng_shared = self.rng is not None
        new.draws = self.draws[:]
        new.c = self.c
        new.round, new.phase, new.current = self.round, self.phase, self.current
        new.planning_order, new.action_order = self.planning_order[:], self.action_order[:]
        new.entrance = [e[:] for e in self.entrance]
        new.dining = [d[:] for d in self.dining]
        new.hands = [h[:] for h in self.hands]
        new.played, new.coins = self.played[:], self.coins[:]
        new.supply, new.professors = self.supply[:], self.professors[:]
        new.islands = [i.copy() for i in self.islands]
        new.mother_nature = self.mother_nature
        new.clouds = [c[:] for c in self.clouds]
        new.bag = None if self.bag is None else self.bag[:]
        new.bank = self.bank
        new.cards = [c.copy() for c in self.cards]
        new.moves_left, new.activated, new.pending = self.moves_left, self.activated, self.pending
        new.remaining, new.mushroom = self.remaining, self.mushroom
        new.bag_emptied, new.finished, new.winners = self.bag_emptied, self.finished, self.winners[:]
        new.ejected, new.connected = self.ejected[:], self.connected[:]
        new.eliminated, new.suspended = set(self.eliminated), self.suspended
        return new

    # -- small queries used everywhere ------------------------------------------------

    def team(self, seat: int) -> int:
        return team_of(seat, self.n)

    def card(self, card_id: int) -> Card | None:
        for card in self.cards:
            if card.id == card_id:
                return card
        return None

    def mother_nature_limit(self) -> int | None:
        """The largest legal Mother Nature move of the current player (3.5.4), in the action phase."""
        played = None if self.phase == PLANNING or self.current is None else self.played[self.current]
        if played is None:
            return None
        return steps_of(played) + (2 if self.activated == 1 else 0)

    def bag_size(self) -> int:
        return sum(self.bag) if self.bag is not None else 0

    def draw(self, bag: list[int]) -> int | None:
        """Draw one student (3.8.1): the next hooked colour, else ``rng.randrange(total)``
        walked through the colours in order. None when the bag is empty."""
        total = bag[0] + bag[1] + bag[2] + bag[3] + bag[4]
        if total == 0:
            return None
        if self.draws:
            color = self.draws.pop(0)
            if bag[color] == 0:
                raise HookError(f"asks for {COLORS[color]}, which is not in the bag drawn from",
                                "$.testHooks.draws")
        else:
            if self.rng is None:
                raise ValueError("a state rebuilt from a snapshot cannot draw students")
            if self.rng_shared:
                own = random.Random()
                own.setstate(self.rng.getstate())
                self.rng, self.rng_shared = own, False
            r = self.rng.randrange(total)
            color = 0
            while r >= bag[color]:
                r -= bag[color]
                color += 1
        bag[color] -= 1
        if total == 1 and bag is self.bag:
            self.bag_emptied = True   # the last student left the bag (3.7.2)
        return color


def new_game(usernames: Sequence[str], expert: bool, seed: int | random.Random,
             hooks: TestHooks | None = None, room_id: int | None = None) -> tuple[GameState, list[dict[str, Any]]]:
    """Set a game up (3.2) with the generator ``seed`` (an int or a ``random.Random``) and
    return the state and the setup broadcast of §6.6.1 (``START_GAME`` ... ``CHANGE_PHASE``)."""
    n = len(usernames)
    if n not in (2, 3, 4):
        raise ValueError(f"Eriantys is played by 2, 3 or 4 players, not {n}")
    hooks = hooks or TestHooks()
    c = constants(n)
    s = GameState.__new__(GameState)
    s.n, s.expert, s.usernames, s.room_id = n, expert, list(usernames), room_id
    s.rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    s.rng_shared = False
    s.draws = list(hooks.draws)
    s.c = c
    s.bag, s.bag_emptied = None, False
    out: list[dict[str, Any]] = [{"type": "START_GAME", "expert": expert, "numberOfPlayers": n,
                                  "players": list(usernames)}]
    # 1. first player (a hook replaces the draw, like every hook: no random number is used)
    first = s.rng.randrange(n) if hooks.first_player is None else hooks.first_player
    # 2. islands, from the setup bag
    s.islands = [Island() for _ in range(ISLANDS)]
    s.mother_nature = 0
    setup_bag = [2, 2, 2, 2, 2]
    for i in SETUP_ISLANDS:
        color = s.draw(setup_bag)
        s.islands[i].students[color] += 1
        out.append({"type": "ADD_STUDENT_TO", "to": f"ISLAND:{i}", "color": COLORS[color]})
    # 3. main bag
    s.bag = [BAG_PER_COLOR] * 5
    # 4. character cards
    s.cards = []
    if expert:
        chosen: list[int] = []
        preset = list(hooks.character_cards) if hooks.character_cards is not None else None
        while len(chosen) < 3:
            card_id = preset.pop(0) if preset is not None else s.rng.randrange(12)
            if card_id in chosen:
                continue
            chosen.append(card_id)
            card = Card(card_id, base_cost(card_id))
            out.append({"type": "NOTIFY_CHARACTER_CARD", "card": card_id, "price": card.price})
            if card_id in CARD_STUDENTS:
                card.students = [0, 0, 0, 0, 0]
                for _ in range(CARD_STUDENTS[card_id]):
                    color = s.draw(s.bag)
                    card.students[color] += 1
                    out.append({"type": "ADD_STUDENT_TO", "to": f"CARD:{card_id}", "color": COLORS[color]})
            if card_id == 5:
                card.no_entry = NO_ENTRY_TILES
            s.cards.append(card)
    # 5. entrances (and one coin each)
    s.entrance, s.dining, s.coins = [], [], []
    s.bank = BANK if expert else None
    for seat in range(n):
        entrance = [0, 0, 0, 0, 0]
        for _ in range(c.entrance):
            entrance[s.draw(s.bag)] += 1
        s.entrance.append(entrance)
        s.dining.append([0, 0, 0, 0, 0])
        out.extend(grouped(f"ENTRANCE:{seat}", entrance))
        if expert:
            s.bank -= 1
            s.coins.append(1)
            out.append({"type": "ADD_COIN", "player": seat})
        else:
            s.coins.append(None)
    # 6. towers, hands, professors
    s.supply = [c.towers] * c.teams
    s.hands = [list(range(1, 11)) for _ in range(n)]
    s.played = [None] * n
    s.professors = [None] * 5
    s.moves_left, s.activated, s.pending, s.remaining, s.mushroom = 0, None, None, 0, None
    s.finished, s.winners = False, []
    s.ejected, s.connected, s.eliminated, s.suspended = [False] * n, [True] * n, set(), False
    # 7. first planning phase: refill, then the first player
    s.round = 1
    s.action_order = []
    s.clouds = [[0, 0, 0, 0, 0] for _ in range(n)]
    out.extend(refill_clouds(s))
    s.phase = PLANNING
    s.planning_order = [(first + k) % n for k in range(n)]
    s.current = first
    out.append({"type": "CHANGE_TURN", "playingPlayer": first})
    out.append({"type": "CHANGE_PHASE", "gamePhase": PHASES[PLANNING]})
    return s, out


def grouped(to: str, counts: list[int]) -> list[dict[str, Any]]:
    """``ADD_STUDENT_TO`` messages for students that appeared at ``to``, grouped by colour."""
    return [{"type": "ADD_STUDENT_TO", "to": to, "color": COLORS[color]}
            for color in range(5) for _ in range(counts[color])]


def refill_clouds(s: GameState) -> list[dict[str, Any]]:
    """3.4.1: fill each cloud in order from the bag; stop when the bag runs out."""
    out: list[dict[str, Any]] = []
    size = s.c.cloud_size
    for index, cloud in enumerate(s.clouds):
        got = [0, 0, 0, 0, 0]
        for _ in range(size - sum(cloud)):
            assert s.bag is not None   # a state that refills clouds has its bag (not a snapshot's)
            color = s.draw(s.bag)
            if color is None:   # the bag ran out: this cloud keeps what it got, the rest stay empty
                break
            got[color] += 1
            cloud[color] += 1
        out.extend(grouped(f"CLOUD:{index}", got))
    if s.bag_size() == 0:
        s.bag_emptied = True
    return out


# -- the §6.5 snapshot ------------------------------------------------------------------

def encode_counts(counts: Sequence[int]) -> dict[str, int]:
    return dict(zip(COLORS, counts))


_BY_COLOR = operator.itemgetter(*COLORS)


def decode_counts(value: dict[str, int]) -> list[int]:
    return list(_BY_COLOR(value))


def _pending_json(s: GameState) -> dict[str, Any] | None:
    if s.pending is None:
        return None
    return {"card": s.pending, "accepts": list(CARD_INPUTS[s.pending]), "remaining": s.remaining}


def snapshot(s: GameState) -> dict[str, Any]:
    """The complete public state (§6.5), as sent in ``GAME_STATE`` and passed to ``act``."""
    expert = s.expert
    in_action = s.phase != PLANNING and not s.finished
    return {
        "roomId": s.room_id,
        "expert": expert,
        "numberOfPlayers": s.n,
        "round": s.round,
        "phase": PHASES[s.phase],
        "currentPlayer": None if s.finished else s.current,
        "planningOrder": list(s.planning_order),
        "actionOrder": list(s.action_order),
        "players": [
            {"seat": seat, "username": s.usernames[seat], "towerColor": TOWER_COLORS[s.team(seat)],
             "connected": s.connected[seat], "ejected": s.ejected[seat],
             "entrance": encode_counts(s.entrance[seat]), "diningRoom": encode_counts(s.dining[seat]),
             "hand": list(s.hands[seat]), "playedAssistant": s.played[seat], "coins": s.coins[seat]}
            for seat in range(s.n)],
        "towers": {TOWER_COLORS[t]: s.supply[t] for t in range(s.c.teams)},
        "professors": {COLORS[i]: s.professors[i] for i in range(5)},
        "islands": [{"students": encode_counts(i.students), "towers": i.towers,
                     "towerColor": None if i.team is None else TOWER_COLORS[i.team], "noEntry": i.no_entry}
                    for i in s.islands],
        "motherNature": s.mother_nature,
        "clouds": [encode_counts(cloud) for cloud in s.clouds],
        "bag": s.bag_size(),
        "bank": s.bank,
        "characterCards": [{"id": card.id, "price": card.price, "used": card.used,
                            "students": None if card.students is None else encode_counts(card.students),
                            "noEntryTiles": card.no_entry} for card in s.cards],
        "turn": {
            "studentsToMove": s.moves_left if s.phase == ACTION_ONE and not s.finished else 0,
            "motherNatureLimit": s.mother_nature_limit() if in_action else None,
            "activatedCard": s.activated,
            "pendingInput": _pending_json(s),
            "mushroomColor": None if s.mushroom is None else COLORS[s.mushroom],
        },
        # the bag ran out this round, or someone started the round with their last assistant
        "lastRound": s.bag_emptied or any(len(s.hands[p]) + (s.played[p] is not None) <= 1 for p in range(s.n)),
        "suspended": s.suspended,
        "finished": s.finished,
        "winners": list(s.winners),
    }


def from_snapshot(snap: dict[str, Any]) -> GameState:
    """A state rebuilt from a §6.5 snapshot, for checking events (it cannot draw students)."""
    s = GameState.__new__(GameState)
    n = snap["numberOfPlayers"]
    s.n, s.expert, s.room_id = n, snap["expert"], snap["roomId"]
    players = snap["players"]
    s.usernames = [p["username"] for p in players]
    s.rng, s.rng_shared, s.draws, s.c = None, False, [], constants(n)
    s.round, s.phase = snap["round"], PHASES.index(snap["phase"])
    s.current = snap["currentPlayer"]
    s.planning_order, s.action_order = list(snap["planningOrder"]), list(snap["actionOrder"])
    s.entrance = [decode_counts(p["entrance"]) for p in players]
    s.dining = [decode_counts(p["diningRoom"]) for p in players]
    s.hands = [list(p["hand"]) for p in players]
    s.played = [p["playedAssistant"] for p in players]
    s.coins = [p["coins"] for p in players]
    s.supply = [snap["towers"][TOWER_COLORS[t]] for t in range(s.c.teams)]
    s.professors = [snap["professors"][name] for name in COLORS]
    s.islands = [Island(decode_counts(i["students"]), i["towers"],
                        None if i["towerColor"] is None else TOWER_COLORS.index(i["towerColor"]), i["noEntry"])
                 for i in snap["islands"]]
    s.mother_nature = snap["motherNature"]
    s.clouds = [decode_counts(cloud) for cloud in snap["clouds"]]
    s.bag = [snap["bag"], 0, 0, 0, 0]   # the colours in the bag are not public: only the count is kept
    s.bank = snap["bank"]
    s.cards = [Card(c["id"], c["price"], c["used"], None if c["students"] is None else decode_counts(c["students"]),
                    c["noEntryTiles"]) for c in snap["characterCards"]]
    turn = snap["turn"]
    s.moves_left = turn["studentsToMove"]
    s.activated = turn["activatedCard"]
    pending = turn["pendingInput"]
    s.pending, s.remaining = (pending["card"], pending["remaining"]) if pending else (None, 0)
    s.mushroom = None if turn["mushroomColor"] is None else COLOR_INDEX[turn["mushroomColor"]]
    s.bag_emptied = snap["lastRound"]
    s.finished, s.winners = snap["finished"], list(snap["winners"])
    s.ejected = [p["ejected"] for p in players]
    s.connected = [p["connected"] for p in players]
    s.eliminated = {team_of(p["seat"], n) for p in players if p["ejected"]}
    s.suspended = snap["suspended"]
    return s
