"""Every lobby rule and message sequence of eriantys.md 4.5, 6.6 and 7, as xscenario files
(``scenarios/NAME.json`` with the expected output ``NAME.expected``), run through the real
``gameroom harness eriantys xscenario`` against a real server on 127.0.0.1.

The outputs are compared as 10.2 says: parsed JSON lines, in order, every
``NACK.errorMessage`` replaced by ``"*"``. ``transcript_6_7`` is the example transcript
of 6.7 itself, its draws fixed by the test hooks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from driver import run_gameroom

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def _masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("*" if k == "errorMessage" and value.get("type") == "NACK" else _masked(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def _lines(text: str) -> list[Any]:
    return [_masked(json.loads(line)) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("name", sorted(p.stem for p in SCENARIOS.glob("*.json")))
def test_scenario(name: str) -> None:
    run = run_gameroom(["harness", "eriantys", "xscenario"], (SCENARIOS / f"{name}.json").read_bytes(), timeout=120)
    assert run.returncode == 0, run.stderr
    got = _lines(run.stdout)
    expected = _lines((SCENARIOS / f"{name}.expected").read_text())
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"line {i + 1} differs"
    assert len(got) == len(expected)


def test_bad_scenario_input_is_one_error_line() -> None:
    run = run_gameroom(["harness", "eriantys", "xscenario"], b'{"steps": [{"conn": "A"}]}')
    assert run.returncode == 2
    assert run.stderr.startswith("gameroom: error: bad xscenario input: $.steps[0]: ")
    assert len(run.stderr.splitlines()) == 1
    run = run_gameroom(["harness", "eriantys", "xscenario"], b'{"config": {"policy": "strict"}, "steps": []}')
    assert run.returncode == 2 and "$.policy" in run.stderr
