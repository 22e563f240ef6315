"""A person mid-game when the lobby and the web room are killed (SIGKILL) and started again
(docs/guides/operators.md, "Restarts"): in a real Chromium, a person plays a room of Q
(played by calls) and of Eriantys (played by events) against a house bot; both servers die
while its decision waits; the lobby starts again from its journal (``--state``), the web
room from its database and its session secret; the page says the connection was lost,
reconnects by itself, gets its seat back through its account and finishes the game."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest

from driver import GAMEROOM, free_port
from tests.lobby.journaled import Restartable
from tests.web.conftest import LOBBY_SECRET, sign_up
from tests.web.test_boards import click_move, page_of, play_on_the_board

LOBBY_CONFIG = {"relayAddresses": ["127.0.0.1"], "relaySecret": LOBBY_SECRET, "callTimeoutSeconds": 60,
                "personTimeoutSeconds": 600, "turnTimeoutSeconds": 600, "reconnectGraceSeconds": 600}


class RestartableWeb:
    """``gameroom web`` on one port with a database and a session secret, killed and
    started again at will."""

    def __init__(self, tmp: Path, lobby_port: int) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        (tmp / "lobby-secret").write_text(LOBBY_SECRET)
        (tmp / "session-secret").write_text("a session secret of this test, long enough")
        self.args = [*GAMEROOM, "web", "--port", str(self.port), "--lobby", f"127.0.0.1:{lobby_port}",
                     "--lobby-secret-file", str(tmp / "lobby-secret"), "--db", f"sqlite:///{tmp / 'web.db'}",
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

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[Restartable, RestartableWeb]]:
    lobby = Restartable(tmp_path, LOBBY_CONFIG)
    web = RestartableWeb(tmp_path, lobby.port)
    try:
        yield lobby, web
    finally:
        web.stop()
        lobby.stop()


def _sent(page: Any) -> int:
    return int(page.evaluate("() => document.body.dataset.sent || '0'"))


@pytest.mark.parametrize(("game", "bot"), [("q", "dag"), ("eriantys", "greedy")])
def test_a_person_finishes_the_game_after_the_lobby_and_the_web_room_are_killed_and_restarted(
        servers: tuple[Restartable, RestartableWeb], browser: Any, game: str, bot: str) -> None:
    lobby, web = servers
    context, page, errors = page_of(browser, "laptop")
    try:
        sign_up(page, web.url, f"kill{game}")
        page.goto(f"{web.url}/rooms/new?game={game}&players=2&bots={bot}")
        page.wait_for_selector("#picture svg")
        for _ in range(500):   # two moves on the board, then the page waits on the next decision
            if _sent(page) >= 2:
                break
            page.wait_for_selector("#picture .target, #buttons button", timeout=300_000)
            try:
                click_move(page)
            except Exception:   # noqa: BLE001 - the board changed under the click: look again
                continue
        assert _sent(page) >= 2
        page.wait_for_selector("#picture .target, #buttons button", timeout=300_000)
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
