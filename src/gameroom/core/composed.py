"""A person's answer that is not among the moves offered (a Q turn of several tiles, an
Evolution turn of several cards), judged by the game's own legality check: what the web
room's person seats and the lobby's person seats both take, and what their boards ask of
tentative answers before the person confirms one.
"""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.protocol import Method
from gameroom.core.wire import WireError

__all__ = ["composed_problem", "MAX_CHECKS"]

MAX_CHECKS = 256
"""Tentative answers one check may ask about (each is the game's legality check, a
fraction of a millisecond: a question costs a server a few milliseconds at most)."""

Check = Callable[[str, tuple[Any, ...], Any], "str | None"]


def composed_problem(spec: Method, args: tuple[Any, ...], answer: Any, check: Check) -> str | None:
    """What is wrong with ``answer`` (JSON) to the call ``spec(*args)`` by the game's
    ``check`` (``GameDescriptor.person_check``), None when it is legal. The answer must be
    exactly what the method's result codec reads it as: some codecs read a reply leniently,
    as a reference server did (Bazaar: garbage is a pebble request), and a person's answer
    must mean what it says."""
    try:
        decoded = spec.result.decode(answer)
        strict = spec.result.encode(decoded) == answer
    except WireError as exc:
        return str(exc)
    if not strict:
        return f"not a well-formed answer to {spec.wire}"
    try:
        return check(spec.name, args, decoded)
    except (ValueError, TypeError, KeyError, IndexError) as exc:   # a composed answer the rules cannot read
        return f"{type(exc).__name__}: {exc}"
