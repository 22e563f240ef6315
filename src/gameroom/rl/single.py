"""A Gymnasium environment of one seat of a game; the other seats are other players.

The learner sits at seat ``seat``; every other seat is a built-in strategy of the game
(a name), any in-process player of the game's interface (run on a guarded seat, with the
game's time limits), or a ready ``core.match.Seat`` — for instance one whose caller is a
remote ``ProxyPlayer``, or an ``isolated_seat``. The referee runs them all as in any
game. ``step`` takes one sub-action of the learner and returns the learner's next
observation; the reward comes when the game ends (the table's rewards) or when the
learner is ejected for a masked-out action (-1, ``terminated``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from gameroom.core.learning import LearningTable
from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.games import registry
from gameroom.rl.aec import (
    EJECTED_REWARD,
    RENDER_MODES,
    action_index,
    check_render_mode,
    render_state,
    render_viewer,
    seat_names,
)
from gameroom.rl.driver import Driver
from gameroom.rl.spaces import Encoder

__all__ = ["SingleAgentEnv", "opponent_seats"]


def opponent_seats(table: LearningTable, opponents: Sequence[Any] | None, seat: int) -> list[Any]:
    """The other seats' players in seat order (the learner's seat left out): the given
    ones, or the game's first strategy; checked against the table's number of players."""
    others = table.players - 1
    if opponents is None:
        default = table.strategies[0] if table.strategies else next(iter(registry.game(table.game).strategies))
        opponents = [default] * others
    opponents = list(opponents)
    if len(opponents) != others:
        raise ValueError(f"{table.game} with {table.players} players needs {others} opponent(s), got {len(opponents)}")
    strategies = registry.game(table.game).strategies
    for opponent in opponents:
        if isinstance(opponent, str) and opponent not in strategies:
            raise ValueError(f"{table.game} has no built-in strategy {opponent!r}; choose from {', '.join(strategies)}")
    if not 0 <= seat < table.players:
        raise ValueError(f"seat must be from 0 to {table.players - 1}, got {seat}")
    return opponents


class SingleAgentEnv(gymnasium.Env):
    """One learner against the other seats (see the module's docstring)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}  # noqa: RUF012 (Gymnasium's)

    def __init__(self, table: LearningTable, opponents: Sequence[Any] | None = None, seat: int = 0,
                 seed: int = 0, render_mode: str | None = None, render_view: str | None = None) -> None:
        check_render_mode(render_mode)
        self._viewer = render_viewer(render_view, table.players, default=f"player_{seat}")
        self.table = table
        self.seat = seat
        self.render_mode = render_mode
        self.opponents = opponent_seats(table, opponents, seat)
        self._encoder = Encoder(table)
        self.observation_space = self._encoder.observation_space()
        self.action_space = self._encoder.action_space()
        self._driver = Driver(table, seat_names(table.players), [seat], self._seat_of, watch=render_mode is not None)
        self._seeds = random.Random(seed)
        self._legal: set[int] = set()
        self._over = True

    def _seat_of(self, index: int, seed: int) -> Seat:
        """The seat of an opponent for a game from ``seed``."""
        opponent = self.opponents[index - (index > self.seat)]
        name = self._driver.names[index]
        if isinstance(opponent, Seat):
            opponent.ejected = None   # a seat may sit at many games in turn
            return opponent
        if isinstance(opponent, str):
            return trusted_seat(name, registry.game(self.table.game).strategies[opponent](name, seed + index))
        return guarded_seat(name, opponent)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = random.Random(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**31)
        self._driver.start(game_seed)
        self._over = False
        observation = self._observe()
        if self._driver.pending is None:   # the game ended without asking the learner anything
            self._over = True
        return observation, {}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("the game is over: call reset() first")
        driver = self._driver
        index = action_index(action, self._encoder.n)
        driver.act(index, index in self._legal)
        reason = driver.ejected(self.seat)
        if reason is not None:
            self._over = True
            driver.stop()
            return self._blank(), EJECTED_REWARD, True, False, {"ejected": reason}
        if driver.result is not None:
            self._over = True
            reward = self.table.rewards(driver.result, [seat.name for seat in driver.seats])[self.seat]
            return self._blank(), float(reward), True, False, {"result": driver.result}
        return self._observe(), 0.0, False, False, {}

    def _observe(self) -> dict[str, Any]:
        pending = self._driver.pending
        if pending is None:
            self._legal = set()
            return self._blank()
        turn = pending[1]
        self._legal = set(turn.legal())
        return {"observation": self._encoder.observation(turn.observation()),
                "action_mask": self._encoder.mask(self._legal)}

    def _blank(self) -> dict[str, Any]:
        self._latest = self._encoder.blank()
        return self._latest

    def action_masks(self) -> np.ndarray:
        """The current mask (the name sb3-contrib's MaskablePPO looks for)."""
        return self._encoder.mask(self._legal)

    def render(self) -> str | np.ndarray | None:
        return render_state(self.table, self.render_mode, self._driver.picture, self._driver.caption, self._viewer)

    def close(self) -> None:
        self._driver.stop()
