"""Helpers of the journal's tests: ``gameroom lobby --state FILE`` as a real process that
can be killed (SIGKILL) or stopped (SIGTERM) and started again on the same port, and a
person of any game who plays deterministically (the same decision for the same question,
however often it is asked) and comes back to its seat with its reconnect secret whenever
the lobby goes away."""

from __future__ import annotations

import json
import random
import signal
import socket
import subprocess
import threading
import time
import zlib
from pathlib import Path
from typing import Any

from driver import free_port, spawn, wait_listening
from tests.lobby.rooms import RoomClient


# Generous bounds, in seconds, of what a loaded machine can take; they only end a test that
# hangs. (Counted tries once stood for them: 1,200 tries of 20 ms gave a lobby that resumes
# 25 rooms beside eight busy processes less than half a minute to start.)
STARTUP = 300   # a lobby process, started, until it listens
COMING_BACK = 300   # a person, from a lost connection until its seat is given back


class Restartable:
    """``gameroom lobby --state FILE`` on one port, killed and started again at will."""

    def __init__(self, tmp: Path, config: dict[str, Any], state: str | None = None, games: str | None = None) -> None:
        self.port = free_port()
        self.tmp = tmp
        self.config_path = tmp / f"lobby-{self.port}.json"
        self.config_path.write_text(json.dumps({"seed": 7, **config}))
        self.state = state if state is not None else str(tmp / f"journal-{self.port}.db")
        self.games = games
        self.env: dict[str, str] | None = None   # the environment of the next start (None: the tests')
        self.starts = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.logs: list[Path] = []
        self.start()

    def start(self) -> None:
        self.starts += 1
        log = self.tmp / f"lobby-{self.port}-{self.starts}.log"
        self.logs.append(log)
        args = ["lobby", "--port", str(self.port), "--config", str(self.config_path), "--state", self.state,
                *(["--games", self.games] if self.games else [])]
        with log.open("wb") as err:
            self.proc = spawn(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=self.env)
        self.wait_listening()

    def wait_listening(self) -> None:
        """Until the lobby listens: however long a loaded machine takes to start it and
        resume its rooms (up to ``STARTUP`` seconds), or it exits."""
        assert self.proc is not None
        if not wait_listening(self.proc, self.port, STARTUP):
            raise AssertionError(f"the lobby did not start: {self.log()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL, and wait for it to be gone."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=60)

    def terminate(self) -> int:
        """SIGTERM; its exit status."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)

    def log(self) -> str:
        return "\n".join(path.read_text(errors="replace") for path in self.logs if path.exists())

    def stop(self) -> str:
        if self.proc is not None and self.proc.poll() is None:
            self.terminate()
        return self.log()


def choice(question: Any, moves: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    """The move a deterministic person takes for ``question`` (the same each time it is asked)."""
    key = zlib.crc32(json.dumps(question, sort_keys=True).encode()) ^ seed
    return random.Random(key).choice(moves)


class Person:
    """A person's seat played in a thread: it answers every decision deterministically,
    comes back with its secret whenever its connection is lost, and keeps its record:
    the game's end and its moves (each decision by what it answered: the call, or the
    state it was asked in — a decision asked again after a restart is the same one)."""

    def __init__(self, lobby: Restartable, name: str, seed: int) -> None:
        self.lobby, self.name, self.seed = lobby, name, seed
        self.client = self._connect()
        ack = self.client.request({"type": "LOGIN", "username": name, "secret": True}, "ACK")
        assert ack["type"] == "ACK", ack
        self.secret = ack["secret"]
        self.decisions = 0
        self.end: dict[str, Any] | None = None
        self.moves: dict[str, Any] = {}
        self.returns = 0
        self.error: BaseException | None = None
        self.thread: threading.Thread | None = None

    def _connect(self) -> RoomClient:
        deadline = time.monotonic() + COMING_BACK
        while True:
            try:
                return RoomClient(socket.create_connection(("127.0.0.1", self.lobby.port), timeout=120))
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError("the lobby did not come back") from None
                time.sleep(0.02)

    def seat(self, game: str, players: int, bot: str) -> int:
        """A room of ``game`` with house bots in the other seats (the game starts)."""
        c = self.client
        room = c.request({"type": "CREATE_ROOM", "game": game, "numberOfPlayers": players, "isPrivate": True,
                          "person": True, "views": True}, "ROOM_ID")["id"]
        self.kept: list[Any] = []
        for _ in range(players - 1):
            c.send({"type": "ADD_BOT", "strategy": bot})
            *before, ack = c.until("ACK", "NACK")
            assert ack == {"type": "ACK"}, ack
            self.kept += before
        return room

    def play(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _recv(self) -> Any:
        return self.kept.pop(0) if self.kept else self.client.recv()

    def _run(self) -> None:
        try:
            while self.end is None:
                m = self._recv()
                if m is None:
                    self._come_back()
                    continue
                self._heard(m)
        except BaseException as exc:   # noqa: BLE001 -- the test reads it
            self.error = exc

    def _heard(self, m: dict[str, Any]) -> None:
        kind = m.get("type")
        if kind == "END_GAME":
            self.end = m
        elif kind == "PLAYER_DISCONNECT" and m.get("username") == self.name:
            self.end = m
        elif kind == "CALL" and not m.get("oneWay"):
            move = choice(m["call"], m["moves"], self.seed)
            self.moves[f"call {m['call']}"] = move["action"]
            self._send({"type": "REPLY", "call": m["call"], "result": move["action"]})
        elif kind == "GAME_STATE" and m.get("moves"):
            move = choice(m["state"], m["moves"], self.seed)
            self.moves[f"state {zlib.crc32(json.dumps(m['state'], sort_keys=True).encode())}"] = move["action"]
            self._send({"type": "GAME_EVENT", **move["action"]})

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self.client.send(message)
            self.decisions += 1
        except OSError:
            pass   # the lobby is gone: the next read says so

    def _come_back(self) -> None:
        """Log in again with the secret until the lobby (started again) gives the seat back."""
        self.client.close()
        deadline = time.monotonic() + COMING_BACK
        while time.monotonic() < deadline:
            try:
                client = self._connect()
                client.send({"type": "LOGIN", "username": self.name, "secret": self.secret})
                answer = client.recv()
            except OSError:
                answer = None
            if answer is not None and answer.get("type") == "ACK":
                self.client, self.returns = client, self.returns + 1
                return
            if answer is not None:
                assert answer.get("errorMessage") == "Username was already taken", answer
            client.close()
            time.sleep(0.02)
        raise AssertionError(f"{self.name} could not come back")

    def record(self) -> dict[str, Any]:
        assert self.end is not None
        return {"end": self.end, "moves": self.moves}
