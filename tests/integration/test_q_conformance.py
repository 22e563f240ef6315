"""Every Q fixture through the real command line: the harnesses as subprocesses, and the
milestone-10 integration tests with a real ``gameroom serve`` and real ``gameroom
clients`` talking TCP on 127.0.0.1 (q.md 10)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from conftest import fixture_cases, fixtures_root, game_fixtures, read_json_values
from driver import Run, run_gameroom, run_server_and_clients, selected_params, submit, submit_all

HARNESSES = ["xmap", "xlegal", "xscore", "xstrategy", "xgames", "xgames-with-observer", "xbaddies"]
HARNESS_CASES = [pytest.param(h, *case.values, id=f"{h}/{case.id}", marks=case.marks)
                 for h in HARNESSES for case in fixture_cases("q", h)]


def _harness_jobs(request: pytest.FixtureRequest) -> dict:
    jobs = {}
    for harness, path in selected_params(request, "test_harness_fixture", "harness", "path"):
        if path is not None:
            jobs[("q-harness", str(path))] = (run_gameroom, ["harness", "q", harness], path.read_bytes())
    return jobs


@pytest.mark.parametrize("harness, path", HARNESS_CASES)
def test_harness_fixture(harness: str, path: Path, request: pytest.FixtureRequest) -> None:
    game_fixtures("q")
    submit_all(_harness_jobs(request))   # start every selected case at once; each test waits for its own
    run = submit(("q-harness", str(path)), run_gameroom, ["harness", "q", harness], path.read_bytes()).result()
    assert run.returncode == 0, run.stderr
    expected = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    assert read_json_values(run.stdout) == expected


def _integration_cases(folder: str) -> list:
    base = fixtures_root() / "q" / folder
    if not base.is_dir():
        return [pytest.param(None, id=f"{folder}-absent",
                             marks=pytest.mark.skip(reason=f"reference fixtures not found at {base}"))]
    numbers = sorted(int(p.name.split("-")[0]) for p in base.glob("*-server-config.json"))
    return [pytest.param(base / str(n), id=f"{folder}/{n}") for n in numbers]


INTEGRATION_CASES = [pytest.param(folder, *c.values, id=c.id, marks=c.marks)
                     for folder in ("Tests", "Bonus") for c in _integration_cases(folder)]


def _printed_expected(stem: Path) -> Callable[[Run], bool]:
    """Whether a run printed the fixture's output (a run the machine disturbed otherwise is
    run again: the fixture's windows and 6 s per turn are kept, driver.until_undisturbed)."""
    return lambda run: read_json_values(run.stdout) == read_json_values(Path(f"{stem}-out.json").read_text())


def _integration_job(folder: str, stem: Path) -> tuple:
    server = Path(f"{stem}-server-config.json").read_bytes()
    clients = Path(f"{stem}-client-config.json").read_bytes()
    flags = ["--bonus"] if folder == "Bonus" else []
    return (run_server_and_clients, "q", server, clients, flags, 200, _printed_expected(stem))


@pytest.mark.parametrize("folder, stem", INTEGRATION_CASES)
def test_server_and_clients(folder: str, stem: Path, request: pytest.FixtureRequest) -> None:
    game_fixtures("q")
    submit_all({("q-int", str(s)): _integration_job(f, s)
                for f, s in selected_params(request, "test_server_and_clients", "folder", "stem") if s is not None},
               waits=True)
    run = submit(("q-int", str(stem)), *_integration_job(folder, stem), waits=True).result()
    expected = read_json_values(Path(f"{stem}-out.json").read_text())
    assert read_json_values(run.stdout) == expected, run.stderr[-3000:]
