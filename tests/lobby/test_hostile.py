"""Hostile users against the real lobby (``gameroom serve eriantys``) on 127.0.0.1, the
findings of issue 17 reproduced at a scale that runs in seconds: a client that floods
requests without reading its replies (finding 1), one host opening every room it can,
hammering the connection limit and trying room ids, and a name taken again in another
case (finding 5). The attacker connects from 127.0.0.2 ("another host": Linux routes the
whole of 127/8 to the loopback), the honest players are real ``gameroom clients`` from
127.0.0.1. Memory is read from /proc; nothing asserts a duration.
"""

from __future__ import annotations

import json
import select
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from driver import GAMEROOM, free_port, read_to_end, run_gameroom

from gameroom.games import registry
from gameroom.remote.jsonstream import encode
from gameroom.server import lobby_clients
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.xscenario import LobbyThread
from tests.lobby.rooms import RoomClient, ServedLobby as Lobby

ATTACKER = "127.0.0.2"


@pytest.fixture
def lobby_factory(tmp_path: Path):
    lobbies: list[Lobby] = []

    def make(config: dict[str, Any]) -> Lobby:
        lobbies.append(Lobby(tmp_path, config))
        return lobbies[-1]

    yield make
    for lobby in lobbies:
        if lobby.proc.poll() is None:
            log = lobby.stop()
            assert "Traceback" not in log, log[-3000:]
        else:
            lobby.log_file.close()


