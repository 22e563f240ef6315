"""The lobby server through its real command and real sockets on 127.0.0.1: the serve
command's configuration (file, flags over the file, one error line), the debug log,
the time limits of 7.8 (log-in, keep-alive, write time-out of a client that stops
reading) and bots of every player count and mode playing whole games to the end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from driver import free_port, run_gameroom
from gameroom.remote.jsonstream import encode
from tests.lobby.rooms import RoomClient, ServedLobby as Server


def two_in_a_room(server: Server, creator: str, joiner: str, expect_ack: bool = True) -> tuple[RoomClient, RoomClient]:
    """Two logged-in clients; the first creates a 2-player room, the second joins it."""
    first, second = server.connect(), server.connect()
    first.login(creator)
    second.login(joiner)
    first.send({"type": "CREATE_ROOM", "numberOfPlayers": 2, "expert": True, "isPrivate": False})
    room = first.until("ROOM_ID")[-1]["id"]
    second.send({"type": "ACCESS_ROOM", "id": room})
    if expect_ack:
        second.until("ACK")
    return first, second


@pytest.fixture
def server_factory(tmp_path: Path):
    servers: list[Server] = []

    def make(config: dict[str, Any], extra: list[str] | None = None) -> Server:
        servers.append(Server(tmp_path, config, extra))
        return servers[-1]

    yield make
    for server in servers:
        server.stop()


@pytest.mark.parametrize("text, where", [
    ("{not json", "is not JSON"),
    ('{"port": "x"}', "$.port"),
    ('{"policy": "kind"}', "$.policy"),
    ('{"turnTimeoutSeconds": -1}', "$.turnTimeoutSeconds"),
    ('{"colour": 1}', "unknown key 'colour'"),
    ('{"testHooks": {"draws": ["PURPLE"]}}', "$.testHooks.draws[0]"),
    ('[]', "expected an object"),
])
def test_bad_configuration_is_one_error_line(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    run = run_gameroom(["serve", "eriantys", "--config", str(path)], b"")
    assert run.returncode == 2
    assert run.stderr.startswith("gameroom: error: ") and where in run.stderr
    assert len(run.stderr.splitlines()) == 1
    run = run_gameroom(["serve", "eriantys", "--config", str(tmp_path / "missing.json")], b"")
    assert run.returncode == 2 and "cannot read the configuration" in run.stderr


def test_flags_override_the_file_and_debug_logs_every_message(tmp_path: Path, server_factory) -> None:
    # The file names a port that is not used: --port wins. -d logs to the file's logFile.
    server = server_factory({"port": free_port(), "logFile": "debug.txt", "seed": 3}, ["-d"])
    a = server.connect()
    a.login("ann")
    a.send({"type": "GET_PUBLIC_ROOMS", "numberOfPlayers": 7})
    assert a.recv()["type"] == "NACK"
    server.stop()
    log = (tmp_path / "debug.txt").read_text()
    assert '"LOGIN"' in log and '"ACK"' in log and "Invalid number of players" in log


def test_login_time_out_closes_a_silent_connection(server_factory) -> None:
    server = server_factory({"loginTimeoutSeconds": 3})
    silent = server.connect()
    assert silent.recv() is None
    late = server.connect()
    late.login("ann")   # a connection that logs in in time stays


def test_keep_alive(server_factory) -> None:
    server = server_factory({"pingIntervalSeconds": 0.5, "pingTimeoutSeconds": 4})
    mute, answering = two_in_a_room(server, "ben", "ann", expect_ack=False)
    pings = 0
    while True:   # ann answers every PING; ben never does: he is lost and the room closed
        m = answering.recv()
        assert m is not None
        if m["type"] == "PING":
            pings += 1
            answering.send({"type": "PONG"})
        if m["type"] == "PLAYER_DISCONNECT":
            assert m == {"type": "PLAYER_DISCONNECT", "username": "ben", "roomClosed": True,
                         "reason": "CONNECTION_LOST"}
            break
    assert pings >= 1
    answering.send({"type": "GET_PUBLIC_ROOMS"})
    while (m := answering.recv())["type"] == "PING":
        answering.send({"type": "PONG"})
    assert m == {"type": "PUBLIC_ROOMS", "rooms": []}


def test_a_client_that_stops_reading_is_lost_and_blocks_nobody(server_factory) -> None:
    server = server_factory({"writeTimeoutSeconds": 1, "seed": 5, "testHooks": {"firstPlayer": 0}})
    slow, mate = two_in_a_room(server, "slow", "mate")
    # slow asks for the whole state thousands of times and never reads the answers
    slow.sock.setblocking(False)
    request = encode({"type": "GET_GAME_STATE"}) * 200
    for _ in range(100):
        try:
            slow.sock.send(request)
        except BlockingIOError:
            break
    # meanwhile a game in another room is played to the end by bots
    bots = run_gameroom(["clients", "eriantys", "--port", str(server.port), "--players", "3", "--quiet"], b"",
                        timeout=300)
    line = json.loads(bots.stdout)
    assert line["winners"] and line["consistent"], bots.stdout + bots.stderr
    # and slow was lost: its room-mate was told and is back in the lobby
    got = mate.until("PLAYER_DISCONNECT")
    assert got[-1] == {"type": "PLAYER_DISCONNECT", "username": "slow", "roomClosed": True,
                       "reason": "CONNECTION_LOST"}


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("expert", [False, True])
def test_bots_play_whole_games(server_factory, players: int, expert: bool) -> None:
    server = server_factory({"seed": 11})
    run = run_gameroom(["clients", "eriantys", "--port", str(server.port), "--players", str(players), "--rooms", "2",
                        "--strategy", "greedy", *(["--expert"] if expert else [])], b"", timeout=300)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(lines) == 2
    for line in lines:
        assert line["winners"] and line["consistent"] and set(line["winners"]) <= set(line["players"])


def test_clients_command_line_errors() -> None:
    for args, text in [(["--players", "5"], "--players"), (["--rooms", "0"], "--rooms"),
                       (["--baddie", "nasty@2"], "unknown player"), (["--baddie", "crash@1", "--baddie", "crash@2"],
                                                                     "one per room")]:
        run = run_gameroom(["clients", "eriantys", "--port", "1", *args], b"")
        assert run.returncode == 2 and text in run.stderr and len(run.stderr.splitlines()) == 1, run.stderr
