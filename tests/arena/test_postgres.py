"""The arena on PostgreSQL (the tests' private server, ``tests/conftest.py``): the migrations make its
tables, the ladder writes its games there, and ``recompute`` — run while the ladder goes
on, in one REPEATABLE READ snapshot — finds the standings equal to the games."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from tests.arena.running import EXAMPLES, GAMEROOM, login, start_arena
from tests.driver import free_port


def test_an_arena_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    url, process = start_arena(tmp_path, f'listen = "127.0.0.1:{free_port()}"\ndatabase = "{postgres_url}"\n'
                                         '[[competitions]]\nname = "pg"\ngame = "q"\nqualification = 1\n',
                               "ann,password-ann-1\n", "pg")
    config = tmp_path / "arena.toml"
    try:
        client = login(url, "ann", "password-ann-1")
        for name, file in (("py", "python_bot.py"), ("js", "node_bot.js")):
            made = client.post("/api/arena/pg/bots", params={"name": name, "filename": file},
                               content=(EXAMPLES / file).read_bytes())
            assert made.status_code == 201, made.text
        deadline = time.monotonic() + 240
        while client.get("/api/arena").json()["competitions"][0]["games"] < 15:
            assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "arena.log").read_text()[-3000:]
            time.sleep(0.5)
        live = subprocess.run([*GAMEROOM, "arena", "recompute", "--config", str(config)], capture_output=True,
                              text=True, timeout=300)
        assert live.returncode == 0, live.stdout + live.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(120) == 0
    verified = subprocess.run([*GAMEROOM, "replay", "verify", "--db", postgres_url], capture_output=True, text=True,
                              timeout=600)
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]
