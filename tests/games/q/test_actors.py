"""Actor specifications (6.4): every form, and every invalid shape rejected."""

from __future__ import annotations

import pytest

from gameroom.core.wire import WireError
from gameroom.games.q.actors import ActorSpec, decode_actor, decode_actors, encode_actors


def test_the_four_forms() -> None:
    assert decode_actor(["A", "dag"]) == ActorSpec("A", "dag")
    assert decode_actor(["xnX", "ldasg", "setup"]) == ActorSpec("xnX", "ldasg", exn="setup")
    assert decode_actor(["chnonad", "ldasg", "a cheat", "non-adjacent-coordinate"]) == ActorSpec(
        "chnonad", "ldasg", cheat="non-adjacent-coordinate")
    assert decode_actor(["infL2", "ldasg", "take-turn", 2]) == ActorSpec(
        "infL2", "ldasg", exn="take-turn", loop_count=2)


def test_round_trip() -> None:
    specs = [["A", "dag"], ["B", "ldasg", "win"], ["C", "dag", "a cheat", "no-fit"],
             ["D", "dag", "new-tiles", 7]]
    assert encode_actors(decode_actors(specs)) == specs
    assert decode_actors([]) == []


@pytest.mark.parametrize("spec, where", [
    (["A"], "$"),
    (["A", "dag", "setup", 1, 2], "$"),
    ("A", "$"),
    ([1, "dag"], "$[0]"),
    (["a b", "dag"], "$[0]"),
    (["x" * 21, "dag"], "$[0]"),
    (["A", "smart"], "$[1]"),
    (["A", "dag", "take_turn"], "$[2]"),
    (["A", "dag", "a cheat", "teleport"], "$[3]"),
    (["A", "dag", "setup", 0], "$[3]"),
    (["A", "dag", "setup", 8], "$[3]"),
    (["A", "dag", "setup", "2"], "$[3]"),
    (["A", "dag", "cheat", "no-fit"], "$[2]"),
])
def test_invalid_shapes(spec, where) -> None:
    with pytest.raises(WireError) as info:
        decode_actor(spec)
    assert info.value.where == where


def test_allowed_forms_depend_on_the_harness() -> None:
    plain_and_exn = ("exn",)
    assert decode_actor(["A", "dag", "win"], allow=plain_and_exn).exn == "win"
    for spec in (["A", "dag", "a cheat", "no-fit"], ["A", "dag", "win", 1]):
        with pytest.raises(WireError, match="not allowed"):
            decode_actor(spec, allow=plain_and_exn)
    with pytest.raises(WireError, match="not allowed"):
        decode_actor(["A", "dag", "win"], allow=())


def test_lax_names_and_paths_in_lists() -> None:
    assert decode_actor(["ouch ouch", "dag"], lax_names=True).name == "ouch ouch"
    assert decode_actor(["λ", "dag"], lax_names=True).name == "λ"
    with pytest.raises(WireError) as info:
        decode_actors([["A", "dag"], ["B", "dag", "oops"]], where="$.players")
    assert info.value.where == "$.players[1][2]"
    with pytest.raises(WireError):
        decode_actor([None, "dag"], lax_names=True)
