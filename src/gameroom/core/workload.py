"""What the benchmark measures of one game beyond the generic figures, as data.

Every game gets the generic benchmark from its descriptor (complete in-process games
between its built-in players; a remote call over loopback when it has a referee
protocol). A game that wants something of its own measured — a strategy's turn on a
mid-game state, a mode, the reference implementation's figure to compare with —
declares :class:`Workload` records in its descriptor. A workload is pure: it prepares
work and does it; ``python -m gameroom.bench`` owns the clock and prints the figures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Lineup", "Workload"]


@dataclass(frozen=True)
class Workload:
    """One figure (or family of figures) of a game's benchmark.

    ``prepare(size)`` does the untimed set-up for ``size`` units of work and returns the
    timed part: a function that does the work and returns counts of what it did (e.g.
    ``{"turns": 5120}``), printed per second beside the units. ``size(games)`` turns the
    benchmark's ``--games`` into units (default: as many). ``unit`` names a unit
    ("games", "turns", "calls"). ``reference`` names the reference implementation's
    figure for the same work (units per second) in the benchmark's file of measured
    reference figures (``gameroom/bench/references.toml``, or ``--reference``), printed
    with the ratio; figures never live in code. With ``repeat`` > 1 the work is timed
    that many times and the median and best times of one run are printed instead (a
    tournament's wall time). ``memory`` also prints the peak traced memory of one run
    of ``memory_size`` units.
    """

    label: str
    prepare: Callable[[int], Callable[[], Mapping[str, float]]]
    unit: str = "games"
    size: Callable[[int], int] = lambda games: games
    reference: str | None = None
    repeat: int = 1
    memory: bool = False
    memory_size: int = 3


@dataclass(frozen=True)
class Lineup:
    """Complete games between built-in players that the benchmark plays on every kind of
    seat — trusted (direct calls), guarded (a time limit on every call) and isolated (a
    process per player) — to compare with a reference implementation.

    ``strategies``: the descriptor's strategy names, in seat order. ``key``: the name of
    the reference figure for this work in the benchmark's file of measured references
    (None: no reference measures it). ``play(seed, seats, context)`` replaces the
    descriptor's ``play`` when the reference's work deals differently (a sorted deck).
    The first line-up of a game is its default work (the benchmark's JSON line).
    """

    label: str
    strategies: tuple[str, ...]
    key: str | None = None
    play: Callable[..., Any] | None = None
