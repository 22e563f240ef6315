"""Conformance: every milestone fixture of xeq, xturn, xstrategy and xrules, run in-process
through ``HARNESSES`` and compared by the fixture README's rules (multisets of pebbles,
sets of equations, visible cards as a multiset, ...)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import fixture_cases, read_json_values
from gameroom.games.bazaar.harness import HARNESSES
from tests.games.bazaar.compare import COMPARE, compare_xeq, compare_xrules, compare_xstrategy


def run_case(harness: str, path: Path) -> None:
    inputs = read_json_values(path.read_text())
    want = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    got = json.loads(json.dumps(HARNESSES[harness](inputs)))  # as printed and read back
    COMPARE[harness](got, want)


CASES = [pytest.param(harness, *case.values, id=f"{harness}/{case.id}", marks=case.marks)
         for harness in ("xeq", "xturn", "xstrategy", "xrules") for case in fixture_cases("bazaar", harness)]


@pytest.mark.parametrize("harness, path", CASES)
def test_fixture(harness: str, path: Path) -> None:
    run_case(harness, path)


def test_comparisons_are_not_vacuous() -> None:
    """The multiset comparisons still tell different values apart."""
    with pytest.raises(AssertionError):
        compare_xrules([["red"], ["blue"]], [["blue"], ["red"]])
    with pytest.raises(AssertionError):
        compare_xstrategy([[], [], 1, []], [[], [], 2, []])
    with pytest.raises(AssertionError):
        compare_xeq([[[["red"], ["blue"]]]], [[[["blue"], ["red"]]]])
    compare_xeq([[[["red", "white"], ["blue"]]]], [[[["white", "red"], ["blue"]]]])
