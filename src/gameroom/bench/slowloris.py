"""Slow and silent clients beside normal games, in one server process.

One arena server (``gameroom.server.many``) hosts the normal games and, on other ports of
the same process, a few games that the attackers crowd. The attackers are hundreds of
connections of three kinds, made before the normal games start and held while they play:

* ``silent`` — connects and never sends a byte;
* ``trickle`` — sends a name one byte per second (the server's name limits close it);
* ``deaf`` — signs up with a valid name and never reads nor answers again (its receive
  buffer made small, so the server's writes to it back up as soon as possible).

:func:`run_mix` plays the normal games with built-in players and returns how long they
took, whether every normal game printed a result and whether the server survived;
``python -m gameroom.bench slowloris [--connections N] [--games G]`` prints the normal
games' time without and with the attackers, then a *slow clients* row for each of the web
room, the arena and the lobby (``--servers lobby``: that row alone, without the games).
A row (:func:`slow_client_row`) starts the server in its own process with its default
limits; an honest client from 127.0.0.1 asks one request at a time on a new connection,
every :data:`HONEST_PACE` seconds, alone and while 127.0.0.2 holds 2,000 slow connections
— an HTTP head never finished, a lobby message never finished — made again
:data:`RETRY_SECONDS` after the server closes one. The crowd is a process of its own (as
an attacker is another machine: on a thread of the benchmark it held the honest client's
interpreter lock while it reconnected, and the honest client's wait for it was counted
as the server's), and the honest requests span several of its waves of reconnections.
The row says the honest p50/p99 both times, what it was served, the server's processor
time in each phase and per slow connection made beside it, and its open files. The test
(``tests/server/test_slowloris.py``) runs the same mix and checks only that every normal
game finishes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gameroom.bench.fuzz import _rest_of_output, _rules, _session, start_arena
from gameroom.bench.processes import python_module
from gameroom.remote.connection import Connection

__all__ = ["MixReport", "SERVERS", "SlowClientRow", "run_mix", "run", "run_slow_clients", "slow_client_row", "KINDS"]

KINDS = ("silent", "trickle", "deaf")
PER_CROWDED_GAME = 50    # attackers per crowded port: under the 64 a sign-up lets wait
PERIOD = 5.0             # the crowded games' waiting period: they end soon after it


@dataclass
class MixReport:
    games: int
    attackers: int
    seconds: float = 0.0                  # until every normal game's clients were done
    results: int = 0                      # normal games with a printed result
    lost: int = 0
    crashed: str | None = None
    connected: dict[str, int] = field(default_factory=dict)   # attackers connected, by kind
    outcomes: str = ""                    # digest of the normal games' results, in game order

    @property
    def figures(self) -> str:
        """What must be the same on every run (times are not): results and problems."""
        return f"results {self.results}/{self.games} {self.outcomes[:12]}, lost {self.lost}, crashed {bool(self.crashed)}"


async def _attacker(kind: str, port: int, name: str, stop: asyncio.Event, connected: dict[str, int]) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return
    connected[kind] = connected.get(kind, 0) + 1
    try:
        if kind == "deaf":
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            writer.write(json.dumps(name).encode() + b"\n")
            await writer.drain()
            await stop.wait()
        elif kind == "trickle":
            for byte in (b'"' + name.encode() * 50):
                if stop.is_set() or reader.at_eof():
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                try:
                    await asyncio.wait_for(stop.wait(), 1.0)
                except asyncio.TimeoutError:
                    pass
            await stop.wait()
        else:
            await stop.wait()
    except (OSError, ConnectionError):
        pass
    finally:
        writer.close()


async def run_mix(game_name: str, games: int = 20, attackers: int = 500, seed: int = 0,
                  period: float = PERIOD) -> MixReport:
    """Normal games beside ``attackers`` slow and silent connections (see the module);
    ``period``: every game's waiting period, within which the attackers connect and then
    the normal games' clients sign up."""
    from gameroom.games import registry

    report = MixReport(games, attackers)
    crowded = -(-attackers // PER_CROWDED_GAME) if attackers else 0
    server, ports = await start_arena(game_name, games + crowded, seed, period)
    output = asyncio.ensure_future(_rest_of_output(server))
    normal, crowd = ports[:games], ports[games:]
    stop = asyncio.Event()
    attack = [asyncio.ensure_future(_attacker(KINDS[i % len(KINDS)], crowd[i % len(crowd)], f"bad{i}", stop,
                                              report.connected))
              for i in range(attackers)]
    while sum(report.connected.values()) < attackers and not all(task.done() for task in attack):
        await asyncio.sleep(0.05)
    game = registry.game(game_name)
    strategy = next(iter(game.strategies.values()))
    seats = _rules(game_name).max_players
    started = time.perf_counter()

    async def one_game(port: int, g: int) -> None:
        sessions = []
        for at in range(seats):
            name = "p" + chr(97 + at)
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            sessions.append(asyncio.ensure_future(_session(Connection(reader, writer), game.protocol, name,
                                                           strategy(name, seed + g * 10 + at), {})))
        await asyncio.gather(*sessions)

    await asyncio.gather(*(one_game(port, g) for g, port in enumerate(normal)))
    report.seconds = time.perf_counter() - started
    stop.set()
    await asyncio.gather(*attack, return_exceptions=True)
    try:
        stdout, stderr = await asyncio.wait_for(output, 120.0)
    except asyncio.TimeoutError:
        server.kill()
        report.crashed = "the server did not finish within 120 s of the attackers leaving"
        stdout, stderr = await output
    lines = [json.loads(line) for line in stdout.decode("utf-8", "replace").splitlines() if line.startswith("{")]
    played = {line["port"]: line for line in lines if "port" in line}
    report.results = sum(1 for port in normal if port in played)
    report.outcomes = hashlib.sha256(json.dumps([played.get(port, {}).get("result") for port in normal])
                                     .encode()).hexdigest()
    report.lost = sum(1 for port in normal if port not in played or played[port]["lost"])
    log = stderr.decode("utf-8", "replace")
    if report.crashed is None and server.returncode != 0:
        report.crashed = f"the server exited with status {server.returncode}: {log[-400:]}"
    if report.crashed is None and "Traceback" in log:
        report.crashed = "a traceback on standard error: " + log[log.index("Traceback"):][:600]
    return report


def run(attackers: int = 500, games: int = 20, *, game_name: str, repeats: int = 3,
        servers: tuple[str, ...] | None = None) -> None:
    """Print the normal games' time without and with the attackers (best of ``repeats``),
    then the slow-client rows; ``servers``: only those servers' rows (no games)."""
    if servers is not None:
        run_slow_clients(servers=servers)
        return
    figures: dict[int, list[MixReport]] = {0: [], attackers: []}
    for _ in range(repeats):
        for count in (0, attackers):
            figures[count].append(asyncio.run(run_mix(game_name, games, count)))
    for count, reports in figures.items():
        best = min(report.seconds for report in reports)
        problems = [r for r in reports if r.lost or r.crashed]
        print(f"slowloris: {games} {game_name} games (built-in players over loopback) beside {count} slow/silent "
              f"connections ({', '.join(f'{k} {v}' for k, v in sorted(reports[-1].connected.items())) or 'none'}): "
              f"best of {repeats} {best:.2f} s, runs {', '.join(f'{r.seconds:.2f}' for r in reports)} s; "
              f"lost results {sum(r.lost for r in reports)}, crashes {sum(bool(r.crashed) for r in reports)}; "
              f"{'; '.join(sorted({r.figures for r in reports}))}"
              + (f" ({problems[0].crashed})" if problems and problems[0].crashed else ""), flush=True)
    quiet, loud = (min(r.seconds for r in figures[c]) for c in (0, attackers))
    outcomes = sorted({r.outcomes[:12] for c in figures for r in figures[c]})
    print(json.dumps({"games": games, "attackers": attackers, "seconds_without": round(quiet, 3),
                      "seconds_with": round(loud, 3), "ratio": round(loud / quiet, 3),
                      "results": sum(r.results for c in figures for r in figures[c]),
                      "lost": sum(r.lost for c in figures for r in figures[c]), "outcomes": outcomes}), flush=True)
    run_slow_clients()


# -- slow clients of one address against the web room, the arena and the lobby -------------

SLOW_ADDRESS = "127.0.0.2"   # the attacker's source address; the honest client is 127.0.0.1
HONEST_REQUESTS = 600


@dataclass
class SlowClientRow:
    server: str
    held: int                      # slow connections the attacker held open at the end
    tried: int                     # connections it made (refused ones made again)
    quiet_ms: tuple[float, float]  # honest p50, p99 alone
    loud_ms: tuple[float, float]   # honest p50, p99 beside the attacker
    served: int                    # honest requests answered beside the attacker
    asked: int                     # honest requests made beside the attacker
    open_files: tuple[int, int]    # the server's open files: quiet, beside the attacker
    cpu_s: tuple[float, float] = (0.0, 0.0)   # the server's processor seconds: quiet, beside the attacker
    made_beside: int = 0           # slow connections made while the honest client was measured beside them

    @property
    def ratio(self) -> float:
        """The honest p99 beside the crowd over the quiet one (the target: at most 2)."""
        return self.loud_ms[1] / self.quiet_ms[1] if self.quiet_ms[1] else float("inf")

    def line(self) -> str:
        (q50, q99), (l50, l99) = self.quiet_ms, self.loud_ms
        extra = max(0.0, self.cpu_s[1] - self.cpu_s[0])
        per = f"{extra / self.made_beside * 1e6:.0f} µs more per connection made" if self.made_beside else "none made"
        return (f"slow clients: {self.server}: honest p50/p99 {q50:.1f}/{q99:.1f} ms quiet, {l50:.1f}/{l99:.1f} ms "
                f"while {SLOW_ADDRESS} holds {self.held} slow connections ({self.tried} made, {self.made_beside} "
                f"of them while measured); served {self.served}/{self.asked}; p99 {self.ratio:.2f}x quiet "
                f"(target <= 2x); server's processor {self.cpu_s[0]:.2f} s quiet, {self.cpu_s[1]:.2f} s beside "
                f"({per}); server's open files {self.open_files[0]} quiet, {self.open_files[1]} beside")


def _open_files(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def _cpu_seconds(pid: int) -> float:
    """The processor time (user and system) ``pid`` has used, from ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    if not ordered:
        return float("inf"), float("inf")
    return (ordered[len(ordered) // 2] * 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000)


RETRY_SECONDS = 2.0
"""A slow connection the server closed is made again this long after (a crowd that keeps
trying, not a flood of connections)."""

HONEST_PACE = 0.01
"""Seconds between two honest requests: the honest client is a client, not a load of its
own; :data:`HONEST_REQUESTS` of them span three of the crowd's waves of reconnections
(measured quickly one after the other, they all fell between two waves)."""


def _honest(ask: Callable[[], bool], count: int) -> tuple[list[float], int]:
    times, served = [], 0
    for _ in range(count):
        started = time.perf_counter()
        try:
            ok = ask()
        except OSError:
            ok = False
        if ok:
            served += 1
            times.append(time.perf_counter() - started)
        time.sleep(HONEST_PACE)
    return times, served


class _Crowd:
    """``size`` slow connections from :data:`SLOW_ADDRESS` to ``port``, each sending
    ``first`` and then nothing; one the server closes is made again :data:`RETRY_SECONDS`
    later (at most ``size`` open or waiting), on a thread of its own until :meth:`stop`."""

    def __init__(self, port: int, first: bytes, size: int) -> None:
        self.port, self.first, self.size = port, first, size
        self.open: set[socket.socket] = set()
        self.again: list[float] = []   # when each closed one is made again
        self.tried = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._hold, daemon=True)

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 60
        while self.tried < self.size and time.monotonic() < deadline:
            time.sleep(0.05)

    def _connect(self) -> socket.socket | None:
        sock = socket.socket()
        try:
            sock.bind((SLOW_ADDRESS, 0))
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", self.port))
            self.tried += 1
            time.sleep(0)   # let the handshake go
            try:
                sock.send(self.first)
            except OSError:
                pass
            self.open.add(sock)
            return sock
        except OSError:
            sock.close()
            time.sleep(0.01)
            return None

    def _hold(self) -> None:
        import selectors

        with selectors.DefaultSelector() as watch:
            while not self._stop.is_set():
                now = time.monotonic()
                self.again = [at for at in self.again if at > now]   # those due are made again below
                while len(self.open) + len(self.again) < self.size and not self._stop.is_set():
                    made = self._connect()
                    if made is not None:
                        watch.register(made, selectors.EVENT_READ)
                    if self.tried % 50 == 0:
                        time.sleep(0.01)   # a crowd, not a flood: the honest client shares the machine
                for key, _ in watch.select(0.2):   # answered (refused, timed out): closed, and made again
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    watch.unregister(sock)
                    try:
                        sock.recv(4096)
                    except OSError:
                        pass
                    sock.close()
                    self.open.discard(sock)
                    self.again.append(time.monotonic() + RETRY_SECONDS)
                time.sleep(0.05)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(30)
        held = len(self.open)
        for sock in self.open:
            sock.close()
        return held


class _CrowdProcess:
    """A :class:`_Crowd` in a process of its own (``python -m gameroom.bench.slowloris
    crowd PORT SIZE FIRST``), told what to do on its standard input: a line asks how many
    it has made and holds, the end of the input stops it."""

    def __init__(self, port: int, first: bytes, size: int) -> None:
        self.process = subprocess.Popen(python_module("gameroom.bench.slowloris", "crowd", str(port), str(size),
                                                      first.hex()),
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.tried, self.held = self._read()   # its first wave is made

    def _read(self) -> tuple[int, int]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline().split()
        if len(line) != 2:
            self.process.kill()
            raise RuntimeError("the crowd of slow connections ended without a word")
        return int(line[0]), int(line[1])

    def count(self) -> tuple[int, int]:
        """Connections made so far, and held open now."""
        assert self.process.stdin is not None
        self.process.stdin.write("count\n")
        self.process.stdin.flush()
        self.tried, self.held = self._read()
        return self.tried, self.held

    def stop(self) -> int:
        """Stop it; how many it held open at the end."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.tried, self.held = self._read()
        self.process.wait(60)
        return self.held


def _crowd_main(port: int, size: int, first: bytes) -> None:
    from gameroom.server.admission import file_limit

    file_limit()   # this process holds the crowd: as many files as it may
    crowd = _Crowd(port, first, size)
    crowd.start()
    print(crowd.tried, len(crowd.open), flush=True)
    for _ in sys.stdin:
        print(crowd.tried, len(crowd.open), flush=True)
    held = crowd.stop()
    print(crowd.tried, held, flush=True)


def _http_ask(port: int, path: str) -> Callable[[], bool]:
    import http.client

    def ask() -> bool:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request("GET", path)
            return connection.getresponse().status == 200
        finally:
            connection.close()

    return ask


def _lobby_ask(port: int) -> Callable[[], bool]:
    counter = iter(range(10 ** 9))

    def ask() -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(json.dumps({"type": "LOGIN", "username": f"honest{next(counter)}"}).encode() + b"\n"
                         + b'{"type":"GET_PUBLIC_ROOMS"}\n')
            data = b""
            while b"PUBLIC_ROOMS" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    return False
                data += chunk
            return True

    return ask


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(server: str, folder: Path) -> tuple[subprocess.Popen[bytes], int, Callable[[], bool], bytes]:
    """Start ``server`` (web, arena, lobby) with its defaults on a free port: the process,
    its port, the honest request and what a slow client sends first."""
    port = _free_port()
    command = [sys.executable, "-m", "gameroom"]
    head = b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    log = open(folder / f"{server}.log", "wb")
    if server == "web":
        args, ask = ["web", "--port", str(port)], _http_ask(port, "/api/games")
    elif server == "arena":
        (folder / "arena.toml").write_text(f'listen = "127.0.0.1:{port}"\ndatabase = "sqlite:///arena.db"\n'
                                           '[[competitions]]\nname = "c"\ngame = "q"\n')
        args, ask = ["arena", "--config", str(folder / "arena.toml")], _http_ask(port, "/api/arena")
    else:
        (folder / "lobby.json").write_text(json.dumps({"seed": 7}))
        args, ask, head = ["lobby", "--port", str(port), "--config", str(folder / "lobby.json")], _lobby_ask(port), \
            b'{"type": "LOG'
    process = subprocess.Popen([*command, *args], stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=folder)
    log.close()
    deadline = time.monotonic() + 120
    while True:
        try:
            if ask():
                return process, port, ask, head
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{server} did not start: {(folder / f'{server}.log').read_text()[-1000:]}")
        time.sleep(0.2)


def slow_client_row(server: str, slow: int = 2000, requests: int = HONEST_REQUESTS) -> SlowClientRow:
    """An honest client's latency to ``server`` alone and while :data:`SLOW_ADDRESS` holds
    ``slow`` slow connections (each made again when the server closes it), and the
    server's open files: a row of ``python -m gameroom.bench slowloris``."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix=f"gameroom-slow-{server}-") as where:
        process, port, ask, head = _serve(server, Path(where))
        crowd: _CrowdProcess | None = None
        try:
            cpu = _cpu_seconds(process.pid)
            quiet, _ = _honest(ask, requests)
            quiet_cpu = _cpu_seconds(process.pid) - cpu
            quiet_files = _open_files(process.pid)
            crowd = _CrowdProcess(port, head, slow)
            before, _ = crowd.count()
            cpu = _cpu_seconds(process.pid)
            loud, served = _honest(ask, requests)
            loud_cpu = _cpu_seconds(process.pid) - cpu
            made, _ = crowd.count()
            loud_files = _open_files(process.pid)
            held = crowd.stop()
        finally:
            if crowd is not None and crowd.process.poll() is None:
                crowd.process.kill()
            process.terminate()
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(30)
    return SlowClientRow(server, held, crowd.tried, _percentiles(quiet), _percentiles(loud), served, requests,
                         (quiet_files, loud_files), (quiet_cpu, loud_cpu), made - before)


SERVERS = ("web", "arena", "lobby")


def run_slow_clients(slow: int = 2000, servers: tuple[str, ...] = SERVERS) -> list[SlowClientRow]:
    """The slow-client row of each of ``servers`` (the web room, the arena, the lobby), each printed."""
    rows = []
    for server in servers:
        row = slow_client_row(server, slow)
        print(row.line(), flush=True)
        rows.append(row)
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["crowd"] and len(sys.argv) == 5:
        _crowd_main(int(sys.argv[2]), int(sys.argv[3]), bytes.fromhex(sys.argv[4]))
    else:
        sys.exit("usage: python -m gameroom.bench.slowloris crowd PORT SIZE FIRST-BYTES-IN-HEX "
                 "(the crowd of one slow-client row; the benchmark is python -m gameroom.bench slowloris)")
