"""A person mid-game when the lobby and the web room are killed (SIGKILL) and started again
(docs/guides/operators.md, "Restarts"): in a real Chromium, a person plays a room of Q
(played by calls) and of Eriantys (played by events) against a house bot; both servers die
while its decision waits; the lobby starts again from its journal (``--state``), the web
room from its database and its session secret; the page says the connection was lost,
reconnects by itself, gets its seat back through its account and finishes the game.

The web room's own matches (``POST /api/matches``) are journaled in its database: a person
playing one over its websocket against a built-in strategy, the room killed in the middle
and started again, finishes the match exactly as the same match played without a stop."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import threading
import time
import zlib
from pathlib import Path
from typing import Any, Iterator

import pytest

from driver import GAMEROOM, free_port
from tests.lobby.journaled import Restartable
from tests.web.conftest import LOBBY_SECRET, cookie_header, sign_up
from tests.web.test_boards import moves_then_a_decision, page_of, play_on_the_board, seat_link, start

LOBBY_CONFIG = {"relayAddresses": ["127.0.0.1"], "relaySecret": LOBBY_SECRET, "callTimeoutSeconds": 60,
                "personTimeoutSeconds": 600, "turnTimeoutSeconds": 600, "reconnectGraceSeconds": 600}


class RestartableWeb:
    """``gameroom web`` on one port with a database and a session secret, killed and
    started again at will."""

    def __init__(self, tmp: Path, lobby_port: int | None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = tmp / "web.db"
        (tmp / "lobby-secret").write_text(LOBBY_SECRET)
        (tmp / "session-secret").write_text("a session secret of this test, long enough")
        lobby = [] if lobby_port is None else ["--lobby", f"127.0.0.1:{lobby_port}", "--lobby-secret-file",
                                               str(tmp / "lobby-secret")]
        self.args = [*GAMEROOM, "web", "--port", str(self.port), *lobby, "--db", f"sqlite:///{self.db}",
                     "--secret-file", str(tmp / "session-secret")]
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        with (self.tmp / "web.log").open("ab") as err:
            self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=err)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        assert "serving on" in line, (line, (self.tmp / "web.log").read_text())

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=60)

    def stop(self) -> str:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)
        return self.log()

    def log(self) -> str:
        path = self.tmp / "web.log"
        return path.read_text(errors="replace") if path.exists() else ""


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[Restartable, RestartableWeb]]:
    lobby = Restartable(tmp_path, LOBBY_CONFIG)
    web = RestartableWeb(tmp_path, lobby.port)
    try:
        yield lobby, web
    finally:
        web.stop()
        lobby.stop()


@pytest.mark.parametrize(("game", "bot"), [("q", "dag"), ("eriantys", "greedy")])
def test_a_person_finishes_the_game_after_the_lobby_and_the_web_room_are_killed_and_restarted(
        servers: tuple[Restartable, RestartableWeb], browser: Any, game: str, bot: str) -> None:
    lobby, web = servers
    context, page, errors = page_of(browser, "laptop")
    try:
        sign_up(page, web.url, f"kill{game}")
        page.goto(f"{web.url}/rooms/new?game={game}&players=2&bots={bot}")
        page.wait_for_selector("#picture svg")
        moves_then_a_decision(page)
        lobby.kill()
        web.kill()
        page.wait_for_selector("#status:has-text('reconnecting')")   # the page says so
        lobby.start()
        web.start()
        page.wait_for_selector("body[data-rejoined='1']", timeout=300_000)   # back by itself, its seat given back
        page.wait_for_selector("#picture .target, #buttons button", timeout=300_000)
        play_on_the_board(page, game)
        assert page.inner_text("#winners").startswith("winners:")
        assert "stopped" not in page.inner_text("#winners")
    finally:
        context.close()
    assert not errors, errors
    assert "resumed 1 room(s)" in lobby.log()


# -- the web room's own matches -------------------------------------------------------------

sync_client = pytest.importorskip("websockets.sync.client")
GAME, BOT, SEED = "fish", "greedy", 11   # a game of a dozen or so decisions for the person


def _choice(prompt: dict[str, Any]) -> int:
    """The person's choice for a prompt: the same each time the same decision is asked."""
    key = json.dumps([prompt["method"], prompt["choices"]], sort_keys=True).encode()
    return zlib.crc32(key) % len(prompt["choices"])


