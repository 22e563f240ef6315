"""Tools for deliberately misbehaving test players, shared by every game's baddies.

``hang`` is how a built-in "loop forever" player loops: it blocks its thread for good
without burning CPU, so an abandoned call never slows other games down (Python threads
cannot be killed; the games' specs allow "block far longer than the limit" for that
reason). A genuinely CPU-bound untrusted player belongs in an ``IsolatedCaller``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

__all__ = ["hang", "CallCounter", "PlayerMisbehaved"]

_NEVER = threading.Event()


class PlayerMisbehaved(Exception):
    """Raised on purpose by an exception-raising test player."""


def hang() -> None:
    """Never return (until the process ends)."""
    while True:
        _NEVER.wait(3600)


@dataclass
class CallCounter:
    """Counts calls per method; a looping player hangs on the k-th call of one method."""

    counts: dict[str, int] = field(default_factory=dict)

    def tick(self, method: str) -> int:
        self.counts[method] = self.counts.get(method, 0) + 1
        return self.counts[method]

    def reset(self) -> None:
        self.counts.clear()