def honest_game(port: int, rooms: int = 1, prefix: str = "honest") -> list[dict[str, Any]]:
    """Real bots (``gameroom clients``) play whole games from 127.0.0.1; their result lines."""
    run = run_gameroom(["clients", "eriantys", "--port", str(port), "--rooms", str(rooms), "--prefix", prefix,
                        "--quiet"], b"", timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(lines) == rooms and all(line["winners"] and line["consistent"] for line in lines), lines
    return lines


def room_holders(lobby: Lobby, count: int, source: str = ATTACKER, prefix: str = "squat") -> list[RoomClient]:
    """``count`` connections from ``source``, each logged in and holding a public 2-player room
    (the requests are all sent first, then the replies read)."""
    holders = [lobby.connect(source) for _ in range(count)]
    for k, holder in enumerate(holders):
        holder.send({"type": "LOGIN", "username": f"{prefix}{k}"})
        holder.send({"type": "CREATE_ROOM", "numberOfPlayers": 2, "expert": False, "isPrivate": False})
    for holder in holders:
        assert holder.recv() == {"type": "ACK"}
    return holders


# -- finding 1: write backpressure -----------------------------------------------------------------
@pytest.mark.parametrize("request_type, count", [
    ("GET_PUBLIC_ROOMS", 20000),   # the finding: 20,000 listings of 300 rooms, 25 KB each (500 MB)
    ("GET_GAME_STATE", 60000),     # a reply encoded anew each time: 60,000 game states (about 300 MB)
])
def test_a_client_that_does_not_read_its_replies_costs_bounded_memory(lobby_factory, request_type: str,
                                                                      count: int) -> None:
    # Quotas off: this is the backpressure alone, as the finding met it (one host, many rooms);
    # the default write time-out (10 s). Without the bound the lobby grew by 140 MB here on
    # the game states (listings are encoded once while no room changes).
    lobby = lobby_factory({"maxRoomsPerAddress": 0, "maxConnectionsPerAddress": 0})
    holders = room_holders(lobby, 300)
    ids = [holder.until("ROOM_ID")[-1]["id"] for holder in holders]
    flood = holders[0]
    if request_type == "GET_GAME_STATE":   # the flooder's room starts: a room-mate joins it
        mate = holders[1]
        mate.send({"type": "LEAVE_ROOM"})
        assert mate.recv() == {"type": "ACK"}
        mate.send({"type": "ACCESS_ROOM", "id": ids[0]})
        mate.until("ACK")
        flood.send({"type": "GET_GAME_STATE"})
        assert len(flood.until("GAME_STATE")[-1]["state"]) > 5
    before = lobby.peak_rss_kb()
    sender = threading.Thread(target=_send_what_fits, args=(flood.sock, encode({"type": request_type}) * count),
                              daemon=True)
    sender.start()
    honest_game(lobby.port)   # beside it, an honest game is played to the end
    sender.join(timeout=120)
    # the flooder is dropped once its replies stay unread longer than the write time-out
    _wait_for_log(lobby, "squat0: write blocked or failed")
    assert lobby.proc.poll() is None
    grown_mb = (lobby.peak_rss_kb() - before) / 1024
    assert grown_mb < 50, f"the lobby grew by {grown_mb:.0f} MB"
    # what it can still read is what the kernel's buffers held, not every reply
    received = _read_until_closed(flood.sock)
    assert received < 40 * 2**20, received


def _wait_for_log(lobby: Lobby, text: str) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if text in lobby.log():
            return
        time.sleep(0.1)
    raise AssertionError(f"never logged {text!r}: {lobby.log()[-2000:]}")


def _send_what_fits(sock: socket.socket, data: bytes) -> None:
    """Send until the data is out or the peer stops taking it (the server stopped reading)."""
    sock.settimeout(10)
    try:
        sock.sendall(data)
    except OSError:
        pass


def _read_until_closed(sock: socket.socket) -> int:
    """Bytes read until the server closes (or resets) the connection."""
    total = 0
    sock.settimeout(120)
    while True:
        try:
            data = sock.recv(1 << 20)
        except (ConnectionResetError, TimeoutError):
            return total
        if not data:
            return total
        total += len(data)


# -- finding 5: quotas -----------------------------------------------------------------------------
def test_one_host_cannot_take_every_room_or_connection(lobby_factory) -> None:
    lobby = lobby_factory({"maxRooms": 40, "maxRoomsPerAddress": 10, "maxConnectionsPerAddress": 30})
    holders = room_holders(lobby, 30)
    # which ten get rooms is the order the lobby reads them in (under load, not always the order sent)
    replies = [holder.until("ROOM_ID", "NACK")[-1] for holder in holders]
    assert sum(reply["type"] == "ROOM_ID" for reply in replies) == 10, replies
    assert [reply for reply in replies if reply["type"] != "ROOM_ID"] == \
        [{"type": "NACK", "errorMessage": "Too many rooms from your address"}] * 20
    with_rooms = [holder for holder, reply in zip(holders, replies) if reply["type"] == "ROOM_ID"]
    without = [holder for holder, reply in zip(holders, replies) if reply["type"] != "ROOM_ID"]
    # the 31st connection from that host is refused, with the reason, and closed
    extra = lobby.connect(ATTACKER)
    extra.send({"type": "LOGIN", "username": "one-more"})
    assert extra.recv() == {"type": "NACK", "errorMessage": "Too many connections from your address"}
    assert extra.recv() is None
    # honest users elsewhere still find rooms and play
    honest_game(lobby.port, rooms=3)
    # a room given up frees its place in the host's quota
    with_rooms[0].send({"type": "LEAVE_ROOM"})
    assert with_rooms[0].recv() == {"type": "ACK"}
    without[0].send({"type": "CREATE_ROOM", "numberOfPlayers": 2, "expert": False, "isPrivate": True})
    assert without[0].until("ROOM_ID")[-1]["type"] == "ROOM_ID"
    # and a connection closed frees its place in the connection quota
    without[-1].sock.close()
    for _ in range(200):
        again = lobby.connect(ATTACKER)
        again.send({"type": "LOGIN", "username": "back"})
        if again.recv() == {"type": "ACK"}:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the closed connection's place was never freed")


def test_a_crowd_turned_away_is_closed_at_once_and_said_in_one_line(lobby_factory) -> None:
    """A host reconnecting as fast as it is refused: the first refusal says why (logged,
    its NACK read); the rest of the burst is closed at once without a line each — each
    still a NACK or a closed connection, never a seat — and an honest user logs in."""
    lobby = lobby_factory({"maxConnectionsPerAddress": 4})
    held = [lobby.connect(ATTACKER) for _ in range(4)]
    for k, holder in enumerate(held):
        holder.login(f"held{k}")
    crowd = [lobby.connect(ATTACKER) for _ in range(60)]
    for k, one in enumerate(crowd):
        one.send({"type": "LOGIN", "username": f"crowd{k}"})
    answers = [one.recv() for one in crowd]
    assert all(answer in (None, {"type": "NACK", "errorMessage": "Too many connections from your address"})
               for answer in answers), answers
    assert answers[0] is not None            # the first of the burst lingers: its NACK is read
    assert all(one.recv() is None for one in crowd)
    honest = lobby.connect("127.0.0.1")
    honest.login("honest")
    log = lobby.stop()
    refused = [line for line in log.splitlines() if ": refused: " in line]
    assert len(refused) == 1 and "connections from 127.0.0.2 already" in refused[0], refused


def test_a_crowd_over_its_quota_is_refused_at_the_door_before_any_client_is_made(monkeypatch) -> None:
    """A crowd of 64 silent connections from one address, each with an unfinished LOGIN:
    its first 4 are admitted (``maxUnloggedPerAddress`` 4), the other 60 are answered the
    NACK naming the key and closed by the lobby's door (``server.admission.Gate``) — no
    Client, stream or task is made for them — and an honest user from 127.0.0.1 is served.
    The first one refused lingers, so it reads the NACK whole, then the end."""
    made: list[str] = []

    class Counted(lobby_clients.Client):   # the lobby's own Client, counted as it is made
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self.address)

    monkeypatch.setattr(lobby_clients, "Client", Counted)
    server = LobbyThread(registry.game("eriantys"),
                         LobbyConfig(host="127.0.0.1", port=0, seed=1, max_connections_per_address=8,
                                     max_unlogged_per_address=4))
    crowd: list[socket.socket] = []
    try:
        for _ in range(64):   # made one after the other: the lobby accepts them in this order
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=60, source_address=(ATTACKER, 0))
            sock.sendall(b'{"type": "LOGIN", "user')
            crowd.append(sock)
        honest = RoomClient(socket.create_connection(("127.0.0.1", server.port), timeout=60))
        honest.login("honest")   # accepted after the whole crowd: every one of them was admitted or refused
        assert honest.request({"type": "GET_PUBLIC_ROOMS"}, "PUBLIC_ROOMS") == {"type": "PUBLIC_ROOMS", "rooms": []}
        assert made == [ATTACKER] * 4 + ["127.0.0.1"]
        gate = server.call(lambda: server.lobby.connections.gate)
        assert server.call(lambda: (gate.admitted, gate.refused)) == (5, 60)
        # the refused were written their NACK at the door: they alone have something to read
        answered = select.select(crowd, [], [], 0)[0]
        assert answered == crowd[4:]
        nack_line = encode({"type": "NACK", "errorMessage": "4 connections from your address have not logged in "
                                                            "yet (maxUnloggedPerAddress)"})
        assert read_to_end(crowd[4]) == nack_line   # the first of the burst: its NACK, then closed
        for sock in crowd[5:]:
            assert read_to_end(sock) in (nack_line, b"")   # the rest: closed at once (a reset may lose it)
    finally:
        for sock in crowd:
            sock.close()
        server.stop()


