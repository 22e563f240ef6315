"""Replays of games a server plan or a tournament deals (``serve|tournament --replay``):
``replay verify`` runs each recorded session again through the same command, with every
seat answered from the file, and names a difference in an altered file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.driver import free_port, wait_listening
from tests.league.conftest import EXAMPLES, GAMEROOM, gameroom


def _altered(replay: Path, method: str, reply: object, out: Path) -> None:
    """A copy of ``replay`` with the first answered ``method`` call's reply replaced."""
    rows = [json.loads(line) for line in replay.read_text().splitlines()]
    at = next(i for i, row in enumerate(rows) if row.get("method") == method and row.get("reply") not in (None, reply))
    rows[at]["reply"] = reply
    out.write_text("".join(json.dumps(row) + "\n" for row in rows))


def _serve(game: str, clients: list[list[str]], replay: Path, stdin: str = "") -> str:
    port = free_port()
    errors = tempfile.TemporaryFile(mode="w+")   # a file, not a pipe: read once it has ended
    server = subprocess.Popen([*GAMEROOM, "serve", game, "--port", str(port), "--replay", str(replay)],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors, text=True)
    server.stdin.write(stdin)
    server.stdin.close()
    # the example clients do not retry a refused connection: only once the server listens
    assert wait_listening(server, port), "the server never listened"
    env = {**os.environ, "GAMEROOM_GAME": game}
    started = [subprocess.Popen([arg.replace("{port}", str(port)) for arg in argv], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for argv in clients]
    try:
        # Bounded: Evolution's server waits for its quorum however long (spec 7.1), so a
        # client that could not play would otherwise hold this test for ever.
        server.wait(600)
    finally:
        for process in (server, *started):
            if process.poll() is None:
                process.kill()
            process.wait()
    errors.seek(0)
    err = errors.read()
    errors.close()
    assert server.returncode == 0, err
    return err


@pytest.mark.parametrize("game, players, method, bad", [("bazaar", 2, "request-cards", [["red"]]),
                                                        ("evolution", 3, "choose", [9, [], [], [], []])])
def test_served_game_replay_verifies(game: str, players: int, method: str, bad: object, tmp_path: Path) -> None:
    """``serve --replay`` (the example clients as remote players; no --seed: the server's
    clock seed is recorded) verifies; an altered reply is found."""
    replay = tmp_path / "served.jsonl"
    clients = [[sys.executable, str(EXAMPLES / "python_bot.py"), "{port}", f"C{i}"] for i in range(players - 1)]
    clients.append(["perl", str(EXAMPLES / "perl_bot.pl"), "{port}", "Perl"])
    assert "1 replay written" in _serve(game, clients, replay)
    header = json.loads(replay.read_text().splitlines()[0])
    assert header["seed"] is None and header["config"]["session"]["mode"] == "serve"
    assert isinstance(header["config"]["session"]["options"]["seed"], int)
    shown = gameroom("replay", "show", str(replay))
    assert shown.returncode == 0 and f"call {method}" in shown.stdout and "winners:" in shown.stdout
    verify = gameroom("replay", "verify", str(replay))
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stderr
    _altered(replay, method, bad, tmp_path / "altered.jsonl")
    bad_run = gameroom("replay", "verify", str(tmp_path / "altered.jsonl"))
    assert bad_run.returncode == 1 and "differs from the rules" in bad_run.stderr


def test_fish_tournament_replays_verify(tmp_path: Path) -> None:
    """``tournament fish --replay`` writes every game and the tournament's own start and
    end calls; the whole file verifies, an altered move is found."""
    replay = tmp_path / "cup.jsonl"
    run = gameroom("tournament", "fish", "--players", "7", "--baddie", "bad-turn-choice", "--seed", "3",
                   "--replay", str(replay))
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in replay.read_text().splitlines() if '"config"' in line]
    assert len(records) >= 4 and {r["config"]["session"]["mode"] for r in records} == {"tournament"}
    assert any(len(r["seats"]) == 8 for r in records)   # the start and end of the tournament
    verify = gameroom("replay", "verify", str(replay))
    assert verify.returncode == 0, verify.stderr
    assert f"{len(records)} of {len(records)} replays verified" in verify.stdout
    _altered(replay, "take-turn", False, tmp_path / "altered.jsonl")
    assert gameroom("replay", "verify", str(tmp_path / "altered.jsonl")).returncode == 1


def test_fish_served_tournament_replays_verify(tmp_path: Path) -> None:
    """``serve fish --replay``: the server's knock-out tournament between remote clients."""
    replay = tmp_path / "served-cup.jsonl"
    port = free_port()
    # The five start the tournament whenever they come (many periods); limits nobody misses
    # on a loaded machine (a client dropped out would fail the clients command).
    config = json.dumps({"min-players": 5, "max-players": 5, "server-tries": 100, "time-per-turn": 60,
                         "ready-time": 60, "start-timeout": 60})
    server = subprocess.Popen([*GAMEROOM, "serve", "fish", "--port", str(port), "--replay", str(replay)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    server.stdin.write(config)
    server.stdin.close()
    assert wait_listening(server, port), server.stderr.read()
    clients = gameroom("clients", "fish", "--port", str(port), "--count", "5", "--hiccup", "0")
    assert clients.returncode == 0, clients.stderr
    server.wait(300)
    assert server.returncode == 0, server.stderr.read()
    verify = gameroom("replay", "verify", str(replay))
    assert verify.returncode == 0 and "replays verified" in verify.stdout, verify.stderr


def test_replays_of_the_older_header_shape_still_verify(tmp_path: Path) -> None:
    """Headers written before the typed options kept every raw command-line option (the
    strategies as the text typed, the command's own options beside the game's): such a
    file still verifies. Such files were also written before digest chains, so the
    rewritten file carries none (a sealed file whose header is edited is a forgery)."""
    replay = tmp_path / "cup.jsonl"
    run = gameroom("tournament", "fish", "--players", "5", "--strategies", "greedy,maximin", "--depth", "1",
                   "--seed", "4", "--replay", str(replay))
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in replay.read_text().splitlines()]
    old = {"tournament_name": None, "players": 5, "seed": 4, "strategies": "greedy,maximin", "depth": 1, "rows": 5,
           "columns": 5, "fish": None, "baddie": []}
    headers = [row for row in rows if "session" in row.get("config", {})]
    assert headers and all(row["config"]["session"]["options"]["strategies"] == ["greedy", "maximin"]
                           for row in headers)
    for row in headers:
        row["config"]["session"]["options"] = old
    for row in rows:
        row.pop("digest", None)
    older = tmp_path / "older.jsonl"
    older.write_text("".join(json.dumps(row) + "\n" for row in rows))
    verify = gameroom("replay", "verify", str(older))
    assert verify.returncode == 0 and f"{len(headers)} of {len(headers)} replays verified" in verify.stdout, verify.stderr
