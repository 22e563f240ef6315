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
import socket
import subprocess
import time
from dataclasses import replace
from importlib.resources import files
from typing import Any

from gameroom.core.hosting import SignupRules, name_rule
from gameroom.server.clients import run_clients
from gameroom.server.signup import MAX_PENDING, PENDING_PER_ADDRESS
from tests.server.test_signup import PLAN, player, start_server

from conftest import read_json_values
from driver import free_port, spawn


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


def test_twenty_silent_connections_do_not_stop_a_q_game_with_the_shipped_configuration() -> None:
    port = free_port()
    server = spawn(["serve", "q", "--port", str(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
    server.stdin.write(example("q", "server.json"))
    server.stdin.close()
    server.stdin = None
    held = silent_connections(port, 20)
    clients = spawn(["clients", "q", "--port", str(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE)
    try:
        clients_out, clients_err = clients.communicate(example("q", "clients.json"), timeout=150)
        out, err = server.communicate(timeout=150)
    finally:
        for connection in held:
            connection.close()
        server.kill()
        clients.kill()
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


def serve_beside(attack: Any, specs: list[Any], rules: SignupRules | None = None) -> tuple[Any, list[Any]]:
    """Host the toy game of ``test_signup`` (with ``rules``); ``attack(port)`` makes its
    connections first, then ``specs`` play. The result and the clients' sessions."""
    plan = PLAN if rules is None else replace(PLAN, rules=rules)

    async def main() -> tuple[Any, list[Any]]:
        port, server = await start_server(plan)
        held = await attack(port)
        sessions = await run_clients(specs, "127.0.0.1", port)
        result = await asyncio.wait_for(server, 60)
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
# connections alone: they were read one after the other, 0.5 s each.
SLOW_PERIOD = SignupRules(min_players=2, max_players=3, periods=1, period_seconds=8.0,
                          name_first_byte=0.5, name_complete=0.5, valid_name=name_rule(r"[a-zA-Z0-9]+", 20))


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

    rules = replace(SLOW_PERIOD, max_players=3, name_first_byte=2.0, period_seconds=3.0)
    result, sessions = serve_beside(attack, [player("third")], rules)
    # "first" and "second" never answer: they are ejected; "third" sat last
    assert result[0] == ["third"] and result[1] == ["first", "second"]
    assert sessions[0].got_result


def test_one_address_holds_only_a_few_connections_without_a_name() -> None:
    """100 silent connections from one address (127.0.0.2): all but a few are closed at
    once, and the players from another address sign up and play."""
    closed: list[bool] = []

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
