"""Every reference fixture of the pure harnesses (xmap, xlegal, xscore, xstrategy), run
in-process through ``HARNESSES`` and compared as JSON values (spec 10.1-10.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gameroom.games.q.harness import HARNESSES
from tests.conftest import fixture_cases, read_json_values

PURE = ["xmap", "xlegal", "xscore", "xstrategy"]
CASES = [pytest.param(h, *case.values, id=f"{h}/{case.id}", marks=case.marks)
         for h in PURE for case in fixture_cases("q", h)]


@pytest.mark.parametrize("harness, path", CASES)
def test_fixture(harness: str, path: Path) -> None:
    inputs = read_json_values(path.read_text())
    expected = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json"))
                                .read_text())
    assert HARNESSES[harness](inputs) == expected


def test_harness_table_is_a_plain_dict() -> None:
    assert isinstance(HARNESSES, dict) and set(PURE) <= set(HARNESSES)
