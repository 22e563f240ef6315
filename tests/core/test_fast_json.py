"""orjson reads and writes the wire faster but never differently: every message written is
the standard library's bytes, and every stream read gives the same values, the same errors
and the same texts as the standard library's path (``_orjson`` off)."""

import json

import pytest
from hypothesis import example, given, settings, strategies as st

import gameroom.remote.jsonstream as jsonstream
from gameroom.remote.jsonstream import MAX_DEPTH, NEED_MORE, JSONStreamDecoder, encode, nesting

pytestmark = pytest.mark.skipif(jsonstream._orjson is None, reason="orjson is not installed")

text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=8)
scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | text
           | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([1e16, 1e-7, 0.1, -0.0, 5e-324]))
values = st.recursive(scalars, lambda children: st.lists(children, max_size=4)
                      | st.tuples(children, children)
                      | st.dictionaries(text, children, max_size=4), max_leaves=16)


def standard(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:   # the same exception type and text, or the test fails
        return (type(exc).__name__, str(exc))


@settings(max_examples=400)
@given(values)
def test_written_bytes_are_the_standard_librarys(value):
    assert outcome(encode, value) == outcome(standard, value)


def read_all(stream: bytes, piece: int, fast: bool):
    saved = jsonstream._orjson
    jsonstream._orjson = saved if fast else None
    try:
        decoder = JSONStreamDecoder(max_value_bytes=200)
        out = []
        chunks = [stream[i:i + piece] for i in range(0, len(stream), piece)] + [None]
        for chunk in chunks:
            if chunk is None:
                decoder.feed_eof()
            else:
                decoder.feed(chunk)
            for _ in range(50):
                try:
                    value = decoder.next_value()
                except Exception as exc:
                    out.append((type(exc).__name__, str(exc)))
                    if isinstance(exc, jsonstream.ValueTooLarge):
                        return out
                    continue
                if value is NEED_MORE:
                    break
                out.append(("ok", value))
        return out
    finally:
        jsonstream._orjson = saved


pieces = st.sampled_from([b"[1,2]", b'{"a":[1,{"b":"]}"}]}', b"[NaN]", b"[1e400]", b'["\\ud800"]',
                          b"[" + b"1" * 30 + b"]", b"[18446744073709551616]", b"[1,]", b"{]", b"@@",
                          b'"x"', b"12", b"true", b"[" * 70 + b"]" * 70, b"[" * 10 + b"]" * 10,
                          b"[\xff]", b'{"a":1,"a":2}', b"[-0]", b"[1.5e3]", b'["\\"]"]', b"[" * 300,
                          b" ", b"\n", b"\r\n", b"\t", b"[", b"]"])


@settings(max_examples=400)
@given(st.lists(pieces, max_size=12), st.integers(1, 40))
@example([b"[" + b"1" * 30 + b"]", b"\n"], 33)   # a whole line holding an integer beyond 64 bits
def test_streams_read_the_same_with_and_without_orjson(parts, piece):
    stream = b"".join(parts)
    assert read_all(stream, piece, fast=True) == read_all(stream, piece, fast=False)


def test_nesting_counts_levels_not_brackets():
    assert nesting(b"1") == 0
    assert nesting(b'[[1],{"a":[2]},"[[["]') == 3
    assert nesting(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) == MAX_DEPTH
