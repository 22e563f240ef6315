"""The games and option sets the learning-environment tests run (every game with a
learning encoding, each at its defaults and at two other sets of options)."""

from __future__ import annotations

from typing import Any

import pytest

EXTRA = "the rl extra (pip install 'gameroom[rl]': numpy, pettingzoo, gymnasium, greenlet) is not installed"


def need_extra() -> None:
    """Skip the calling test module when the rl extra is missing."""
    for module in ("numpy", "gymnasium", "pettingzoo", "greenlet"):
        pytest.importorskip(module, reason=EXTRA)


OPTIONS: dict[str, list[dict[str, Any]]] = {
    "fish": [{}, {"players": 4, "rows": 4, "columns": 3, "fish": 2}, {"players": 3, "rows": 3, "columns": 4}],
    "q": [{}, {"players": 4, "window": 9}, {"players": 3, "window": 5}],
    "bazaar": [{}, {"players": 6, "bonus": "SEY"}, {"players": 3, "bonus": "RWB"}],
    "evolution": [{}, {"players": 5, "boards": 3, "hand": 6}, {"players": 8}],
    "eriantys": [{}, {"players": 4, "expert": True}, {"players": 3, "expert": True}],
}

CASES = [pytest.param(game, options, id=f"{game}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'defaults'}")
         for game, sets in OPTIONS.items() for options in sets]
