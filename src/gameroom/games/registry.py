"""The registry of games: every package ``gameroom.games.<name>`` with a ``descriptor``
module that defines ``GAME`` (a :class:`gameroom.core.game.GameDescriptor`).

Adding a game means writing its package with that module; the command line, the
benchmarks and the tests find it here, by discovery, with no list to edit.
"""

from __future__ import annotations

import importlib
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
def games() -> dict[str, GameDescriptor]:
    """Every registered game by name, in name order."""
    found: dict[str, GameDescriptor] = {}
    for module in sorted(pkgutil.iter_modules(gameroom.games.__path__), key=lambda m: m.name):
        if not module.ispkg:
            continue
        try:
            descriptor = importlib.import_module(f"gameroom.games.{module.name}.descriptor")
        except ModuleNotFoundError as exc:
            if exc.name == f"gameroom.games.{module.name}.descriptor":
                continue   # a package without a descriptor is not (yet) a game
            raise
        game = getattr(descriptor, "GAME", None)
        if not isinstance(game, GameDescriptor):
            raise TypeError(f"gameroom.games.{module.name}.descriptor.GAME is not a GameDescriptor")
        if game.name != module.name:
            raise ValueError(f"the descriptor of gameroom.games.{module.name} is named {game.name!r}")
        found[game.name] = game
    return found


def names() -> list[str]:
    return list(games())


def game(name: str) -> GameDescriptor:
    """The descriptor of ``name``; UnknownGame (with the choices) when there is none."""
    table = games()
    if name not in table:
        raise UnknownGame(f"unknown game {name!r}; choose from {', '.join(table)}")
    return table[name]