def test_refusals_are_told_apart_as_the_first_of_a_burst_or_the_rest() -> None:
    from gameroom.server.admission import Refusals

    refusals = Refusals(quiet=10.0)
    assert refusals.refused("a", 100.0) == 0             # the first: said, nothing before it
    assert [refusals.refused("a", 100.0 + k) for k in range(1, 4)] == [None] * 3
    assert refusals.refused("b", 101.0) == 0             # another address is its own burst
    assert refusals.refused("a", 110.5) == 3             # the burst is over: said with its count
    assert refusals.refused("a", 111.0) is None


def test_usernames_are_one_user_whatever_their_case(lobby_factory) -> None:
    lobby = lobby_factory({})
    alice = lobby.connect()
    alice.login("alice")
    for other in ("Alice", "ALICE", "\uff21\uff4c\uff49\uff43\uff45", "alice"):   # the third: full-width letters
        c = lobby.connect()
        c.send({"type": "LOGIN", "username": other})
        assert c.recv() == {"type": "NACK", "errorMessage": "Username was already taken"}, other
    c.login("Bob")
    alice.send({"type": "LOGOUT"})
    assert alice.recv() == {"type": "ACK"}
    lobby.connect().login("Alice")   # released: the name is free again, in any case


def test_a_log_in_with_a_bad_secret_or_a_credential_the_lobby_cannot_check_is_refused(lobby_factory) -> None:
    lobby = lobby_factory({})
    for fields, refusal in (({"secret": 7}, "Invalid secret: true, or the secret handed out at an earlier log-in"),
                            ({"secret": ""}, "Invalid secret: true, or the secret handed out at an earlier log-in"),
                            ({"account": "0" * 64}, "Invalid account credential: this lobby shares no secret with a "
                                                    "web room (relaySecret)")):
        client = lobby.connect()
        client.send({"type": "LOGIN", "username": "Erin", **fields})
        assert client.recv() == {"type": "NACK", "errorMessage": refusal}, fields
    client = lobby.connect()
    client.send({"type": "LOGIN", "username": "Erin", "secret": True})
    given = client.recv()
    assert given["type"] == "ACK" and isinstance(given["secret"], str), given


