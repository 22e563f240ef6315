"""``gameroom play|serve|clients|harness bazaar`` as a user meets them: an account of the
game with the winner, a picture per step, and one clear error line with exit status 2 for
every bad command line or input."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import read_json_values
from driver import run_gameroom


def test_play_prints_an_account_the_winner_and_pictures(tmp_path: Path) -> None:
    run = run_gameroom(["play", "bazaar", "--players", "3", "--seed", "7", "--observe", str(tmp_path)], b"")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "winner" in out and "turn   1: Ada " in out and "final scores:" in out
    result = read_json_values(out.splitlines()[-1])[0]
    assert len(result) == 2 and result[1] == [] and set(result[0]) <= {"Ada", "Bo", "Cy"} and result[0]
    pictures = sorted(tmp_path.glob("*.svg"))
    assert f"pictures: {len(pictures)} SVG files" in out and len(pictures) > 10
    for picture in (pictures[0], pictures[-1]):
        root = ET.parse(picture).getroot()
        assert root.tag.endswith("svg")
    last = pictures[-1].read_text()
    assert "game over" in last and "Equations" in last and "score" in last


def test_play_is_deterministic_by_seed_and_takes_a_bonus() -> None:
    first = run_gameroom(["play", "bazaar", "--seed", "11"], b"").stdout
    assert first == run_gameroom(["play", "bazaar", "--seed", "11"], b"").stdout
    assert first != run_gameroom(["play", "bazaar", "--seed", "12"], b"").stdout
    sey = run_gameroom(["play", "bazaar", "--seed", "11", "--bonus", "SEY", "--players", "6"], b"")
    assert sey.returncode == 0 and "bonus SEY" in sey.stdout


@pytest.mark.parametrize("args, stdin, message", [
    (["play", "bazaar", "--players", "9"], b"", "--players must lie in 2..6"),
    (["play", "bazaar", "--policies", "smart"], b"", "unknown policy"),
    (["play", "bazaar", "--bonus", "XYZ"], b"", "invalid choice"),
    (["serve", "bazaar", "--port", "40000"], b"[", "not a sequence of JSON values"),
    (["serve", "bazaar", "--port", "40000"], b'[] {"bank": []}', "missing key(s)"),
    (["serve", "bazaar", "--port", "40000"], b'"RWB" "SEY"', "$[0]: expected an array"),
    (["clients", "bazaar", "--port", "40000"], b'[["ouch ouch", "purchase-size"]] []', "$[0][0]"),
    (["clients", "bazaar", "--port", "40000"], b'[["A", "purchase-size"]] ["AAnobody"]', "$[1][0]"),
    (["clients", "bazaar", "--port", "40000"], b'[] [] []', "got 3 values"),
    (["harness", "bazaar", "xnothing"], b"", "unknown harness 'xnothing'"),
    (["harness", "bazaar", "xeq"], b'[] ["pink"] []', "pink"),
    (["harness", "bazaar", "xgames"], b'[["A", "purchase-size"]] []', "expected *Actors, *Equations and a Game"),
    (["harness", "bazaar", "xgames-resources"],
     b'[["A", "purchase-size", "win", 9]] [] {"bank": [], "visibles": [], "cards": [], "players": []}', "<= 7"),
])
def test_bad_input_gets_one_error_line_and_status_2(args: list[str], stdin: bytes, message: str) -> None:
    run = run_gameroom(args, stdin)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr


def test_a_bad_server_input_also_answers_like_the_reference() -> None:
    run = run_gameroom(["serve", "bazaar", "--port", "40000"], b'[] {"bank": []}')
    assert read_json_values(run.stdout) == ["xserver: things went wrong"]


def test_the_referee_refusing_a_harness_game_is_an_error_line() -> None:
    game = b'{"bank": [], "visibles": [], "cards": [], "players": [{"wallet": [], "score": 0}]}'
    run = run_gameroom(["harness", "bazaar", "xgames"], b'[["A", "purchase-size"], ["B", "purchase-size"]] [] ' + game)
    assert run.returncode == 2 and "refuses the game: 2 players for 1 player records" in run.stderr
