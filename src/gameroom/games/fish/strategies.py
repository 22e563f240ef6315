"""The built-in Fish strategies (spec 9): greedy, random (seeded) and N-turn maximin.

A strategy answers two questions about a state whose active player is "us":
``place(state) -> Position`` during placement and ``move(state) -> Move | None`` during play
(None when the active player cannot move). A strategy that finds no free tile raises
:class:`NoPlacement` (the referee then removes the player).

* Tie-breaker for moves (9.1): the lexicographically smallest ``(from.row, from.col,
  to.row, to.col)`` among the best moves -- with moves as tuples that is plain ``min``.
* :class:`GreedyStrategy` (9.2): place on the tile with the most fish (first in row-major
  order); move to the reachable tile with the most fish.
* :class:`RandomStrategy` (9.3): picks uniformly among the non-maximal candidates (from a
  passed ``random.Random``), falling back to greedy when all candidates are maximal.
* :class:`MaximinStrategy` (9.4): zig-zag placement (first free tile in row-major order) and
  the N-turn maximin move, where only our own moves consume look-ahead. The search runs
  alpha-beta over a compact flat copy of the state with apply/undo (no copies per node);
  root moves are visited in tie-breaker order and a later move must be strictly better,
  so pruning never changes the answer.
"""

from __future__ import annotations

import random
from typing import Protocol, Sequence

from gameroom.games.fish.board import Position
from gameroom.games.fish.state import GameState, Move


class NoPlacement(Exception):
    """The strategy found no free tile to place a penguin on."""


class Strategy(Protocol):
    """What a Fish player delegates its decisions to."""

    def place(self, state: GameState) -> Position:
        """Where the active player places its next penguin (raises NoPlacement if nowhere)."""
        ...

    def move(self, state: GameState) -> Move | None:
        """The active player's move, or None if it cannot move."""
        ...


def tie_break(moves: Sequence[Move]) -> Move:
    """The move with the smallest from-row, then from-column, to-row, to-column (9.1)."""
    return min(moves)


def first_free_tile(state: GameState) -> Position | None:
    """The first tile in row-major order without a penguin (zig-zag placement), if any."""
    free = state.free_tiles()
    return free[0] if free else None


def zigzag_placement(state: GameState) -> Position:
    """The course strategy's placement: the first free tile in row-major order."""
    spot = first_free_tile(state)
    if spot is None:
        raise NoPlacement("no free tile left to place a penguin on")
    return spot


def greedy_placement(state: GameState) -> Position:
    """The free tile with the most fish, first in row-major order."""
    free = state.free_tiles()
    if not free:
        raise NoPlacement("no free tile left to place a penguin on")
    fish = state.board.fish_at
    best = max(fish(p) for p in free)
    return next(p for p in free if fish(p) == best)


def greedy_move(state: GameState) -> Move | None:
    """The move onto the reachable tile with the most fish, ties broken by :func:`tie_break`."""
    moves = state.legal_moves()
    if not moves:
        return None
    fish = state.board.fish_at
    best = max(fish(m[1]) for m in moves)
    return tie_break([m for m in moves if fish(m[1]) == best])


class GreedyStrategy:
    """The reference house player (9.2)."""

    def place(self, state: GameState) -> Position:
        """The free tile with the most fish, first in row-major order."""
        return greedy_placement(state)

    def move(self, state: GameState) -> Move | None:
        """The move onto the most fish."""
        return greedy_move(state)

    def __repr__(self) -> str:
        return "GreedyStrategy()"


class RandomStrategy:
    """A deliberately inferior player (9.3): uniformly random among non-maximal choices."""

    def __init__(self, rng: random.Random | int | None = None) -> None:
        """`rng` is a ``random.Random`` or a seed (None means seed 0, for determinism)."""
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng or 0)

    def place(self, state: GameState) -> Position:
        """A random free tile with fewer than the most fish, else the greedy placement."""
        free = state.free_tiles()
        if not free:
            raise NoPlacement("no free tile left to place a penguin on")
        fish = state.board.fish_at
        best = max(fish(p) for p in free)
        worse = [p for p in free if fish(p) < best]
        if worse:
            return self.rng.choice(worse)
        return free[0]

    def move(self, state: GameState) -> Move | None:
        """A random move onto fewer than the most fish, else the greedy move."""
        moves = state.legal_moves()
        if not moves:
            return None
        fish = state.board.fish_at
        best = max(fish(m[1]) for m in moves)
        worse = [m for m in moves if fish(m[1]) < best]
        if worse:
            return self.rng.choice(worse)
        return tie_break(moves)

    def __repr__(self) -> str:
        return "RandomStrategy(...)"


class MaximinStrategy:
    """The course's standard strategy (9.4): zig-zag placement, N-turn maximin moves."""

    def __init__(self, depth: int = 1) -> None:
        if depth < 1:
            raise ValueError(f"the look-ahead must be at least 1, got {depth}")
        self.depth = depth

    def place(self, state: GameState) -> Position:
        """The first free tile in row-major order."""
        return zigzag_placement(state)

    def move(self, state: GameState) -> Move | None:
        """The maximin move with look-ahead ``depth``."""
        return maximin_move(state, self.depth)

    def __repr__(self) -> str:
        return f"MaximinStrategy({self.depth})"


STRATEGY_NAMES = ("greedy", "random", "maximin")


