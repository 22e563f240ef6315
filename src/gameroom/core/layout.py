"""The descriptor fields a game package fills from its own modules by convention.

gameroom's games are laid out alike: ``hosting.py`` (``HOSTING``), ``workloads.py``
(``WORKLOADS``, ``LINEUPS``), ``render.py`` (``render_svg(state, caption)``),
``harness.py`` (``HARNESSES``), ``learning.py`` (``LEARNING``), ``narrator.py``
(``narrator(seed, names)``) and ``board.js`` beside them (and ``drawing.js`` when the
game's picture is also drawn in the browser). :func:`package_parts` reads those
fields from a package laid out so, instead of every descriptor spelling the same loaders
again. What is heavy to import (pictures, harnesses, learning, narrators) is imported at
its first use, as the registry asks (a command for one game loads what it uses).

A game need not be laid out so: every field is the descriptor's own
(:class:`gameroom.core.game.GameDescriptor`); this is a convenience. Game-agnostic.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypedDict

from gameroom.core.hosting import Hosting
from gameroom.core.workload import Lineup, Workload

__all__ = ["PackageParts", "package_parts", "on_use", "called_on_use"]


def on_use(module: str, name: str) -> Callable[[], Any]:
    """A function returning ``name`` of ``module``, imported at the function's first call."""
    return lambda: getattr(importlib.import_module(module), name)


def called_on_use(module: str, name: str) -> Callable[..., Any]:
    """The function ``name`` of ``module``, imported at its first call (its arguments pass
    through)."""
    return lambda *args: getattr(importlib.import_module(module), name)(*args)


class PackageParts(TypedDict):
    """The descriptor's fields :func:`package_parts` fills (``GameDescriptor(...,
    **package_parts(__name__))``)."""

    hosting: Hosting
    workloads: Sequence[Workload]
    lineups: Sequence[Lineup]
    render: Callable[[Any, str], str]
    harnesses: Callable[[], Mapping[str, Any]]
    learning: Callable[[], Any]
    narrator: Callable[[int, Sequence[str]], Any]
    board: Path
    drawing: Path | None


def package_parts(module: str, *, render: Callable[[Any, str], str] | None = None,
                  narrator: Callable[[int, Sequence[str]], Any] | None = None) -> PackageParts:
    """The fields of the game package of ``module`` (the descriptor module's ``__name__``: the
    package itself or a module in it) laid out as the module's docstring says: ``hosting``, ``workloads`` and
    ``lineups`` imported now; ``render``, ``harnesses`` (a copy of the table), ``learning``
    and ``narrator`` at their first use; ``board`` the package's ``board.js``, ``drawing`` its
``drawing.js`` when there is one. A game whose
    picture or narrator needs more than the convention's call passes its own ``render`` or
    ``narrator``."""
    package = module if hasattr(sys.modules[module], "__path__") else module.rpartition(".")[0]
    hosting = importlib.import_module(f"{package}.hosting")
    workloads = importlib.import_module(f"{package}.workloads")
    harnesses = on_use(f"{package}.harness", "HARNESSES")
    folder = Path(str(sys.modules[package].__file__)).parent
    return PackageParts(
        hosting=hosting.HOSTING,
        workloads=workloads.WORKLOADS,
        lineups=workloads.LINEUPS,
        render=render if render is not None else called_on_use(f"{package}.render", "render_svg"),
        harnesses=lambda: dict(harnesses()),
        learning=on_use(f"{package}.learning", "LEARNING"),
        narrator=narrator if narrator is not None else called_on_use(f"{package}.narrator", "narrator"),
        board=folder / "board.js",
        drawing=folder / "drawing.js" if (folder / "drawing.js").is_file() else None,
    )
