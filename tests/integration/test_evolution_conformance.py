"""Every Evolution fixture through the real command line (evolution.md 10): the seven
harnesses as ``gameroom harness evolution NAME`` subprocesses. JSON outputs are compared as
values; ``xmain`` output line by line after trimming trailing white space. All selected
cases are started at once on the shared pool; each test waits for its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import fixture_cases, game_fixtures, read_json_values
from driver import run_gameroom, selected_params, submit, submit_all

JSON_HARNESSES = ["xattack", "xfeed", "xsilly", "xstep", "xstep4", "xgame"]
CASES = ([pytest.param(h, *case.values, id=f"{h}/{case.id}", marks=case.marks)
          for h in JSON_HARNESSES for case in fixture_cases("evolution", h)]
         + [pytest.param("xmain", *case.values, id=f"xmain/{case.id}", marks=case.marks)
            for case in fixture_cases("evolution", "xmain", "**/*-in.txt")])


def _expected_path(path: Path) -> Path:
    return path.with_name(path.name.replace("-in.", "-out."))


def _start_everything(request: pytest.FixtureRequest) -> None:
    jobs = {("evolution-harness", str(path)): (run_gameroom, ["harness", "evolution", harness], path.read_bytes())
            for harness, path in selected_params(request, "test_harness_fixture", "harness", "path")
            if path is not None}
    submit_all(jobs)


@pytest.mark.parametrize("harness, path", CASES)
def test_harness_fixture(harness: str, path: Path, request: pytest.FixtureRequest) -> None:
    game_fixtures("evolution")
    _start_everything(request)
    run = submit(("evolution-harness", str(path)), run_gameroom, ["harness", "evolution", harness],
                 path.read_bytes()).result()
    assert run.returncode == 0, run.stderr
    expected = _expected_path(path).read_text()
    if harness == "xmain":
        assert [line.rstrip() for line in run.stdout.splitlines()] == \
            [line.rstrip() for line in expected.splitlines()]
    else:
        assert read_json_values(run.stdout) == read_json_values(expected)
