"""Every Fish fixture through the real command line (fish.md 10): the five harnesses as
``gameroom harness fish NAME`` subprocesses, and the remote scenarios of
``itests/scenarios.json`` with a real ``gameroom serve fish`` and real ``gameroom clients
fish`` processes talking TCP on 127.0.0.1, each expecting its ``[W, F]``.

The scenarios wait out 30 s sign-up periods, so every selected case of this module is
started at once on the shared pool (scenarios first, so the harness runs fill the gaps)
and each test waits for its own case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import fixture_cases, fixtures_root, game_fixtures, read_json_values
from driver import Run, run_gameroom, run_server_and_clients, selected_params, submit, submit_all

from gameroom.games.fish.actors import decode_scenarios

HARNESSES = ["xboard", "xstate", "xtree", "xstrategy", "xref"]
HARNESS_CASES = [pytest.param(h, *case.values, id=f"{h}/{case.id}", marks=case.marks)
                 for h in HARNESSES for case in fixture_cases("fish", h)]


def _scenarios() -> list[Any]:
    path = fixtures_root() / "fish" / "itests" / "scenarios.json"
    if not path.is_file():
        return [pytest.param(None, None, id="scenarios-absent",
                             marks=pytest.mark.skip(reason=f"reference scenarios not found at {path}"))]
    servers, clients = decode_scenarios(json.loads(path.read_text()))
    cases = [pytest.param("xserver", s, id=f"xserver/{s.name}") for s in servers]
    return cases + [pytest.param("xclients", s, id=f"xclients/{s.name}") for s in clients]


SCENARIO_CASES = _scenarios()


def client_flags(kind: str, scenario: Any) -> list[str]:
    """The ``gameroom clients fish`` options that launch a scenario's line-up in its order."""
    if kind == "xclients":
        return ["--count", scenario.xclients_args[0]]
    ordinary = [k for k in scenario.players if k == "greedy"]
    bad = [k for k in scenario.players if k != "greedy"]
    first = bool(bad) and scenario.players[0] != "greedy"
    lineup = bad + ordinary if first else ordinary + bad
    assert lineup == list(scenario.players), f"{scenario.name}: the line-up is not ordinary+bad or bad+ordinary"
    return ["--count", str(len(ordinary)), *(["--baddie", *bad] if bad else []),
            *(["--baddies-first"] if first else [])]


def _reports_expected(scenario: Any) -> Callable[[Run], bool]:
    """Whether a run reported one of the scenario's ``[W, F]`` (a run the machine disturbed
    otherwise is run again: the spec's limits are kept, driver.until_undisturbed)."""
    def reported(run: Run) -> bool:
        values = read_json_values(run.stdout)
        return bool(values) and tuple(values[0]) in scenario.expected
    return reported


def _scenario_job(kind: str, scenario: Any) -> tuple:
    return (run_server_and_clients, "fish", b"", b"", client_flags(kind, scenario), 150, _reports_expected(scenario))


def _start_everything(request: pytest.FixtureRequest) -> None:
    """Submit every selected case of this module: the scenarios (which mostly wait) on
    the pool for waiting cases, the harness runs on the other."""
    submit_all({("fish-scenario", kind, scenario.name): _scenario_job(kind, scenario)
                for kind, scenario in selected_params(request, "test_remote_scenario", "kind", "scenario")
                if scenario is not None}, waits=True)
    jobs: dict[tuple, tuple] = {}
    for harness, path in selected_params(request, "test_harness_fixture", "harness", "path"):
        if path is not None:
            jobs[("fish-harness", str(path))] = (run_gameroom, ["harness", "fish", harness], path.read_bytes())
    submit_all(jobs)


@pytest.mark.parametrize("kind, scenario", SCENARIO_CASES)
def test_remote_scenario(kind: str, scenario: Any, request: pytest.FixtureRequest) -> None:
    game_fixtures("fish")
    _start_everything(request)
    run = submit(("fish-scenario", kind, scenario.name), *_scenario_job(kind, scenario), waits=True).result()
    values = read_json_values(run.stdout)
    assert values, f"no result printed; stderr:\n{run.stderr[-3000:]}"
    assert tuple(values[0]) in scenario.expected, run.stderr[-3000:]


@pytest.mark.parametrize("harness, path", HARNESS_CASES)
def test_harness_fixture(harness: str, path: Path, request: pytest.FixtureRequest) -> None:
    game_fixtures("fish")
    _start_everything(request)
    run = submit(("fish-harness", str(path)), run_gameroom, ["harness", "fish", harness], path.read_bytes()).result()
    assert run.returncode == 0, run.stderr
    expected = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    assert read_json_values(run.stdout) == expected
