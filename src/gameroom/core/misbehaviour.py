"""Tools for deliberately misbehaving test players, shared by every game's baddies.

``hang`` is how a built-in "loop forever" player loops: it blocks its thread for good
without burning CPU, so an abandoned call never slows other games down (Python threads
cannot be killed; the games' specs allow "block far longer than the limit" for that
reason). A genuinely CPU-bound untrusted player belongs in an ``IsolatedCaller``.

``bare_text`` and ``truncated`` make the broken replies of the games' bonus clients: given
the correct reply (as JSON) they return the bytes a broken proxy referee sends instead.

``misbehaves_through(protocol)`` derives a misbehaving player's methods from the protocol
table: every method of the player interface runs the class's ``_before`` hook (which may
answer in place of the normal work), the normal work, then its ``_after`` hook (which may
replace the answer), so a game writes its misbehaviours once, not once per method.
"""

from __future__ import annotations

import functools
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from gameroom.core.protocol import WireProtocol

T = TypeVar("T", bound=type)

__all__ = ["hang", "CallCounter", "PlayerMisbehaved", "bare_text", "truncated", "misbehaves_through",
           "PROCEED"]

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


class _Proceed:
    def __repr__(self) -> str:
        return "PROCEED"


PROCEED: Any = _Proceed()
"""What a ``_before`` hook returns to let the normal work run."""


def misbehaves_through(protocol: WireProtocol) -> Callable[[T], T]:
    """A class decorator: give the class every method of ``protocol``, each running
    ``self._before(wire, args)`` (an answer, or PROCEED), the inherited method, then
    ``self._after(wire, answer, args)`` (the answer to give). Both hooks default to doing
    nothing; methods the class defines itself are kept."""

    def decorate(cls: T) -> T:
        def make(name: str, wire: str) -> Callable[..., Any]:
            def method(self: Any, *args: Any) -> Any:
                early = self._before(wire, args)
                if early is not PROCEED:
                    return early
                answer = getattr(super(cls, self), name)(*args)
                return self._after(wire, answer, args)

            inherited = getattr(cls.__mro__[1], name, None)
            return functools.wraps(inherited)(method) if inherited is not None else method

        for spec in protocol.methods:
            if spec.name not in cls.__dict__:
                setattr(cls, spec.name, make(spec.name, spec.wire))
        if "_before" not in cls.__dict__ and not hasattr(cls, "_before"):
            cls._before = lambda self, wire, args: PROCEED  # type: ignore[attr-defined]
        if "_after" not in cls.__dict__ and not hasattr(cls, "_after"):
            cls._after = lambda self, wire, answer, args: answer  # type: ignore[attr-defined]
        return cls

    return decorate
