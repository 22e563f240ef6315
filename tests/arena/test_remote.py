"""Remote bots: a participant registers one and gets its token; the bot (the example Python
client, run as its owner would, connecting again for every game) signs up with the token
on the arena's remote port, qualifies and plays on the ladder against an uploaded bot; a
wrong token is turned away. Accounts come from a CSV (``gameroom arena import``). A real
arena process, real sockets, a real SQLite file."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
from tests.arena.running import EXAMPLES, GAMEROOM, login, start_arena
from tests.driver import free_port


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    url, process = start_arena(tmp_path, f'listen = "127.0.0.1:{free_port()}"\nremote = "127.0.0.1:0"\n'
                                         'database = "sqlite:///arena.db"\n'
                                         '[[competitions]]\nname = "open"\ngame = "q"\nqualification = 1\n',
                               "username,password\nann,password-ann-1\nben,password-ben-1\n", "open")
    try:
        yield url, process, tmp_path
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)


def test_a_remote_bot_signs_up_with_its_token_and_plays_the_ladder(
        arena: tuple[str, subprocess.Popen[bytes], Path]) -> None:
    url, process, folder = arena
    ann = login(url, "ann", "password-ann-1")
    uploaded = ann.post("/api/arena/open/bots", params={"name": "nodey", "filename": "node_bot.js"},
                        content=(EXAMPLES / "node_bot.js").read_bytes())
    assert uploaded.status_code == 201, uploaded.text
    ben = login(url, "ben", "password-ben-1")
    registered = ben.post("/api/arena/open/remote", json={"name": "far"})
    assert registered.status_code == 201, registered.text
    token, port = registered.json()["token"], registered.json()["port"]
    assert ann.post("/api/arena/open/remote", json={"name": "far"}).status_code == 409   # ben's name

    with socket.create_connection(("127.0.0.1", port), timeout=30) as stranger:   # a wrong token
        stranger.sendall(json.dumps("not-the-token-at-all").encode() + b"\n")
        assert stranger.recv(100) == b""

    stop = threading.Event()

    def owner_runs_the_bot() -> None:   # as its owner would: a client per game, again and again
        while not stop.is_set():
            subprocess.run([sys.executable, str(EXAMPLES / "python_bot.py"), str(port), token],
                           env={**os.environ, "GAMEROOM_GAME": "q"}, capture_output=True, timeout=120)
            time.sleep(0.05)

    runner = threading.Thread(target=owner_runs_the_bot, daemon=True)
    runner.start()
    try:
        deadline = time.monotonic() + 240
        while True:
            page = ben.get("/api/arena/bots/far").json()
            ladder = [g for g in page["games"] if g["kind"] == "ladder"]
            if page["versions"][0]["status"] == "active" and len(ladder) >= 5:
                break
            assert page["versions"][0]["status"] != "failed", page["versions"][0]["log"]
            assert time.monotonic() < deadline, (page, (folder / "arena.log").read_text()[-3000:])
            time.sleep(0.5)
        assert all(sorted(g["seats"]) == ["far-v1", "nodey-v1"] for g in ladder)
        assert not any(g["ejected"] for g in ladder)
    finally:
        stop.set()
    process.send_signal(signal.SIGTERM)
    assert process.wait(120) == 0
    runner.join(150)
    verified = subprocess.run([*GAMEROOM, "replay", "verify", "--db", f"sqlite:///{folder / 'arena.db'}"],
                              capture_output=True, text=True, timeout=600)
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]
