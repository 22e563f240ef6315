"""``python -m gameroom.bench capacity [--game GAME] [--players N] [--games G]``: one
referee server holding many remote players of one game (Q unless ``--game`` names another
with a referee server), each the game's first built-in strategy.

Three measurements in one run, each with the server and its clients in separate processes
talking over loopback TCP:

1. the floor: a loopback JSON round trip of the messages of a real game, with nothing but
   the JSON work at both ends (this process sends each recorded call with a blocking
   socket; a minimal asyncio peer decodes it and answers with the recorded reply);
2. one remote call: five games of four clients, one game at a time (``call_ms``, the
   mean of every call as the referee sees it: encode, send, the client's whole turn, read,
   decode);
3. capacity: a server process signs up N players (``N/4`` tables, each a sign-up of the
   real server on its own port), then plays the tables with at most G games at once, the
   clients spread over two processes. Printed: games and calls per second, the server's
   CPU seconds while the games run and its peak memory, and the p50/p99 of the time the
   server adds to a call: from the moment a game's referee has read a reply to the moment
   its next call is ready to be handed to the system (``BlockingConnection`` stamps both).

The last line is one JSON object (players, games, games_per_s, calls_per_s, p50_added_ms,
p99_added_ms, call_ms, floor_ms, server_cpu_s, server_cpu_us_per_call, server_rss_mb). Figures only; nothing is
asserted. The roles run as ``python -m gameroom.bench.capacity ROLE ...``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from gameroom.bench.processes import python_module
from array import array
from typing import Any, Sequence

__all__ = ["run", "measure", "floor_ms", "record_messages"]

CLIENT_PROCESSES = 2
CALL_GAMES = 5          # games (one at a time) that measure one remote call


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _game(name: str) -> Any:
    from gameroom.games import registry

    return registry.game(name)


def _table(game: Any) -> int:
    from gameroom.bench.remote import table_size

    return table_size(game)


def record_messages(game_name: str, seed: int = 0) -> list[tuple[Any, Any]]:
    """(call, reply) JSON values of one in-process game between four players of the
    game's first strategy, as the protocol puts them on the wire (one-way calls have no
    reply: None)."""
    from gameroom.core.context import MatchContext
    from gameroom.core.limits import Limits
    from gameroom.core.match import Seat

    game = _game(game_name)
    protocol = game.protocol
    pairs: list[tuple[Any, Any]] = []

    def recording(seat: Seat) -> Seat:
        inner = seat.caller

        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
            result = inner(method, args, limit)
            spec = protocol.by_name[method]
            pairs.append((protocol.envelope.encode_call(spec, args), spec.result.encode(result)))
            return result

        return Seat(seat.name, call, seat.trusted, seat.player)

    strategy = next(iter(game.strategies))
    seats = [recording(seat) for seat in game.seats([strategy] * _table(game), 0, names=list("ABCD"[:_table(game)]))]
    game.play(seed, seats, context=MatchContext(limits=Limits()))
    return pairs


# -- 1. the floor -------------------------------------------------------------------------

async def _echo(game_name: str, port: int) -> None:
    """The floor's peer: answer each call line with its recorded reply, nothing else."""
    from gameroom.remote.jsonstream import encode

    replies = [encode(reply) for _call, reply in record_messages(game_name)]
    done = asyncio.get_running_loop().create_future()

    class Echo(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            self.transport, self.buffer, self.index = transport, b"", 0

        def data_received(self, data: bytes) -> None:
            self.buffer += data
            while (end := self.buffer.find(b"\n")) >= 0:
                line, self.buffer = self.buffer[:end], self.buffer[end + 1:]
                json.loads(line)
                self.transport.write(replies[self.index % len(replies)])
                self.index += 1

        def connection_lost(self, _exc: Any) -> None:
            done.set_result(None)

    await asyncio.get_running_loop().create_connection(Echo, "127.0.0.1", port)
    await done


def floor_ms(game_name: str, rounds: int = 3) -> float:
    """Mean loopback JSON round trip (ms) of a game's calls and replies."""
    from gameroom.remote.jsonstream import encode

    pairs = record_messages(game_name)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    peer = subprocess.Popen(python_module("gameroom.bench.capacity", "echo", game_name, str(port)))
    try:
        listener.settimeout(30)
        sock, _ = listener.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        times: list[float] = []
        buffer = b""
        for round_ in range(rounds + 1):   # the first round warms up
            for call, _reply in pairs:
                start = time.perf_counter()
                sock.sendall(encode(call))
                while (end := buffer.find(b"\n")) < 0:
                    buffer += sock.recv(65536)
                line, buffer = buffer[:end], buffer[end + 1:]
                json.loads(line)
                if round_:
                    times.append(time.perf_counter() - start)
        sock.close()
    finally:
        listener.close()
        peer.wait(30)
    return statistics.mean(times) * 1e3


def client_work_ms(game_name: str, rounds: int = 5) -> float:
    """Mean time (ms) a client spends on a call by itself, in process: reading the call,
    decoding its arguments with the game's codecs, the player's answer and its encoding."""
    from gameroom.remote.jsonstream import JSONStreamDecoder, encode

    game = _game(game_name)
    protocol = game.protocol
    make = next(iter(game.strategies.values()))
    texts = [encode(call) for call, _reply in record_messages(game_name)]
    best = float("inf")
    for _ in range(rounds):
        decoder = JSONStreamDecoder()
        player = make("A", 0)
        start = time.perf_counter()
        for text in texts:
            decoder.feed(text)
            spec, args = protocol.envelope.decode_call(protocol, decoder.next_value())
            result = getattr(player, spec.name)(*args)
            if not spec.one_way:
                encode(spec.result.encode(result))
        best = min(best, time.perf_counter() - start)
    return best / len(texts) * 1e3


# -- 2 and 3. the server and its clients --------------------------------------------------

async def _serve(game_name: str, players: int, games: int, seed: int, referees: str = "hub") -> dict[str, Any]:
    from gameroom.core.context import MatchContext
    from gameroom.core.hosting import SignupRules, name_rule
    from gameroom.core.handoff import run_in_thread
    from gameroom.core.match import Seat
    from gameroom.remote.aio import loop_name
    from gameroom.remote.hub import shared_hub
    from gameroom.remote.proxy_player import ProxyPlayer, remote_seats
    from gameroom.server.signup import Signup

    game = _game(game_name)
    table_size = _table(game)
    rules = SignupRules(table_size, table_size, 1, 120.0, 10.0, 10.0, name_rule(r"[A-Za-z0-9]+", 20),
                        backlog=table_size)
    tables = players // table_size
    signups = [Signup(rules, greeting=game.protocol.greeting) for _ in range(tables)]
    for signup in signups:
        await signup.listen("127.0.0.1", 0)
    print(json.dumps({"ports": [s.port for s in signups]}), flush=True)
    signed = await asyncio.gather(*(s.run() for s in signups))
    del signups   # each table's sign-up is over (its listener closed): only its players remain

    calls = array('d')
    added = array('d')
    away = array('d')   # from a call ready to be sent to its reply read
    lock = threading.Lock()

    def play(seats: Sequence[Seat], table: int) -> Any:
        own_calls = array('d')
        own_added = array('d')
        own_away = array('d')
        last_read = 0.0

        def timed(seat: Seat) -> Seat:
            inner = seat.caller
            stream = seat.player.stream if isinstance(seat.player, ProxyPlayer) else None

            def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
                nonlocal last_read
                start = time.perf_counter()
                try:
                    return inner(method, args, limit)
                finally:
                    own_calls.append(time.perf_counter() - start)
                    if stream is not None:
                        if last_read and stream.sent_at > last_read:
                            own_added.append(stream.sent_at - last_read)
                        if stream.read_at > stream.sent_at:
                            own_away.append(stream.read_at - stream.sent_at)
                        last_read = stream.read_at

            return Seat(seat.name, call, seat.trusted, seat.player)

        result = game.play(seed + table, [timed(s) for s in seats],
                           context=MatchContext(limits=game.limits)).to_json()
        with lock:
            calls.extend(own_calls)
            added.extend(own_added)
            away.extend(own_away)
        return result

    gate = asyncio.Semaphore(games)
    hub = shared_hub() if referees == "hub" else None

    async def table(index: int, players_: list[Any]) -> Any:
        if len(players_) < table_size:   # a client that could not sign up: nothing to measure here
            for p in players_:
                p.connection.close()
            return None
        async with gate:
            seats = await remote_seats(game.protocol, [(p.name, p.connection) for p in players_], hub)
            try:
                if hub is not None:
                    return await hub.run(play, seats, index)
                return await run_in_thread(play, seats, index)
            finally:
                for p in players_:
                    p.connection.close()

    collecting = [0.0, 0.0]   # seconds spent in the cyclic garbage collector; when the last began
    by_generation = [[0, 0.0], [0, 0.0], [0, 0.0]]

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[1] = time.thread_time()
        else:
            spent = time.thread_time() - collecting[1]
            collecting[0] += spent
            by_generation[info["generation"]][0] += 1
            by_generation[info["generation"]][1] += spent

    gc.callbacks.append(collector)
    usage = resource.getrusage(resource.RUSAGE_SELF)   # its ru_maxrss: the peak of signing everyone up
    start = time.perf_counter()
    results = await asyncio.gather(*(table(i, list(p)) for i, p in enumerate(signed)), return_exceptions=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    gc.callbacks.remove(collector)
    failures = [r for r in results if isinstance(r, BaseException)]
    if failures:
        print(f"capacity: {len(failures)} games failed, the first: {type(failures[0]).__name__}: {failures[0]}",
              file=sys.stderr, flush=True)
    finished = sum(1 for r in results if isinstance(r, list))
    ejected = sum(len(r[1]) for r in results if isinstance(r, list))
    return {"tables": tables, "finished": finished, "ejected": ejected, "seconds": wall, "calls": len(calls),
            "call_ms": statistics.mean(calls) * 1e3 if calls else float("nan"),
            "away_ms": statistics.mean(away) * 1e3 if away else float("nan"),
            "p50_added_ms": _percentile(added, 0.5) * 1e3, "p99_added_ms": _percentile(added, 0.99) * 1e3,
            "cpu_s": (after.ru_utime + after.ru_stime) - (usage.ru_utime + usage.ru_stime),
            "rss_mb": after.ru_maxrss / 1024, "signup_rss_mb": usage.ru_maxrss / 1024, "loop": loop_name(), "gc_s": collecting[0], "gc": by_generation,
            "user_s": after.ru_utime - usage.ru_utime, "system_s": after.ru_stime - usage.ru_stime}


async def _clients(game_name: str, ports: Sequence[int]) -> None:
    from gameroom.core.hosting import ClientSpec
    from gameroom.server.clients import run_clients

    game = _game(game_name)
    make = next(iter(game.strategies.values()))

    def table(port: int, index: int) -> Any:
        names = [f"P{index}x{seat}" for seat in range(_table(game))]
        return run_clients([ClientSpec(n, make(n, k), game.protocol, trusted=True) for k, n in enumerate(names)],
                           "127.0.0.1", port)

    await asyncio.gather(*(table(port, i) for i, port in enumerate(ports)))


def measure(game_name: str, players: int, games: int, seed: int = 0, referees: str = "hub") -> dict[str, Any]:
    """Run a server of ``players`` clients (``players/4`` tables, ``games`` at once), its
    referees greenlets on the hub or threads (``referees``)."""
    server: subprocess.Popen[str] = subprocess.Popen(
        python_module("gameroom.bench.capacity", "server", game_name, str(players), str(games), str(seed), referees),
        stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    clients: list[subprocess.Popen[bytes]] = []
    try:
        ports = json.loads(server.stdout.readline() or "null")["ports"]
        shares = [ports[k::CLIENT_PROCESSES] for k in range(CLIENT_PROCESSES)]
        clients = [subprocess.Popen(python_module("gameroom.bench.capacity", "clients", game_name, ",".join(map(str, share))),
                                    stdout=subprocess.DEVNULL)
                   for share in shares if share]
        figures = json.loads(server.stdout.readline() or "null")
        if figures is None:
            raise TypeError
    except (TypeError, ValueError):
        raise SystemExit("capacity: the server process ended without its figures (see above)") from None
    finally:
        processes: list[subprocess.Popen[Any]] = [server, *clients]
        for process in processes:
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return figures


def run(players: int = 1000, games: int = 250, *, game_name: str, referees: str = "hub") -> dict[str, Any]:
    from gameroom.remote.aio import loop_name

    game = _game(game_name)
    if game.lobby is not None or game.hosting.server is None:
        raise SystemExit(f"capacity: {game_name} has no referee server")
    table = _table(game)
    strategy = next(iter(game.strategies))
    players = max(table, players - players % table)
    games = max(1, min(games, players // table))
    floor = floor_ms(game_name)
    print(f"capacity: loopback JSON round trip of a {game_name} game's messages (floor, {loop_name()} peer): "
          f"{floor:.3f} ms", flush=True)
    one = measure(game_name, CALL_GAMES * table, 1, referees=referees)
    own = client_work_ms(game_name)
    print(f"capacity: one remote call ({CALL_GAMES} games of {table} {strategy} clients, one at a time, "
          f"{one['calls']} calls): "
          f"mean {one['call_ms']:.3f} ms = {one['call_ms'] / floor:.2f}x the floor; of it, the client's own work "
          f"({game_name}'s codecs and the {strategy} turn, measured in process) {own:.3f} ms, the rest "
          f"{one['call_ms'] - own:.3f} ms = {(one['call_ms'] - own) / floor:.2f}x the floor; "
          f"from the call ready to send to its reply read {one['away_ms']:.3f} ms", flush=True)
    big = measure(game_name, players, games, referees=referees)
    games_per_s = big["finished"] / big["seconds"]
    cpu_per_call = big["cpu_s"] / big["calls"] * 1e6 if big["calls"] else float("nan")
    calls_per_s = big["calls"] / big["seconds"]
    print(f"capacity: {players} players, {big['tables']} games, at most {games} at once ({big['loop']} server, "
          f"referees {'as greenlets on one hub thread' if referees == 'hub' else 'on a thread each'}): "
          f"{big['finished']} finished ({big['ejected']} players ejected) in {big['seconds']:.2f} s = "
          f"{games_per_s:.1f} games/s, {calls_per_s:.0f} calls/s; time the server adds to a call "
          f"p50 {big['p50_added_ms']:.3f} ms, p99 {big['p99_added_ms']:.3f} ms; mean call under load "
          f"{big['call_ms']:.3f} ms; server CPU {big['cpu_s']:.2f} s = {cpu_per_call:.0f} µs a call (user "
          f"{big['user_s']:.2f} s, system {big['system_s']:.2f} s, garbage collection {big['gc_s']:.2f} s: "
          f"{', '.join(f'{n} of generation {g} in {t:.2f} s' for g, (n, t) in enumerate(big['gc']))}), "
          f"peak RSS {big['rss_mb']:.1f} MB ({big['signup_rss_mb']:.1f} MB once every player had signed up)", flush=True)
    summary = {"players": players, "games": games, "referees": referees, "games_per_s": round(games_per_s, 2),
               "calls_per_s": round(calls_per_s, 1), "p50_added_ms": round(big["p50_added_ms"], 4),
               "p99_added_ms": round(big["p99_added_ms"], 4), "call_ms": round(one["call_ms"], 4),
               "floor_ms": round(floor, 4), "server_cpu_s": round(big["cpu_s"], 3),
               "server_cpu_us_per_call": round(cpu_per_call, 1), "server_rss_mb": round(big["rss_mb"], 1)}
    print(json.dumps(summary), flush=True)
    return summary


def _main(argv: Sequence[str]) -> None:
    from gameroom.remote import aio

    role = argv[0]
    if role == "echo":
        aio.run(_echo(argv[1], int(argv[2])))
    elif role == "server":
        figures = aio.run(_serve(argv[1], int(argv[2]), int(argv[3]), int(argv[4]), argv[5]))
        print(json.dumps(figures), flush=True)
    elif role == "clients":
        aio.run(_clients(argv[1], [int(p) for p in argv[2].split(",")]))
    else:
        raise SystemExit(f"unknown role {role!r}")


if __name__ == "__main__":
    _main(sys.argv[1:])
