"""A seat's observation is what its own messages say, and nothing of another seat's
secret.

Over random masked games of every game, every seat's coder is doubled by one that is fed
the same calls *through the wire* (each argument encoded by the game's protocol and
decoded again, as a remote player gets it): both must give the same observations and
masks at every sub-action, so an observation depends on nothing but the seat's own
messages. And where the referee's latest position is the one the seat is being asked
about (its view-shaped argument is ``views.seat`` of that position), the position is
varied in every other seat's secret (``views.vary_secret``): the seat's view, decoded and
encoded again, gives the same observation."""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

import pytest

from tests.rl.cases import CASES, need_extra

need_extra()

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameroom import rl
from gameroom.core.learning import Answer, LearningTable
from gameroom.games import registry
from gameroom.rl.aec import GameEnv


class Watch:
    """What the doubled coders share: the environment (for the referee's latest
    position), the seat names in the order coders are made, and what was checked."""

    def __init__(self, table: LearningTable, rng: random.Random) -> None:
        self.table = table
        self.game = registry.game(table.game)
        self.rng = rng
        self.env: GameEnv | None = None
        self.made = 0
        self.decisions = 0
        self.varied = 0
        self.failures: list[BaseException] = []

    def guard(self, call: Any, *args: Any) -> Any:
        """Run ``call``, keeping what it raised: the referee would take an exception from
        a player for a failed call and eject it, hiding the failed check."""
        try:
            return call(*args)
        except Exception as exc:
            self.failures.append(exc)
            raise


class Doubled:
    """A seat's coder and its double fed through the wire."""

    def __init__(self, watch: Watch) -> None:
        self.watch = watch
        self.name = f"player{watch.made % watch.table.players}"
        watch.made += 1
        self.real = watch.table.coder()
        self.wire = watch.table.coder()

    def turn(self, method: str, args: tuple[Any, ...]) -> Any:
        return self.watch.guard(self._turn, method, args)

    def _turn(self, method: str, args: tuple[Any, ...]) -> Any:
        spec = self.watch.game.protocol.by_name[method]
        encoded = spec.encode_args(args)
        wired = tuple(codec.decode(value) for codec, value in zip(spec.args, encoded))
        asked = self._asked_about(encoded)
        # the double as it was before this call, to ask it again about varied positions:
        # copied only for a call about the latest position (a copy of every call's coder
        # was nearly all of the test's time, 4-player Eriantys taking minutes)
        before = copy.deepcopy(self.wire) if asked is not None else None
        real, double = self.real.turn(method, args), self.wire.turn(method, wired)
        if real is None or isinstance(real, Answer):
            assert real == double, f"{method}: {real!r} through the wire is {double!r}"
            return real
        self.watch.decisions += 1
        if asked is not None:
            self._vary(method, args, *asked, before, real)
        return Twin(real, double, self.watch)

    def _asked_about(self, encoded: list[Any]) -> tuple[Any, Any] | None:
        """The referee's latest position and the seat's view of it, when the call is about
        that position (its view-shaped argument is that view) and the game can vary
        another seat's secret; else None."""
        views, env = self.watch.game.views, self.watch.env
        state = env._driver.picture if env is not None else None
        if views.vary_secret is None or state is None or not encoded:
            return None
        try:
            own = views.seat(state, self.name)
        except StopIteration:
            return None
        if own != encoded[0]:
            return None      # the latest position is not the one this call is about
        return state, own

    def _vary(self, method: str, args: tuple[Any, ...], state: Any, own: Any, before: Any, real: Any) -> None:
        """The observation of the seat's view of the position varied in another's secret."""
        views, env = self.watch.game.views, self.watch.env
        assert env is not None and views.vary_secret is not None
        spec = self.watch.game.protocol.by_name[method]
        expected = list(real.observation())
        for other in env._driver.names:
            if other == self.name:
                continue
            try:
                varied = views.vary_secret(state, other, self.watch.rng)
            except StopIteration:
                continue   # no longer at the table
            view = views.seat(varied, self.name)
            assert view == own, f"{self.name}'s view changes with {other}'s secret"
            turn = copy.deepcopy(before).turn(method, (spec.args[0].decode(view), *args[1:]))
            assert list(turn.observation()) == expected, f"{self.name}'s observation changes with {other}'s secret"
            self.watch.varied += 1


class Twin:
    """The seat's turn and its double's, kept in step."""

    def __init__(self, real: Any, double: Any, watch: Watch) -> None:
        self.real, self.double, self.watch = real, double, watch

    def observation(self) -> Any:
        return self.watch.guard(self._observation)

    def _observation(self) -> Any:
        values = self.real.observation()
        assert list(values) == list(self.double.observation()), "the observation through the wire differs"
        return values

    def legal(self) -> Any:
        legal = list(self.real.legal())
        assert sorted(legal) == sorted(self.double.legal()), "the mask through the wire differs"
        return legal

    def choose(self, action: int) -> bool:
        done = self.real.choose(action)
        assert done == self.double.choose(action)
        if done:
            self.double.answer()
        return done

    def answer(self) -> Any:
        return self.real.answer()

    def refuse(self, action: int) -> Any:
        return self.real.refuse(action)


@pytest.mark.parametrize("game,options", CASES)
def test_observations_hold_only_the_seats_own_messages(game: str, options: dict[str, Any]) -> None:
    table = rl.table(game, **options)
    totals = {"decisions": 0, "varied": 0}

    @settings(max_examples=6, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 2**31 - 1))
    def run(seed: int) -> None:
        watch = Watch(table, random.Random(seed))
        env = GameEnv(dataclasses.replace(table, coder=lambda: Doubled(watch)), render_mode="ansi")
        watch.env = env
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, info = env.last()
            assert not watch.failures, watch.failures[0]
            assert "ejected" not in info, info
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        assert not watch.failures, watch.failures[0]
        totals["decisions"] += watch.decisions
        totals["varied"] += watch.varied

    run()
    assert totals["decisions"] > 0
    if registry.game(game).views.vary_secret is not None and game != "evolution":
        # Q's JPub and Bazaar's TurnState are their seat views; Evolution's calls carry
        # no view-shaped argument (its wire check above covers it).
        assert totals["varied"] > 0
