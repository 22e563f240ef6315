"""The registry of games: every package ``gameroom.games.<name>`` with a ``descriptor``
module that defines ``GAME`` (a :class:`gameroom.core.game.GameDescriptor`).

Adding a game means writing its package with that module; the command line, the
benchmarks and the tests find it here, by discovery, with no list to edit. Names are
found from the files alone, and a descriptor is imported when its game is asked for.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from functools import lru_cache

import gameroom.games
from gameroom.core.game import GameDescriptor

__all__ = ["games", "game", "names", "UnknownGame"]


class UnknownGame(KeyError):
    """No registered game has that name."""

    def __str__(self) -> str:
        return str(self.args[0])


@lru_cache(maxsize=1)
def names() -> list[str]:
    """The registered games' names, in name order, found without importing any game (a
    command line for one game loads only that game)."""
    found = []
    for module in pkgutil.iter_modules(gameroom.games.__path__):
        where = getattr(module.module_finder, "path", None)
        if module.ispkg and where is not None and os.path.isfile(os.path.join(where, module.name, "descriptor.py")):
            found.append(module.name)
    return sorted(found)


@lru_cache(maxsize=None)
def game(name: str) -> GameDescriptor:
    """The descriptor of ``name``; UnknownGame (with the choices) when there is none."""
    if name not in names():
        raise UnknownGame(f"unknown game {name!r}; choose from {', '.join(names())}")
    module = importlib.import_module(f"gameroom.games.{name}.descriptor")
    descriptor = getattr(module, "GAME", None)
    if not isinstance(descriptor, GameDescriptor):
        raise TypeError(f"gameroom.games.{name}.descriptor.GAME is not a GameDescriptor")
    if descriptor.name != name:
        raise ValueError(f"the descriptor of gameroom.games.{name} is named {descriptor.name!r}")
    return descriptor


def games() -> dict[str, GameDescriptor]:
    """Every registered game by name, in name order (imports them all)."""
    return {name: game(name) for name in names()}
