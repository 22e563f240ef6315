"""Fuzzing the lobby server (``gameroom serve eriantys``): bad messages drawn by hypothesis
in place of the log-in, after it, and in a started game, while bots play whole games in
other rooms. The server must answer or drop the offender (in a game: eject it, with the
reason told to its room-mate), stay up for new clients, and every bot game must end with
its result printed."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driver import GAMEROOM
from gameroom.remote.jsonstream import DEFAULT_MAX_VALUE_BYTES
from tests.lobby.test_lobby import Server, two_in_a_room
from tests.server.test_fuzz import bad_messages


def send_bad(client, payload: bytes) -> None:
    """The bad bytes, then the end of what this client sends (a truncated value is cut by
    the end of the stream instead of waiting for a time-out)."""
    client.sock.sendall(payload)
    client.sock.shutdown(socket.SHUT_WR)


def answered_or_dropped(client) -> None:
    """The server answers the offender with a NACK or hangs up on it (recv returns None)."""
    while True:
        message = client.recv()
        if message is None or message.get("type") == "NACK":
            return


def test_the_lobby_survives_bad_messages_beside_bot_games(tmp_path: Path) -> None:
    server = Server(tmp_path, {"seed": 5, "policy": "referee"})
    try:
        bots = subprocess.Popen(GAMEROOM + ["clients", "eriantys", "--port", str(server.port), "--players", "2",
                                            "--rooms", "3", "--strategy", "greedy"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        counter = iter(range(10**6))

        @settings(max_examples=20, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(where=st.sampled_from(["log-in", "lobby", "game"]), payload=bad_messages(DEFAULT_MAX_VALUE_BYTES))
        def attack(where: str, payload: bytes) -> None:
            number = next(counter)
            if where == "log-in":
                client = server.connect()
                send_bad(client, payload)
                answered_or_dropped(client)
            elif where == "lobby":
                client = server.connect()
                client.login(f"fuzz{number}")
                send_bad(client, payload)
                answered_or_dropped(client)
            else:
                bad, mate = two_in_a_room(server, f"bad{number}", f"mate{number}")
                send_bad(bad, payload)
                answered_or_dropped(bad)
                # the room-mate hears that the offender left, and why
                while True:
                    message = mate.recv()
                    assert message is not None, "the mate was dropped too"
                    if message.get("type") == "PLAYER_DISCONNECT":
                        assert message["username"] == f"bad{number}" and message["reason"]
                        break
                mate.sock.close()
            client_ok = server.connect()
            client_ok.login(f"ok{number}")   # the server still serves newcomers
            client_ok.sock.close()

        attack()
        out, err = bots.communicate(timeout=300)
        assert bots.returncode == 0, err.decode()[-2000:]
        lines = [json.loads(line) for line in out.decode().splitlines()]
        assert len(lines) == 3 and all(line["winners"] and line["consistent"] for line in lines), lines
        assert server.proc.poll() is None
    finally:
        log = server.stop()
    assert "Traceback" not in log, log[-3000:]
