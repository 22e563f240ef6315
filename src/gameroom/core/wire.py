"""Validation helpers for decoding JSON into game values, shared by every game's codec.

Every decoder raises :class:`WireError` with a message that says what was wrong and where
(a JSON path such as ``$.players[2].score``), so a bad file, a bad harness input and a bad
remote reply all get the same clear diagnosis.
"""

from __future__ import annotations

from typing import Any, Iterable

from gameroom.core.errors import WireError as WireError   # re-exported: its home before core.errors


def describe(value: Any, limit: int = 60) -> str:
    """A short printable rendering of a JSON value for error messages."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def expect_object(value: Any, keys: Iterable[str], where: str = "$") -> dict[str, Any]:
    """`value` must be a JSON object with exactly the given key set."""
    if not isinstance(value, dict):
        raise WireError(f"expected an object, got {describe(value)}", where)
    wanted = set(keys)
    have = set(value)
    if have != wanted:
        missing = sorted(wanted - have)
        extra = sorted(have - wanted)
        parts = []
        if missing:
            parts.append("missing key(s) " + ", ".join(missing))
        if extra:
            parts.append("unexpected key(s) " + ", ".join(extra))
        raise WireError("; ".join(parts), where)
    return value


def expect_list(value: Any, where: str = "$", min_len: int = 0, max_len: int | None = None) -> list[Any]:
    """`value` must be a JSON array whose length lies within the bounds."""
    if not isinstance(value, list):
        raise WireError(f"expected an array, got {describe(value)}", where)
    if len(value) < min_len or (max_len is not None and len(value) > max_len):
        bound = f"{min_len}..{max_len}" if max_len is not None else f"at least {min_len}"
        raise WireError(f"expected an array of length {bound}, got {len(value)} elements", where)
    return value


def expect_int(value: Any, where: str = "$", low: int | None = None, high: int | None = None) -> int:
    """`value` must be an integral JSON number (``1.0`` counts) within the bounds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WireError(f"expected an integer, got {describe(value)}", where)
    if isinstance(value, float):
        if not value.is_integer():
            raise WireError(f"expected an integer, got {describe(value)}", where)
        value = int(value)
    if low is not None and value < low:
        raise WireError(f"expected an integer >= {low}, got {value}", where)
    if high is not None and value > high:
        raise WireError(f"expected an integer <= {high}, got {value}", where)
    return value  # type: ignore[no-any-return]  # an int now, checked above


def expect_natural(value: Any, where: str = "$", high: int | None = None) -> int:
    """`value` must be an integral JSON number >= 0 (and <= high when given)."""
    return expect_int(value, where, 0, high)


def expect_bool(value: Any, where: str = "$") -> bool:
    if not isinstance(value, bool):
        raise WireError(f"expected true or false, got {describe(value)}", where)
    return value


def expect_str(value: Any, where: str = "$") -> str:
    if not isinstance(value, str):
        raise WireError(f"expected a string, got {describe(value)}", where)
    return value


def expect_choice(value: Any, choices: Iterable[str], where: str = "$") -> str:
    """`value` must be one of the given strings."""
    options = list(choices)
    if not isinstance(value, str) or value not in options:
        raise WireError(f"expected one of {', '.join(map(repr, options))}, got {describe(value)}", where)
    return value


class PlainText(str):
    """A harness output printed as it is rather than as JSON (e.g. result lines)."""
