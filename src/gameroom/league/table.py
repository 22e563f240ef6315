"""One game between league bots: seat them, play through the registry, keep the replay.

This is what a league worker (a pool process or a Ray task) runs; it takes and returns
plain data so it crosses process boundaries, and it never raises for a bot's sake: every
bot failure is an ejection inside the match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from gameroom.core.calls import ThreadedCaller
from gameroom.core.chain import head_of
from gameroom.core.context import MatchContext
from gameroom.core.isolation import IsolatedCaller
from gameroom.core.match import Seat
from gameroom.core.record import MatchRecord
from gameroom.core.sandbox import SandboxPolicy, resolve_policy
from gameroom.league.bots import Bot, bots_from_specs
from gameroom.league.programs import ProgramLimits, ProgramSeats, seat_programs
from gameroom.league.replay import ReplayRecorder

__all__ = ["TableTask", "TableOutcome", "play_table", "record_table"]


@dataclass(frozen=True)
class TableTask:
    """Game ``index`` of a league: its seed and the bots in turn order (stored JSON form);
    ``sandbox``: how untrusted bots are confined (decided by the league's process)."""

    game: str
    index: int
    seed: int
    bots: tuple[dict[str, Any], ...]
    extra: tuple[tuple[str, Any], ...] = ()
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    call_seconds: float | None = None
    """The time limit of every call to an untrusted seat instead of the game's own (an
    arena competition's ``call_seconds``); None: the game's."""
    options: tuple[tuple[str, Any], ...] = ()
    """The game's own options, typed (``core.options.table_options``: an arena
    competition's ``options``), played by ``GameDescriptor.play_options`` and kept in the
    replay's configuration so ``replay verify`` deals the same game; none: ``play``'s."""


@dataclass(frozen=True)
class TableOutcome:
    """A played game as the league's writer needs it: the record without its events (header
    and result) and the whole replay, compressed — parsing and compressing a replay is work
    for the worker, not for the one process that writes results."""

    index: int
    record: MatchRecord
    replay: bytes
    unstarted: tuple[tuple[str, str], ...] = ()   # (bot, reason): untrusted bots that never started
    digest: str | None = None   # the head of the replay's digest chain
    stderr: tuple[tuple[str, str], ...] = ()
    """(bot, stderr tail) of each ejected program whose ejection reason carries none (the
    referee's ejection for an illegal move, unlike a failed call's, says nothing of the
    program), read once the program has ended."""


def play_table(task: TableTask, given: dict[str, Seat] | None = None) -> TableOutcome:
    """Play the task's game (in a worker). ``given``: seats made by the caller for the
    bots whose spec is ``{"name": ..., "remote": true}`` (a remote bot's connection, which
    lives in the caller's process: ``gameroom.arena``)."""
    record, unstarted, tails = _play(task, given or {})
    text = record.to_jsonl()
    from gameroom.league.packing import pack

    replay = pack(text)
    record.events = []
    return TableOutcome(task.index, record, replay, tuple(unstarted.items()), head_of(text), tuple(tails.items()))


class _Limited:
    """A caller whose time-limited calls get ``seconds`` instead."""

    def __init__(self, caller: Any, seconds: float) -> None:
        self.caller, self.seconds = caller, seconds

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        return self.caller(method, args, None if limit is None else self.seconds)


def record_table(task: TableTask) -> MatchRecord:
    """Play the task's game; its replay (the match record)."""
    return _play(task)[0]


def _silent_tails(record: MatchRecord, launched: ProgramSeats) -> dict[str, str]:
    """The stderr tails of the ejected programs whose reasons carry none (their programs
    have ended: the tails are whole)."""
    tails: dict[str, str] = {}
    for ejection in record.result.ejections if record.result is not None else ():
        if "; stderr: " in ejection.reason or "; no stderr" in ejection.reason:
            continue
        tail = launched.stderr_tail(ejection.name)
        if tail:
            tails[ejection.name] = tail
    return tails


def _play(task: TableTask, given: dict[str, Seat] | None = None
          ) -> tuple[MatchRecord, dict[str, str], dict[str, str]]:
    from gameroom.games import registry

    game = registry.game(task.game)
    given = given or {}
    remote = {spec["name"] for spec in task.bots if spec.get("remote")}
    missing = remote - set(given)
    if missing:
        raise ValueError(f"no seat given for the remote bots {sorted(missing)}")
    local = [spec for spec in task.bots if not spec.get("remote")]
    parsed = iter(bots_from_specs(local) if local else ())   # a table of remote bots only has none
    bots: Sequence[Bot | str] = [spec["name"] if spec.get("remote") else next(parsed) for spec in task.bots]
    sandbox = task.sandbox if task.sandbox.mode != "auto" else resolve_policy(task.sandbox)
    programs = [(bot.name, bot.value, ProgramLimits.of(bot.limits), bot.read) for bot in bots
                if isinstance(bot, Bot) and bot.kind == "command"]
    with seat_programs(game, programs, sandbox) as launched:
        seats = [given[bot] if isinstance(bot, str) else launched.seats[bot.name] if bot.kind == "command"
                 else bot.local_seat(game, bot.name, task.seed + at, sandbox)
                 for at, bot in enumerate(bots)]
        unstarted = dict(launched.unstarted)
        for seat in seats:   # a Python bot whose player never started counts as a program that never signed up
            if isinstance(seat.caller, IsolatedCaller) and seat.caller.start_failure is not None:
                unstarted[seat.name] = seat.caller.start_failure
        closers = [seat.caller for seat in seats]
        if task.call_seconds is not None:
            for seat in seats:
                if not seat.trusted:
                    seat.caller = _Limited(seat.caller, task.call_seconds)
        config = {"seats": [{"name": spec["name"], "bot": spec if isinstance(bot, str) else bot.spec,
                             "trusted": seat.trusted} for spec, bot, seat in zip(task.bots, bots, seats, strict=True)],
                  "index": task.index, **dict(task.extra),
                  **({"call_seconds": task.call_seconds} if task.call_seconds is not None else {}),
                  **({"options": dict(task.options)} if task.options else {})}
        recorder = ReplayRecorder(game.name, task.seed, config, [seat.name for seat in seats])
        try:
            game.play_options(task.seed, seats, dict(task.options), MatchContext(observers=[recorder]))
        finally:
            for seat, caller in zip(seats, closers, strict=True):   # threads, process groups, remote connections
                if isinstance(caller, (ThreadedCaller, IsolatedCaller)):
                    caller.close()
                elif seat.name in given and hasattr(caller, "close"):
                    caller.close()
    return recorder.record, unstarted, _silent_tails(recorder.record, launched)
