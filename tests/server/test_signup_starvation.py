"""Honest clients first (issue 17, finding 6): silent connections made before the honest
clients never keep them out of a game; names are read beside each other, each within its
own deadline, while players are still taken in acceptance order; a server that played no
game says so on standard error and exits 1, still printing the spec's no-game result.

The real ``gameroom serve q`` with the shipped example configuration and 20 silent
connections made first (it printed ``[[], []]`` and exited 0: the silent connections were
read one after the other, 2 s each, through both 20 s periods), and in process on real
sockets: more silent connections than may wait at once, trickling ones, order; and one
address's silent connections beyond its few turned away while another address signs up."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import time
from dataclasses import replace
from importlib.resources import files
from typing import Any

from gameroom.core.hosting import SignupRules, name_rule
from gameroom.server import signup as signup_module
from gameroom.server.clients import run_clients
from gameroom.server.signup import MAX_PENDING, PENDING_PER_ADDRESS
from tests.server.test_signup import PLAN, player, playing, start_server

from conftest import read_json_values
from driver import WaitingClients, free_port, spawn, until_undisturbed


def example(game: str, name: str) -> bytes:
    return (files(f"gameroom.games.{game}") / "configs" / name).read_bytes()


def silent_connections(port: int, count: int) -> list[socket.socket]:
    held = []
    for _ in range(600):        # the server process may not listen yet
        try:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
            break
        except ConnectionRefusedError:
            time.sleep(0.05)
    held += [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(count - 1)]
    return held


def _twenty_silent_then_a_q_game() -> tuple[subprocess.Popen, bytes, bytes, subprocess.Popen, bytes, bytes]:
    port = free_port()
    clients = WaitingClients("q", port, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    server = spawn(["serve", "q", "--port", str(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
    server.stdin.write(example("q", "server.json"))
    server.stdin.close()
    server.stdin = None
    held = silent_connections(port, 20)
    try:
        clients_out, clients_err = clients.go(server, example("q", "clients.json")).communicate(timeout=300)
        out, err = server.communicate(timeout=300)
    finally:
        for connection in held:
            connection.close()
        server.kill()
        clients.kill()
    return server, out, err, clients.process, clients_out, clients_err


def _a_game_was_played(run: tuple[subprocess.Popen, bytes, bytes, subprocess.Popen, bytes, bytes]) -> bool:
    server, out, _err, clients, _clients_out, _clients_err = run
    result = read_json_values(out.decode())
    return server.returncode == 0 and len(result) == 1 and bool(result[0][0]) and clients.returncode == 0


def test_twenty_silent_connections_do_not_stop_a_q_game_with_the_shipped_configuration() -> None:
    """The shipped configuration's 20 s periods and 6 s per turn are kept: a run in which a
    loaded machine made an honest client miss them is run again (driver.until_undisturbed)."""
    server, out, err, clients, clients_out, clients_err = until_undisturbed(
        _twenty_silent_then_a_q_game, _a_game_was_played, 3, lambda run: run[2].decode())
    result = read_json_values(out.decode())
    assert server.returncode == 0, err.decode()
    assert len(result) == 1 and result[0][0], (result, err.decode())    # a game was played and won
    assert sorted(result[0][0] + result[0][1]) != [] and result != [[[], []]]
    assert clients.returncode == 0 and clients_out.decode().strip() == "all done", clients_err.decode()


def test_a_server_that_played_no_game_says_so_and_exits_1() -> None:
    """Quiet or not (the shipped configuration is quiet): the no-game result on standard
    output as the spec has it, one line on standard error, status 1."""
    config = json.loads(example("q", "server.json"))
    config["server-wait"], config["server-tries"] = 1, 1
    port = free_port()
    server = spawn(["serve", "q", "--port", str(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
    out, err = server.communicate(json.dumps(config).encode(), timeout=60)
    assert server.returncode == 1
    assert read_json_values(out.decode()) == [[[], []]]
    assert err.decode().strip().splitlines() == ["gameroom: no game was played: too few players signed up (0 < 2)"]


def serve_beside(attack: Any, specs: list[Any], rules: SignupRules | None = None,
                 play: Any = None) -> tuple[Any, list[Any]]:
    """Host the toy game of ``test_signup`` (with ``rules``, and ``play`` when given);
    ``attack(port)`` makes its connections first, then ``specs`` play. The result and the
    clients' sessions."""
    plan = PLAN if rules is None else replace(PLAN, rules=rules)
    plan = plan if play is None else replace(plan, play=play)

    async def main() -> tuple[Any, list[Any]]:
        port, server = await start_server(plan)
        held = await attack(port)
        sessions = await run_clients(specs, "127.0.0.1", port)
        result = await asyncio.wait_for(server, 120)
        for writer in held:
            writer.close()
        return result, sessions

    return asyncio.run(main())


def attacker(at: int) -> str:
    """The address of the ``at``-th attacking connection: 127.0.0.2 for the first
    :data:`PENDING_PER_ADDRESS`, then the next address, and so on (the honest players come
    from 127.0.0.1: one address may hold only so many connections without a name)."""
    return f"127.0.0.{2 + at // PENDING_PER_ADDRESS}"


