"""Differences between two JSON values, small when the values are alike: how the stored-game
viewer sends a game's views, each step as what changed since the step before.

A view of a long Q game is tens of kilobytes (the whole map); a step changes a tile, a
score and a hand's size. :func:`diff` keeps what is equal and names only the rest:

* ``None`` — nothing changed;
* ``["=", value]`` — the value is replaced;
* ``["{", {key: delta, ...}, [removed keys]]`` — an object's changed and new members
  (a new member's delta is ``["=", value]``) and the members it lost;
* ``["[", start, end, [values]]`` — a list whose items ``start`` to ``end`` (exclusive,
  as in the old list) are replaced by ``values``: what lies between the common beginning
  and the common end (a tile added to a row, a row added to the map);
* ``["[~", start, [delta or None, ...]]`` — a list of the same length whose items from
  ``start`` on change each by its own delta (``None``: unchanged).

:func:`apply` undoes it; ``web/static/delta.js`` is the same in the browser. Both are
tested against each other. Game-agnostic: any JSON value. Values equal in Python are
equal here (``1``, ``1.0`` and ``true`` inside an equal list or object), except at the
top of a member or item, where the type counts too.
"""

from __future__ import annotations

from typing import Any

__all__ = ["diff", "apply", "DeltaError"]


class DeltaError(ValueError):
    """A delta that does not fit the value it is applied to."""


def diff(before: Any, after: Any) -> Any:
    """The delta that turns ``before`` into ``after`` (None when they are equal)."""
    if before == after and type(before) is type(after):
        return None
    if isinstance(before, dict) and isinstance(after, dict):
        changed = {key: diff(before[key], value) if key in before else ["=", value]
                   for key, value in after.items() if key not in before or before[key] != value
                   or type(before[key]) is not type(value)}
        return ["{", changed, [key for key in before if key not in after]]
    if isinstance(before, list) and isinstance(after, list):
        return _list(before, after)
    return ["=", after]


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b)


def _list(before: list[Any], after: list[Any]) -> Any:
    shorter = min(len(before), len(after))
    start = 0
    while start < shorter and _same(before[start], after[start]):
        start += 1
    tail = 0
    while tail < shorter - start and _same(before[-1 - tail], after[-1 - tail]):
        tail += 1
    old, new = before[start:len(before) - tail], after[start:len(after) - tail]
    if len(old) == len(new):
        return ["[~", start, [diff(a, b) for a, b in zip(old, new)]]
    return ["[", start, len(before) - tail, new]


def apply(before: Any, delta: Any) -> Any:
    """``before`` changed by ``delta`` (a new value; ``before`` is not changed).
    DeltaError when the delta does not fit."""
    if delta is None:
        return before
    if not isinstance(delta, list) or not delta:
        raise DeltaError(f"not a delta: {str(delta)[:80]}")
    kind = delta[0]
    if kind == "=" and len(delta) == 2:
        return delta[1]
    if kind == "{" and len(delta) == 3 and isinstance(before, dict) and isinstance(delta[1], dict):
        out = {key: value for key, value in before.items() if key not in delta[2]}
        for key, change in delta[1].items():
            out[key] = apply(before.get(key), change)
        return out
    if kind == "[" and len(delta) == 4 and isinstance(before, list):
        start, end, values = delta[1], delta[2], delta[3]
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(before)):
            raise DeltaError(f"a list of {len(before)} items has no items {start}..{end}")
        return [*before[:start], *values, *before[end:]]
    if kind == "[~" and len(delta) == 3 and isinstance(before, list):
        start, changes = delta[1], delta[2]
        if not (isinstance(start, int) and 0 <= start and start + len(changes) <= len(before)):
            raise DeltaError(f"a list of {len(before)} items has no items {start}..{start + len(changes)}")
        items = list(before)
        for at, change in enumerate(changes, start):
            items[at] = apply(before[at], change)
        return items
    raise DeltaError(f"a delta {str(delta)[:80]} does not fit {type(before).__name__}")
