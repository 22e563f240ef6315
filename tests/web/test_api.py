"""The web room's JSON API and command, on a real ``gameroom web`` server: the games, bad
request bodies (400 with the reason), a bot match of every registered game to its end with
winners and a replay of one line per state change."""

from __future__ import annotations

import json
import socket
import subprocess

import pytest

from gameroom.games import registry
from driver import GAMEROOM
from tests.web.conftest import WebServer


def test_the_games_are_every_registered_game(web_server: WebServer) -> None:
    games = web_server.get("/api/games")
    assert [g["name"] for g in games] == registry.names()
    for entry in games:
        game = registry.game(entry["name"])
        assert entry["players"] == [game.min_players, game.max_players]
        assert entry["strategies"] == list(game.strategies)
    assert {g["name"] for g in games if g["human"]} >= {"q", "eriantys"}


@pytest.mark.parametrize("body, reason", [
    (b"{not json", "not JSON"),
    ([1, 2], "the body: expected `object`, got `array`; the body must be {"),
    ({"game": "chess", "seats": ["a", "b"]}, "game: 'chess' is not a game"),
    ({"game": "q", "seats": "dag"}, "seats: expected `array`, got `str`"),
    ({"game": "q", "seats": ["dag", 7]}, "seats[1]: expected `str`, got `int`"),
    ({"seats": ["dag", "dag"]}, "the body: object missing required field `game`"),
    ({"game": "q", "seats": ["dag"]}, "seats: q takes 2 to 4 players, got 1"),
    ({"game": "q", "seats": ["dag", "smart"]}, "seats[1]: 'smart' is not a q player"),
    ({"game": "q", "seats": ["dag", "dag"], "seed": -1}, "seed: expected `int` >= 0"),
    ({"game": "q", "seats": ["dag", "dag"], "seed": "7"}, "seed: expected `int`, got `str`"),
    ({"game": "q", "seats": ["dag", "dag"], "seed": True}, "seed: expected `int`, got `bool`"),
    ({"game": "q", "seats": ["dag", "dag"], "time_limit": 0}, "time_limit: expected `float` > 0.0"),
    ({"game": "q", "seats": ["dag", "dag"], "pace": 60}, "pace: expected `float` <= 5.0"),
    ({"game": "q", "seats": ["dag", "dag"], "colour": "red"}, "unknown field `colour`; the body must be {"),
])
def test_a_bad_body_is_refused_with_its_reason(web_server: WebServer, body: object, reason: str) -> None:
    status, answer = web_server.request("POST", "/api/matches", body)
    assert status == 400 and reason in answer["error"], answer


def test_unknown_matches_are_404(web_server: WebServer) -> None:
    assert web_server.request("GET", "/api/matches/nope")[0] == 404
    assert web_server.request("GET", "/api/matches/nope/replay")[0] == 404
    status, page = web_server.request("GET", "/matches/nope")
    assert status == 404 and "<html" in page and "no match &#x27;nope&#x27;" in page   # a page for a person, not JSON


@pytest.mark.parametrize("name", registry.names())
def test_a_bot_match_of_every_game_ends_with_winners_and_replays_step_by_step(web_server: WebServer,
                                                                              name: str) -> None:
    game = registry.game(name)
    seats = [list(game.strategies)[i % len(game.strategies)] for i in range(game.min_players)]
    status, answer = web_server.request("POST", "/api/matches", {"game": name, "seats": seats, "seed": 5})
    assert status == 201 and answer["tokens"] == {}
    summary = web_server.wait_over(answer["id"])
    assert summary["game"] == name and summary["seats"] == [{"name": f"P{i + 1}", "player": s,
                                                             "limit": game.limits.call}
                                                            for i, s in enumerate(seats)]
    assert summary["result"]["winners"] and "error" not in summary["result"]
    assert any(m["id"] == answer["id"] for m in web_server.get("/api/matches"))

    # the replay: one line per state change, in order, each enough to redraw its step
    _, text = web_server.request("GET", f"/api/matches/{answer['id']}/replay")
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == summary["steps"] > 1
    assert [line["step"] for line in lines] == list(range(1, len(lines) + 1))
    assert all(line["svg"].startswith("<svg") and line["view"] is not None for line in lines)

    # the same seed in process gives the same winners: the web room adds nothing to a game
    assert game.play(5, game.seats(seats, 5)).winners == summary["result"]["winners"]


def test_a_taken_port_is_one_error_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([*GAMEROOM, "web", "--port", str(port)], capture_output=True, timeout=120)
    err = run.stderr.decode()
    assert run.returncode == 2 and err.startswith("gameroom: error: cannot serve on 127.0.0.1:") and err.count("\n") == 1


def test_a_bad_port_is_one_error_line() -> None:
    run = subprocess.run([*GAMEROOM, "web", "--port", "99999"], capture_output=True, timeout=120)
    assert run.returncode == 2 and "port must lie in 1..65535" in run.stderr.decode()


def test_without_a_database_the_results_say_so(web_server: WebServer) -> None:
    overview = web_server.get("/api/results")
    assert "database" not in overview and "gameroom web --db URL" in overview["message"]
    for path in ("/api/results/games", "/api/results/games/1", "/api/results/games/1/replay", "/api/results/ratings/q"):
        status, answer = web_server.request("GET", path)
        assert status == 404 and "no results database" in answer["error"], (path, answer)
