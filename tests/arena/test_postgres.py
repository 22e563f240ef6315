"""The arena on PostgreSQL (the tests' private server, ``tests/conftest.py``): the migrations make its
tables, the ladder writes its games there, and ``recompute`` — run while the ladder goes
on, in one REPEATABLE READ snapshot — finds the standings equal to the games."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from tests.driver import free_port

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"
GAMEROOM = [sys.executable, "-m", "gameroom"]


def test_an_arena_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "arena.toml"
    config.write_text(f'listen = "127.0.0.1:{port}"\ndatabase = "{postgres_url}"\n'
                      '[[competitions]]\nname = "pg"\ngame = "q"\nqualification = 1\n')
    (tmp_path / "people.csv").write_text("ann,password-ann-1\n")
    imported = subprocess.run([*GAMEROOM, "arena", "import", str(tmp_path / "people.csv"), "--competition", "pg",
                               "--config", str(config)], capture_output=True, text=True, timeout=300)
    assert imported.returncode == 0, imported.stderr
    log = open(tmp_path / "arena.log", "wb")
    process = subprocess.Popen([*GAMEROOM, "arena", "--config", str(config)], stdout=log, stderr=log, cwd=tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"{url}/api/arena", timeout=10)
                break
            except httpx.HTTPError:
                assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "arena.log").read_text()
                time.sleep(0.3)
        client = httpx.Client(base_url=url, headers={"origin": url}, timeout=60)
        assert client.post("/api/login", json={"username": "ann", "password": "password-ann-1"}).status_code == 200
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
