"""A PettingZoo AEC environment of any game that declares a learning encoding.

Every seat is an agent (``player_0`` ... in seat order); the agent selected is the seat
the referee is asking, and it acts one sub-action per ``step``. Observations are
``{"observation": float32 array, "action_mask": int8 array}``; an agent that is not being
asked sees its latest observation and an empty mask. A masked-out action is given to the
referee as asked, the referee ejects the seat, and the agent is terminated with reward -1
(it ranks last); the game goes on for the others. When the game ends every agent gets
the table's rewards (``core.learning.rank_rewards`` unless the game says otherwise).

Pictures (``render_mode``) show what one viewer may see (``render_view``): the
spectator's view by default, a seat's with its agent name (``"player_1"``), the whole
state, secrets included, only with ``"all"``. In a game with secrets the picture is the
game's drawing of ``views.conceal(state, viewer)`` and the text is the viewer's view
(``views.seat``/``views.spectator``, through the game's ``text_view`` when it has one).
"""

from __future__ import annotations

import json
import random
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from gameroom.core.learning import LearningTable
from gameroom.games import registry
from gameroom.rl import raster
from gameroom.rl.driver import Driver
from gameroom.rl.raster import RGB_ARRAY
from gameroom.rl.spaces import Encoder

__all__ = ["ALL", "RENDER_MODES", "AllSeats", "GameEnv", "action_index", "check_render_mode", "render_state", "render_viewer",
           "seat_names"]

RENDER_MODES = ["ansi", "svg", *([RGB_ARRAY] if raster.available() else [])]
"""``ansi``: the game's text picture; ``svg``: the game's SVG picture (a string);
``rgb_array``: that picture as an H x W x 3 ``uint8`` array, where a renderer is at hand
(``rl.raster``)."""

EJECTED_REWARD = -1.0


def seat_names(players: int) -> list[str]:
    """The referee's names of the seats: ``player0``, ``player1``, ..."""
    return [f"player{i}" for i in range(players)]


def check_render_mode(mode: str | None) -> None:
    """ValueError unless ``mode`` is None or one of :data:`RENDER_MODES`; ``rgb_array``
    where it cannot be drawn says what to install."""
    if mode == RGB_ARRAY and not raster.available():
        raise ValueError(raster.missing())
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"render_mode {mode!r}: choose from {', '.join(RENDER_MODES)}")


NO_POSITION = "(the game has not shown a position yet)"
ALL = "all"
"""``render_view="all"``: the whole state, every secret included."""
SPECTATOR = "spectator"


def render_viewer(view: str | None, players: int, default: str | None = None) -> str | None:
    """The referee's name of the seat whose view a picture shows (``player0`` ...), None
    for the spectator's, or :data:`ALL`; from ``view``: None (``default``: an agent name,
    or the spectator), ``"spectator"``, ``"all"`` or an agent's name (``"player_1"``).
    ValueError for anything else."""
    view = default if view is None else view
    if view is None or view == SPECTATOR:
        return None
    if view == ALL:
        return ALL
    agents = [f"player_{i}" for i in range(players)]
    if view not in agents:
        raise ValueError(f"render_view {view!r}: choose from {SPECTATOR!r}, {ALL!r} or an agent: {', '.join(agents)}")
    return seat_names(players)[agents.index(view)]


def render_state(table: LearningTable, mode: str | None, state: Any, caption: str,
                 viewer: str | None = None) -> str | np.ndarray | None:
    """The picture of a referee state in a render mode (None: no mode, with a warning), as
    ``viewer`` may see it (a seat's name, None: the spectator, :data:`ALL`: everything)."""
    if mode is None:
        gymnasium.logger.warn("render() was called without a render_mode")
        return None
    if state is None:
        return raster.rgb_array(raster.text_svg(NO_POSITION)) if mode == RGB_ARRAY else NO_POSITION
    game = registry.game(table.game)
    whole = viewer == ALL or game.views.vary_secret is None   # no secrets: the state is everyone's
    if mode == "ansi":
        if whole:
            return table.text(state) + (f"\n{caption}" if caption else "")
        view = game.views.spectator(state) if viewer is None else game.views.seat(state, viewer)
        text = game.text_view(view) if game.text_view is not None else json.dumps(view)
        return text + (f"\n{caption}" if caption else "")
    svg = game.render(state, caption) if whole else game.picture(state, viewer, caption)
    if svg is None:
        svg = raster.text_svg(f"{table.game} cannot conceal its secrets in a picture: render_view='all' shows all")
    return raster.rgb_array(svg) if mode == RGB_ARRAY else svg


