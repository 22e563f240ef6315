"""Helpers of the lobby's rooms tests: ``gameroom lobby`` as a real process on a free port,
and a client of docs/lobby.md on a real socket that plays a person's seat from the
moves the lobby offers (knowing nothing of the games but their names)."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from driver import GAMEROOM, free_port, spawn
from gameroom.bench.processes import status_kb
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, encode


class LobbyProcess:
    """``gameroom lobby --port P --config FILE [--games ...]``, stopped by :meth:`stop`."""

    def __init__(self, tmp: Path, config: dict[str, Any] | None = None, games: str | None = None,
                 command: list[str] | None = None, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        path = tmp / f"lobby-{self.port}.json"
        path.write_text(json.dumps({"seed": 7, **(config or {})}))
        args = ["lobby", "--port", str(self.port), "--config", str(path), *(["--games", games] if games else [])]
        self.log = tmp / f"lobby-{self.port}.log"   # a file: a pipe nobody reads would fill and stop the lobby
        with self.log.open("wb") as err:
            if command is not None:   # another interpreter's gameroom (a plug-in's venv)
                self.proc = subprocess.Popen([*command, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                             stderr=err, env=env)
            else:
                self.proc = spawn(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)

    def connect(self, name: str | None = None) -> "RoomClient":
        for _ in range(600):
            try:
                client = RoomClient(socket.create_connection(("127.0.0.1", self.port), timeout=120))
                break
            except OSError:
                if self.proc.poll() is not None:
                    raise AssertionError(f"the lobby exited: {self.log.read_text()}") from None
                time.sleep(0.05)
        else:
            raise AssertionError("the lobby did not start")
        if name is not None:
            client.login(name)
        return client

    def stop(self) -> str:
        """Stop the lobby; what it logged."""
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)
        return self.log.read_text()


class ServedLobby:
    """``gameroom serve eriantys`` on a free port with a configuration (and ``extra``
    flags), its diagnostics kept in a file (a pipe nobody reads would fill and stop it);
    its clients see the keep-alive's PINGs (``pongs=False``)."""

    def __init__(self, tmp: Path, config: dict[str, Any], extra: list[str] | None = None) -> None:
        self.port = free_port()
        (tmp / "lobby.json").write_text(json.dumps(config))
        self.log_path = tmp / "lobby.log"
        self.log_file = self.log_path.open("wb")
        self.proc = subprocess.Popen(GAMEROOM + ["serve", "eriantys", "--port", str(self.port), "--config",
                                                 str(tmp / "lobby.json"), *(extra or [])], stdout=subprocess.DEVNULL,
                                     stderr=self.log_file, cwd=tmp)
        self.connect().sock.close()   # up and listening

    def connect(self, source: str = "127.0.0.1") -> RoomClient:
        for _ in range(600):
            try:
                return RoomClient(socket.create_connection(("127.0.0.1", self.port), timeout=120,
                                                           source_address=(source, 0)), pongs=False)
            except OSError:
                assert self.proc.poll() is None, self.log()
                time.sleep(0.05)
        raise AssertionError("the lobby did not start")

    def peak_rss_kb(self) -> int:
        """The server process's peak resident memory (VmHWM) so far."""
        peak = status_kb(self.proc.pid, "VmHWM")
        assert peak is not None, "no VmHWM in /proc"
        return peak

    def log(self) -> str:
        self.log_file.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> str:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.log_file.close()
        return self.log_path.read_text(errors="replace")


class Conversation:
    """A client of the lobby's messages: ``send`` and ``recv`` (None once closed) given,
    ``until`` and ``request`` made of them (a TCP client here, a browser's websocket in
    ``tests.web.test_lobby_socket``)."""

    def send(self, message: Any) -> None:
        raise NotImplementedError

    def recv(self) -> Any:
        raise NotImplementedError

    def until(self, *kinds: str) -> list[Any]:
        """Every message up to and including the first of one of ``kinds``."""
        got = []
        while True:
            m = self.recv()
            assert m is not None, f"closed before {kinds}: {[g.get('type') for g in got[-20:]]}"
            got.append(m)
            if m.get("type") in kinds:
                return got

    def request(self, message: dict[str, Any], *replies: str) -> dict[str, Any]:
        self.send(message)
        return self.until(*replies, "NACK")[-1]


class RoomClient(Conversation):
    """One connection: messages out, messages in (answering PING unless ``pongs`` is
    False: a test of the keep-alive sees the PINGs), in order."""

    def __init__(self, sock: socket.socket, pongs: bool = True) -> None:
        self.sock = sock
        self.decoder = JSONStreamDecoder(1 << 24)
        self.name = ""
        self.pongs = pongs

    def send(self, message: Any) -> None:
        self.sock.sendall(encode(message))

    def recv(self) -> Any:
        """The next message, or None when the server closed the connection."""
        while True:
            value = self.decoder.next_value()
            if value is not NEED_MORE:
                if self.pongs and isinstance(value, dict) and value.get("type") == "PING":
                    self.send({"type": "PONG"})
                    continue
                return value
            try:
                data = self.sock.recv(1 << 16)
            except (ConnectionResetError, socket.timeout):
                data = b""
            if not data:
                return None
            self.decoder.feed(data)

    def login(self, name: str) -> None:
        self.name = name
        assert self.request({"type": "LOGIN", "username": name}, "ACK") == {"type": "ACK"}

    def close(self) -> None:
        self.sock.close()


class Recording(RoomClient):
    """A logged-in client that keeps every message it reads (the others' departures a
    scripted person does not stop for)."""

    def __init__(self, client: RoomClient) -> None:
        super().__init__(client.sock)
        self.decoder, self.name = client.decoder, client.name
        self.seen: list[Any] = []

    def recv(self) -> Any:
        m = super().recv()
        self.seen.append(m)
        return m


def play_person(client: RoomClient, rng: random.Random, refuse_first: Any = None) -> dict[str, Any]:
    """Play a person's seat to the end of the game from the moves offered: at the first
    decision first an answer the lobby must refuse (``refuse_first``, or one the game's
    codec cannot read), then offered moves at random. What happened: the refusals, the
    decisions taken, the states seen, the calls only told, the end (END_GAME, or the
    seat's own PLAYER_DISCONNECT)."""
    seen: dict[str, Any] = {"refusals": [], "decisions": 0, "states": [], "told": 0, "end": None}
    while True:
        m = client.recv()
        assert m is not None, f"the lobby hung up during the game: {seen}"
        kind = m["type"]
        if kind == "GAME_STATE":
            seen["states"].append(m)
        elif kind == "CALL" and m.get("oneWay"):
            seen["told"] += 1
        elif kind == "CALL":
            assert m["moves"], m
            if seen["decisions"] == 0 and not seen["refusals"]:
                wrong = refuse_first if refuse_first is not None else {"not": "a move of any game"}
                seen["refusals"].append(client.request({"type": "REPLY", "call": m["call"], "result": wrong},
                                                       "ACK"))
            move = rng.choice(m["moves"])
            reply = client.request({"type": "REPLY", "call": m["call"], "result": move["action"]}, "ACK")
            assert reply == {"type": "ACK"}, (reply, m)
            seen["decisions"] += 1
        elif kind == "END_GAME" or kind == "PLAYER_DISCONNECT" and m["username"] == client.name:
            seen["end"] = m
            return seen
