"""The reference implementations' measured figures, read from a documented file.

``references.toml`` beside this module holds every figure the benchmarks compare with,
each with the work it measures, its date, machine and how it was measured; the
``--reference`` option adds another such file or overrides one figure (``KEY=RATE``).
Nothing else in the code holds a reference figure.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

__all__ = ["References", "load"]

References = dict[str, dict[str, float]]
"""Per game, per work key: the reference's rate (units per second)."""


def _figures(text: str, where: str) -> References:
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{where}: not TOML: {exc}") from None
    figures: References = {}
    for game, works in table.items():
        if not isinstance(works, dict):
            raise ValueError(f"{where}: [{game}] must be a table of works")  # noqa: TRY004
        for key, work in works.items():
            rate = work.get("per_s") if isinstance(work, dict) else None
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate > 0:
                raise ValueError(f"{where}: [{game}.{key}] needs per_s, a positive number")
            figures.setdefault(game, {})[key] = float(rate)
    return figures


def load(extra: list[str] | None = None, game: str | None = None) -> References:
    """The recorded figures, then each ``extra``: a TOML file of the same shape, or
    ``KEY=RATE`` for one work of ``game`` (the game benchmarked)."""
    figures = _figures(resources.files("gameroom.bench").joinpath("references.toml").read_text("utf-8"),
                       "references.toml")
    for item in extra or []:
        key, sep, rate = item.partition("=")
        if sep and not Path(item).exists():
            try:
                value = float(rate)
            except ValueError:
                raise ValueError(f"--reference {item!r}: {rate!r} is not a number") from None
            if not value > 0 or game is None:
                raise ValueError(f"--reference {item!r}: needs a positive rate and one game benchmarked")
            figures.setdefault(game, {})[key.strip()] = value
            continue
        try:
            text = Path(item).read_text("utf-8")
        except OSError as exc:
            raise ValueError(f"--reference {item!r}: cannot read it: {exc.strerror}") from None
        for name, works in _figures(text, item).items():
            figures.setdefault(name, {}).update(works)
    return figures
