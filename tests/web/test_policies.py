"""Trained policies as web-room seats (``gameroom web --policy GAME:NAME=module:callable``):
offered by name in ``/api/games`` for their game only, a person plays a whole match against
one over the real API and websocket of a real ``gameroom web`` process, a bots-only match
with one ends with it unejected, and a request can never name a module. A bad ``--policy``
stops the room's start with one line and status 2."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.driver import GAMEROOM
from tests.rl.cases import need_extra
from tests.web.conftest import REPO, WebServer, cookie_header, running_web, signed_up

need_extra()
sync_client = pytest.importorskip("websockets.sync.client")
pytest.importorskip("uvicorn")

FIRST_LEGAL = "tests.rl.policies:first_legal"
# seconds a bot has for a call: a policy's call crosses to its own process, which a loaded
# machine may not schedule within the games' own limits (Fish's is 0.6 s)
GENEROUS = 120


@pytest.fixture(scope="module")
def web_server() -> Iterator[WebServer]:
    with running_web("--policy", f"fish:trained={FIRST_LEGAL}", "--policy", f"q:careful={FIRST_LEGAL}") as server:
        yield server


def test_the_policies_are_offered_for_their_games_only(web_server: WebServer) -> None:
    offered = {game["name"]: game["policies"] for game in web_server.get("/api/games")}
    assert offered["fish"] == ["trained"] and offered["q"] == ["careful"]
    assert offered["bazaar"] == [] and offered["evolution"] == [] and offered["eriantys"] == []


def play_person(server: WebServer, session: Any, match_id: str, token: str) -> dict[str, Any]:
    """Take seat P1 and answer every prompt with its first offer; the end frame."""
    url = f"ws://127.0.0.1:{server.port}/api/matches/{match_id}/ws?seat=P1&token={token}"
    with sync_client.connect(url, additional_headers=cookie_header(session), open_timeout=60) as person:
        while True:
            frame = json.loads(person.recv(timeout=300))
            if frame["type"] == "prompt" and frame["choices"]:
                person.send(json.dumps({"choice": 0}))
            elif frame["type"] == "end":
                return frame


def test_a_person_plays_a_whole_match_against_a_policy(web_server: WebServer) -> None:
    session = signed_up(web_server.url, "policy-person")
    reply = session.post("/api/matches", json={"game": "fish", "seats": ["human", "trained"], "seed": 4,
                                               "time_limit": 300, "person_limit": 300})
    assert reply.status_code == 201, reply.text
    match_id, token = reply.json()["id"], reply.json()["tokens"]["P1"]
    end = play_person(web_server, session, match_id, token)
    assert end["result"]["ejected"] == [] and end["result"]["winners"], end
    summary = web_server.wait_over(match_id)
    assert [seat["player"] for seat in summary["seats"]] == ["human", "trained"]
    assert summary["steps"] > 5 and not summary["result"].get("error")


def test_a_bots_only_match_with_a_policy_plays_to_the_end(web_server: WebServer) -> None:
    status, started = web_server.request("POST", "/api/matches", {"game": "q", "seats": ["dag", "careful"],
                                                                  "seed": 2, "time_limit": GENEROUS})
    assert status == 201, started
    summary = web_server.wait_over(started["id"])
    assert summary["result"]["ejected"] == [] and summary["result"]["winners"], summary


@pytest.mark.parametrize(("seats", "message"), [
    (["human", FIRST_LEGAL], f"seats[1]: '{FIRST_LEGAL}' is not a fish player; choose from "),
    (["greedy", "careful"], "seats[1]: 'careful' is not a fish player"),   # q's policy, not fish's
])
def test_a_request_names_only_the_operators_policies(web_server: WebServer, seats: list[str], message: str) -> None:
    status, reply = web_server.request("POST", "/api/matches", {"game": "fish", "seats": seats, "seed": 1})
    assert status == 400 and message in reply["error"], reply
    assert "trained" in reply["error"]   # the choices name the offered policy


@pytest.mark.parametrize(("policy", "message"), [
    ("trained", "--policy must be GAME:NAME=module:callable, got 'trained'"),
    (f"chess:trained={FIRST_LEGAL}", "no game 'chess'"),
    (f"fish:greedy={FIRST_LEGAL}", "fish already has a bot named 'greedy'"),
    (f"fish:human={FIRST_LEGAL}", "'human' is not a bot name"),
    ("fish:trained=tests.rl.policies:nothing", "'tests.rl.policies' has no 'nothing'"),
    ("fish:trained=tests.rl.nowhere:first_legal", "cannot import 'tests.rl.nowhere'"),
])
def test_a_bad_policy_stops_the_start_with_one_line(policy: str, message: str) -> None:
    run = subprocess.run([*GAMEROOM, "web", "--port", "1", "--policy", policy], capture_output=True, text=True,
                         timeout=120, cwd=REPO, check=False)
    assert run.returncode == 2, run.stdout
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr


def test_a_stored_match_names_the_policy_of_its_seat(tmp_path: Any) -> None:
    pytest.importorskip("sqlalchemy", reason="the league extra is not installed")
    import sqlite3

    database = tmp_path / "results.db"
    with running_web("--db", f"sqlite:///{database}", "--policy", f"fish:trained={FIRST_LEGAL}") as server:
        status, started = server.request("POST", "/api/matches", {"game": "fish", "seats": ["trained", "greedy"],
                                                                  "seed": 5, "time_limit": GENEROUS})
        assert status == 201, started
        assert server.wait_over(started["id"])["result"]["ejected"] == []
    with sqlite3.connect(database) as connection:
        (config,), = connection.execute("select config from games").fetchall()
    seats = {seat["name"]: seat["bot"] for seat in json.loads(config)["seats"]}
    assert seats == {"P1": {"name": "P1", "policy": FIRST_LEGAL, "offered": "trained"},
                     "P2": {"name": "P2", "builtin": "greedy"}}


def test_a_person_picks_the_policy_in_the_lobby_and_plays_it_in_the_browser(web_server: WebServer,
                                                                            page: Any) -> None:
    from tests.web.conftest import sign_up
    from tests.web.test_browser import play_by_clicking, start_from_lobby

    sign_up(page, web_server.url, "policy-browser")
    page.goto(web_server.url + "/")
    page.wait_for_selector("#games tr[data-game='fish']")
    assert "trained (trained)" in page.inner_text("#games tr[data-game='fish']")
    page.select_option("#game", "fish")
    assert "trained" in page.locator("#seats select[data-seat='1'] option").all_inner_texts()
    start_from_lobby(page, web_server.url, "fish", ["human", "trained"], person_limit=300, pace=0)
    play_by_clicking(page, "fish-policy", None)
    match_id = page.url.split("?")[0].rstrip("/").split("/")[-1]
    summary = web_server.get(f"/api/matches/{match_id}")
    assert summary["status"] == "over" and summary["result"]["winners"] and not summary["result"]["ejected"]
    assert [seat["player"] for seat in summary["seats"]] == ["human", "trained"]
