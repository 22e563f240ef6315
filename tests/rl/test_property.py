"""Over many random masked games of every game (hypothesis, derandomised): every action
the mask allows is accepted by the game's referee (its seat is never ejected for it) and
the one action per game taken against the mask is refused (the referee ejects the seat,
which is terminated with reward -1 while the game goes on for the others)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.rl.cases import CASES, need_extra

need_extra()

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameroom import rl

GAMES = {"fish": 1000, "q": 600, "bazaar": 600, "evolution": 200, "eriantys": 250}
"""Games per option set (three sets per game): 3,000 Fish games, 1,800 each of Q and
Bazaar, fewer of the long games (600 Evolution, 750 Eriantys); a minute or two in all on
two cores."""
REACH = {"fish": 25, "q": 30, "bazaar": 40, "evolution": 80, "eriantys": 80}
"""The step that goes against the mask is drawn from 0 to this (within most games)."""


def play_against_the_mask(game: str, options: dict[str, Any], seed: int, forbidden_at: int) -> tuple[int, int]:
    """One random game; at step ``forbidden_at`` (if the game gets there and the mask
    forbids something) the agent takes a forbidden action. (steps, refused) taken."""
    env = rl.env(game, **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = refused = 0
    for agent in env.agent_iter():
        observation, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = observation["action_mask"]
        allowed, forbidden = np.flatnonzero(mask), np.flatnonzero(mask == 0)
        assert len(allowed), f"{agent} is asked with an empty mask"
        against = steps == forbidden_at and len(forbidden) > 0
        action = int(rng.choice(list(forbidden if against else allowed)))
        env.step(action)
        steps += 1
        ejected = env.infos.get(agent, {}).get("ejected")
        if against:
            refused += 1
            assert ejected, f"{agent}'s forbidden action {action} ({env.table.actions[action]}) was accepted"
            assert env.terminations[agent] and env.rewards[agent] == -1.0
        else:
            assert not ejected, f"{agent}'s allowed action {action} ({env.table.actions[action]}) was refused: {ejected}"
    return steps, refused


@pytest.mark.parametrize("game,options", CASES)
def test_the_mask_is_exactly_what_the_referee_accepts(game: str, options: dict[str, Any]) -> None:
    refused = []

    @settings(max_examples=GAMES[game], derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 2**31 - 1), st.integers(0, REACH[game]))
    def run(seed: int, forbidden_at: int) -> None:
        refused.append(play_against_the_mask(game, options, seed, forbidden_at)[1])

    run()
    assert sum(refused) >= GAMES[game] // 3   # most games reach the step where they go against the mask
