"""The fixture README's comparison rules for Bazaar's harness outputs (multisets of
pebbles, sets of equations, visible cards as a multiset, ...), shared by the in-process
fixture tests and the command-line conformance tests."""

from __future__ import annotations

from collections import Counter
from typing import Any


def bag(value: list[str]) -> tuple[str, ...]:
    """A pebble list as a multiset."""
    assert isinstance(value, list) and all(isinstance(p, str) for p in value), value
    return tuple(sorted(value))


def equation(value: list[Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A directed equation with multiset sides."""
    assert isinstance(value, list) and len(value) == 2, value
    return bag(value[0]), bag(value[1])


def card(value: dict[str, Any]) -> tuple[tuple[str, ...], bool]:
    """A card with a multiset of pebbles."""
    assert isinstance(value, dict) and set(value) == {"pebbles", "face?"}, value
    return bag(value["pebbles"]), value["face?"]


def compare_xeq(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want) == 1
    assert {equation(e) for e in got[0]} == {equation(e) for e in want[0]}
    assert len(got[0]) == len({equation(e) for e in got[0]}), "an equation is listed twice"


def compare_player(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert set(got) == set(want)
    assert got["score"] == want["score"]
    assert bag(got["wallet"]) == bag(want["wallet"])
    if "cards" in want:
        assert Counter(map(card, got["cards"])) == Counter(map(card, want["cards"]))


def compare_xturn(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want) == 1
    g, w = got[0], want[0]
    assert set(g) == set(w) == {"active", "bank", "cards", "scores"}
    assert bag(g["bank"]) == bag(w["bank"])
    assert Counter(map(card, g["cards"])) == Counter(map(card, w["cards"]))
    assert g["scores"] == w["scores"]
    compare_player(g["active"], w["active"])


def compare_xstrategy(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want) == 4
    assert [equation(e) for e in got[0]] == [equation(e) for e in want[0]], "exchanges"
    assert [card(c) for c in got[1]] == [card(c) for c in want[1]], "cards"
    assert got[2] == want[2] and not isinstance(got[2], bool), "points"
    assert bag(got[3]) == bag(want[3]), "final wallet"


def compare_xrules(got: list[Any], want: list[Any]) -> None:
    if want == [False]:
        assert got == [False]
        return
    assert len(got) == len(want) == 2
    assert bag(got[0]) == bag(want[0]), "wallet"
    assert bag(got[1]) == bag(want[1]), "bank"


COMPARE = {"xeq": compare_xeq, "xturn": compare_xturn, "xstrategy": compare_xstrategy,
           "xrules": compare_xrules}


def compare_games(got: list[Any], want: list[Any]) -> None:
    """xgames*: two values, the sorted winners and the sorted drop-outs, exactly."""
    assert got == want


for _name in ("xgames", "xgames-blogic", "xgames-resources"):
    COMPARE[_name] = compare_games
