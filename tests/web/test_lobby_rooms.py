"""The lobby page's Eriantys rooms: a real lobby server (``gameroom serve eriantys``), a
player who opened a public room over TCP, and ``/api/lobby`` of a ``gameroom web
--lobby`` listing that room with its seated players."""

from __future__ import annotations

import json
import socket
import subprocess
import time

from driver import GAMEROOM, free_port
from tests.web.conftest import WebServer


def test_the_lobby_servers_rooms_are_listed_with_their_players(tmp_path) -> None:
    lobby_port, web_port = free_port(), free_port()
    lobby = subprocess.Popen([*GAMEROOM, "serve", "eriantys", "--port", str(lobby_port), "--host", "127.0.0.1",
                              "--quiet"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    web = subprocess.Popen([*GAMEROOM, "web", "--port", str(web_port), "--lobby", f"127.0.0.1:{lobby_port}"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert "serving on" in web.stdout.readline().decode()   # type: ignore[union-attr]
        for _ in range(600):
            try:
                player = socket.create_connection(("127.0.0.1", lobby_port), timeout=60)
                break
            except OSError:
                time.sleep(0.1)
        with player:
            player.sendall(json.dumps({"type": "LOGIN", "username": "alice"}).encode())
            player.sendall(json.dumps({"type": "CREATE_ROOM", "numberOfPlayers": 3, "expert": True,
                                       "isPrivate": False}).encode())
            received = b""
            while b"ROOM_ID" not in received:
                received += player.recv(1 << 16)
            server = WebServer(web_port, web)
            answer = server.get("/api/lobby")
            assert answer["server"] == f"127.0.0.1:{lobby_port}" and "error" not in answer, answer
            [room] = answer["rooms"]
            assert "expert, 3 players" in room["name"] and room["players"] == ["1 of 3 seated"]
    finally:
        for process in (web, lobby):
            process.terminate()
            process.wait(timeout=30)


def test_a_bad_lobby_address_is_one_error_line() -> None:
    run = subprocess.run([*GAMEROOM, "web", "--port", str(free_port()), "--lobby", "nowhere"],
                         capture_output=True, timeout=120)
    assert run.returncode == 2 and run.stderr.decode() == "gameroom: error: --lobby must be HOST:PORT, got 'nowhere'\n"
