"""A real arena process for the arena's tests: accounts imported from a CSV (``gameroom
arena import``), ``gameroom arena --config`` started with its log in the test's folder and
awaited until its pages answer, and a logged-in HTTP client."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"
GAMEROOM = [sys.executable, "-m", "gameroom"]


def start_arena(folder: Path, config_text: str, accounts: str, competition: str,
                seconds: float = 120) -> tuple[str, subprocess.Popen[bytes]]:
    """Write ``arena.toml`` (``config_text``) and ``accounts.csv`` in ``folder``, import the
    accounts into ``competition``, start the arena and wait (up to ``seconds``) until it
    answers: its URL and process (logging to ``folder/arena.log``)."""
    config = folder / "arena.toml"
    config.write_text(config_text)
    (folder / "accounts.csv").write_text(accounts)
    imported = subprocess.run([*GAMEROOM, "arena", "import", str(folder / "accounts.csv"), "--competition",
                               competition, "--config", str(config)], capture_output=True, text=True, timeout=300)
    assert imported.returncode == 0, imported.stderr
    rows = [line for line in accounts.splitlines() if line.strip() and line != "username,password"]
    assert f"{len(rows)} accounts are participants of {competition}" in imported.stdout, imported.stdout
    log = open(folder / "arena.log", "wb")
    process = subprocess.Popen([*GAMEROOM, "arena", "--config", str(config)], stdout=log, stderr=log, cwd=folder)
    log.close()   # the child holds its own copy
    url = listen_url(config_text)
    deadline = time.monotonic() + seconds
    while True:
        try:
            httpx.get(f"{url}/api/arena", timeout=10)
            return url, process
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                process.wait(30)
                raise AssertionError((folder / "arena.log").read_text()) from None
            time.sleep(0.3)


def wait_for(what: str, check: Any, process: subprocess.Popen[bytes], log: Path, seconds: float = 240) -> Any:
    """What ``check()`` returns once it is true, looked at every 0.3 s; an AssertionError
    with the arena's log when the arena ends first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        if process.poll() is not None:
            raise AssertionError(f"the arena ended while waiting for {what}: {log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {seconds} s: {log.read_text()[-3000:]}")
        time.sleep(0.3)


def listen_url(config_text: str) -> str:
    import tomllib

    return f"http://{tomllib.loads(config_text)['listen']}"


def login(url: str, name: str, password: str) -> httpx.Client:
    """A client logged in as ``name`` (the origin header the guard asks of writes)."""
    client = httpx.Client(base_url=url, headers={"origin": url}, timeout=60)
    assert client.post("/api/login", json={"username": name, "password": password}).status_code == 200
    return client


def competition_text(game: str, options: str, players: int = 2) -> str:
    """An arena.toml of one competition of ``game`` whose ``[competitions.options]`` table
    is ``options`` (TOML lines)."""
    return (f'database = "sqlite:///a.db"\n[[competitions]]\nname = "c"\ngame = "{game}"\nplayers = {players}\n'
            f'[competitions.options]\n{options}\n')
