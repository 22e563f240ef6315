"""Q for learning agents: the encoding behind ``gameroom.rl`` (``core.learning``).

Options: ``players`` (2-4, default 2) and ``window`` (an odd number 5-41, default 21): Q's
map is unbounded, so a seat sees and places tiles within the ``window x window`` square
centred on the first tile (0, 0). The game is the descriptor's: the complete set shuffled
by the seed, six tiles per player, the bonuses of q.md 8.3, Q's own referee.

**Actions** (``6 * window**2 + 3``): ``h * window**2 + (r + R) * window + (c + R)``
(R = window // 2) places the tile in hand slot h (0-5, the hand's order at the start of
the turn) at (r, c); then ``pass``, ``replace`` (exchange the hand) and ``done`` (end the
placements). A turn is ``pass``, or ``replace``, or one or more placements and then
``done``. Legal: pass always; replace when the pile holds as many tiles as the hand; a
placement of a slot not yet placed this turn on a free spot of the window, next to the map
(as extended by this turn's placements), where the tile fits, and in the row or column of
this turn's placements; done after at least one placement. A refused placement goes to the
referee as the turn's placements with it (the referee finds it illegal), a refused
``done`` as no placements, a refused ``replace`` as an exchange; a second use of a slot,
an empty slot, and pass/replace after placements cannot be said in Q's answer and fail
the call (ForbiddenAction). Placements outside the window cannot be expressed.

**Observation** (a vector): the window's spots, row by row, 13 numbers each (shape one-hot,
6; colour one-hot, 6; placed this turn, 1); then the six hand slots, 13 each (shape, colour,
placed this turn; all zero for an empty slot); the scores (one's own, then the others in
turn order) / 100; the pile's size / 1080. Exactly the JPub the referee sends the seat:
other hands never appear.

**Rewards** at the end: ``core.learning.rank_rewards`` of the referee's ranking by score
(an ejected seat ranks last, -1).
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Sequence
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.core.learning import (
    ForbiddenAction,
    Learning,
    LearningTable,
    Option,
    integer,
    rank_rewards,
)
from gameroom.core.record import MatchResult
from gameroom.games.q.actions import PASS, REPLACE, Placement
from gameroom.games.q.pieces import COPIES, KIND_INDEX, Tile
from gameroom.games.q.referee import QRules, run_game
from gameroom.games.q.rules import can_exchange
from gameroom.games.q.state import HAND_SIZE, PublicState, RefereeState, new_game
from gameroom.games.q.strategies import STRATEGIES

__all__ = ["LEARNING"]

SPOT = 13
"""Numbers per spot and per hand slot: shape (6), colour (6), placed this turn (1)."""
TILES = 36 * COPIES
SCORE_SCALE = 100.0


class _Turn:
    """One take-turn: pass, replace, or placements then done."""

    __slots__ = ("coder", "hand", "last", "placed", "pub", "undone", "used", "values")

    def __init__(self, coder: _Coder, pub: PublicState) -> None:
        self.coder = coder
        self.pub = pub
        self.hand: tuple[Tile, ...] = pub.hand[:HAND_SIZE]
        self.placed: list[tuple[tuple[int, int], Tile, int]] = []
        self.used = [False] * HAND_SIZE
        self.values = coder.encode(pub)
        self.undone = False
        self.last = -1

    # -- reading ---------------------------------------------------------------------------

    def observation(self) -> Sequence[float]:
        return self.values

    def legal(self) -> list[int]:
        coder = self.coder
        qmap = self.pub.qmap
        half, w, area = coder.half, coder.window, coder.area
        out: list[int] = []
        if not self.placed:
            kinds: dict[Tile, list[int]] = {}
            for slot, tile in enumerate(self.hand):
                kinds.setdefault(tile, []).append(slot)
            for tile, slots in kinds.items():
                cells = [(r + half) * w + (c + half) for r, c in qmap.candidates(tile, ordered=False)
                         if -half <= r <= half and -half <= c <= half]
                for slot in slots:
                    out.extend([slot * area + cell for cell in cells])
            out.append(coder.pass_)
            if can_exchange(self.pub.pile_size, len(self.pub.hand)):
                out.append(coder.replace)
            return out
        free = [(slot, KIND_INDEX[tile]) for slot, tile in enumerate(self.hand) if not self.used[slot]]
        if free:
            for (r, c), fitting in qmap.free_fits(self._line()):
                cell = (r + half) * w + (c + half)
                out.extend([slot * area + cell for slot, k in free if (fitting >> k) & 1])
        out.append(coder.done)
        return out

    def _line(self) -> list[tuple[int, int]]:
        """The window's spots in the row or column that this turn's placements share."""
        half = self.coder.half
        span = range(-half, half + 1)
        (r0, c0), rows, cols = self.placed[0][0], {p[0][0] for p in self.placed}, {p[0][1] for p in self.placed}
        spots: list[tuple[int, int]] = []
        if len(rows) == 1:
            spots += [(r0, c) for c in span]
        if len(cols) == 1:
            spots += [(r, c0) for r in span]
        return spots

    # -- choosing --------------------------------------------------------------------------

    def choose(self, action: int) -> bool:
        coder = self.coder
        self.last = action
        if action >= coder.pass_:
            return True     # pass, replace, or done: the answer is complete
        slot, cell = divmod(action, coder.area)
        coord = coder.coord(cell)
        tile = self.hand[slot]
        # Tried on the seat's own map (the referee's, for a trusted seat) and taken back
        # before the answer: placing is how the map judges the next placement's fit.
        self.pub.qmap.place(coord, tile)
        self.placed.append((coord, tile, slot))
        self.used[slot] = True
        values = self.values   # this turn's own copy (Coder.encode): marked in place
        values[cell * SPOT + 12] = 1.0
        values[coder.hand_at + slot * SPOT + 12] = 1.0
        return False

    def answer(self) -> Any:
        placements = self._take_back()
        if self.last == self.coder.pass_:
            return PASS
        if self.last == self.coder.replace:
            return REPLACE
        return placements

    def _take_back(self) -> tuple[Placement, ...]:
        if not self.undone:
            self.undone = True
            for coord, _tile, _slot in reversed(self.placed):
                self.pub.qmap.remove(coord)
        return tuple(Placement(coord, tile) for coord, tile, _slot in self.placed)

    def refuse(self, action: int) -> Any:
        placements = self._take_back()
        coder = self.coder
        if action == coder.done:
            return placements            # none yet: the referee refuses an empty request
        if action in (coder.pass_, coder.replace):
            if placements:
                raise ForbiddenAction(f"{coder.label(action)} after placing tiles this turn")
            return REPLACE               # pass is always legal: only an exchange is refused
        slot, cell = divmod(action, coder.area)
        if slot >= len(self.hand):
            raise ForbiddenAction(f"hand slot {slot} holds no tile")
        if self.used[slot]:
            raise ForbiddenAction(f"the tile of hand slot {slot} is already placed this turn")
        return placements + (Placement(coder.coord(cell), self.hand[slot]),)


class _Coder:
    """One seat: a turn per take-turn (setup, new-tiles and win only inform)."""

    def __init__(self, players: int, window: int) -> None:
        self.players, self.window, self.half = players, window, window // 2
        self.area = window * window
        self.pass_ = HAND_SIZE * self.area
        self.replace, self.done = self.pass_ + 1, self.pass_ + 2
        self.hand_at = self.area * SPOT
        self.scores_at = self.hand_at + HAND_SIZE * SPOT
        self.size = self.scores_at + players + 1
        self.grid = array("f", bytes(4 * self.hand_at))
        self.known: set[tuple[int, int]] = set()
        self.seen = 0
        self.map: Any = None

    def coord(self, cell: int) -> tuple[int, int]:
        r, c = divmod(cell, self.window)
        return r - self.half, c - self.half

    def label(self, action: int) -> str:
        return _label(action, self.window)

    def turn(self, method: str, args: tuple[Any, ...]) -> _Turn | None:
        if method == "setup":
            self.map = None
            if len(args[0].other_scores) + 1 != self.players:
                raise ValueError(f"this encoding is for {self.players} players, "
                                 f"the game has {len(args[0].other_scores) + 1}")
        elif method == "take_turn":
            return _Turn(self, args[0])
        return None

    def encode(self, pub: PublicState) -> array:
        """The observation of a public state; the map's spots are added to the seat's grid
        as they appear (tiles are never taken off a map)."""
        qmap, half, w = pub.qmap, self.half, self.window
        if qmap is not self.map or len(qmap) < self.seen:
            # Another map object (a copy, or decoded from the wire): its tiles are in no
            # known order, so the grid is drawn again from all of them.
            self.map, self.grid, self.known, self.seen = qmap, array("f", bytes(4 * self.hand_at)), set(), 0
        if len(qmap) != self.seen:
            grid, known = self.grid, self.known
            # The same map as at the last turn (the referee's own, for a trusted seat): only
            # the tiles placed since then are new (placed_since keeps the order of placing).
            for (r, c), tile in (qmap.placed_since(self.seen) if self.seen else qmap.items()):
                if (r, c) not in known:
                    known.add((r, c))
                    if -half <= r <= half and -half <= c <= half:
                        at = ((r + half) * w + (c + half)) * SPOT
                        grid[at + tile.shape] = 1.0
                        grid[at + 6 + tile.color] = 1.0
            self.seen = len(qmap)
        values = array("f", self.grid)
        hand = [0.0] * (HAND_SIZE * SPOT)
        for slot, tile in enumerate(pub.hand[:HAND_SIZE]):
            hand[slot * SPOT + tile.shape] = 1.0
            hand[slot * SPOT + 6 + tile.color] = 1.0
        values.extend(hand)
        scores = [0.0] * self.players
        scores[0] = pub.score / SCORE_SCALE
        for i, score in enumerate(pub.other_scores[:self.players - 1]):
            scores[1 + i] = score / SCORE_SCALE
        values.extend(scores)
        values.append(pub.pile_size / TILES)
        return values


def _label(action: int, window: int) -> str:
    area = window * window
    if action >= HAND_SIZE * area:
        return ("pass", "replace", "done")[action - HAND_SIZE * area]
    slot, cell = divmod(action, area)
    r, c = divmod(cell, window)
    return f"place hand slot {slot} at ({r - window // 2}, {c - window // 2})"


def _text(state: RefereeState) -> str:
    """The map as text (two letters a tile: shape and colour initials, ``8`` for the
    8-point star), then each player's score and hand and the pile's size."""
    from gameroom.games.q.pieces import COLOR_NAMES, SHAPE_NAMES

    def name(tile: Tile) -> str:
        shape = SHAPE_NAMES[tile.shape]
        return ("8" if shape == "8star" else shape[0]) + COLOR_NAMES[tile.color][0]

    bounds = state.qmap.bounds()
    lines = []
    if bounds is not None:
        rmin, rmax, cmin, cmax = bounds
        lines.append(f"rows {rmin}..{rmax}, columns {cmin}..{cmax}")
        for r in range(rmin, rmax + 1):
            lines.append(" ".join(name(t) if (t := state.qmap.get((r, c))) else ".." for c in range(cmin, cmax + 1)))
    for record in state.players:
        lines.append(f"{record.name}: score {record.score}, hand {' '.join(name(t) for t in record.hand)}")
    lines.append(f"pile: {len(state.pile)} tiles")
    return "\n".join(lines)


def _make(players: int, window: int) -> LearningTable:
    coder = _Coder(players, window)
    size = coder.size
    names = [f"P{i}" for i in range(players)]

    def deal(seed: int, seat_names: Sequence[str]) -> RefereeState:
        return new_game(list(seat_names) or names, random.Random(seed))

    def play(seed: int, seats: Sequence[Any], observers: Sequence[Any]) -> MatchResult:
        return run_game(seats, deal(seed, ()), MatchContext(observers=observers), rules=QRules(),
                        own_state=True)

    def rewards(result: MatchResult, seat_names: Sequence[str]) -> list[float]:
        return rank_rewards(len(seat_names), result.ranking_seats, result.misbehaved_seats)

    high = [1.0] * coder.scores_at + [1_000_000 / SCORE_SCALE] * players + [1.0]
    return LearningTable(
        game="q", options={"players": players, "window": window}, players=players,
        actions=tuple(_label(a, window) for a in range(coder.done + 1)),
        shape=(size,), low=[0.0] * size, high=high, play=play,
        coder=lambda: _Coder(players, window), rewards=rewards, text=_text, deal=deal, strategies=tuple(STRATEGIES))


LEARNING = Learning(
    options={
        "players": Option(2, integer(2, 4, "players"), "players at the table"),
        "window": Option(21, integer(5, 41, "window", odd=True), "the side of the square of spots around (0, 0) a seat sees and places on"),
    },
    make=_make,
    doc=__doc__ or "",
)
