"""``gameroom play eriantys`` and ``gameroom harness eriantys xgame`` as a user meets them:
an account with the winners, a picture per turn, the harness's winners and broadcast log,
and one clear error line with exit status 2 for bad input."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import read_json_values
from driver import assert_usage_error, run_gameroom


def test_play_prints_an_account_the_winners_and_pictures(tmp_path: Path) -> None:
    run = run_gameroom(["play", "eriantys", "--players", "3", "--expert", "--seed", "4",
                        "--strategies", "greedy,random,first-legal", "--observe", str(tmp_path)], b"")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.startswith("Eriantys, expert mode, seed 4: Ann (BLACK, greedy), Ben (WHITE, random)")
    assert "-- round 1 --" in out and "Ann plays assistant" in out and "game over:" in out
    result = read_json_values(out.splitlines()[-1])[0]
    assert result[1] == [] and result[0] and set(result[0]) <= {"Ann", "Ben", "Cyd"}
    assert f"winner{'s' if len(result[0]) > 1 else ''}: {', '.join(result[0])}" in out
    pictures = sorted(tmp_path.glob("*.svg"))
    assert f"pictures: {len(pictures)} SVG files" in out and len(pictures) > 20
    for picture in (pictures[0], pictures[-1]):
        assert ET.parse(picture).getroot().tag.endswith("svg")
    last = pictures[-1].read_text()
    assert "game over" in last and "Mother Nature" in last and "island 0" in last and "cloud 0" in last
    assert "price" in last and "towers in supply" in last


def test_play_is_deterministic_by_seed_and_shows_ejections() -> None:
    first = run_gameroom(["play", "eriantys", "--seed", "5"], b"").stdout
    assert first == run_gameroom(["play", "eriantys", "--seed", "5"], b"").stdout
    assert first != run_gameroom(["play", "eriantys", "--seed", "6"], b"").stdout
    run = run_gameroom(["play", "eriantys", "--players", "4", "--strategies", "greedy,crash@3"], b"")
    assert run.returncode == 0 and "Ben is ejected (EJECTED)" in run.stdout and "ejected: Ben" in run.stdout
    assert read_json_values(run.stdout.splitlines()[-1])[0] == [["Ann", "Cyd"], ["Ben"]]


CONFIG = {"numberOfPlayers": 3, "expert": True, "seed": 7,
          "players": [{"name": "ann", "strategy": "greedy"}, {"name": "ben", "strategy": "first-legal"},
                      {"name": "cyd", "strategy": "illegal@5"}]}


def test_xgame_prints_the_winners_and_with_log_every_broadcast_first() -> None:
    stdin = json.dumps(CONFIG).encode()
    plain = run_gameroom(["harness", "eriantys", "xgame"], stdin)
    assert plain.returncode == 0, plain.stderr
    winners = read_json_values(plain.stdout)
    assert len(winners) == 1 and winners[0] and "cyd" not in winners[0]
    logged = read_json_values(run_gameroom(["harness", "eriantys", "xgame", "--log"], stdin).stdout)
    assert logged[-1] == winners[0]
    assert logged[0] == {"type": "START_GAME", "expert": True, "numberOfPlayers": 3, "players": ["ann", "ben", "cyd"]}
    assert {"type": "PLAYER_DISCONNECT", "username": "cyd", "roomClosed": False, "reason": "EJECTED"} in logged
    assert logged[-2] == {"type": "END_GAME", "winners": winners[0]}


def test_xgame_test_hooks_fix_the_setup() -> None:
    config = {**CONFIG, "testHooks": {"firstPlayer": 2, "characterCards": [5, 0, 11],
                                      "draws": ["BLUE", "RED", "GREEN", "PINK", "YELLOW"]}}
    logged = read_json_values(run_gameroom(["harness", "eriantys", "xgame", "--log"],
                                           json.dumps(config).encode()).stdout)[:-1]
    assert [m["color"] for m in logged[1:6]] == ["BLUE", "RED", "GREEN", "PINK", "YELLOW"]
    assert [m["card"] for m in logged if m["type"] == "NOTIFY_CHARACTER_CARD"] == [5, 0, 11]
    assert next(m for m in logged if m["type"] == "CHANGE_TURN") == {"type": "CHANGE_TURN", "playingPlayer": 2}


@pytest.mark.parametrize("args, stdin, message", [
    (["play", "eriantys", "--players", "5"], b"", "--players must lie in 2..4"),
    (["play", "eriantys", "--strategies", "smart"], b"", "unknown player 'smart'"),
    (["play", "eriantys", "--strategies", "crash@0"], b"", "unknown player 'crash@0'"),
    (["harness", "eriantys", "xgame", "--show-me"], b"{}", "unknown harness flag '--show-me'"),
    (["harness", "eriantys", "xgame"], b"[", "not a sequence of JSON values"),
    (["harness", "eriantys", "xgame"], b'{"players": [{"name": "a"}]}', "$.players: expected an array of length"),
    (["harness", "eriantys", "xgame"], b'{"players": [{"name": "a"}, {"name": "a"}]}', "already taken"),
    (["harness", "eriantys", "xgame"], b'{"players": [{"name": ""}, {"name": "b"}]}', "$.players[0].name"),
    (["harness", "eriantys", "xgame"], b'{"players": [{"name": "a"}, {"name": "b", "strategy": "x"}]}',
     "$.players[1].strategy"),
    (["harness", "eriantys", "xgame"], b'{"numberOfPlayers": 3, "players": [{"name": "a"}, {"name": "b"}]}',
     "numberOfPlayers is 3"),
    (["harness", "eriantys", "xgame"], b'{"players": [{"name": "a"}, {"name": "b"}], "testHooks": {"draws": ["RED", 4]}}',
     "$.testHooks.draws[1]"),
    (["harness", "eriantys", "xgame"], b'{"players": [{"name": "a"}, {"name": "b"}], "testHooks": {"characterCards": [1, 1, 2]}}',
     "distinct"),
    (["harness", "eriantys", "xgame"], b'{"players": [{"name": "a"}, {"name": "b"}], "testHooks": {"draws": ["RED", "RED", "RED"]}}',
     "$.testHooks.draws: asks for RED, which is not in the bag"),
    (["harness", "eriantys", "xgame"], b'{"players": [{"name": "a"}, {"name": "b"}], "decisionTimeoutSeconds": -1}',
     "$.decisionTimeoutSeconds"),
])
def test_bad_input_gets_one_error_line_and_status_2(args: list[str], stdin: bytes, message: str) -> None:
    assert_usage_error(run_gameroom(args, stdin), message)


def test_xgame_show_writes_a_picture_per_turn(tmp_path: Path) -> None:
    config = {"players": [{"name": "ann", "strategy": "greedy"}, {"name": "ben", "strategy": "first-legal"}],
              "seed": 3}
    run = run_gameroom(["harness", "eriantys", "xgame", "--show"], json.dumps(config).encode(), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    pictures = sorted((tmp_path / "Tmp").glob("*.svg"))
    assert len(pictures) > 10 and f"pictures of {len(pictures)} states" in run.stderr
    assert "game over" in pictures[-1].read_text()