def test_a_reserved_name_is_taken_back_only_as_it_was_written(lobby_factory) -> None:
    lobby = lobby_factory({"resilience": True, "seed": 3})
    first, second = lobby.connect(), lobby.connect()
    first.login("Carol")
    second.login("dave")
    first.send({"type": "CREATE_ROOM", "numberOfPlayers": 2, "expert": False, "isPrivate": False})
    room = first.until("ROOM_ID")[-1]["id"]
    second.send({"type": "ACCESS_ROOM", "id": room})
    second.until("ACK")
    first.sock.close()   # Carol's seat is kept for her
    got = second.until("PLAYER_DISCONNECT")
    assert got[-1]["username"] == "Carol" and got[-1]["roomClosed"] is False
    impostor = lobby.connect()
    impostor.send({"type": "LOGIN", "username": "carol"})
    assert impostor.recv() == {"type": "NACK", "errorMessage": "Username was already taken"}
    back = lobby.connect()
    back.send({"type": "LOGIN", "username": "Carol"})
    assert back.recv() == {"type": "ACK"}
    assert back.recv()["type"] == "GAME_STATE"


def test_failed_joins_are_throttled_per_connection(lobby_factory) -> None:
    # 6 failed joins a minute: six at once, then one every 10 s
    lobby = lobby_factory({"failedJoinsPerMinute": 6, "failedJoinsPerMinutePerAddress": 0})
    prober = lobby.connect(ATTACKER)
    prober.login("prober")
    for room_id in range(1000, 1007):
        prober.send({"type": "ACCESS_ROOM", "id": room_id})
    for _ in range(6):
        assert prober.recv() == {"type": "NACK", "errorMessage": "Not an initializing room"}
    # another user is served meanwhile, and the seventh try is still held back
    other = lobby.connect()
    other.login("other")
    other.send({"type": "GET_PUBLIC_ROOMS"})
    assert other.recv() == {"type": "PUBLIC_ROOMS", "rooms": []}
    assert not _readable(prober.sock)
    assert prober.recv() == {"type": "NACK", "errorMessage": "Not an initializing room"}   # in its time
    assert "prober (127.0.0.2): too many failed joins" in lobby.log()


