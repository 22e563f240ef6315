"""Program bots: a sandboxed subprocess per seat that speaks the game's TCP protocol.

For each program seat a :class:`~gameroom.server.signup.Signup` (the server's own
sign-up: greeting, name limits) waits for the program, which is started in its sandbox
(``core.confine``, by the league's ``core.sandbox.SandboxPolicy``), signs up like any
remote client and is seated through the server's proxy (``remote.proxy_player``), so a
program bot is held to exactly the wire remote clients are.

The game connection: with bubblewrap and no network, the program's sandbox has a network
namespace of its own, in which the launcher listens on ``127.0.0.1:{port}``
(:data:`~gameroom.core.confine.SANDBOX_PORT`) and hands the listening socket to the
league, which accepts the program's connection on it: nothing else is reachable from
the sandbox, and no byte of a call is relayed. Otherwise the sign-up listens on a free
port of the host's 127.0.0.1.

A program that exits before signing up, cannot be found or does not sign up in time is
ejected at its first call with how it ended and the tail of its standard error. When a
call to it fails, the reason gets the same (a program whose connection closed is given a
moment to exit by itself first). When a call fails or the game ends, the program and
everything it started are killed and reaped.

The argv may use ``{port}``, ``{game}`` and ``{name}``; the same facts are in the
environment as ``GAMEROOM_PORT``, ``GAMEROOM_GAME`` and ``GAMEROOM_NAME``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from typing import Any, Callable, Sequence

from gameroom.core.calls import CallFailed
from gameroom.core.confine import SANDBOX_PORT, Confined
from gameroom.core.game import GameDescriptor
from gameroom.core.hosting import PeriodPolicy, SignupRules
from gameroom.core.match import Seat
from gameroom.core.record import FailureKind
from gameroom.core.sandbox import ResourceLimits as ProgramLimits
from gameroom.core.sandbox import SandboxPolicy

__all__ = ["ProgramLimits", "ProgramSeats", "seat_programs", "kill_all_programs", "failed_caller", "START_SECONDS"]

START_SECONDS = 15.0   # for a program to start and send its sign-up
EXIT_GRACE_SECONDS = 1.0   # for a program whose connection closed to exit by itself

_live: set[Confined] = set()   # programs running in this process's games
_live_lock = threading.Lock()


def _end(program: Confined) -> None:
    """Kill the program and everything it started; reap it."""
    with _live_lock:
        _live.discard(program)
    program.kill()


def kill_all_programs() -> None:
    """Kill every program this process started that is still running."""
    with _live_lock:
        programs = list(_live)
    for program in programs:
        _end(program)


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
    """The server's proxy for the program: when a call fails, the program is ended and the
    reason says how it ended and what it last wrote on stderr."""

    def __init__(self, proxy: Any, program: Confined) -> None:
        self.proxy = proxy
        self.program = program
        self.together = getattr(proxy, "together", None)   # as its proxy waits (core.calls)

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        try:
            return self.proxy(method, args, limit)
        except CallFailed as failure:
            if failure.kind is FailureKind.DISCONNECT:
                self.program.wait(EXIT_GRACE_SECONDS)   # it closed the connection: likely exiting
            _end(self.program)
            raise CallFailed(f"{failure.reason}; program {self.program.describe()}", failure.kind) from None


def failed_caller(reason: str) -> Callable[..., Any]:
    def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        raise CallFailed(reason, FailureKind.DISCONNECT)

    return call


def _closer(loop: asyncio.AbstractEventLoop, connection: Any) -> Callable[[], None]:
    """Hang up ``connection`` from any thread (on its loop's thread, where it lives)."""
    def close() -> None:
        loop.call_soon_threadsafe(connection.close)

    return close


class ProgramSeats:
    """The program seats of one game; :meth:`close` ends every program. ``unstarted``:
    the seats whose program never signed up, with the reason."""

    def __init__(self) -> None:
        self.seats: dict[str, Seat] = {}
        self.programs: list[Confined] = []
        self.unstarted: dict[str, str] = {}
        self.by_seat: dict[str, Confined] = {}
        self._closers: list[Callable[[], None]] = []

    def stderr_tail(self, seat_name: str) -> str:
        """The stderr tail of the seat's program ("" when it has none or never started)."""
        program = self.by_seat.get(seat_name)
        return program.stderr_tail() if program is not None else ""

    def close(self) -> None:
        for closer in self._closers:
            closer()
        for program in self.programs:
            _end(program)
        self._closers.clear()

    def __enter__(self) -> "ProgramSeats":
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()


async def _exited(pid: int) -> None:
    """Return when process ``pid`` (a child of ours) has ended."""
    loop = asyncio.get_running_loop()
    try:
        fd = os.pidfd_open(pid)
    except OSError:     # it has ended (and been reaped) already
        return
    ended = loop.create_future()
    def settle() -> None:
        if not ended.done():
            ended.set_result(None)

    loop.add_reader(fd, settle)
    try:
        await ended
    finally:
        loop.remove_reader(fd)
        os.close(fd)


def seat_programs(game: GameDescriptor, programs: Sequence[tuple[Any, ...]],
                  policy: SandboxPolicy | None = None) -> ProgramSeats:
    """Start every ``(seat name, argv, limits[, read])`` program in the sandbox ``policy``
    (``read``: more host paths its sandbox may read, its own files) (the
    default policy, decided here, when None), let each sign up and make its seat. A
    program that cannot start or sign up gets a seat whose first call fails with the
    reason, so the game goes on and ejects it."""
    from gameroom.core.sandbox import resolve_policy

    from gameroom.remote.proxy_player import remote_seat
    from gameroom.server.signup import Signup

    if policy is None or policy.mode == "auto":
        policy = resolve_policy(policy or SandboxPolicy())
    loop = network_loop()
    out = ProgramSeats()
    rules = SignupRules(min_players=1, max_players=1, periods=1, period_seconds=START_SECONDS,
                        name_first_byte=START_SECONDS, name_complete=game.limits.signup_complete or 5.0,
                        valid_name=lambda name: isinstance(name, str) and 1 <= len(name) <= 64, backlog=2,
                        policy=PeriodPolicy(1, START_SECONDS))
    own_network = policy.mode == "bwrap" and not policy.network

    def unstarted(seat_name: str, reason: str) -> Seat:
        out.unstarted[seat_name] = reason
        return Seat(seat_name, failed_caller(reason))

    async def launch(seat_name: str, argv: Sequence[str], limits: ProgramLimits, read: Sequence[str] = ()) -> Seat:
        signup = Signup(rules, game.protocol.greeting)
        if own_network:
            port = SANDBOX_PORT
        else:
            await signup.listen("127.0.0.1", 0)
            port = signup.port or 0
        facts = {"port": str(port), "game": game.name, "name": seat_name}
        command = [part.format(**facts) if "{" in part else part for part in argv]
        env = {"GAMEROOM_PORT": str(port), "GAMEROOM_GAME": game.name, "GAMEROOM_NAME": seat_name}
        try:   # off the loop: the programs of a game start side by side (bubblewrap is held until its limits are set)
            program = await loop.run_in_executor(None, functools.partial(
                Confined, command, policy, limits, env, listen=port if own_network else None, read=read))
        except (OSError, ValueError) as exc:
            signup.stop_listening()
            return unstarted(seat_name, f"program could not start: {exc}")
        out.programs.append(program)
        out.by_seat[seat_name] = program
        with _live_lock:
            _live.add(program)
        if own_network:
            listener = await loop.run_in_executor(None, program.receive_listener, START_SECONDS)
            if listener is None:
                await loop.run_in_executor(None, program.wait, EXIT_GRACE_SECONDS)
                await loop.run_in_executor(None, _end, program)
                return unstarted(seat_name, f"program could not start: {program.describe()}")
            await signup.listen("127.0.0.1", 0, sock=listener)
        signing = asyncio.ensure_future(signup.run())
        exited = asyncio.ensure_future(_exited(program.pid))
        await asyncio.wait({signing, exited}, return_when=asyncio.FIRST_COMPLETED)
        exited.cancel()
        if not signing.done():   # the program ended first: sign-up has nothing to wait for
            signing.cancel()
        players = await asyncio.gather(signing, return_exceptions=True)
        signed = players[0] if isinstance(players[0], list) else []
        if not signed:
            signup.close_all()
            still_running = program.exit_status() is None
            await loop.run_in_executor(None, _end, program)
            if still_running:
                return unstarted(seat_name, f"program did not sign up within {START_SECONDS:g} s (killed)"
                                 + program.stderr_note())
            return unstarted(seat_name, f"program {program.ending()} before signing up{program.stderr_note()}")
        program.signed_up()
        seat = remote_seat(game.protocol, signed[0].connection, loop, seat_name)
        out._closers.append(_closer(loop, signed[0].connection))
        seat.caller = _ProgramCaller(seat.caller, program)
        return seat

    async def launch_all() -> list[Seat]:
        return list(await asyncio.gather(*(launch(*program) for program in programs)))

    try:
        seats = asyncio.run_coroutine_threadsafe(launch_all(), loop).result()
    except BaseException:
        out.close()      # nothing started for this game outlives it
        raise
    out.seats = {seat.name: seat for seat in seats}
    return out
