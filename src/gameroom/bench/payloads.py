"""Bad messages for fuzzing servers: each kind built from plain parameters.

Every builder returns the exact bytes a hostile client sends in place of one message. The
parameters are plain values, so the property test draws them with hypothesis and the long
benchmark run draws them from a seeded ``random.Random`` (:func:`random_payload`); both
send the same six kinds:

* ``malformed`` — text that is no JSON at all (it starts with a letter no JSON value
  starts with);
* ``truncated`` — the first part of a JSON array, its end never sent;
* ``oversized`` — one JSON string longer than the server accepts for one value;
* ``nested`` — brackets nested deeper than the server's depth bound;
* ``wrong-type`` — well-formed JSON that is not what the server asked for (the caller
  drops values that happen to be valid answers);
* ``invalid-utf8`` — a JSON string holding bytes that are not UTF-8.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["KINDS", "malformed", "truncated", "oversized", "nested", "wrong_type", "invalid_utf8",
           "BAD_UTF8", "random_json", "random_payload"]

KINDS = ("malformed", "truncated", "oversized", "nested", "wrong-type", "invalid-utf8")

# Byte sequences no UTF-8 decoder accepts: a stray continuation byte, bytes never used,
# an overlong encoding, a surrogate, a lead byte without its continuation.
BAD_UTF8 = (b"\x80", b"\xff", b"\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\xc3\x28", b"\xf8\x88\x80\x80\x80")

_NOT_JSON_START = "xyzXYZ<#;@!"   # no JSON value starts with one of these


def malformed(text: str, start: int = 0) -> bytes:
    """Garbage: ``text`` behind a character no JSON value starts with, then a newline."""
    return (_NOT_JSON_START[start % len(_NOT_JSON_START)] + text).encode("utf-8", "surrogatepass") + b"\n"


def truncated(value: Any, keep: int) -> bytes:
    """The array ``[value]`` cut after ``keep`` bytes (at least its opening bracket, never
    its closing one), so it is incomplete however it is read."""
    whole = json.dumps([value]).encode("utf-8")
    return whole[:max(1, min(keep, len(whole) - 1))]


def oversized(limit: int, extra: int = 1) -> bytes:
    """One JSON string value of ``limit + extra`` bytes and more."""
    return b'"' + b"a" * (limit + extra) + b'"\n'


def nested(depth: int, objects: bool = False) -> bytes:
    """``depth`` nested arrays (or objects ``{"a": ...}``) around a number."""
    if objects:
        return b'{"a":' * depth + b"1" + b"}" * depth + b"\n"
    return b"[" * depth + b"1" + b"]" * depth + b"\n"


def wrong_type(value: Any) -> bytes:
    """A well-formed JSON value (the caller checks that it is not a valid answer)."""
    return json.dumps(value).encode("utf-8") + b"\n"


def invalid_utf8(prefix: str, bad: bytes) -> bytes:
    """A JSON string in an array whose bytes are not UTF-8."""
    return b'["' + prefix.encode("ascii", "replace") + bad + b'"]\n'


def random_json(rng: random.Random, depth: int = 3) -> Any:
    """A small random JSON value."""
    pick = rng.randrange(7 if depth > 0 else 5)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.randint(-10**6, 10**6)
    if pick == 3:
        return rng.uniform(-1e6, 1e6)
    if pick == 4:
        return "".join(rng.choice("abcxyz019 -_") for _ in range(rng.randrange(12)))
    if pick == 5:
        return [random_json(rng, depth - 1) for _ in range(rng.randrange(4))]
    return {f"k{rng.randrange(9)}": random_json(rng, depth - 1) for _ in range(rng.randrange(4))}


def random_payload(rng: random.Random, kind: str, limit: int, max_depth: int) -> bytes:
    """One bad message of ``kind`` drawn from ``rng``; ``limit`` is the largest value the
    server accepts here, ``max_depth`` its nesting bound."""
    if kind == "malformed":
        return malformed("".join(rng.choice("abc{}[]:,\" 01\t") for _ in range(rng.randrange(40))),
                         rng.randrange(len(_NOT_JSON_START)))
    if kind == "truncated":
        value = random_json(rng)
        return truncated(value, rng.randrange(1, len(json.dumps([value]))))
    if kind == "oversized":
        return oversized(limit, rng.randrange(1, 4096))
    if kind == "nested":
        return nested(max_depth + 1 + rng.randrange(2000), rng.random() < 0.5)
    if kind == "wrong-type":
        return wrong_type(random_json(rng))
    if kind == "invalid-utf8":
        return invalid_utf8("".join(rng.choice("abc ") for _ in range(rng.randrange(10))), rng.choice(BAD_UTF8))
    raise ValueError(f"unknown kind of bad message {kind!r}")
