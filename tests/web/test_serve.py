"""Where ``gameroom web`` listens: this machine only, unless ``--public`` — then any
address (the room then also answers to any host name)."""

from __future__ import annotations

import subprocess

import httpx
import pytest

from driver import GAMEROOM, free_port
from tests.web.conftest import running_web


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "8.8.8.8"])
def test_listening_beyond_this_machine_needs_public(host: str) -> None:
    run = subprocess.run([*GAMEROOM, "web", "--port", str(free_port()), "--host", host], capture_output=True,
                         timeout=120)
    err = run.stderr.decode()
    assert run.returncode == 2 and err.count("\n") == 1, err
    assert err == (f"gameroom: error: --host {host} would serve beyond this machine: add --public to listen on a "
                   "network (the room then takes requests addressed to any host)\n")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_this_machine_needs_nothing(host: str) -> None:
    with running_web("--host", host) as server:
        assert server.get("/api/games")


def test_public_listens_on_every_address() -> None:
    with running_web("--host", "0.0.0.0", "--public") as server:
        assert server.get("/api/games")
        reply = httpx.get(server.url + "/api/games", headers={"host": "gameroom.example.org"})
        assert reply.status_code == 200
