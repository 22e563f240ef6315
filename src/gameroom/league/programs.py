"""Program bots: a subprocess per seat that speaks the game's TCP protocol to a local port.

For each program seat a :class:`~gameroom.server.signup.Signup` listens on a free port of
127.0.0.1 (the server's own sign-up: greeting, name limits), the program is started with
that port, signs up like any remote client and is seated through the server's proxy
(``remote.proxy_player``), so a program bot is held to exactly the wire remote clients are.

The program runs in its own session and process group with resource limits set in the
child before ``exec`` (``core.sandbox``: CPU seconds, address space, processes).
When a call to it fails (time-out, garbage, disconnect) or the game ends, the whole group
is killed with SIGKILL and reaped, so nothing it forked outlives its game.

The argv may use ``{port}``, ``{game}`` and ``{name}``; the same facts are in the
environment as ``GAMEROOM_PORT``, ``GAMEROOM_GAME`` and ``GAMEROOM_NAME``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from typing import Any, Callable, Sequence

from gameroom.core.calls import CallFailed
from gameroom.core.game import GameDescriptor
from gameroom.core.hosting import PeriodPolicy, SignupRules
from gameroom.core.match import Seat
from gameroom.core.record import FailureKind
from gameroom.core.sandbox import ResourceLimits as ProgramLimits
from gameroom.core.sandbox import kill_group as kill_process_group
from gameroom.core.sandbox import limiter, user_processes

__all__ = ["ProgramLimits", "ProgramSeats", "seat_programs", "kill_group"]

START_SECONDS = 15.0   # for a program to start and send its sign-up


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the program's whole process group and reap the program."""
    _live.discard(process)
    kill_process_group(process.pid)
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        pass


_live: set[subprocess.Popen[bytes]] = set()   # programs running in this process's games


def kill_all_programs() -> None:
    """Kill every program group this process started that is still running."""
    for process in list(_live):
        kill_group(process)


_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def network_loop() -> asyncio.AbstractEventLoop:
    """The process's one asyncio loop for program connections (on a daemon thread)."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, daemon=True, name="program-bots").start()
            _loop = loop
        return _loop


class _ProgramCaller:
    """The server's proxy for the program, which kills the program's group when a call
    fails: a program that spins or floods stops costing anything at its time-out."""

    def __init__(self, proxy: Any, process: subprocess.Popen[bytes]) -> None:
        self.proxy = proxy
        self.process = process

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        try:
            return self.proxy(method, args, limit)
        except CallFailed:
            kill_group(self.process)
            raise


def _failed_caller(reason: str) -> Callable[..., Any]:
    def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        raise CallFailed(reason, FailureKind.DISCONNECT)

    return call


class ProgramSeats:
    """The program seats of one game; :meth:`close` kills every program's group."""

    def __init__(self) -> None:
        self.seats: dict[str, Seat] = {}
        self.processes: list[subprocess.Popen[bytes]] = []
        self._closers: list[Callable[[], None]] = []

    def close(self) -> None:
        for closer in self._closers:
            closer()
        for process in self.processes:
            kill_group(process)
        self._closers.clear()

    def __enter__(self) -> "ProgramSeats":
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()


def seat_programs(game: GameDescriptor, programs: Sequence[tuple[str, Sequence[str], ProgramLimits]],
                  log: Callable[[str], None] = lambda _t: None) -> ProgramSeats:
    """Start every ``(seat name, argv, limits)`` program, let each sign up on its own port
    and make its seat. A program that cannot start or sign up gets a seat whose first call
    fails, so the game goes on and ejects it."""
    from gameroom.remote.proxy_player import remote_seat
    from gameroom.server.signup import Signup

    loop = network_loop()
    out = ProgramSeats()
    allowance = user_processes() if programs else 0
    rules = SignupRules(min_players=1, max_players=1, periods=1, period_seconds=START_SECONDS,
                        name_first_byte=START_SECONDS, name_complete=game.limits.signup_complete or 5.0,
                        valid_name=lambda name: isinstance(name, str) and 1 <= len(name) <= 64, backlog=2,
                        policy=PeriodPolicy(1, START_SECONDS))

    async def launch(seat_name: str, argv: Sequence[str], limits: ProgramLimits) -> Seat:
        signup = Signup(rules, log, game.protocol.greeting)
        await signup.listen("127.0.0.1", 0)
        port = signup.port
        facts = {"port": str(port), "game": game.name, "name": seat_name}
        command = [part.format(**facts) if "{" in part else part for part in argv]
        env = {**os.environ, "GAMEROOM_PORT": str(port), "GAMEROOM_GAME": game.name, "GAMEROOM_NAME": seat_name}
        try:
            process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True,
                                       preexec_fn=limiter(limits, allowance + limits.processes))
        except (OSError, ValueError) as exc:
            signup.stop_listening()
            return Seat(seat_name, _failed_caller(f"program could not start: {exc}"))
        out.processes.append(process)
        _live.add(process)
        players = await signup.run()
        if not players:
            signup.close_all()
            kill_group(process)
            return Seat(seat_name, _failed_caller("program did not sign up"))
        seat = remote_seat(game.protocol, players[0].connection, loop, seat_name)
        out._closers.append(lambda c=players[0].connection: loop.call_soon_threadsafe(c.close))
        seat.caller = _ProgramCaller(seat.caller, process)
        return seat

    async def launch_all() -> list[Seat]:
        return list(await asyncio.gather(*(launch(name, argv, limits) for name, argv, limits in programs)))

    try:
        seats = asyncio.run_coroutine_threadsafe(launch_all(), loop).result()
    except BaseException:
        out.close()      # nothing started for this game outlives it
        raise
    out.seats = {seat.name: seat for seat in seats}
    return out
