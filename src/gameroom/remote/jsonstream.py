"""Incremental reading of successive JSON values from a byte stream with no framing.

Remote peers send one JSON text after another, with any amount of white space between
them (the reference pads each message with thousands of spaces), split across packets
arbitrarily or packed several to a packet. :class:`JSONStreamDecoder` takes bytes as they
arrive and hands out complete values; it tells a value that is merely incomplete from one
that can never become valid, and bounds the size of one value so a peer cannot make the
reader buffer without end. Garbage spoils the rest of its line: it and every byte up to the
next newline (also bytes still to come) leave the stream, so a reader that gives garbage a
meaning (Bazaar's request-pebble-or-trades) can go on with the next value; the literals
``true``, ``false`` and ``null`` need no delimiter after them.

Reading and writing use orjson when it is installed (a dependency: a Q call is read about
8x and written about 3x faster than without it, see docs/ARCHITECTURE.md) but
never change a byte or a verdict: a value orjson reads is one the standard library reads
the same way (anything else, and every error, takes the standard path with its messages),
and a message orjson writes is used only when it holds no number that could be written
differently (floats) — otherwise the standard library writes it.

Nesting depth is bounded like size (:data:`MAX_DEPTH`), here and in :func:`check_depth` for
whole texts (standard input): a value nested thousands of levels deep is a few KB, yet
Python's decoder, our codecs and ``repr`` in log lines would all recurse on it until
``RecursionError``. Every reader of the platform goes through one of the two.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gameroom.core.errors import GameroomError

try:
    import orjson as _orjson
except ImportError:   # the standard library does everything, only slower
    _orjson = None  # type: ignore[assignment]

__all__ = ["JSONStreamDecoder", "JSONStreamError", "ValueTooLarge", "ValueTooDeep", "NEED_MORE",
           "DEFAULT_MAX_VALUE_BYTES", "MAX_DEPTH", "check_depth", "preview", "encode", "nesting"]

# The largest message of any game (a Q state with all 1080 tiles on the map) is under
# 100 KB; a bound of 1 MiB leaves room and stops a flood early.
DEFAULT_MAX_VALUE_BYTES = 1024 * 1024
# The deepest message of any game nests 6 levels (a Q state: object, map, row, cell, tile);
# 64 leaves room and keeps every later reader far below Python's recursion limit (1000).
MAX_DEPTH = 64

_WHITESPACE = b" \t\r\n"
# Within a container, only quotes and brackets matter to find where the value ends.
_STRUCTURE = re.compile(rb'["\[\]{}]')
_STRING_END = re.compile(rb'["\\]')
# A scalar at the top level ends at the first byte that cannot continue it.
_SCALAR_END = re.compile(rb"[\s\[\]{},:\"]")
_SCALAR_START = frozenset(b"-0123456789tfn")
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}
# What may end an incomplete value: the start of a literal or of a number.
_PARTIAL = re.compile(r"t(r(ue?)?)?|f(a(l(se?)?)?)?|n(u(ll?)?)?|-?\d*(\.\d*)?([eE][-+]?\d*)?")


class JSONStreamError(GameroomError, ValueError):
    """The stream holds bytes that are not (and cannot become) a JSON value, or a value
    larger than the reader's bound."""


class ValueTooLarge(JSONStreamError):
    """One value is larger than the reader's bound (the stream cannot go on)."""


class ValueTooDeep(ValueTooLarge):
    """One value nests deeper than :data:`MAX_DEPTH` (the stream cannot go on)."""

    def __init__(self, limit: int = MAX_DEPTH, where: str = "") -> None:
        super().__init__(f"JSON value nests deeper than {limit} levels{where}")


class _NeedMore:
    def __repr__(self) -> str:
        return "NEED_MORE"


NEED_MORE: Any = _NeedMore()


