"""Fuzzing the game servers: bad messages at sign-up and at every method, beside real games.

One *round* starts one server process for one game (``gameroom.server.many``: the game's
own server plan and ``host_game``, one game per port, all at once) and plays every game of
the round over loopback. A game of a round (:class:`GameCase`) first receives its bad
sign-ups (each on its own connection, sent and then half-closed so the server reads the
whole message at once), then a full table of built-in players signs up; one of them may be
a *fuzzer*, which plays normally until the server calls ``method`` and then answers with
the bad bytes and half-closes. The round then checks what the issue asks of a server:

* it never crashes: it exits with status 0 after printing every game's result, and its
  standard error holds no traceback;
* no result is lost: every game printed a result that is not the no-game or error result;
* the offender is ejected with its reason: a fuzzer whose bad reply was sent (and was not
  a valid answer) appears in an ejection line ``NAME dropped out on METHOD: REASON``, and
  every bad sign-up got an ``improper sign-up`` line.

``python -m gameroom.bench fuzz [--messages N]`` runs rounds of every game with a
referee server, with bad messages drawn from a seeded generator, until N bad messages
were sent, and prints the count, crashes and lost results. The property test
(``tests/server/test_fuzz.py``) runs a few rounds with hypothesis drawing the messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import logging
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from gameroom.bench import payloads
from gameroom.core.hosting import SignupRules
from gameroom.core.protocol import Method, WireProtocol
from gameroom.remote.connection import Connection
from gameroom.remote.jsonstream import DEFAULT_MAX_VALUE_BYTES, MAX_DEPTH, encode
from gameroom.remote.proxy_referee import serve_referee
from gameroom.server.signup import SIGNUP_MAX_VALUE_BYTES
from gameroom.bench.processes import python_module

__all__ = ["GameCase", "RoundReport", "run_round", "served_games", "reply_methods", "bad_reply",
           "bad_signup", "start_arena", "run"]

logger = logging.getLogger(__name__)

ROUND_SECONDS = 180.0   # a round that takes longer than this counts as a hung server
PERIOD = 60.0           # the arena's waiting period: every table fills up and starts at once; a short
                        # period ends sign-up early on a loaded machine (a "no game", not a server fault)


@dataclass
class GameCase:
    """One game of a round: bad sign-ups first, then a table that may hold one fuzzer."""

    signups: list[bytes] = field(default_factory=list)
    method: str | None = None          # the wire name of the method the fuzzer answers badly
    payload: bytes = b""
    must_eject: bool = True            # False when the bad reply may be a valid answer


@dataclass
class RoundReport:
    game: str
    games: int
    messages: int = 0                  # bad messages sent
    results: int = 0                   # results the server printed
    lost: int = 0                      # results missing or no-game/error results
    crashed: str | None = None         # why the server process counts as crashed
    unejected: list[str] = field(default_factory=list)   # fuzzers sent bad bytes, not ejected
    improper: int = 0                  # bad sign-ups the server reported
    signups: int = 0                   # bad sign-ups sent
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return (self.crashed is None and self.lost == 0 and not self.unejected
                and self.improper >= self.signups)


def served_games() -> list[str]:
    """Every registered game with a referee server (the lobby serves the others)."""
    from gameroom.games import registry

    return [name for name, game in registry.games().items() if game.lobby is None and game.hosting.server is not None]


def reply_methods(protocol: WireProtocol) -> list[Method]:
    """The methods a player answers (a one-way call has no reply to spoil)."""
    return [method for method in protocol.methods if not method.one_way]


def bad_reply(method: Method, value_bytes: bytes) -> bool:
    """Is ``value_bytes`` surely not a valid answer to ``method``? (Only a wrong-type value
    can be one: every other kind of bad message is unreadable.)"""
    try:
        value = json.loads(value_bytes)
    except (ValueError, RecursionError):   # not JSON, or nested deeper than Python decodes
        return True
    try:
        method.result.decode(value)
    except Exception:   # noqa: BLE001 -- any failure to decode is the answer: a bad reply
        return True
    return False


@functools.lru_cache(maxsize=None)
def _rules(game_name: str) -> SignupRules:
    """The game's sign-up rules (the plan's note on standard error is not wanted here)."""
    from gameroom.server.many import plan_for

    with contextlib.redirect_stderr(io.StringIO()):
        return plan_for(game_name, 0).rules


def bad_signup(game_name: str, value_bytes: bytes) -> bool:
    """Is ``value_bytes`` surely not a valid sign-up for ``game_name``'s server?"""
    from gameroom.games import registry

    try:
        value = json.loads(value_bytes)
    except (ValueError, RecursionError):   # not JSON, or nested deeper than Python decodes
        return True
    greeting = registry.game(game_name).protocol.greeting
    try:
        name = greeting.name_of(value)
    except Exception:   # noqa: BLE001 -- any failure to read a name is the answer: a bad sign-up
        return True
    return not _rules(game_name).valid_name(name)