class SeatedPerson:
    """A person at seat P1 of a web match, over its websocket (as the page plays it): it
    answers every prompt deterministically, and when the connection is lost it connects
    again (the room started again) until the match ends."""

    def __init__(self, web: RestartableWeb, session: Any, match: str, token: str) -> None:
        self.web, self.session, self.match, self.token = web, session, match, token
        self.answers = 0
        self.end: dict[str, Any] | None = None
        self.connections = 0
        self.frames: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self.deadline = time.monotonic() + 600
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while self.end is None:
                self._connection()
        except BaseException as exc:   # noqa: BLE001 -- the test reads it
            self.error = exc

    def _connection(self) -> None:
        url = self.web.url.replace("http://", "ws://") + f"/api/matches/{self.match}/ws?seat=P1&token={self.token}"
        try:
            client = sync_client.connect(url, additional_headers=cookie_header(self.session), open_timeout=5)
        except Exception:   # noqa: BLE001 -- the room is down or dying: try again (as the page does)
            assert time.monotonic() < self.deadline, "the room did not come back"
            time.sleep(0.1)
            return
        self.connections += 1
        try:
            with client:
                while True:
                    frame = json.loads(client.recv(timeout=600))
                    self.frames.append(frame)
                    assert frame["type"] not in ("error", "refused"), frame
                    if frame["type"] == "end":
                        self.end = frame
                        return
                    if frame["type"] == "prompt" and frame["choices"]:
                        client.send(json.dumps({"choice": _choice(frame)}))
                        self.answers += 1
        except Exception as exc:   # noqa: BLE001 -- the room was killed: connect again
            if "ConnectionClosed" not in type(exc).__name__:
                raise

    def finish(self) -> dict[str, Any]:
        self.thread.join(timeout=600)
        assert self.error is None, self.error
        assert self.end is not None
        return self.end


def _web_match(web: RestartableWeb, name: str, kill_after: int | None) -> tuple[dict[str, Any], str, SeatedPerson]:
    """A match of ``GAME`` between a person and ``BOT``, killed (SIGKILL) and started again
    once the person sent ``kill_after`` answers; its end, its replay and the person."""
    from tests.web.conftest import signed_up

    session = signed_up(web.url, name)
    started = session.post("/api/matches", json={"game": GAME, "seats": ["human", BOT], "seed": SEED,
                                                 "person_limit": 600, "time_limit": 60})
    assert started.status_code == 201, started.text
    match, token = started.json()["id"], started.json()["tokens"]["P1"]
    person = SeatedPerson(web, session, match, token)
    if kill_after is not None:
        deadline = time.monotonic() + 300
        while person.answers < kill_after:
            assert person.end is None and person.error is None, (person.end, person.error)
            assert time.monotonic() < deadline, "the person was not asked"
            time.sleep(0.005)
        web.kill()   # its answer sent, maybe journaled, maybe not: either way it ends the same
        assert sqlite3.connect(web.db).execute("SELECT COUNT(*) FROM journal_rooms WHERE scope = 'web'"
                                               ).fetchone() == (1,)
        for file in (web.db, Path(f"{web.db}-wal")):   # the seat's token is kept as its digest only
            assert not file.exists() or token.encode() not in file.read_bytes(), file
        web.start()
    end = person.finish()
    replay = session.get(f"/api/matches/{match}/replay")
    assert replay.status_code == 200, replay.text
    return end, replay.text, person


def test_a_web_match_killed_in_the_middle_ends_as_the_uninterrupted_match(tmp_path: Path) -> None:
    (tmp_path / "calm").mkdir()
    (tmp_path / "killed").mkdir()
    calm = RestartableWeb(tmp_path / "calm", None)
    try:
        expected_end, expected_replay, _ = _web_match(calm, "calmperson", None)
    finally:
        calm.stop()
    web = RestartableWeb(tmp_path / "killed", None)
    try:
        end, replay, person = _web_match(web, "killedperson", 3)
    finally:
        log = web.stop()
    assert "resumed 1 match(es) from the journal" in log and "Traceback" not in log, log
    assert person.connections == 2
    assert end == expected_end and "error" not in end["result"], (end, expected_end)
    assert replay == expected_replay   # every state of the game, frame for frame
    with sqlite3.connect(web.db) as db:
        assert db.execute("SELECT COUNT(*) FROM journal_rooms").fetchone() == (0,)   # it left when it ended
        assert db.execute("SELECT COUNT(*) FROM journal_entries").fetchone() == (0,)
        assert db.execute("SELECT COUNT(*) FROM games WHERE tournament = 'web room'").fetchone() == (1,)


def test_a_match_page_reconnects_by_itself_when_the_web_room_is_killed(tmp_path: Path, browser: Any) -> None:
    """In a real Chromium, a person plays a web match of Fish against a built-in strategy;
    the room is killed while the person's decision waits and started again: the page says
    it is reconnecting, comes back by itself to the seat, and the person finishes the match."""
    web = RestartableWeb(tmp_path, None)
    context, page, errors = page_of(browser, "laptop")
    try:
        sign_up(page, web.url, "pagekill")
        page.goto(seat_link(web.url, start(page, GAME, ["human", BOT], seed=SEED), "P1"))
        page.wait_for_selector("#picture svg")
        moves_then_a_decision(page)
        web.kill()
        page.wait_for_selector("#status:has-text('reconnecting')")   # the page says so
        web.start()
        page.wait_for_selector("#status:has-text('running')", timeout=300_000)   # back by itself
        play_on_the_board(page, GAME)
        assert page.inner_text("#winners").startswith("winners:")
        assert "error" not in page.inner_text("#winners")
    finally:
        context.close()
        log = web.stop()
    assert not errors, errors
    assert "resumed 1 match(es) from the journal" in log, log