class JSONStreamDecoder:
    """Buffers bytes and yields complete JSON values in order.

    ``feed`` adds bytes; ``next_value`` returns the next value, or ``NEED_MORE`` when the
    buffer holds only white space or the beginning of a value. ``eof`` marks the end of the
    stream, which completes a pending top-level number (``12`` then EOF is the value 12).
    """

    def __init__(self, max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES, max_depth: int = MAX_DEPTH) -> None:
        self._buf = bytearray()
        self._eof = False
        self.max_value_bytes = max_value_bytes
        self.max_depth = max_depth
        # Resumable scan state for the value at the front of the buffer.
        self._scan_pos = 0
        self._depth = 0
        self._in_string = False
        self._skip_line = False   # after garbage: drop bytes up to the next newline

    def feed(self, data: bytes) -> None:
        self._buf += data

    def feed_eof(self) -> None:
        self._eof = True

    @property
    def at_eof(self) -> bool:
        return self._eof

    def pending(self) -> bool:
        """True when the buffer holds something other than white space."""
        return bool(self._buf.strip(_WHITESPACE))

    def started(self) -> bool:
        """True once any non-white-space byte of the next value has arrived."""
        return self.pending()

    def next_value(self) -> Any:
        """The next complete value, or NEED_MORE; raises JSONStreamError on garbage."""
        buf = self._buf
        if self._skip_line:
            newline = buf.find(b"\n")
            if newline < 0:
                del buf[:]
                return NEED_MORE
            del buf[:newline + 1]
            self._skip_line = False
        if self._scan_pos == 0:
            # Drop leading white space cheaply (the reference pads with 5000 spaces).
            stripped = len(buf) - len(buf.lstrip(_WHITESPACE))
            if stripped:
                del buf[:stripped]
            if not buf:
                return NEED_MORE
            if _orjson is not None and buf[0] in _CONTAINERS:
                value = self._whole_line()
                if value is not NEED_MORE:
                    return value
        end = self._find_end()
        if end is None:
            if len(buf) > self.max_value_bytes:
                raise ValueTooLarge(f"JSON value exceeds {self.max_value_bytes} bytes")
            return NEED_MORE
        if end > self.max_value_bytes:
            raise ValueTooLarge(f"JSON value exceeds {self.max_value_bytes} bytes")
        text = self._take(end)
        try:
            return json.loads(text)
        except ValueError as exc:   # bad JSON, bad UTF-8, an integer of more than 4300 digits
            self._skip_line = True
            raise JSONStreamError(f"not JSON: {_preview(text)} ({exc})") from None

    def _whole_line(self) -> Any:
        """The common case at C speed: the buffer starts with a container that is the whole
        of its line. Returns NEED_MORE whenever the scan below must decide (anything not
        plainly valid, too large or too deep), so every verdict and message is the scan's."""
        buf = self._buf
        newline = buf.find(b"\n")
        if newline < 0:
            return NEED_MORE
        text = bytes(buf[:newline]).rstrip(_WHITESPACE)
        if len(text) > self.max_value_bytes:
            return NEED_MORE
        try:
            value = _orjson.loads(text)
        except _orjson.JSONDecodeError:
            return NEED_MORE
        bare = _without_strings(text)
        # orjson reads an integer beyond 64 bits as a float where the standard library keeps
        # it exact: a run of 19 or more digits goes to the scan (hypothesis found it)
        if _LONG_DIGITS.search(bare) or _bracket_depth(bare) > self.max_depth:
            return NEED_MORE
        del buf[:len(text)]
        return value

    def check_prefix(self) -> None:
        """Raise JSONStreamError when the incomplete value at the front of the buffer can
        never become valid JSON (``{"type": GAME_EVENT`` and a newline), so a reader that
        must answer garbage at once need not wait for a closing bracket that may never
        come. Call it after ``next_value`` returned NEED_MORE; it costs a parse of the
        pending bytes."""
        data = bytes(self._buf).rstrip(_WHITESPACE)
        if not data or self._skip_line:
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.reason == "unexpected end of data":
                text = data[:exc.start].decode("utf-8", errors="replace")
            else:
                self._take(len(self._buf))
                self._skip_line = True
                raise JSONStreamError(f"not UTF-8: {_preview(data[:40])}") from None
        try:
            json.loads(text)
            return
        except json.JSONDecodeError as exc:
            rest = text[exc.pos:].strip()
            if exc.msg.startswith("Unterminated string") or not rest or _PARTIAL.fullmatch(rest):
                return
        self._take(len(self._buf))
        self._skip_line = True
        raise JSONStreamError(f"not JSON: {_preview(data[:60])}")

    def _take(self, end: int) -> bytes:
        """Remove and return the first ``end`` bytes; the next value starts after them."""
        text = bytes(self._buf[:end])
        del self._buf[:end]
        self._scan_pos = 0
        self._depth = 0
        self._in_string = False
        return text

    def _garbage(self) -> JSONStreamError:
        """Drop the offending token and the rest of its line; describe it."""
        match = _SCALAR_END.search(self._buf, 1)
        text = self._take(match.start() if match is not None else len(self._buf))
        self._skip_line = True
        return JSONStreamError(f"not JSON: {_preview(text[:40])}")

    def _find_end(self) -> int | None:
        """Index just past the value at the front of the buffer, or None if incomplete."""
        buf = self._buf
        first = buf[0]
        if self._scan_pos == 0:
            if first == ord('"'):
                self._in_string = True
                self._scan_pos = 1
            elif first in (ord("["), ord("{")):
                self._depth = 1
                self._scan_pos = 1
            elif first in _LITERALS:
                literal = _LITERALS[first]
                if buf[:len(literal)] == literal[:len(buf)]:
                    if len(buf) >= len(literal):
                        return len(literal)
                    return len(buf) if self._eof else None
                raise self._garbage()
            elif first in _SCALAR_START:
                match = _SCALAR_END.search(buf)
                if match is None:
                    return len(buf) if self._eof else None
                return match.start()
            else:
                raise self._garbage()
        pos = self._scan_pos
        n = len(buf)
        while pos < n:
            if self._in_string:
                match = _STRING_END.search(buf, pos)
                if match is None:
                    pos = n
                    break
                pos = match.start()
                if buf[pos] == ord("\\"):
                    if pos + 1 >= n:
                        break  # the escaped byte has not arrived yet
                    pos += 2
                    continue
                pos += 1
                self._in_string = False
                if self._depth == 0:
                    self._scan_pos = pos
                    return pos
                continue
            match = _STRUCTURE.search(buf, pos)
            if match is None:
                pos = n
                break
            pos = match.start()
            ch = buf[pos]
            pos += 1
            if ch == ord('"'):
                self._in_string = True
            elif ch in (ord("["), ord("{")):
                self._depth += 1
                if self._depth > self.max_depth:
                    raise ValueTooDeep(self.max_depth)
            else:
                self._depth -= 1
                if self._depth == 0:
                    self._scan_pos = pos
                    return pos
        self._scan_pos = pos
        return None


