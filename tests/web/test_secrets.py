"""Hidden information in the web room: over a real websocket, a person at a Q seat plays a
whole game against a bot (and has one illegal action refused) while a spectator watches.
Every message each of them receives is checked: a state message is exactly what the game
allows that viewer (its own view, the picture of the concealed state) and stays the same
when any other seat's secret is redrawn (``vary_secret``), so no other hand can leak."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any, Iterator

import pytest

uvicorn = pytest.importorskip("uvicorn")
sync_client = pytest.importorskip("websockets.sync.client")

from gameroom.core.record import Event  # noqa: E402
from gameroom.games import registry  # noqa: E402
from gameroom.web.app import create_app  # noqa: E402
from gameroom.web.matches import MatchBook, MatchRequest, state_frame  # noqa: E402
from driver import free_port  # noqa: E402

FRAME_TYPES = {"hello", "status", "turn", "prompt", "refused", "event", "state", "end"}


@pytest.fixture(scope="module")
def room() -> Iterator[tuple[MatchBook, int]]:
    book, port = MatchBook(), free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(book), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield book, port
    server.should_exit = True
    thread.join(timeout=30)


class States:
    """Every full referee state of the match, decoded from its snapshot at the time."""

    def __init__(self, game: Any) -> None:
        self.game, self.states = game, []

    def __call__(self, event: Event) -> None:
        if event.kind == "state" and event.subject is not None:
            self.states.append(self.game.state_codec.decode(event.data["state"]))


def read_all(socket: Any, until_end: bool = True) -> list[dict[str, Any]]:
    frames = []
    while True:
        frame = json.loads(socket.recv(timeout=300))
        frames.append(frame)
        if frame["type"] == "end":
            return frames


def test_a_person_and_a_spectator_see_only_what_the_game_allows(room: tuple[MatchBook, int]) -> None:
    book, port = room
    q = registry.game("q")
    states = States(q)
    request = MatchRequest.from_json({"game": "q", "seats": ["human", "dag"], "seed": 11, "time_limit": 120},
                                     registry.games())
    match = book.start(request, observers=[states])
    base = f"ws://127.0.0.1:{port}/api/matches/{match.id}/ws"
    spectator_frames: list[dict[str, Any]] = []
    with sync_client.connect(base) as spectator:
        watcher = threading.Thread(target=lambda: spectator_frames.extend(read_all(spectator)))
        watcher.start()
        # a wrong token is no seat
        with sync_client.connect(f"{base}?seat=P1&token=guess") as impostor:
            assert json.loads(impostor.recv(timeout=60))["type"] == "error"
        assert match.status == "waiting"
        mine: list[dict[str, Any]] = []
        refused_once = False
        with sync_client.connect(f"{base}?seat=P1&token={match.tokens['P1']}") as person:
            while True:
                frame = json.loads(person.recv(timeout=300))
                mine.append(frame)
                if frame["type"] == "end":
                    break
                if frame["type"] == "prompt" and frame["choices"]:
                    if not refused_once:
                        person.send(json.dumps({"action": [{"coordinate": {"row": 999, "column": 999},
                                                            "1tile": {"color": "red", "shape": "star"}}]}))
                        answer = json.loads(person.recv(timeout=300))
                        mine.append(answer)
                        assert answer["type"] == "refused" and "illegal action" in answer["message"]
                        refused_once = True
                    person.send(json.dumps({"choice": 0}))
        watcher.join(timeout=300)

    assert refused_once and match.result is not None and "error" not in match.result
    assert not match.result["ejected"], match.result
    assert {f["type"] for f in mine} <= FRAME_TYPES and {f["type"] for f in spectator_frames} <= FRAME_TYPES
    rng = random.Random(3)
    names = ["P1", "P2"]
    for viewer, frames in (("P1", mine), (None, spectator_frames)):
        shown = [f for f in frames if f["type"] == "state"]
        assert [f["step"] for f in shown] == list(range(1, len(states.states) + 1))
        for frame, state in zip(shown, states.states):
            expected = state_frame(q, state, viewer, frame["step"], frame["caption"])
            assert {k: v for k, v in frame.items() if k != "turn"} == expected
            for other in names:
                if other == viewer:
                    continue
                varied = q.views.vary_secret(state, other, rng)
                assert state_frame(q, varied, viewer, frame["step"], frame["caption"]) == expected, \
                    f"{viewer or 'a spectator'} would see {other}'s secret at step {frame['step']}"
        # prompts only ever reach the person at the seat, and offer its own tiles only
        prompts = [f for f in frames if f["type"] == "prompt" and f["choices"]]
        assert (viewer == "P1") == bool(prompts)
    # every tile a prompt offers to place is in the person's own hand (its JPub's first player)
    hand: list[Any] = []
    for frame in mine:
        if frame["type"] == "state":
            hand = frame["view"]["players"][0]["tile*"]
        elif frame["type"] == "prompt" and frame["choices"]:
            placed = [p["1tile"] for c in frame["choices"] if isinstance(c["action"], list) for p in c["action"]]
            assert placed and all(tile in hand for tile in placed)


@pytest.mark.parametrize("name", [n for n, g in registry.games().items() if g.moves is not None])
def test_a_person_plays_a_whole_game_of_every_game_people_can_play(room: tuple[MatchBook, int], name: str) -> None:
    """Over the websocket, taking the first legal action offered at every prompt: the game
    ends with no ejection, every prompt offers at least one action."""
    book, port = room
    game = registry.game(name)
    seats = ["human", *[next(iter(game.strategies))] * (game.min_players - 1)]
    match = book.start(MatchRequest.from_json({"game": name, "seats": seats, "seed": 6, "time_limit": 120},
                                              registry.games()))
    prompts = 0
    with sync_client.connect(f"ws://127.0.0.1:{port}/api/matches/{match.id}/ws?seat=P1&token={match.tokens['P1']}") as person:
        while True:
            frame = json.loads(person.recv(timeout=300))
            if frame["type"] == "end":
                break
            if frame["type"] == "prompt" and frame["method"] is not None:
                assert frame["choices"] and frame["limit"] == 120
                prompts += 1
                person.send(json.dumps({"choice": 0}))
    assert prompts > 1 and match.result is not None and not match.result["ejected"], match.result
    assert match.result["winners"]
