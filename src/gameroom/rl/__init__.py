"""Learning environments for every game that declares an encoding (its ``learning``
module, ``core.learning``): PettingZoo AEC environments, Gymnasium environments of one
seat against other players, and trained agents as ordinary players.

* :func:`env` — ``env("fish", players=3)``: every seat an agent (PettingZoo AEC API);
* :func:`single_agent` — ``single_agent("q", opponents=["dag"])``: one seat against
  built-in strategies or any players (Gymnasium API);
* :func:`policy_player` — a policy (observation dict -> action index) as a player that
  can sit anywhere a bot can;
* :func:`parallel_env` — PettingZoo's parallel API, for games played in simultaneous
  rounds (their descriptor's ``simultaneous``; none of the five: see :func:`parallel_env`);
* :func:`table` — the encoding itself: catalogue, observation shape, options.

The games' referees run unchanged (``rl.driver``), so legality, ejection and scoring are
the referee's. Pictures (``render_mode``) show one viewer's view (``render_view``: the
spectator's by default, the learner's seat's in :func:`single_agent`, an agent's by its
name), the whole state only with ``render_view="all"`` (``rl.aec``). Needs the ``rl`` extra (numpy, pettingzoo, gymnasium, greenlet; cairosvg for the
``rgb_array`` pictures, ``rl.raster``).
Game-agnostic: games are reached through the registry's descriptors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from gameroom.core.learning import Learning, LearningTable, OptionError
from gameroom.games import registry

__all__ = ["POLICY_NAME", "POLICY_TARGET", "MissingExtra", "env", "games", "learning", "need_extra", "parallel_env",
           "policy_player", "single_agent", "table"]

POLICY_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
"""How an operator names a policy to load (command lines): ``module:callable``, dotted."""
POLICY_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
"""A name a policy plays under when an operator gives one: a letter, then letters, digits,
``_`` or ``-``, at most 32 (every game's wire and the web room's seats take it)."""


class MissingExtra(ImportError):
    """The ``rl`` extra is not installed."""


def need_extra() -> None:
    try:
        import greenlet  # noqa: F401
        import gymnasium  # noqa: F401
        import numpy  # noqa: F401
        import pettingzoo  # noqa: F401
    except ImportError as exc:
        raise MissingExtra(f"gameroom.rl needs the rl extra (pip install 'gameroom[rl]'): {exc}") from None


def learning(game: str) -> Learning:
    """The encoding of ``game``; OptionError when it declares none."""
    descriptor = registry.game(game)
    if descriptor.learning is None:
        raise OptionError(f"{game} declares no learning encoding")
    found = descriptor.learning()
    if not isinstance(found, Learning):
        raise TypeError(f"the learning of {game} is not a gameroom.core.learning.Learning")
    return found


def games() -> list[str]:
    """The registered games that declare a learning encoding."""
    return [name for name, game in registry.games().items() if game.learning is not None]


def table(game: str, **options: Any) -> LearningTable:
    """The encoding of ``game`` for ``options`` (the others at their defaults)."""
    return learning(game).table(game, **options)


def env(game: str, *, seed: int = 0, render_mode: str | None = None, render_view: str | None = None,
        **options: Any) -> Any:
    """A PettingZoo AEC environment of ``game``: every seat an agent. ``seed`` seeds the
    games of ``reset()`` without a seed; ``options`` are the game's (players, board ...);
    ``render_view``: whose view the pictures show (None: the spectator's; ``"player_1"``;
    ``"all"``: the whole state, secrets included)."""
    need_extra()
    from gameroom.rl.aec import GameEnv

    return GameEnv(table(game, **options), seed=seed, render_mode=render_mode, render_view=render_view)


def single_agent(game: str, opponents: Sequence[Any] | None = None, *, seat: int = 0, seed: int = 0,
                 render_mode: str | None = None, render_view: str | None = None, **options: Any) -> Any:
    """A Gymnasium environment of seat ``seat`` of ``game`` against ``opponents`` (one per
    other seat: built-in strategy names, players, or seats; default the game's first
    strategy). Its pictures show the learner's own view unless ``render_view`` says
    otherwise."""
    need_extra()
    from gameroom.rl.single import SingleAgentEnv

    return SingleAgentEnv(table(game, **options), opponents, seat=seat, seed=seed, render_mode=render_mode,
                          render_view=render_view)


def parallel_env(game: str, *, seed: int = 0, render_mode: str | None = None, render_view: str | None = None,
                 **options: Any) -> Any:
    """A PettingZoo parallel environment of ``game``, a game played in simultaneous rounds
    (its descriptor's ``simultaneous``: every decision asked of every live seat at once,
    ``core.match.Match.decide_all``). Any other game raises OptionError saying so and
    naming :func:`env` (the AEC API covers every game): its referee asks one seat at a
    time, and what it asks the next seat depends on the answer (Q, Bazaar, Fish: turns in
    order; Eriantys: the planning order with its no-duplicate rule; Evolution: its choices
    are collected one by one and its feeding is a queue)."""
    need_extra()
    found = table(game, **options)
    if not registry.game(game).simultaneous:
        raise OptionError(f"{found.game} has no simultaneous decision rounds (its referee asks one seat at a time): "
                          f"use gameroom.rl.env({game!r}), PettingZoo's AEC API")
    from gameroom.rl.parallel import ParallelGameEnv

    return ParallelGameEnv(found, seed=seed, render_mode=render_mode, render_view=render_view)


def policy_player(game: str, policy: Callable[[dict[str, Any]], Any], name: str = "policy", **options: Any) -> Any:
    """A player of ``game`` that asks ``policy`` (observation dict -> action index) for
    every sub-action, encoding the calls as :func:`env` does for ``options``."""
    need_extra()
    from gameroom.rl.policy import PolicyPlayer

    return PolicyPlayer(table(game, **options), policy, name)
