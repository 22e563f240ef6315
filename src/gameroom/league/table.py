"""One game between league bots: seat them, play through the registry, keep the replay.

This is what a league worker (a pool process or a Ray task) runs; it takes and returns
plain data so it crosses process boundaries, and it never raises for a bot's sake: every
bot failure is an ejection inside the match.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, Sequence

from gameroom.core.calls import ThreadedCaller
from gameroom.core.context import MatchContext
from gameroom.core.isolation import IsolatedCaller
from gameroom.core.record import MatchRecord
from gameroom.core.sandbox import SandboxPolicy, resolve_policy
from gameroom.league.bots import Bot, bots_from_specs
from gameroom.league.programs import ProgramLimits, seat_programs
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


@dataclass(frozen=True)
class TableOutcome:
    """A played game as the league's writer needs it: the record without its events (header
    and result) and the whole replay, compressed — parsing and compressing a replay is work
    for the worker, not for the one process that writes results."""

    index: int
    record: MatchRecord
    replay: bytes
    unstarted: tuple[tuple[str, str], ...] = ()   # (bot, reason): untrusted bots that never started


def play_table(task: TableTask) -> TableOutcome:
    """Play the task's game (in a worker)."""
    record, unstarted = _play(task)
    replay = zlib.compress(record.to_jsonl().encode("utf-8"), 1)
    record.events = []
    return TableOutcome(task.index, record, replay, tuple(unstarted.items()))


def record_table(task: TableTask) -> MatchRecord:
    """Play the task's game; its replay (the match record)."""
    return _play(task)[0]


def _play(task: TableTask) -> tuple[MatchRecord, dict[str, str]]:
    from gameroom.games import registry

    game = registry.game(task.game)
    bots: Sequence[Bot] = bots_from_specs(task.bots)
    sandbox = task.sandbox if task.sandbox.mode != "auto" else resolve_policy(task.sandbox)
    programs = [(bot.name, bot.value, ProgramLimits.of(bot.limits)) for bot in bots if bot.kind == "command"]
    with seat_programs(game, programs, sandbox) as launched:
        seats = [launched.seats[bot.name] if bot.kind == "command"
                 else bot.local_seat(game, bot.name, task.seed + at, sandbox)
                 for at, bot in enumerate(bots)]
        unstarted = dict(launched.unstarted)
        for seat in seats:   # a Python bot whose player never started counts as a program that never signed up
            if isinstance(seat.caller, IsolatedCaller) and seat.caller.start_failure is not None:
                unstarted[seat.name] = seat.caller.start_failure
        config = {"seats": [{"name": bot.name, "bot": bot.spec, "trusted": seat.trusted}
                            for bot, seat in zip(bots, seats)], "index": task.index, **dict(task.extra)}
        recorder = ReplayRecorder(game.name, task.seed, config, [seat.name for seat in seats])
        try:
            game.play(task.seed, seats, MatchContext(observers=[recorder]))
        finally:
            for seat in seats:   # worker threads and isolated process groups end with the game
                if isinstance(seat.caller, (ThreadedCaller, IsolatedCaller)):
                    seat.caller.close()
    return recorder.record, unstarted
