"""A PettingZoo parallel environment of a game played in simultaneous rounds (its
descriptor's ``simultaneous``: the referee asks every live seat at once with
``core.match.Match.decide_all``).

Every seat is an agent (``player_0`` ... in seat order). ``reset`` plays the game up to
its first round and gives every agent its observation (``{"observation", "action_mask"}``,
as the AEC environment's); ``step(actions)`` gives each asked agent's sub-action to its
open turn, and once every turn of the round is complete the referee reveals the round
and plays on to the next one. An agent that is not being asked sees its latest
observation with an empty mask, and its action is not looked at. A masked-out action
goes to the referee as asked and the seat is ejected: the agent is terminated with reward
-1. When the game ends every agent is terminated with the table's rewards. The referee,
its legality checks and its scoring are the game's own (``rl.driver``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from gameroom.core.learning import LearningTable
from gameroom.rl.aec import EJECTED_REWARD, RENDER_MODES, AllSeats, action_index

__all__ = ["ParallelGameEnv"]


class ParallelGameEnv(AllSeats, ParallelEnv):
    """The parallel environment of one table (see the module's docstring)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}  # noqa: RUF012 (PettingZoo's)

    def __init__(self, table: LearningTable, seed: int = 0, render_mode: str | None = None,
                 render_view: str | None = None) -> None:
        self._set_up(table, seed, render_mode, render_view, f"gameroom_{table.game}_parallel")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new game: from ``seed``, or from the next seed of the environment's own
        seeded sequence, so unseeded resets replay too."""
        self._start(seed)
        _rewards, terminations, infos = self._settle()
        self.agents = [agent for agent in self.agents if not terminations[agent]]
        return self._observations(self.possible_agents), infos

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                     dict[str, bool], dict[str, dict[str, Any]]]:
        live = list(self.agents)
        driver = self._driver
        for seat, turn in list(driver.waiting):   # this round's open turns: answers to later ones wait
            agent = self.possible_agents[seat]
            if agent not in actions:
                raise ValueError(f"step: no action for {agent}, whom the referee is asking")
            index = action_index(actions[agent], self._encoder.n)
            driver.act(index, index in set(turn.legal()), seat)
        rewards, terminations, infos = self._settle()
        observations = self._observations(live)
        truncations = dict.fromkeys(live, False)
        self.agents = [agent for agent in live if not terminations[agent]]
        return observations, rewards, terminations, truncations, infos

    def _settle(self) -> tuple[dict[str, float], dict[str, bool], dict[str, dict[str, Any]]]:
        """Rewards, terminations and infos of the agents in ``self.agents`` now: ejected
        seats terminated at -1, everyone paid at the end of the game."""
        driver = self._driver
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        terminations = dict.fromkeys(agents, False)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in agents}
        for agent in agents:
            reason = driver.ejected(self._seat_of[agent])
            if reason is not None:
                terminations[agent], rewards[agent], infos[agent] = True, EJECTED_REWARD, {"ejected": reason}
        if driver.result is not None:
            paid = self.table.rewards(driver.result, driver.names)
            for agent in agents:
                if not terminations[agent]:
                    terminations[agent], rewards[agent] = True, paid[self._seat_of[agent]]
        return rewards, terminations, infos

    def _observations(self, agents: list[str]) -> dict[str, Any]:
        open_turns = dict(self._driver.waiting)
        out = {}
        for agent in agents:
            seat = self._seat_of[agent]
            turn = open_turns.get(seat)
            if turn is None:
                out[agent] = {"observation": self._latest[seat]["observation"],
                              "action_mask": np.zeros(self._encoder.n, np.int8)}
            else:
                out[agent] = self._latest[seat] = {"observation": self._encoder.observation(turn.observation()),
                                                   "action_mask": self._encoder.mask(turn.legal())}
        return out
