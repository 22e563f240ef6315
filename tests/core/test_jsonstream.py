"""The stream reader takes successive JSON values from arbitrarily split bytes."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, JSONStreamError

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12)


def drain(decoder):
    out = []
    while (value := decoder.next_value()) is not NEED_MORE:
        out.append(value)
    return out


@settings(max_examples=150)
@given(st.lists(json_values, min_size=1, max_size=5), st.integers(1, 9), st.integers(0, 50))
def test_values_survive_any_split_and_padding(values, piece, pad):
    stream = b"".join(b" " * pad + json.dumps(v).encode() + b"\n" for v in values)
    decoder = JSONStreamDecoder()
    got = []
    for i in range(0, len(stream), piece):
        decoder.feed(stream[i:i + piece])
        got.extend(drain(decoder))
    decoder.feed_eof()
    got.extend(drain(decoder))
    assert got == values


def test_reference_padding_of_5000_spaces():
    decoder = JSONStreamDecoder()
    decoder.feed(b" " * 5000)
    assert decoder.next_value() is NEED_MORE
    decoder.feed(b'"void"')
    assert decoder.next_value() == "void"


def test_several_values_in_one_packet():
    decoder = JSONStreamDecoder()
    decoder.feed(b'"a" [1,2]{"k":[]} 7 ')
    assert drain(decoder) == ["a", [1, 2], {"k": []}, 7]


def test_number_at_end_waits_for_more_or_eof():
    decoder = JSONStreamDecoder()
    decoder.feed(b"12")
    assert decoder.next_value() is NEED_MORE
    decoder.feed(b"3")
    decoder.feed_eof()
    assert decoder.next_value() == 123


@pytest.mark.parametrize("garbage", [b"void", b"@@@", b"[1,,2]", b'{"a" 1}', b"tru "])
def test_garbage_is_an_error_not_a_wait(garbage):
    decoder = JSONStreamDecoder()
    decoder.feed(garbage)
    with pytest.raises(JSONStreamError, match="not JSON"):
        decoder.next_value()


def test_half_a_value_is_incomplete():
    decoder = JSONStreamDecoder()
    decoder.feed(b'["take-turn", [{"map": [')
    assert decoder.next_value() is NEED_MORE


def test_size_bound():
    decoder = JSONStreamDecoder(max_value_bytes=100)
    decoder.feed(b"[" + b"1," * 200)
    with pytest.raises(JSONStreamError, match="exceeds 100 bytes"):
        decoder.next_value()


def test_escaped_quotes_and_brackets_inside_strings():
    decoder = JSONStreamDecoder()
    decoder.feed(b'["a\\"]", "\\\\", "}{"]')
    assert decoder.next_value() == ['a"]', "\\", "}{"]


@pytest.mark.parametrize("literal, value", [(b"false", False), (b"true", True), (b"null", None)])
def test_literals_need_no_delimiter(literal, value):
    decoder = JSONStreamDecoder()
    decoder.feed(literal[:3])
    assert decoder.next_value() is NEED_MORE
    decoder.feed(literal[3:])
    assert decoder.next_value() == value


@pytest.mark.parametrize("garbage", [b"fals\n", b"void\n", b"@@@ more garbage\n", b"[1,,2] [3]\n", b"12x3 4\n"])
def test_garbage_spoils_its_line_and_the_next_line_is_read(garbage):
    decoder = JSONStreamDecoder()
    decoder.feed(b" " * 4095 + garbage + b'  ["next"]')
    with pytest.raises(JSONStreamError, match="not JSON"):
        decoder.next_value()
    assert decoder.next_value() == ["next"]


def test_the_rest_of_a_garbage_line_may_arrive_later():
    decoder = JSONStreamDecoder()
    decoder.feed(b"@@@ gar")
    with pytest.raises(JSONStreamError, match="not JSON"):
        decoder.next_value()
    decoder.feed(b"bage")
    assert decoder.next_value() is NEED_MORE
    decoder.feed(b'\n"next"')
    assert decoder.next_value() == "next"


def test_an_impossible_literal_is_garbage_at_once():
    decoder = JSONStreamDecoder()
    decoder.feed(b"fx")
    with pytest.raises(JSONStreamError, match="not JSON"):
        decoder.next_value()


def test_size_bound_is_its_own_error():
    from gameroom.remote.jsonstream import ValueTooLarge

    decoder = JSONStreamDecoder(max_value_bytes=10)
    decoder.feed(b'"' + b"x" * 20 + b'"')
    with pytest.raises(ValueTooLarge):
        decoder.next_value()


def test_nesting_deeper_than_the_bound_is_refused_as_it_arrives():
    """Issue 8: 1,000 levels (2 KB) made json.loads raise RecursionError, which escaped
    every reader; 100,000 levels are refused once level 65 arrives."""
    from gameroom.remote.jsonstream import MAX_DEPTH, ValueTooDeep, ValueTooLarge

    decoder = JSONStreamDecoder()
    decoder.feed(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"\n")
    assert drain(decoder) == [json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)]
    decoder.feed(b"[" * (MAX_DEPTH + 1))
    with pytest.raises(ValueTooDeep) as caught:
        decoder.next_value()
    assert isinstance(caught.value, ValueTooLarge)   # the stream cannot go on
    assert "nests deeper than 64 levels" in str(caught.value)


def test_brackets_inside_strings_do_not_count_as_nesting():
    from gameroom.remote.jsonstream import MAX_DEPTH, check_depth

    text = json.dumps(["[" * 1000, {"k": "{\\\"" * 100}])
    decoder = JSONStreamDecoder()
    decoder.feed(text.encode())
    decoder.feed_eof()
    assert drain(decoder) == [json.loads(text)]
    check_depth(text)
    check_depth("[" * MAX_DEPTH)


def test_check_depth_names_where_the_text_nests_too_deep():
    from gameroom.remote.jsonstream import ValueTooDeep, check_depth

    with pytest.raises(ValueTooDeep, match="at line 2 column 65"):
        check_depth('"x"\n' + "[" * 100_000)


def test_an_integer_of_too_many_digits_is_garbage_not_a_crash():
    decoder = JSONStreamDecoder()
    decoder.feed(b"[" + b"1" * 5000 + b"]\n[2]\n")
    with pytest.raises(JSONStreamError):
        decoder.next_value()
    assert drain(decoder) == [[2]]


def test_preview_quotes_a_bounded_prefix():
    from gameroom.remote.jsonstream import preview

    assert preview("n" * 900_000) == '"' + "n" * 56 + "..."
    assert preview(["a"]) == '["a"]'
