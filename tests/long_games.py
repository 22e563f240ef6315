"""The longest kind of stored game, for the tests of stored replays and of their viewer:
a Q game between two seats that place one tile a turn (the first candidate of Q's own
``dag`` and ``ldasg`` steps) until the pile is empty — 1,080 turns, a map of a thousand
tiles, a 27.8 MB replay, as a beginner's bot plays. Made once per test process (about 6 s
on a quiet machine): the spectators' pictures of some of its steps are drawn as it is
played, for the tests of the browser's drawing."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.core.match import guarded_seat
from gameroom.core.record import STATE, Event, MatchRecord
from gameroom.games import registry
from gameroom.games.q.actions import Action, Placement
from gameroom.games.q.descriptor import conceal
from gameroom.games.q.players import StrategyPlayer
from gameroom.games.q.render import render_svg
from gameroom.games.q.state import PublicState
from gameroom.league.replay import ReplayRecorder

SEED = 3
NAMES = ("ada", "bo")


class OneTilePlayer(StrategyPlayer):
    """A built-in strategy's first step only: one tile a turn, else its exchange or pass."""

    def take_turn(self, pub: PublicState) -> Action:
        step = self._step(pub)
        return (step,) if isinstance(step, Placement) else step   # type: ignore[return-value]


@dataclass
class LongGame:
    record: MatchRecord
    pictures: list[tuple[Any, str, Any, str]] = field(default_factory=list)
    """(spectator view, caption, the view of the step before or None, the spectators' picture)."""
    steps: int = 0


@functools.lru_cache(maxsize=1)
def long_q_game(every: int = 45) -> LongGame:
    """The long game, with the pictures of every ``every``-th step and of the last two."""
    game = registry.game("q")
    recorder = ReplayRecorder("q", SEED, {}, list(NAMES))
    story = game.story(SEED, list(NAMES))
    out = LongGame(recorder.record)
    before: list[Any] = [None]
    last: list[tuple[Any, str]] = []   # the last three states and captions

    def observe(event: Event) -> None:
        told = story.tell(event)
        if event.kind != STATE or not told.drawn:
            return
        out.steps += 1
        caption = told.caption or ""
        last[:] = [*last[-2:], (told.state, caption)]
        if out.steps % every == 0:
            before[0] = game.views.spectator(told.state)
        elif out.steps % every == 1:
            out.pictures.append((game.views.spectator(told.state), caption, before[0] if out.steps > 1 else None,
                                 game.picture(told.state, None, caption, story.draw) or ""))

    seats = [guarded_seat(name, OneTilePlayer(name, strategy)) for name, strategy in zip(NAMES, ("dag", "ldasg"))]
    game.play(SEED, seats, MatchContext(observers=[recorder, observe]))
    views = [game.views.spectator(state) for state, _ in last]
    for at in (1, 2):   # drawn as the narrator drew them: the tiles new since the step before outlined
        state, caption = last[at]
        placed = sorted(_cells(views[at]) - _cells(views[at - 1]))
        out.pictures.append((views[at], caption, views[at - 1], render_svg(conceal(state, None), caption, placed)))
    return out


def _cells(view: Any) -> set[tuple[int, int]]:
    return {(row[0], cell[0]) for row in view["map"] for cell in row[1:]}
