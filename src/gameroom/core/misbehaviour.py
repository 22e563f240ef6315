"""Tools for deliberately misbehaving test players, shared by every game's baddies.

``hang`` is how a built-in "loop forever" player loops: it blocks its thread for good
without burning CPU, so an abandoned call never slows other games down (Python threads
cannot be killed; the games' specs allow "block far longer than the limit" for that
reason). A genuinely CPU-bound untrusted player belongs in an ``IsolatedCaller``.

``bare_text`` and ``truncated`` make the broken replies of the games' bonus clients: given
the correct reply (as JSON) they return the bytes a broken proxy referee sends instead.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["hang", "CallCounter", "PlayerMisbehaved", "bare_text", "truncated"]

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


def bare_text(text: bytes) -> Callable[[Any], bytes]:
    """A broken reply: always ``text`` (e.g. ``void`` without quotes), whatever was due."""
    return lambda _reply: text


def truncated(pad: int, newline: bool = False) -> Callable[[Any], bytes]:
    """A broken reply: ``pad`` spaces, the correct JSON text minus its last character, and
    optionally a newline (``false`` becomes ``fals``; an array never completes)."""
    end = b"\n" if newline else b""

    def reply(value: Any) -> bytes:
        return b" " * pad + json.dumps(value)[:-1].encode("utf-8") + end

    return reply