class AllSeats:
    """What the AEC and the parallel environments share: every seat an agent
    (``player_0`` ...), their spaces, the driver of the referee with every seat a learner,
    the seeds of unseeded resets, and pictures."""

    def _set_up(self, table: LearningTable, seed: int, render_mode: str | None, render_view: str | None,
                name: str) -> None:
        check_render_mode(render_mode)
        self._viewer = render_viewer(render_view, table.players)
        self.metadata = {**self.metadata, "name": name}
        self.table = table
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(table.players)]
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._encoder = Encoder(table)
        self.observation_spaces = {a: self._encoder.observation_space() for a in self.possible_agents}
        self.action_spaces = {a: self._encoder.action_space() for a in self.possible_agents}
        # The referee's seat names are the players' names on the wire, which some games
        # restrict to letters and digits: player0, player1, ... for agents player_0, ...
        self._driver = Driver(table, seat_names(table.players), range(table.players), watch=render_mode is not None)
        self._seeds = random.Random(seed)
        self._latest: list[dict[str, Any]] = []
        self.agents: list[str] = []

    metadata: dict[str, Any]

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def _start(self, seed: int | None) -> None:
        """A new game: from ``seed``, or from the next seed of the environment's own seeded
        sequence (the ``seed`` option), so unseeded resets replay too."""
        if seed is not None:
            self._seeds = random.Random(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**31)
        self.agents = self.possible_agents[:]
        self._latest = [self._encoder.blank() for _ in self.agents]
        self._driver.start(game_seed)

    def render(self) -> str | np.ndarray | None:
        return render_state(self.table, self.render_mode, self._driver.picture, self._driver.caption, self._viewer)

    def close(self) -> None:
        self._driver.stop()


class GameEnv(AllSeats, AECEnv):
    """The AEC environment of one table (see the module's docstring)."""

    metadata = {"render_modes": RENDER_MODES, "is_parallelizable": False, "render_fps": 1}  # noqa: RUF012 (PettingZoo's)

    def __init__(self, table: LearningTable, seed: int = 0, render_mode: str | None = None,
                 render_view: str | None = None) -> None:
        super().__init__()
        self._set_up(table, seed, render_mode, render_view, f"gameroom_{table.game}")
        self._current: dict[int, dict[str, Any]] = {}   # the open turns' observations, by seat

    def __str__(self) -> str:
        return f"gameroom_{self.table.game}"

    # -- the game ----------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: from ``seed``, or from the next seed of the environment's own
        seeded sequence (the ``seed`` option), so unseeded resets replay too."""
        self._current = {}
        self._start(seed)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._settle()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seat_of[agent]
        turn = next((turn for index, turn in self._driver.waiting if index == seat), None)
        if turn is None:
            latest = self._latest[seat]
            return {"observation": latest["observation"], "action_mask": np.zeros(self._encoder.n, np.int8)}
        current = self._current.get(seat)
        if current is None:
            current = {"observation": self._encoder.observation(turn.observation()),
                       "action_mask": self._encoder.mask(turn.legal())}
            self._current[seat] = self._latest[seat] = current
        return current

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        driver = self._driver
        pending = driver.pending
        assert pending is not None and pending[0] == self._seat_of[agent], "the selected agent is not being asked"
        index = action_index(action, self._encoder.n)
        current = self._current.pop(pending[0], None)
        allowed = bool(current["action_mask"][index]) if current is not None else index in set(pending[1].legal())
        self._cumulative_rewards[agent] = 0.0
        for name in self.rewards:
            self.rewards[name] = 0.0
        driver.act(index, allowed)
        self._settle()

    def _settle(self) -> None:
        """After the referee played on: terminate ejected agents, pay the end of the game,
        select the agent the referee is asking."""
        driver = self._driver
        for agent in self.agents:
            if not self.terminations[agent]:
                reason = driver.ejected(self._seat_of[agent])
                if reason is not None:
                    self.terminations[agent] = True
                    self.rewards[agent] = EJECTED_REWARD
                    self.infos[agent] = {"ejected": reason}
        if driver.result is not None:
            rewards = self.table.rewards(driver.result, driver.names)
            for agent in self.agents:
                if not self.terminations[agent]:
                    self.terminations[agent] = True
                    self.rewards[agent] = rewards[self._seat_of[agent]]
            if self.agents:
                self.agent_selection = self.agents[0]
        elif driver.pending is not None:
            self.agent_selection = self.possible_agents[driver.pending[0]]
        self._accumulate_rewards()
        self._deads_step_first()



def action_index(action: Any, n: int) -> int:
    """An action as an index of the catalogue; ValueError outside ``0 .. n-1``."""
    try:
        index = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"an action is an integer in 0..{n - 1}, got {action!r}") from None
    if index != action or not 0 <= index < n:
        raise ValueError(f"an action is an integer in 0..{n - 1}, got {action!r}")
    return index
