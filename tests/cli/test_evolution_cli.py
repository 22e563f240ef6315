"""The Evolution commands as a user meets them: a local game with result lines and a
picture of every turn, seeded shuffled decks, in-process baddies, and one clear error line
with exit status 2 for a bad command line or harness input."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from driver import assert_usage_error, run_gameroom


def test_play_evolution_prints_results_and_pictures(tmp_path: Path) -> None:
    run = run_gameroom(["play", "evolution", "--players", "3", "--observe", str(tmp_path)], b"")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    start = lines.index("results")
    assert lines[start:] == ["results", "-" * 24, "1 player id: 2#3 score: 7", "2 player id: 1#2 score: 7",
                             "3 player id: 0#1 score: 5", f"pictures: 7 SVG files in {tmp_path}",
                             '[["1", "2"], []]']
    pictures = sorted(tmp_path.glob("*.svg"))
    assert len(pictures) == 7   # one per turn (6) and the end
    root = ET.parse(pictures[1]).getroot()
    assert root.tag.endswith("svg") and "watering hole" in pictures[1].read_text()


def test_play_evolution_shuffled_is_deterministic_by_seed() -> None:
    args = ["play", "evolution", "--players", "5", "--deck", "shuffled"]
    first = run_gameroom(args + ["--seed", "3"], b"").stdout
    assert first == run_gameroom(args + ["--seed", "3"], b"").stdout
    assert first != run_gameroom(args + ["--seed", "4"], b"").stdout


def test_play_evolution_with_baddies_reports_removals() -> None:
    run = run_gameroom(["play", "evolution", "--players", "3", "--baddie", "over", "--baddie", "cinf"], b"")
    assert run.returncode == 0, run.stderr
    assert "removed: over#4: invalid action" in run.stdout
    assert "removed: cinf#5: no reply within the time limit of 1 s" in run.stdout


@pytest.mark.parametrize("args, stdin, message", [
    (["play", "evolution", "--players", "9"], b"", "3..8 players"),
    (["play", "evolution", "--deck", "wild"], b"", "invalid choice"),
    (["harness", "evolution", "xmain"], b"2", "3..8"),
    (["harness", "evolution", "xattack"], b"[1, 2, 3, 4]", "$[0]"),
    (["harness", "evolution", "xstep"], b'[[], 0, [[9, "ambush"]]]', "122 cards"),
    (["harness", "evolution", "xnope"], b"1", "unknown harness"),
    (["clients", "evolution", "--port", "40000", "--count", "9"], b"", "3..8 connections"),
    (["clients", "evolution", "--port", "40000", "--baddie", "wolf"], b"", "unknown baddie 'wolf'"),
    (["serve", "evolution", "--port", "40000"], b'{"server": {"prot": 1}}', "unexpected key 'prot'"),
    (["serve", "evolution", "--port", "40000"], b'{} {}', "at most one configuration"),
])
def test_bad_input_gets_one_error_line(args: list[str], stdin: bytes, message: str) -> None:
    assert_usage_error(run_gameroom(args, stdin), message)


def test_harness_show_writes_a_picture_per_turn(tmp_path: Path) -> None:
    run = run_gameroom(["harness", "evolution", "xmain", "--show"], b"3", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "3 player id: 0#1 score: 5"
    assert len(list((tmp_path / "Tmp").glob("*.svg"))) == 6