async def start_arena(game_name: str, games: int, seed: int, period: float) -> tuple[Any, list[int]]:
    """Start an arena server process (``gameroom.server.many``); it and its ports."""
    server = await asyncio.create_subprocess_exec(
        *python_module("gameroom.server.many", game_name, "--games", str(games), "--seed", str(seed),
                       "--period", str(period)), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=2**24)
    assert server.stdout is not None and server.stderr is not None
    errors = asyncio.ensure_future(server.stderr.read())   # read while it runs: a full pipe would block it
    server.errors = errors   # type: ignore[attr-defined]
    line = await server.stdout.readline()
    try:
        ports = json.loads(line)["ports"]
    except (ValueError, KeyError, TypeError):
        server.kill()
        raise RuntimeError(f"the arena did not start: {line[:200]!r} {(await errors)[-600:]!r}") from None
    return server, ports


async def _rest_of_output(server: Any) -> tuple[bytes, bytes]:
    stdout = await server.stdout.read()
    stderr = await server.errors
    await server.wait()
    return stdout, stderr


def _letters(number: int) -> str:
    text = ""
    while True:
        text = chr(97 + number % 26) + text
        number //= 26
        if number == 0:
            return text


async def _connect(port: int, tries: int = 200) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect, retrying while the server process is starting."""
    for _ in range(tries):
        try:
            return await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
    return await asyncio.open_connection("127.0.0.1", port)


async def _bad_signup(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, payload: bytes) -> None:
    """Send the bad sign-up, half-close, and wait (bounded) for the server to hang up."""
    try:
        writer.write(payload)
        writer.write_eof()
        await writer.drain()
        await asyncio.wait_for(reader.read(), 30.0)
    except (OSError, asyncio.TimeoutError):
        pass
    finally:
        writer.close()


async def _play(game_name: str, port: int, case: GameCase, seat_of_fuzzer: int, fuzzer: str,
                fired: set[str], seed: int) -> None:
    """One game's clients: the bad sign-ups, then the players in order."""
    from gameroom.games import registry

    game = registry.game(game_name)
    protocol = game.protocol
    strategy = next(iter(game.strategies.values()))
    seats = _rules(game_name).max_players
    pending = []
    for payload in case.signups:
        try:
            reader, writer = await _connect(port)
        except OSError:   # the server stopped listening: the round reports what went wrong
            break
        pending.append(asyncio.ensure_future(_bad_signup(reader, writer, payload)))
    sessions = []
    for at in range(seats):
        is_fuzzer = case.method is not None and at == seat_of_fuzzer % seats
        name = fuzzer if is_fuzzer else "p" + _letters(at)
        try:
            reader, writer = await _connect(port)
        except OSError:
            break
        connection = Connection(reader, writer)
        deviations: dict[Any, Any] = {}
        if is_fuzzer:
            def deviate(_reply: Any, writer: asyncio.StreamWriter = writer) -> bytes | None:
                if fuzzer in fired:
                    return None
                fired.add(fuzzer)
                # Half-close right after the bad bytes: the server reads them whole at once
                # (a truncated value is then cut by the end of the stream, not a time-out).
                asyncio.get_running_loop().call_soon(writer.write_eof)
                return case.payload
            deviations[case.method] = deviate
        sessions.append(asyncio.ensure_future(_session(connection, protocol, name,
                                                       strategy(name, seed + at), deviations)))
    await asyncio.gather(*pending, *sessions)


async def _session(connection: Connection, protocol: WireProtocol, name: str, player: Any,
                   deviations: dict[str, Any]) -> None:
    try:
        await connection.send_raw(encode(protocol.greeting.message(name)))
        if protocol.greeting.ack is not None:
            await connection.read_value(30.0, 30.0)
        await serve_referee(connection, player, protocol, deviations=deviations, read_limit=60.0)
    except Exception:   # the server may hang up on anyone at any time; that is its right
        logger.debug("player %s: the session ended", name, exc_info=True)
    finally:
        connection.close()


