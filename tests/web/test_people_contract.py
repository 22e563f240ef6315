"""The contract every game keeps with a person in the web room, run for every registered
game (plug-ins included: the helpers take any room and game, ``tests.games.
test_plugin_game`` runs them for its Nim). The finding: a person who made no move in a Q
match stopped it (``StopIteration`` in Q's view of a seat the referee had removed), and
Bazaar's spectators froze at the ejection. Now a person who times out is told why in a
message of its own, everybody reads one event line of it, the person goes on watching as
a spectator, the spectators see every step to the end, and the result is the game's; a
person who closes the page and opens it again gets its prompt back and plays it. The
person's limit is injected short (``gameroom web --person-limit 1``). A real ``gameroom
web`` and real websockets."""

from __future__ import annotations

import json
import threading
from typing import Any, Iterator

import pytest

from gameroom.games import registry
from tests.web.conftest import WebServer, cookie_header, running_web, signed_up

sync_client = pytest.importorskip("websockets.sync.client")

GAMES = [name for name in registry.names() if registry.game(name).playable_by_people]


@pytest.fixture(scope="module")
def web_server() -> Iterator[WebServer]:
    """A room whose people have 1 s for a decision unless a match asks more."""
    with running_web("--person-limit", "1", "--max-live", "64", "--matches-per-user", "64",
                     "--matches-per-address", "64") as server:
        yield server


def frames_until_end(url: str, match: str, query: str = "", session: Any = None) -> list[dict[str, Any]]:
    """Every frame of one websocket of ``match`` up to its ``end``."""
    headers = cookie_header(session) if session is not None else None
    socket_url = url.replace("http://", "ws://") + f"/api/matches/{match}/ws{query}"
    frames = []
    with sync_client.connect(socket_url, additional_headers=headers, open_timeout=60) as client:
        while not frames or frames[-1]["type"] != "end":
            frames.append(json.loads(client.recv(timeout=300)))
    return frames


def person_times_out(url: str, session: Any, game: str, bots: list[str], limit: float) -> None:
    """A person who never moves: ejected for its time, told so once; the match ends with
    the game's result and the spectators see all of it."""
    started = session.post("/api/matches", json={"game": game, "seats": ["human", *bots], "seed": 3})
    assert started.status_code == 201, started.text
    match, token = started.json()["id"], started.json()["tokens"]["P1"]
    watched: list[dict[str, Any]] = []
    spectator = threading.Thread(target=lambda: watched.extend(frames_until_end(url, match)), daemon=True)
    spectator.start()
    mine = frames_until_end(url, match, f"?seat=P1&token={token}", session)
    spectator.join(timeout=300)
    summary = session.get(f"/api/matches/{match}").json()
    account = mine[0]["user"]
    assert mine[0]["match"]["seats"][0] == {"name": "P1", "player": "human", "limit": limit, "account": account}
    result = summary["result"]
    assert "error" not in result and "P1" in [e["seat"] for e in result["ejected"]], result
    for frames in (mine, watched):   # one line tells everybody
        [out] = [f for f in frames if f["type"] == "event" and f.get("ejected") == "P1"]
        assert out["text"].startswith(f"{account} (P1) is out of the game: no reply within the time limit of "
                                      f"{limit:g} s ("), out
        assert sum(out["text"] in (f.get("text") or "") for f in frames if f["type"] == "event") == 1
    [told] = [f for f in mine if f["type"] == "prompt" and f.get("out")]
    assert told["choices"] == [] and told["message"].startswith(
        f"You are out of the game: no reply within the time limit of {limit:g} s"), told
    # the spectators saw every step to the end (Bazaar's froze at the ejection)
    steps = [f["step"] for f in watched if f["type"] == "state"]
    assert steps == list(range(1, summary["steps"] + 1)) and watched[-1]["type"] == "end", steps
    # after it is out, the person sees what the spectators see
    after = mine.index(told)
    theirs = {f["step"]: f["view"] for f in watched if f["type"] == "state"}
    assert all(f["view"] == theirs[f["step"]] for f in mine[after:] if f["type"] == "state")
    words = {g["name"]: g for g in session.get("/api/games").json()}[game]["decisions"]
    turns = [f for f in watched if f["type"] == "turn" and f["seat"] == "P1"]
    assert turns and turns[0]["who"] == f"{account} (P1)" and turns[0]["limit"] == limit, turns
    assert turns[0]["asks"] == words[turns[0]["method"]], (turns[0], words)   # the game's words, not the wire's


def person_leaves_and_comes_back(url: str, session: Any, game: str, bots: list[str], limit: float) -> None:
    """A person who closes the page at its decision: the match waits; opened again, the
    page gets the prompt back, and the move is taken."""
    started = session.post("/api/matches", json={"game": game, "seats": ["human", *bots], "seed": 4,
                                                 "person_limit": limit})
    assert started.status_code == 201, started.text
    match, token = started.json()["id"], started.json()["tokens"]["P1"]
    socket_url = url.replace("http://", "ws://") + f"/api/matches/{match}/ws?seat=P1&token={token}"
    headers = cookie_header(session)
    with sync_client.connect(socket_url, additional_headers=headers, open_timeout=60) as client:
        while (frame := json.loads(client.recv(timeout=300)))["type"] != "prompt" or not frame["choices"]:
            assert frame["type"] != "end", frame
    summary = session.get(f"/api/matches/{match}").json()
    assert summary["status"] == "running" and summary["turn"] == "P1", summary   # the match waits for the person
    with sync_client.connect(socket_url, additional_headers=headers, open_timeout=60) as client:
        hello = json.loads(client.recv(timeout=300))
        assert hello["type"] == "hello" and hello["seat"] == "P1", hello
        past = []
        while not past or past[-1]["type"] != "prompt" or not past[-1]["choices"]:
            past.append(json.loads(client.recv(timeout=300)))
        assert past[-1]["method"] == frame["method"] and past[-1]["choices"] == frame["choices"], past[-1]
        steps = [f["step"] for f in past if f["type"] == "state"]
        client.send(json.dumps({"choice": 0}))
        while True:   # the move is taken: the game moves on (a new state, a new prompt, or its end)
            after = json.loads(client.recv(timeout=300))
            assert after["type"] not in ("refused", "error"), after
            if after["type"] == "end" or after["type"] == "state" and after["step"] > max(steps, default=0) \
                    or after["type"] == "prompt" and after["choices"]:
                break
    assert "P1" not in [e["seat"] for e in (session.get(f"/api/matches/{match}").json()["result"] or {}).get(
        "ejected", [])]


def bots_for(game: str) -> list[str]:
    descriptor = registry.game(game)
    return [next(iter(descriptor.strategies))] * (descriptor.min_players - 1)


@pytest.mark.parametrize("game", GAMES)
def test_a_persons_time_out_never_breaks_a_match(web_server: WebServer, game: str) -> None:
    session = signed_up(web_server.url, f"late-{game}")
    try:
        person_times_out(web_server.url, session, game, bots_for(game), 1.0)
    finally:
        session.close()


@pytest.mark.parametrize("game", GAMES)
def test_a_person_who_leaves_and_comes_back_plays_on(web_server: WebServer, game: str) -> None:
    session = signed_up(web_server.url, f"back-{game}")
    try:
        least = {g["name"]: g for g in session.get("/api/games").json()}[game]["least_person_limit"]
        person_leaves_and_comes_back(web_server.url, session, game, bots_for(game), max(60.0, least))
    finally:
        session.close()