def test_failed_joins_are_throttled_per_address_even_for_a_room_that_exists(lobby_factory) -> None:
    lobby = lobby_factory({"failedJoinsPerMinute": 0, "failedJoinsPerMinutePerAddress": 6})
    host = lobby.connect()
    host.login("host")
    host.send({"type": "CREATE_ROOM", "numberOfPlayers": 2, "expert": False, "isPrivate": True})
    room = host.until("ROOM_ID")[-1]["id"]
    prober = lobby.connect(ATTACKER)
    prober.login("prober")
    for room_id in [r for r in range(1000, 1010) if r != room][:6]:
        prober.send({"type": "ACCESS_ROOM", "id": room_id})
        assert prober.recv() == {"type": "NACK", "errorMessage": "Not an initializing room"}
    prober.sock.close()
    # a new connection from the same host: the penalty stayed with the address; even the
    # right id waits its turn (an answer sooner would tell which ids exist)
    second = lobby.connect(ATTACKER)
    second.login("second")
    second.send({"type": "ACCESS_ROOM", "id": room})
    host.send({"type": "GET_PUBLIC_ROOMS"})
    assert host.recv() == {"type": "PUBLIC_ROOMS", "rooms": []}
    assert not _readable(second.sock)
    assert second.until("ACK")[-1] == {"type": "ACK"}
    assert "second (127.0.0.2): too many failed joins" in lobby.log()


def _readable(sock: socket.socket) -> bool:
    return bool(select.select([sock], [], [], 0)[0])


# -- findings 5, 7, 8: exit statuses and defaults ---------------------------------------------------
def test_clients_exit_non_zero_when_a_room_is_refused(lobby_factory) -> None:
    lobby = lobby_factory({"maxRooms": 1})
    squatter = room_holders(lobby, 1)[0]
    assert squatter.until("ROOM_ID")[-1]["type"] == "ROOM_ID"
    run = run_gameroom(["clients", "eriantys", "--port", str(lobby.port), "--quiet"], b"", timeout=300)
    assert run.returncode == 1
    assert "room 1 of 1: refused: room refused: NACK Too many rooms" in run.stderr, run.stderr
    assert json.loads(run.stdout)["closed"].startswith("room refused")


def test_clients_exit_non_zero_when_a_room_does_not_finish(lobby_factory) -> None:
    lobby = lobby_factory({"seed": 2})   # lobby policy: a crash closes the room
    run = run_gameroom(["clients", "eriantys", "--port", str(lobby.port), "--rooms", "2", "--baddie", "crash@2",
                        "--quiet"], b"", timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert "closed" in lines[0] and lines[1]["winners"]
    assert "room 1 of 2" in run.stderr and "did not finish" in run.stderr and "room 2 of 2" not in run.stderr


def test_clients_exit_non_zero_when_the_lobby_dies_during_the_game(lobby_factory) -> None:
    lobby = lobby_factory({})   # no turn limit: the silent bot holds the game until the lobby dies
    clients = subprocess.Popen(GAMEROOM + ["clients", "eriantys", "--port", str(lobby.port), "--baddie", "timeout@1",
                                           "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for_log(lobby, "starts: ")
        lobby.proc.kill()
        out, err = clients.communicate(timeout=300)
    finally:
        if clients.poll() is None:
            clients.kill()
    assert clients.returncode == 1, out + err
    assert b"did not finish" in err and b"Traceback" not in err
    assert "winners" not in json.loads(out)


def test_clients_exit_non_zero_when_no_lobby_is_reachable() -> None:
    run = run_gameroom(["clients", "eriantys", "--port", str(free_port()), "--rooms", "2"], b"", timeout=300)
    assert run.returncode == 1
    assert run.stderr.startswith("gameroom: error: cannot reach the lobby at 127.0.0.1:"), run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""


def _outside_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))   # no packet is sent: only the route is looked up
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_the_lobby_listens_on_loopback_unless_told_otherwise(tmp_path: Path) -> None:
    help_text = run_gameroom(["serve", "eriantys", "--help"], b"").stdout
    assert "else 127.0.0.1" in " ".join(help_text.split())
    port = free_port()
    server = subprocess.Popen(GAMEROOM + ["serve", "eriantys", "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        assert server.stderr is not None
        assert server.stderr.readline().decode().strip() == f"lobby listening on 127.0.0.1:{port}"
        outside = _outside_address()
        if outside is not None:
            with pytest.raises(OSError):
                socket.create_connection((outside, port), timeout=10).close()
    finally:
        server.terminate()
        server.wait(timeout=30)