async def run_round(game_name: str, cases: Sequence[GameCase], seed: int = 0) -> RoundReport:
    """Serve ``cases`` (one game each) in one server process and check it (see the module)."""
    report = RoundReport(game_name, len(cases))
    started = time.perf_counter()
    server, ports = await start_arena(game_name, len(cases), seed, PERIOD)
    output = asyncio.ensure_future(_rest_of_output(server))
    rng = random.Random(seed)
    fired: set[str] = set()
    fuzzers = [f"fz{_letters(i)}" for i in range(len(cases))]
    seats = [rng.randrange(8) for _ in cases]
    clients = asyncio.gather(*(
        _play(game_name, port, case, seat, fuzzer, fired, seed + 100 * i)
        for i, (port, case, seat, fuzzer) in enumerate(zip(ports, cases, seats, fuzzers))))
    try:
        await asyncio.wait_for(asyncio.shield(clients), ROUND_SECONDS)
        stdout, stderr = await asyncio.wait_for(asyncio.shield(output), ROUND_SECONDS)
    except asyncio.TimeoutError:
        report.crashed = f"the server did not finish within {ROUND_SECONDS:g} s"
        server.kill()
        clients.cancel()
        await asyncio.gather(clients, return_exceptions=True)
        stdout, stderr = await output
    report.seconds = time.perf_counter() - started
    log = stderr.decode("utf-8", "replace")
    lines = [json.loads(line) for line in stdout.decode("utf-8", "replace").splitlines() if line.startswith("{")]
    results = [line for line in lines if "port" in line]
    report.results = len(results)
    report.lost = len(cases) - sum(1 for line in results if not line["lost"])
    if report.crashed is None and (server.returncode != 0 or {"done": len(cases)} not in lines):
        report.crashed = f"the server exited with status {server.returncode}: {log[-400:]}"
    if "Traceback" in log and report.crashed is None:
        report.crashed = "a traceback on standard error: " + log[log.index("Traceback"):][:600]
    for case, fuzzer, _seat in zip(cases, fuzzers, seats):
        report.signups += len(case.signups)
        report.messages += len(case.signups) + (fuzzer in fired)
        # Evolution names players "NAME#SEAT" in its log.
        if fuzzer in fired and case.must_eject and not re.search(rf"\b{fuzzer}(#\d+)? dropped out on", log):
            report.unejected.append(f"{fuzzer} ({case.method}: {case.payload[:60]!r})")
    report.improper = log.count("improper sign-up")
    return report


def _random_case(game_name: str, rng: random.Random, signups: int) -> GameCase:
    from gameroom.games import registry

    methods = reply_methods(registry.game(game_name).protocol)
    case = GameCase()
    while len(case.signups) < signups:
        payload = payloads.random_payload(rng, rng.choice(payloads.KINDS), SIGNUP_MAX_VALUE_BYTES, MAX_DEPTH)
        if bad_signup(game_name, payload):
            case.signups.append(payload)
    method = rng.choice(methods)
    kind = rng.choice(payloads.KINDS)
    payload = payloads.random_payload(rng, kind, DEFAULT_MAX_VALUE_BYTES, MAX_DEPTH)
    return GameCase(case.signups, method.wire, payload, must_eject=bad_reply(method, payload))


def run(messages: int = 100_000, games: int = 16, seed: int = 0) -> None:
    """Rounds of every served game until ``messages`` bad messages were sent; print totals."""
    names = served_games()
    rng = random.Random(seed)
    totals = {"messages": 0, "games": 0, "results": 0, "lost": 0, "crashes": 0, "unejected": 0, "improper": 0}
    started = time.perf_counter()
    rounds = 0
    print(f"fuzzing the servers of {', '.join(names)}: {games} games per server process, up to "
          f"{MAX_PENDING_SIGNUPS} bad sign-ups per game and one player answering one method badly",
          flush=True)
    while totals["messages"] < messages:
        cases = {name: [_random_case(name, rng, rng.randrange(MAX_PENDING_SIGNUPS + 1)) for _ in range(games)]
                 for name in names}

        async def one_round(cases: dict[str, list[GameCase]], rounds: int) -> list[RoundReport]:
            return list(await asyncio.gather(*(run_round(name, cases[name], seed + rounds * 1000 + i)
                                               for i, name in enumerate(names))))

        for report in asyncio.run(one_round(cases, rounds)):
            totals["messages"] += report.messages
            totals["games"] += report.games
            totals["results"] += report.results
            totals["lost"] += report.lost
            totals["crashes"] += report.crashed is not None
            totals["unejected"] += len(report.unejected)
            totals["improper"] += report.improper
            if not report.ok:
                print(f"  round {rounds} {report.game}: crashed={report.crashed} lost={report.lost} "
                      f"unejected={report.unejected[:3]} improper={report.improper}/{report.signups}", flush=True)
        rounds += 1
        elapsed = time.perf_counter() - started
        print(f"  after {rounds} rounds: {totals['messages']} bad messages, {totals['games']} games, "
              f"{elapsed:.0f} s", flush=True)
    elapsed = time.perf_counter() - started
    print(f"fuzz: {totals['messages']} bad messages sent in {elapsed:.0f} s ({totals['messages'] / elapsed:.0f}/s), "
          f"{totals['games']} games, {totals['results']} results printed, crashes {totals['crashes']}, "
          f"lost results {totals['lost']}, offenders not ejected {totals['unejected']}", flush=True)
    print(json.dumps({"messages": totals["messages"], "games": totals["games"], "crashes": totals["crashes"],
                      "lost_results": totals["lost"], "not_ejected": totals["unejected"],
                      "seconds": round(elapsed, 1)}), flush=True)


MAX_PENDING_SIGNUPS = 60   # bad sign-ups per game: under the server's 64 waiting connections
