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
    pictures = sorted(tmp_path.glob("*.svg"))
    assert lines[start - 1:] == ["game over after 6 turn(s): winners 2#3, 1#2 (2#3 7, 1#2 7, 0#1 5)",
                                 "results", "-" * 24, "1 player id: 2#3 score: 7", "2 player id: 1#2 score: 7",
                                 "3 player id: 0#1 score: 5", f"pictures: {len(pictures)} SVG files in {tmp_path}",
                                 '[["1", "2"], []]']
    # the moves are told, one line each, and every line of the game is a picture's caption
    told = lines[1:start - 1]
    assert told[:3] == ["-- turn 1 begins: 0#1, 1#2, 2#3 in turn order --", "cards dealt: 0#1 4, 1#2 4, 2#3 4",
                        "0#1 plays food card ambush (-3); a new species with ambush; population of species 1 +1"]
    assert sum(line.startswith("-- turn ") for line in told) == 6
    assert any(" feeds species " in line for line in told)
    captions = ["".join(ET.parse(p).getroot().find("{http://www.w3.org/2000/svg}title").itertext())
                for p in pictures]
    assert [line.strip("- ") for line in told + [lines[start - 1]]] == captions
    assert "watering hole" in pictures[1].read_text()


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
