"""The digest chain of JSON Lines (``core.chain``): sealing, reading a seal back, and what
``check_chain`` reports for each kind of edit."""

from __future__ import annotations

import json

from gameroom.core.chain import CHANGED, MISSING, DigestChain, check_chain, head_of, link, seal, unseal


def sealed(rows: list[dict]) -> list[str]:
    chain = DigestChain()
    return [chain.seal(json.dumps(row)) for row in rows]


ROWS = [{"game": "toy", "seats": ["a", "b"]}, *({"event": "call", "n": n} for n in range(6)), {"result": {}}]


def test_a_seal_is_the_last_member_and_reads_back() -> None:
    lines = sealed(ROWS)
    for line, row in zip(lines, ROWS):
        body, digest = unseal(line)
        assert body == json.dumps(row) and json.loads(line)["digest"] == digest
        assert list(json.loads(line))[-1] == "digest"
    assert seal("{}", "0" * 64) == '{"digest": "' + "0" * 64 + '"}' and unseal(seal("{}", "0" * 64))[0] == "{}"
    assert unseal('{"a": {"digest": "' + "0" * 64 + '"}}') == ('{"a": {"digest": "' + "0" * 64 + '"}}', None)


def test_each_digest_covers_the_previous_one() -> None:
    lines = sealed(ROWS)
    assert unseal(lines[0])[1] == link("", json.dumps(ROWS[0]))
    assert unseal(lines[3])[1] == link(unseal(lines[2])[1], json.dumps(ROWS[3]))
    check = check_chain(lines)
    assert check.intact and check.lines == len(ROWS) and check.head == head_of("\n".join(lines)) == unseal(lines[-1])[1]


def test_every_edit_is_reported_once_with_its_line() -> None:
    lines = sealed(ROWS)
    edited = list(lines)
    edited[3] = edited[3].replace('"n": 2', '"n": 9')
    assert [(b.line, b.message) for b in check_chain(edited).breaks] == [(4, CHANGED)]
    deleted = lines[:4] + lines[5:]
    assert [b.line for b in check_chain(deleted).breaks] == [5]
    duplicated = lines[:5] + [lines[4]] + lines[5:]
    assert [b.line for b in check_chain(duplicated).breaks] == [6]
    swapped = lines[:2] + [lines[3], lines[2]] + lines[4:]
    assert [b.line for b in check_chain(swapped).breaks] == [3, 4, 5]
    inserted = lines[:2] + [json.dumps({"event": "call", "n": 99})] + lines[2:]
    assert [(b.line, b.message) for b in check_chain(inserted).breaks] == [(3, MISSING)]
    assert not check_chain(lines[:-2]).breaks       # cut off the end: only a kept head shows it


def test_text_without_any_digest_is_unchained_not_broken() -> None:
    check = check_chain([json.dumps(row) for row in ROWS] + [""])
    assert not check.chained and not check.breaks and check.head is None and check.lines == len(ROWS)
