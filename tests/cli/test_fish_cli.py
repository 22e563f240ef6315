"""The Fish commands as a user meets them: a local game with an account and pictures, a
local tournament round by round, and one clear error line with exit status 2 for every bad
command line or configuration."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import read_json_values
from driver import run_gameroom


def test_play_fish_prints_an_account_pictures_and_the_winner(tmp_path: Path) -> None:
    run = run_gameroom(["play", "fish", "--players", "3", "--seed", "7", "--observe", str(tmp_path)], b"")
    assert run.returncode == 0, run.stderr
    assert "winner" in run.stdout and "turn   1:" in run.stdout and "places a penguin on" in run.stdout
    result = read_json_values(run.stdout.splitlines()[-1])[0]
    assert len(result) == 2 and result[1] == [] and result[0]
    pictures = sorted(tmp_path.glob("*.svg"))
    turns = sum(1 for line in run.stdout.splitlines() if line.startswith("turn "))
    placed = sum(1 for line in run.stdout.splitlines() if " places a penguin on " in line)
    # the dealt board, every penguin, after placement, every turn, the winners
    assert len(pictures) == 1 + placed + turns + 2
    root = ET.parse(pictures[-1]).getroot()
    assert root.tag.endswith("svg") and "penguin" in pictures[-1].read_text()


def test_play_fish_is_deterministic_by_seed() -> None:
    first = run_gameroom(["play", "fish", "--seed", "11"], b"").stdout
    assert first == run_gameroom(["play", "fish", "--seed", "11"], b"").stdout
    assert first != run_gameroom(["play", "fish", "--seed", "12"], b"").stdout


def test_play_fish_with_maximin_players() -> None:
    run = run_gameroom(["play", "fish", "--players", "2", "--strategies", "maximin,greedy", "--depth", "2"], b"")
    assert run.returncode == 0 and "maximin depth 2" in run.stdout


def test_tournament_fish_shows_rounds_and_winners() -> None:
    run = run_gameroom(["tournament", "fish", "--players", "10", "--seed", "3", "--baddie", "bad-turn-choice"], b"")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[1].startswith("round 1: ") and lines[1].count("|") == 2   # 11 players: 4 + 4 + 3
    assert lines[2].startswith("  winners: ")
    assert any(line.startswith("tournament winner") for line in lines)
    winners, failures = read_json_values(lines[-1])[0]
    assert winners >= 1 and failures == 1


@pytest.mark.parametrize("args, stdin, message", [
    (["play", "fish", "--players", "5"], b"", "--players must lie in 2..4"),
    (["play", "fish", "--strategies", "smart"], b"", "unknown strategy 'smart'"),
    (["play", "fish", "--fish", "9"], b"", "--fish must lie in 1..5"),
    (["tournament", "fish"], b"", "--players"),
    (["tournament", "fish", "--players", "4", "--baddie", "bad-wolf"], b"", "invalid choice"),
    (["serve", "fish", "--port", "40000"], b"{", "not a sequence of JSON values"),
    (["serve", "fish", "--port", "40000"], b'{"rows": 3, "colour": 2}', "unexpected key(s) colour"),
    (["serve", "fish", "--port", "40000"], b'{"min-players": 7, "max-players": 6}', "exceeds"),
    (["serve", "fish", "--port", "40000"], b"{} {}", "at most one server configuration"),
    (["clients", "fish", "--port", "40000", "--baddie", "bad-wolf"], b"", "unknown client kind 'bad-wolf'"),
    (["clients", "fish", "--port", "40000", "--count", "-1"], b"", "--count must lie in 0..100"),
    (["clients", "fish", "--port", "40000", "--count", "0"], b"", "no clients"),
    (["clients", "fish", "--port", "40000"], b'{"name": "x"}', "command line, not on standard input"),
    (["harness", "fish", "xnothing"], b"", "unknown harness 'xnothing'"),
    (["harness", "fish", "xboard"], b'{"board": [[1]], "position": [0]}', "$.position"),
    (["harness", "fish", "xref"], b'{"row": 3, "column": 3, "players": [["a", 0]], "fish": 2}', "players[0][1]"),
])
def test_bad_fish_input_gets_one_error_line_and_status_2(args: list[str], stdin: bytes, message: str) -> None:
    run = run_gameroom(args, stdin)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
