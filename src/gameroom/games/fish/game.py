"""A complete Fish game between trusted in-process strategies, with no I/O (spec 3).

:func:`run_game` plays the placement phase (``6 - n`` rounds, the active player placing, a
strategy that cannot place is removed and the state rotates anyway -- the reference quirk
of 3.2) and the playing phase (skips for players who cannot move, removal of a player whose
answer is not a legal move), then ranks the survivors. It is what the referee does minus
the time limits, exception guards and observers, which the referee driver adds on top.

:func:`play_local_game` is the pure core of the ``xref`` harness: build an R x C board with
F fish per tile, let players with the course strategy of the given look-ahead play, and
return the sorted names of the winners.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from gameroom.games.fish.board import Position
from gameroom.games.fish.state import (COLORS, SKIP, Action, Color, GameState,
                                       penguins_per_player)
from gameroom.games.fish.strategies import MaximinStrategy, NoPlacement, Strategy


@dataclass
class GameOutcome:
    """What a finished game produced.

    ``ranking``: surviving colors grouped by score, best first. ``removed``: colors removed
    during play (most recent first), then during placement (most recent first) -- the
    reference's order. ``placements`` and ``turns`` record the game move by move.
    """

    ranking: list[list[Color]]
    removed: list[Color]
    state: GameState
    placements: list[tuple[Color, Position]] = field(default_factory=list)
    turns: list[tuple[Color, Action]] = field(default_factory=list)

    @property
    def winners(self) -> list[Color]:
        """The colors of the first ranking group (empty if everybody was removed)."""
        return self.ranking[0] if self.ranking else []


def run_game(state: GameState, strategies: Mapping[Color, Strategy]) -> GameOutcome:
    """Play a game from a state without penguins to the end; `state` is modified.

    Each player is driven by the strategy of its color. A strategy raising
    :class:`NoPlacement`, or answering a move that is not legal (including None), gets its
    player removed; other exceptions propagate (the strategies are trusted).
    """
    placed_out: list[Color] = []
    played_out: list[Color] = []
    placements: list[tuple[Color, Position]] = []
    turns: list[tuple[Color, Action]] = []

    for _ in range(penguins_per_player(len(state.players))):
        for _ in range(len(state.players)):
            player = state.players[0]
            try:
                spot = strategies[player.color].place(state)
            except NoPlacement:
                spot = None
            if spot is not None and state.can_place(spot):
                state.place(spot)
                placements.append((player.color, spot))
            else:
                state.remove_player(player.color)
                placed_out.insert(0, player.color)
            state.rotate()

    while True:
        moves = state.legal_moves()
        if not moves:
            if state.is_over():
                break
            turns.append((state.players[0].color, SKIP))
            state.rotate()
            continue
        player = state.players[0]
        move = strategies[player.color].move(state)
        if move is not None and move in moves:
            state.apply(move)
            turns.append((player.color, move))
        else:
            state.remove_player(player.color)
            played_out.insert(0, player.color)

    return GameOutcome(state.ranking(), played_out + placed_out, state, placements, turns)


def play_local_game(rows: int, columns: int, fish: int,
                    players: Sequence[tuple[str, int]]) -> list[str]:
    """The ``xref`` game (spec 10.6): `players` are ``(name, look-ahead)`` pairs in turn
    order, all using the course strategy; every tile holds `fish` fish. Returns the names
    of the winners sorted by code point (``[]`` if everybody was removed)."""
    if not 1 <= len(players) <= len(COLORS):
        raise ValueError(f"a game has 1..{len(COLORS)} players, got {len(players)}")
    state = GameState.create(rows, columns, len(players), fish=fish)
    names = {c: name for c, (name, _) in zip(COLORS, players)}
    strategies: dict[Color, Strategy] = {
        c: MaximinStrategy(depth) for c, (_, depth) in zip(COLORS, players)}
    outcome = run_game(state, strategies)
    return sorted(names[c] for c in outcome.winners)
