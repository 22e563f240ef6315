"""The bench's command line refuses a count or a duration that cannot be measured, with
argparse's one line and status 2, before any benchmark starts (a negative count was a
traceback at the end of a run, a negative duration a division by zero)."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("args, said", [
    (["arena", "--games", "-3"], "argument --games: expected an integer of at least 1, got -3"),
    (["q", "--games", "0"], "argument --games: expected an integer of at least 1, got 0"),
    (["capacity", "--players", "many"], "argument --players: expected an integer, got 'many'"),
    (["q", "--isolated-games", "-1"], "argument --isolated-games: expected an integer of at least 1, got -1"),
    (["rl", "--seconds", "-1"], "argument --seconds: expected a number of seconds greater than 0, got -1"),
    (["rl", "--seconds", "nan"], "argument --seconds: expected a number of seconds greater than 0, got nan"),
])
def test_a_bad_count_or_duration_is_one_line_and_status_2(args: list[str], said: str) -> None:
    done = subprocess.run([sys.executable, "-m", "gameroom.bench", *args], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"python -m gameroom.bench: error: {said}"
    assert "Traceback" not in done.stderr and done.stdout == ""