def silent(count: int) -> Any:
    async def attack(port: int) -> list[asyncio.StreamWriter]:
        held = []
        for at in range(count):
            _reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(attacker(at), 0))
            held.append(writer)
        await asyncio.sleep(0.2)   # every one accepted before the honest clients connect
        return held

    return attack


# A waiting period long enough that, without the fix, it would end on the silent
# connections alone: they were read one after the other, 2 s each (a name deadline an
# honest client, which sends its name at once, meets on a loaded machine).
SLOW_PERIOD = SignupRules(min_players=2, max_players=3, periods=1, period_seconds=20.0,
                          name_first_byte=2.0, name_complete=2.0, valid_name=name_rule(r"[a-zA-Z0-9]+", 20))


def test_silent_connections_cost_one_name_deadline_not_one_each() -> None:
    """40 silent connections (20 s of name deadlines one after the other) before three
    players: the game is full after about one deadline."""
    result, sessions = serve_beside(silent(40), [player("a"), player("b"), player("c")], SLOW_PERIOD)
    assert result == [["c"], []]
    assert [s.got_result for s in sessions] == [True] * 3


def test_more_silent_connections_than_may_wait_still_let_players_in() -> None:
    """Three times as many silent connections (from 24 addresses) as may be signing up at
    once: the longest waiting of the address holding most is closed to make room for each
    newcomer, so the players still get in."""
    result, _sessions = serve_beside(silent(3 * MAX_PENDING), [player("a"), player("b"), player("c")],
                                               SLOW_PERIOD)
    assert result == [["c"], []]


def test_trickling_names_fail_at_their_own_deadline() -> None:
    async def attack(port: int) -> list[asyncio.StreamWriter]:
        held = []
        for at in range(10):
            _reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(attacker(at), 0))
            writer.write(b'"abc')    # never completed
            held.append(writer)
        await asyncio.sleep(0.2)
        return held

    result, _sessions = serve_beside(attack, [player("a"), player("b"), player("c")], SLOW_PERIOD)
    assert result == [["c"], []]


def test_players_are_taken_in_acceptance_order_not_name_order() -> None:
    """The first connection sends its name late (within its deadline), the second at once:
    the first is still the first player (the toy game's winner is the last seated)."""
    async def attack(port: int) -> list[asyncio.StreamWriter]:
        _reader, first = await asyncio.open_connection("127.0.0.1", port)
        _reader2, second = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(0.1)
        second.write(b'"second"\n')
        await asyncio.sleep(0.2)
        first.write(b'"first"\n')
        return [first, second]

    rules = replace(SLOW_PERIOD, max_players=3, name_first_byte=2.0)
    # "first" and "second" never answer: a short call limit, which "third" (in this process) meets
    result, sessions = serve_beside(attack, [player("third")], rules, play=playing(2.0))
    # "first" and "second" never answer: they are ejected; "third" sat last
    assert result[0] == ["third"] and result[1] == ["first", "second"]
    assert sessions[0].got_result


def test_one_address_holds_only_a_few_connections_without_a_name(monkeypatch, caplog) -> None:
    """100 silent connections from one address (127.0.0.2): all but a few are closed at
    once, at the door (no stream is made for them: ``server.admission.Gate``; one line says
    the burst), and the players from another address sign up and play."""
    closed: list[bool] = []
    made: list[str] = []

    class Counted(signup_module.Connection):   # sign-up's own Connection, counted as it is made
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self.peer.rsplit(":", 1)[0])

    monkeypatch.setattr(signup_module, "Connection", Counted)
    caplog.set_level(logging.INFO, logger=signup_module.__name__)

    async def attack(port: int) -> list[asyncio.StreamWriter]:
        held = []
        readers = []
        for _ in range(100):
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
            held.append(writer)
            readers.append(reader)

        async def ended(reader: asyncio.StreamReader) -> bool:   # closed by the server well before its deadline
            try:
                return await asyncio.wait_for(reader.read(1), 1.5) == b""
            except (asyncio.TimeoutError, ConnectionError):
                return False

        closed.extend(await asyncio.gather(*(ended(reader) for reader in readers)))
        return held

    rules = replace(SLOW_PERIOD, name_first_byte=5.0, name_complete=5.0)   # the few fail later, at 5 s
    result, sessions = serve_beside(attack, [player("a"), player("b"), player("c")], rules)
    assert result == [["c"], []]
    assert closed.count(False) == PENDING_PER_ADDRESS, closed
    assert [s.got_result for s in sessions] == [True] * 3
    assert made == ["127.0.0.2"] * PENDING_PER_ADDRESS + ["127.0.0.1"] * 3
    refused = [r.getMessage() for r in caplog.records if ": refused: " in r.getMessage()]
    assert len(refused) == 1 and refused[0].startswith("127.0.0.2:"), refused
    assert "connections from its address are signing up without a name yet" in refused[0]