def _preview(data: bytes, limit: int = 60) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def preview(value: Any, limit: int = 60) -> str:
    """A bounded, printable quotation of a value a peer sent, for log lines: its compact
    JSON text (or repr) cut to ``limit`` characters, so a 1 MB name logs as 60."""
    try:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = repr(type(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


_TEXT_STRUCTURE = re.compile(r'["\[\]{}]')
_TEXT_STRING_END = re.compile(r'["\\]')


def check_depth(text: str, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`ValueTooDeep` (naming line and column) when a JSON text nests deeper
    than ``limit``; one pass over brackets and strings, before any recursive decoder runs.
    Text that is not JSON is left for the decoder to report."""
    depth = 0
    pos = 0
    search, string_end = _TEXT_STRUCTURE.search, _TEXT_STRING_END.search
    while (match := search(text, pos)) is not None:
        ch = match.group()
        pos = match.end()
        if ch == '"':
            while (end := string_end(text, pos)) is not None:
                pos = end.end()
                if end.group() == "\\":
                    pos += 1
                else:
                    break
            else:
                return
        elif ch in "[{":
            depth += 1
            if depth > limit:
                line = text.count("\n", 0, pos) + 1
                column = pos - (text.rfind("\n", 0, pos) + 1)
                raise ValueTooDeep(limit, f" at line {line} column {column}")
        else:
            depth = max(depth - 1, 0)


_CONTAINERS = frozenset(b"[{")
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_TO_SQUARE = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))
_LONG_DIGITS = re.compile(rb"\d{19}")
# orjson writes these types as JSON by itself where the standard library raises; passed
# through to ``default`` (none), they raise, and the standard path raises as before.
_PASSTHROUGH = 0 if _orjson is None else (_orjson.OPT_PASSTHROUGH_DATACLASS | _orjson.OPT_PASSTHROUGH_DATETIME
                                          | _orjson.OPT_PASSTHROUGH_SUBCLASS)


def _without_strings(text: bytes) -> bytes:
    """Valid JSON ``text`` with its strings cut out (by splitting at quotes when no string
    holds an escape, which is the common case and five times faster than the pattern)."""
    if b"\\" in text:
        return _STRINGS.sub(b"", text)
    return b"".join(text.split(b'"')[::2])


def nesting(text: bytes) -> int:
    """How deep the valid JSON ``text`` nests (0 for a scalar), in a few passes at C speed:
    strings out, brackets only, then innermost pairs removed once per level."""
    return _bracket_depth(_without_strings(text))


def _bracket_depth(bare: bytes) -> int:
    """The nesting of valid JSON whose strings are already cut out."""
    brackets = bare.translate(_TO_SQUARE, _NOT_BRACKETS)
    depth = 0
    while brackets:
        depth += 1
        shorter = brackets.replace(b"[]", b"")
        if len(shorter) == len(brackets):   # not balanced: not valid JSON after all
            return 1 << 30
        brackets = shorter
    return depth


def encode(value: Any) -> bytes:
    """One message: compact JSON text and a newline (the standard library's bytes exactly)."""
    if _orjson is not None:
        try:
            data = _orjson.dumps(value, option=_PASSTHROUGH)
        except TypeError:   # not JSON data orjson writes (huge ints, surrogates, other types)
            pass
        else:
            # Numbers other than integers (floats: exponents, NaN written as null) are
            # where the two writers differ; with none, the bytes are the same.
            bare = _without_strings(data).replace(b"true", b"").replace(b"false", b"")
            if b"." not in bare and b"e" not in bare and b"E" not in bare and b"n" not in bare:
                return data + b"\n"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
