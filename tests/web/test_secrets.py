"""Hidden information in the web room: over a real websocket, a person at a seat of every
game with secrets (Q's hands, Bazaar's wallets, Evolution's hands and bags) plays a whole
game against bots (and has one illegal action refused) while a spectator watches.
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
from gameroom.web.book import MatchBook  # noqa: E402
from gameroom.web.limits import RoomLimits  # noqa: E402
from gameroom.web.matches import MatchRequest, Owner, state_frame  # noqa: E402
from driver import free_port  # noqa: E402
from tests.web.conftest import cookie_header, signed_up  # noqa: E402

FRAME_TYPES = {"hello", "status", "turn", "prompt", "refused", "event", "state", "end"}


@pytest.fixture(scope="module")
def room() -> Iterator[tuple[MatchBook, int]]:
    book, port = MatchBook(RoomLimits(matches_per_user=100)), free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(book), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield book, port
    server.should_exit = True
    thread.join(timeout=30)


class Expected:
    """For every state of the match, as it happens (a live state may change later): the
    frame each viewer may get, and whether it stays the same when another seat's secret
    is redrawn (``vary_secret``) — else that secret would leak to the viewer."""

    def __init__(self, game: Any, viewers: list[str | None], names: list[str], seed: int) -> None:
        self.game, self.viewers, self.names = game, viewers, names
        self.frames: dict[str | None, list[dict[str, Any]]] = {v: [] for v in viewers}
        self.leaks: list[str] = []
        self.rng = random.Random(3)
        self.story = game.story(seed, names)   # told as the web room tells it

    def __call__(self, event: Event) -> None:
        told = self.story.tell(event)
        if event.kind == "end":   # the web room's last picture names the winners (none of these
            # games has closing lines beside it)
            caption = self.story.narrator.final_caption(event.subject)
            if caption is not None:
                self.expect(self.story.last, caption, [])
        elif told.drawn:
            self.expect(told.state, told.caption, told.lines)

    def expect(self, state: Any, caption: str, lines: list[str]) -> None:
        step = len(self.frames[None]) + 1
        for viewer in self.viewers:
            expected = state_frame(self.game, state, viewer, step, caption, self.story, lines)
            self.frames[viewer].append(expected)
            for other in self.names:
                varied = self.game.views.vary_secret(state, other, self.rng)
                if other != viewer and state_frame(self.game, varied, viewer, step, caption, self.story,
                                                   lines) != expected:
                    self.leaks.append(f"{viewer or 'a spectator'} would see {other}'s secret at step {step}")


def read_all(socket: Any, until_end: bool = True) -> list[dict[str, Any]]:
    frames = []
    while True:
        frame = json.loads(socket.recv(timeout=300))
        frames.append(frame)
        if frame["type"] == "end":
            return frames


SECRET_KEEPERS = [n for n, g in registry.games().items() if g.views.vary_secret is not None and g.playable_by_people]


def test_every_game_with_secrets_is_checked() -> None:
    assert {"q", "bazaar", "evolution"} <= set(SECRET_KEEPERS)


@pytest.mark.parametrize("name", SECRET_KEEPERS)
def test_a_person_and_a_spectator_see_only_what_the_game_allows(room: tuple[MatchBook, int], name: str) -> None:
    book, port = room
    q = registry.game(name)
    names = [f"P{i + 1}" for i in range(q.min_players)]
    states = Expected(q, ["P1", None], names, 11)
    seats = ["human", *[next(iter(q.strategies))] * (q.min_players - 1)]
    request = MatchRequest.from_json({"game": name, "seats": seats, "seed": 11, "person_limit": 120},
                                     registry.games())
    account = signed_up(f"http://127.0.0.1:{port}", f"secret-keeper-{name}")
    match = book.start(request, Owner("127.0.0.1", f"secret-keeper-{name}"), observers=[states])
    base = f"ws://127.0.0.1:{port}/api/matches/{match.id}/ws"
    spectator_frames: list[dict[str, Any]] = []
    with sync_client.connect(base) as spectator:
        watcher = threading.Thread(target=lambda: spectator_frames.extend(read_all(spectator)))
        watcher.start()
        # a wrong token is no seat
        with sync_client.connect(f"{base}?seat=P1&token=guess", additional_headers=cookie_header(account)) as impostor:
            assert json.loads(impostor.recv(timeout=60))["type"] == "error"
        assert match.status == "waiting"
        mine: list[dict[str, Any]] = []
        refused_once = False
        with sync_client.connect(f"{base}?seat=P1&token={match.tokens['P1']}",
                                 additional_headers=cookie_header(account)) as person:
            while True:
                frame = json.loads(person.recv(timeout=300))
                mine.append(frame)
                if frame["type"] == "end":
                    break
                if frame["type"] == "prompt" and frame["choices"]:
                    if not refused_once:
                        person.send(json.dumps({"action": "no such action"}))
                        answer = json.loads(person.recv(timeout=300))
                        mine.append(answer)
                        assert answer["type"] == "refused" and "illegal action" in answer["message"]
                        refused_once = True
                    person.send(json.dumps({"choice": 0}))
        watcher.join(timeout=300)

    assert refused_once and match.result is not None and "error" not in match.result
    assert not match.result["ejected"], match.result
    assert {f["type"] for f in mine} <= FRAME_TYPES and {f["type"] for f in spectator_frames} <= FRAME_TYPES
    assert not states.leaks, states.leaks[:5]
    for viewer, frames in (("P1", mine), (None, spectator_frames)):
        shown = [{k: v for k, v in f.items() if k != "turn"} for f in frames if f["type"] == "state"]
        assert len(shown) > 1 and shown == states.frames[viewer]
        # prompts only ever reach the person at the seat, and offer its own tiles only
        prompts = [f for f in frames if f["type"] == "prompt" and f["choices"]]
        assert (viewer == "P1") == bool(prompts)
    if name != "q":
        return
    # every tile a prompt offers to place is in the person's own hand (its JPub's first player)
    hand: list[Any] = []
    for frame in mine:
        if frame["type"] == "state":
            hand = frame["view"]["players"][0]["tile*"]
        elif frame["type"] == "prompt" and frame["choices"]:
            placed = [p["1tile"] for c in frame["choices"] if isinstance(c["action"], list) for p in c["action"]]
            assert placed and all(tile in hand for tile in placed)


@pytest.mark.parametrize("name", [n for n, g in registry.games().items() if g.playable_by_people])
def test_a_person_plays_a_whole_game_of_every_game_people_can_play(room: tuple[MatchBook, int], name: str) -> None:
    """Over the websocket, taking the first legal action offered at every prompt: the game
    ends with no ejection, every prompt offers at least one action."""
    book, port = room
    game = registry.game(name)
    seats = ["human", *[next(iter(game.strategies))] * (game.min_players - 1)]
    account = signed_up(f"http://127.0.0.1:{port}", f"whole-{name}")
    match = book.start(MatchRequest.from_json({"game": name, "seats": seats, "seed": 6, "person_limit": 120},
                                              registry.games()), Owner("127.0.0.1", f"whole-{name}"))
    prompts = 0
    with sync_client.connect(f"ws://127.0.0.1:{port}/api/matches/{match.id}/ws?seat=P1&token={match.tokens['P1']}",
                             additional_headers=cookie_header(account)) as person:
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