def make_strategy(name: str, *, depth: int = 1,
                  rng: random.Random | int | None = None) -> Strategy:
    """A built-in strategy by name: ``greedy``, ``random`` (seeded by `rng`) or
    ``maximin`` (look-ahead `depth`)."""
    if name == "greedy":
        return GreedyStrategy()
    if name == "random":
        return RandomStrategy(rng)
    if name == "maximin":
        return MaximinStrategy(depth)
    raise ValueError(f"unknown strategy {name!r}; expected one of {', '.join(STRATEGY_NAMES)}")


# -- N-turn maximin ------------------------------------------------------------------------

_INF = 1 << 30


class _Search:
    """A compact, mutable copy of a state for the maximin search.

    Player 0 is "us" (the root's active player). Only our score is tracked: opponents'
    moves never change it. ``occ`` marks occupied spots; ``places[t]`` holds flat indices
    (order irrelevant to the value).
    """

    __slots__ = ("fish", "occ", "places", "rays", "first", "n", "score", "top")

    def __init__(self, state: GameState) -> None:
        board = state.board
        cols = board.columns
        self.fish = board.fish.copy()
        self.occ = bytearray(len(self.fish))
        self.places = [[r * cols + c for r, c in p.places] for p in state.players]
        for ps in self.places:
            for i in ps:
                self.occ[i] = 1
        self.rays = board.geometry.rays
        self.first = board.geometry.first_steps
        self.n = len(state.players)
        self.score = state.players[0].score
        self.top = max(self.fish)  # no move of ours can ever gain more than this

    def can_move(self, t: int) -> bool:
        fish = self.fish
        occ = self.occ
        first = self.first
        for q in self.places[t]:
            for j in first[q]:
                if fish[j] and not occ[j]:
                    return True
        return False

    def try_move(self, places: list[int], slot: int, j: int, ours: bool, nxt: int, k: int,
                 alpha: int, beta: int) -> int:
        """The value after the penguin ``places[slot]`` moves to ``j`` (searched with
        ``value(nxt, k, alpha, beta)``); the move is made in place and taken back."""
        fish, occ = self.fish, self.occ
        q = places[slot]
        gain = fish[q]
        fish[q] = 0
        occ[q] = 0
        occ[j] = 1
        places[slot] = j
        if ours:
            self.score += gain
        v = self.value(nxt, k, alpha, beta)
        if ours:
            self.score -= gain
        places[slot] = q
        occ[j] = 0
        occ[q] = 1
        fish[q] = gain
        return v

    def value(self, t: int, k: int, alpha: int, beta: int) -> int:
        """Spec 9.4 ``value`` of the node whose active player is `t`, with `k` of our own
        moves left to look at, as a fail-soft alpha-beta search."""
        score = self.score
        if k == 0 or score >= beta or score + self.top * k <= alpha:
            # Exact, or outside the window: our score never drops and each of our moves
            # gains at most `top`, so the true value lies in [score, score + top*k].
            return score
        if not self.can_move(0):
            return score
        n = self.n
        while t and not self.can_move(t):
            t = (t + 1) % n
        fish = self.fish
        occ = self.occ
        rays = self.rays
        places = self.places[t]
        if t == 0:
            if k == 1:
                # Our last move: its value is our score plus the fish of the tile we leave.
                first = self.first
                gain = 0
                for q in places:
                    if fish[q] > gain:
                        for j in first[q]:
                            if fish[j] and not occ[j]:
                                gain = fish[q]
                                break
                return self.score + gain
            best = -_INF
            nxt = 1 % n
            # Try penguins on richer tiles first: better moves early prune more.
            for slot in sorted(range(len(places)), key=lambda s: -fish[places[s]]):
                q = places[slot]
                for ray in rays[q]:
                    for j in ray:
                        if not fish[j] or occ[j]:
                            break
                        v = self.try_move(places, slot, j, True, nxt, k - 1, alpha, beta)
                        if v > best:
                            best = v
                            if v > alpha:
                                alpha = v
                                if alpha >= beta:
                                    return best
            return best
        best = _INF
        nxt = (t + 1) % n
        for slot in range(len(places)):
            q = places[slot]
            for ray in rays[q]:
                for j in ray:
                    if not fish[j] or occ[j]:
                        break
                    v = self.try_move(places, slot, j, False, nxt, k, alpha, beta)
                    if v < best:
                        best = v
                        if v < beta:
                            beta = v
                            if alpha >= beta:
                                return best
        return best


def maximin_move(state: GameState, depth: int) -> Move | None:
    """The N-turn maximin move of the active player (spec 9.4), or None if it cannot move.

    Maximizes the score the player is guaranteed after its `depth`-th move from now,
    opponents minimizing it; opponents' moves consume no look-ahead. Ties go to the
    smallest move in :func:`tie_break` order.
    """
    if depth < 1:
        raise ValueError(f"the look-ahead must be at least 1, got {depth}")
    moves = state.legal_moves()
    if not moves:
        return None
    search = _Search(state)
    cols = state.board.columns
    ours = search.places[0]
    nxt = 1 % search.n
    best_value = -_INF
    best_move = moves[0]
    for move in sorted(moves):
        (fr, fc), (tr, tc) = move
        q = fr * cols + fc
        j = tr * cols + tc
        # A later move (in tie-break order) must be strictly better: search with alpha
        # = the best so far, so worse-or-equal moves may be cut off early.
        v = search.try_move(ours, ours.index(q), j, True, nxt, depth - 1, best_value, _INF)
        if v > best_value:
            best_value = v
            best_move = move
    return best_move


def maximin_value(state: GameState, depth: int) -> int:
    """The exact spec-9.4 value of `state` for its active player with look-ahead `depth`
    (its current score if it cannot move)."""
    search = _Search(state)
    return search.value(0, depth, -_INF, _INF)
