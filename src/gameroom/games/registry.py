"""The registry of games: every descriptor registered under the entry-point group
``gameroom.games``.

A game is a package with a module defining a :class:`gameroom.core.game.GameDescriptor`,
registered by its distribution::

    [project.entry-points."gameroom.games"]
    nim = "nim_game.descriptor:GAME"

gameroom's five games register the same way in gameroom's own ``pyproject.toml``; a game
installed from another distribution is found like them, and every command, the
benchmarks and the web room get it with no file of gameroom changed. Names come from the
installed metadata alone; a descriptor is imported when its game is asked for.

A broken plug-in (its module fails to import, its object is not a descriptor, its name
differs from the entry point's or another distribution registered the name first) never
breaks the others: it is skipped, and :func:`problems` holds one line per broken plug-in
naming its entry point and what is wrong (the command line prints them).
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib.metadata import EntryPoint, entry_points

from gameroom.core.errors import GameroomError
from gameroom.core.game import GameDescriptor

__all__ = ["GROUP", "BrokenGame", "UnknownGame", "game", "games", "names", "problems"]

GROUP = "gameroom.games"
"""The entry-point group games register under."""

_problems: dict[str, str] = {}


class UnknownGame(GameroomError, KeyError):
    """No registered game has that name."""

    def __str__(self) -> str:
        return str(self.args[0])


class BrokenGame(UnknownGame):
    """The game's plug-in is registered but cannot be loaded (the message says why)."""


def _where(point: EntryPoint) -> str:
    distribution = getattr(point, "dist", None)
    source = f" (from {distribution.name})" if distribution is not None else ""
    return f"game plug-in {point.name} = {point.value!r}{source}"


def _own(point: EntryPoint) -> bool:
    distribution = getattr(point, "dist", None)
    return distribution is not None and distribution.name == "gameroom"


@lru_cache(maxsize=1)
def _entry_points() -> dict[str, EntryPoint]:
    """The group's entry points by name. A name registered twice keeps gameroom's own
    entry (a plug-in cannot take over a built-in game), else the first in the order the
    installed metadata lists them; the others are reported."""
    found: dict[str, EntryPoint] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: not _own(p)):   # stable: gameroom's first
        if point.name in found:
            if found[point.name].value != point.value:   # the same metadata seen twice is no conflict
                _problems.setdefault(point.name, f"{_where(point)} skipped: the name {point.name!r} is "
                                                 f"already registered by {found[point.name].value!r}")
            continue
        found[point.name] = point
    return found


@lru_cache(maxsize=1)
def names() -> list[str]:
    """The registered games' names, in name order, found without importing any game (a
    command line for one game loads only that game)."""
    return sorted(_entry_points())


@cache
def _load(name: str) -> GameDescriptor:
    point = _entry_points()[name]
    try:
        descriptor = point.load()
    except Exception as exc:   # any failure of a plug-in's import is that plug-in's, not ours  # noqa: BLE001
        raise BrokenGame(f"{_where(point)} cannot be loaded: {type(exc).__name__}: {' '.join(str(exc).split())}") from exc
    if not isinstance(descriptor, GameDescriptor):
        raise BrokenGame(f"{_where(point)} is a {type(descriptor).__name__}, not a GameDescriptor")
    if descriptor.name != name:
        raise BrokenGame(f"{_where(point)} describes a game named {descriptor.name!r}")
    return descriptor


def game(name: str) -> GameDescriptor:
    """The descriptor of ``name``: UnknownGame (with the choices) when none is registered,
    BrokenGame (one line saying why) when its plug-in cannot be loaded."""
    if name not in names():
        known = ", ".join(g for g in names() if g not in _problems)
        hint = known or "none registered (the gameroom.games entry points are missing: reinstall gameroom)"
        raise UnknownGame(f"unknown game {name!r}; choose from {hint}")
    try:
        return _load(name)
    except BrokenGame as exc:
        _problems.setdefault(name, str(exc))
        raise


def games() -> dict[str, GameDescriptor]:
    """Every registered game that loads, by name, in name order (imports them all); the
    broken ones are skipped and reported in :func:`problems`."""
    out: dict[str, GameDescriptor] = {}
    for name in names():
        try:
            out[name] = game(name)
        except BrokenGame:
            continue
    return out


def problems() -> list[str]:
    """One line per broken plug-in met so far (loading, or a duplicate name)."""
    _entry_points()
    return list(_problems.values())
