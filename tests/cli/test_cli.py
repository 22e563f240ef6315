"""The command line as a user meets it: a local game, pictures, and one clear error line
with exit status 2 for every bad command line or configuration."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import read_json_values
from driver import run_gameroom


def test_play_q_prints_an_account_and_the_winner(tmp_path: Path) -> None:
    run = run_gameroom(["play", "q", "--players", "3", "--seed", "7", "--observe", str(tmp_path)], b"")
    assert run.returncode == 0, run.stderr
    assert "winner" in run.stdout and "turn   1:" in run.stdout
    result = read_json_values(run.stdout.splitlines()[-1])[0]
    assert len(result) == 2 and result[1] == []
    pictures = sorted(tmp_path.glob("*.svg"))
    assert len(pictures) >= 2
    root = ET.parse(pictures[-1]).getroot()
    assert root.tag.endswith("svg")


def test_play_is_deterministic_by_seed() -> None:
    first = run_gameroom(["play", "q", "--seed", "11"], b"").stdout
    again = run_gameroom(["play", "q", "--seed", "11"], b"").stdout
    other = run_gameroom(["play", "q", "--seed", "12"], b"").stdout
    assert first == again and first != other


@pytest.mark.parametrize("args, stdin, message", [
    (["play", "chess"], b"", "invalid choice"),
    (["play", "q", "--players", "9"], b"", "--players must lie in 2..4"),
    (["play", "q", "--strategies", "smart"], b"", "unknown strategy 'smart'"),
    (["serve", "q"], b"", "--port"),
    (["serve", "q", "--port", "http"], b"", "port must be an integer"),
    (["serve", "q", "--port", "40000"], b"{", "not a sequence of JSON values"),
    (["serve", "q", "--port", "40000"], b'{"port": 1}', "missing key(s)"),
    (["clients", "q", "--port", "40000"], b'{"port": 1, "host": "h", "wait": 2, "quiet": true, '
                                          b'"players": [["A", "genius"]]}', "$.players[0]"),
    (["harness", "q", "xnothing"], b"", "unknown harness 'xnothing'"),
    (["harness", "q", "xmap"], b'[] {"color": "pink", "shape": "star"}', "pink"),
])
def test_bad_input_gets_one_error_line_and_status_2(args, stdin, message) -> None:
    run = run_gameroom(args, stdin)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr


def test_bad_server_configuration_also_answers_like_the_reference() -> None:
    run = run_gameroom(["serve", "q", "--port", "40000"], json.dumps({"port": 1}).encode())
    assert read_json_values(run.stdout) == ["xserver: things went wrong"]


def test_show_writes_a_picture_of_every_state(tmp_path: Path) -> None:
    state = {"map": [[0, [0, {"color": "red", "shape": "star"}]]],
             "players": [{"name": "A", "score": 0, "tile*": [{"color": "red", "shape": "circle"}]},
                         {"name": "B", "score": 0, "tile*": [{"color": "blue", "shape": "star"}]}],
             "tile*": []}
    stdin = (json.dumps(state) + json.dumps([["A", "dag"], ["B", "ldasg"]])).encode()
    run = run_gameroom(["harness", "q", "xgames-with-observer", "--show"], stdin, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert read_json_values(run.stdout) == [[["A"], []]]
    pictures = sorted((tmp_path / "Tmp").glob("*.svg"))
    assert len(pictures) == 2   # before A's turn, and the final state
    assert all(ET.parse(p).getroot().tag.endswith("svg") for p in pictures)


def test_show_on_a_harness_without_a_game_is_refused() -> None:
    run = run_gameroom(["harness", "q", "xmap", "--show"], b"[] {}")
    assert run.returncode == 2 and "nothing to show" in run.stderr
