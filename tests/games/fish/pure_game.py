"""Test helper: a complete Fish game between trusted in-process strategies (spec 3),
reported by color, to check the referee against.

:func:`play_strategies` plays a game between strategies (keyed by color) through the referee on
trusted seats - one game loop for Fish, the referee's - and reports it by color, with the
placements and turns it heard from the referee's events.

:func:`play_local_game` is the ``xref`` game (the harness runs the referee the same way): build an R x C board with
F fish per tile, let players with the course strategy of the given look-ahead play, and
return the sorted names of the winners.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import trusted_seat
from gameroom.games.fish.board import Position
from gameroom.games.fish.players import StrategyPlayer
from gameroom.games.fish.referee import run_game
from gameroom.games.fish.state import COLORS, SKIP, Action, Color, GameState
from gameroom.games.fish.strategies import MaximinStrategy, Strategy


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


def play_strategies(state: GameState, strategies: Mapping[Color, Strategy]) -> GameOutcome:
    """Play a game from a state without penguins to the end through the referee; `state`
    is modified.

    Each player is driven by the strategy of its color on a trusted seat. A strategy
    raising (:class:`NoPlacement` included) or answering a move that is not legal (None
    included) gets its player removed.
    """
    placements: list[tuple[Color, Position]] = []
    turns: list[tuple[Color, Action]] = []

    def record(event: Any) -> None:
        what = event.get("event") if event.kind == "state" else None
        if what == "placed":
            placements.append((Color(event.get("color")), tuple(event.get("position"))))  # type: ignore[arg-type]
        elif what == "moved":
            source, target = event.get("move")
            turns.append((Color(event.get("color")), (tuple(source), tuple(target))))
        elif what == "skipped":
            turns.append((Color(event.get("color")), SKIP))

    seats = [trusted_seat(p.color.value, StrategyPlayer(strategies[p.color], p.color.value)) for p in state.players]
    result = run_game(seats, state, context=MatchContext(limits=Limits(), observers=[record]))
    color_of = {seat: color for color, seat in result.colors.items()}
    ranking = [[color_of[seat] for seat in group] for group in result.ranking_seats]
    return GameOutcome(ranking, [color_of[seat] for seat in result.misbehaved_seats], state, placements, turns)


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
    outcome = play_strategies(state, strategies)
    return sorted(names[c] for c in outcome.winners)
