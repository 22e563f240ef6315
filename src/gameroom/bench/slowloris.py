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
games' time without and with the attackers. The test (``tests/server/test_slowloris.py``)
runs the same mix and checks only that every normal game finishes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import time
from dataclasses import dataclass, field

from gameroom.bench.fuzz import _rest_of_output, _rules, _session, start_arena
from gameroom.remote.connection import Connection

__all__ = ["MixReport", "run_mix", "run", "KINDS"]

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


def run(attackers: int = 500, games: int = 20, *, game_name: str, repeats: int = 3) -> None:
    """Print the normal games' time without and with the attackers (best of ``repeats``)."""
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
