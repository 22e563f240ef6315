"""Running a league: schedule N games, play them on a backend, write each result as it comes.

Games are played in blocks of ``schedule.BLOCK`` on a backend — a process pool
(``local``, the default) or Ray tasks (``ray``) — and written to the database *in index
order*, each in its own transaction with its replay and the ratings it changes. So the
database always holds games 0..k-1 of the league: a league stopped at any moment (even by
SIGKILL) resumes at game k with the same pairings and seeds, and ends with exactly N
games. A bot that crashes, hangs, floods or forks is ejected inside its game; a worker
process that dies is replaced and its games are played again.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import multiprocessing
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, cast

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gameroom.core.errors import GameroomError
from gameroom.core.game import GameDescriptor
from gameroom.core.record import MatchRecord
from gameroom.sandbox.policy import SandboxPolicy, SandboxUnavailable, resolve_policy
from gameroom.league.bots import Bot
from gameroom.league.db import BotRow, GameRow, LeagueRow, ResultRow, record_game
from gameroom.league.packing import unpack
from gameroom.league.ratings import RatingBook
from gameroom.league.schedule import BLOCK, Schedule, game_seed
from gameroom.league.table import TableOutcome, TableTask, play_table

__all__ = ["LeagueError", "BotsNeverStarted", "LeaguePlan", "run_league", "LocalBackend", "RayBackend", "backend"]

logger = logging.getLogger(__name__)


class LeagueError(GameroomError):
    """The league cannot be run (the message says why)."""


class BotsNeverStarted(LeagueError):
    """Every game was played and written, but some program or Python bot never started in
    any of its games (the message names each with the last reason); ``book`` holds the
    ratings."""

    def __init__(self, message: str, book: RatingBook) -> None:
        super().__init__(message)
        self.book = book


@dataclass
class LeaguePlan:
    game: GameDescriptor
    bots: list[Bot]
    games: int
    seed: int = 0
    players: int | None = None
    name: str | None = None
    replays: Path | None = None
    block: int = BLOCK
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)

    @property
    def table_size(self) -> int:
        return self.players or min(len(self.bots), self.game.max_players)

    @property
    def league_name(self) -> str:
        return self.name or f"{self.game.name}-seed{self.seed}-" + "-".join(b.name for b in self.bots)[:150]

    def config(self) -> dict[str, Any]:
        return {"bots": [b.spec for b in self.bots], "players": self.table_size}


def watch_parent(parent: int) -> None:
    """In a pool worker: when the league process dies (even by SIGKILL) kill this worker's
    programs and exit, so a killed league leaves nothing running. Ctrl-C is the league
    process's to handle (it stops the pool and says so in one line): a worker, in the same
    process group, ignores it rather than print a traceback of the wait it was in."""
    import os
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):   # born with it held (see _sigint_held); ignored now
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        from gameroom.league.programs import kill_all_programs

        kill_all_programs()
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked in this thread meanwhile: a worker spawned here inherits the mask
    through fork and exec (as multiprocessing's own resource tracker is started), so a Ctrl-C (sent to the whole process group) that comes while
    it is still importing, before its initializer ignores SIGINT, cannot end it with a
    traceback (it did under load). A Ctrl-C in the window stays pending for this process
    and is delivered when the block is lifted."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    # Spawning starts multiprocessing's resource tracker first, which unblocks SIGINT in
    # this thread when it has started it: started beforehand, it leaves the mask alone.
    resource_tracker.ensure_running()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


class LocalBackend:
    """A process pool (spawned workers: the parent holds threads)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            import os

            # Marks the workers (and what they start) as this league's, for tests and ps.
            os.environ["GAMEROOM_LEAGUE_PARENT"] = str(os.getpid())
            self._pool = concurrent.futures.ProcessPoolExecutor(self.workers,
                                                                mp_context=multiprocessing.get_context("spawn"),
                                                                initializer=watch_parent, initargs=(os.getpid(),))
        return self._pool

    def run(self, tasks: Sequence[TableTask]) -> Iterator[tuple[TableTask, TableOutcome | BaseException]]:
        """Each task with its replay (or the exception), as they finish."""
        with _sigint_held():   # workers are started by submit
            futures = {self._executor().submit(play_table, task): task for task in tasks}
        broken = False
        for future in concurrent.futures.as_completed(futures):
            try:
                yield futures[future], future.result()
            except concurrent.futures.process.BrokenProcessPool as exc:
                broken = True
                yield futures[future], exc
            except Exception as exc:   # noqa: BLE001 -- handed to the caller, which reports or retries it
                yield futures[future], exc
        if broken:   # a worker died: start a fresh pool for what is played again
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class RayBackend:
    """Ray tasks on the cluster ``address`` (or ``RAY_ADDRESS``) names, else on a local Ray
    instance of ``workers`` game slots (``league.cluster``): each block's games played in
    batches on the nodes' slots, a game played again elsewhere when its node is lost."""

    def __init__(self, workers: int, address: str | None = None) -> None:
        from gameroom.league.cluster import ClusterError, RayCluster

        try:
            self.cluster = RayCluster(address, workers)
        except ClusterError as exc:
            raise LeagueError(str(exc)) from None

    def run(self, tasks: Sequence[TableTask]) -> Iterator[tuple[TableTask, TableOutcome | BaseException]]:
        """Each task with its outcome (or the exception), as they finish: the block given
        at once, for the cluster to play in batches (``league.cluster``)."""
        running = dict(zip(self.cluster.submit_all(tasks), tasks))
        for future in concurrent.futures.as_completed(running):
            try:
                yield running[future], future.result()
            except Exception as exc:   # noqa: BLE001 -- handed to the caller, which reports or retries it
                yield running[future], exc

    def close(self) -> None:
        self.cluster.close()


def backend(name: str, workers: int) -> LocalBackend | RayBackend:
    if name == "local":
        return LocalBackend(workers)
    if name == "ray":
        return RayBackend(workers)
    raise LeagueError(f"unknown backend {name!r}; choose local or ray")


@dataclass
class Progress:
    """What the progress display is told after every game written."""

    done: int
    total: int
    started_at: float
    leaders: list[Any] = field(default_factory=list)


def _league_row(engine: Engine, plan: LeaguePlan) -> int:
    """The league's row, created or checked against the plan (resuming a league means the
    same game, seed, bots and table size); its id."""
    config = plan.config()
    with Session(engine) as session, session.begin():
        row = session.scalar(select(LeagueRow).where(LeagueRow.name == plan.league_name))
        if row is None:
            row = LeagueRow(name=plan.league_name, game=plan.game.name, seed=plan.seed, planned=plan.games,
                            config=config)
            session.add(row)
            session.flush()
        else:
            if row.game != plan.game.name or row.seed != plan.seed or row.config != config:
                raise LeagueError(f"a league named {plan.league_name!r} with another game, seed, bots or table "
                                  "size is in the database; give --name to start a new one")
            row.planned = plan.games
        return row.id


def _played(engine: Engine, league_id: int) -> list[tuple[int, dict[str, int], set[str], set[str]]]:
    """The league's games so far in index order: (index, ranks, winners, ejected)."""
    games: dict[int, tuple[int, dict[str, int], set[str], set[str]]] = {}
    with Session(engine) as session:
        query = (select(GameRow.index, BotRow.name, ResultRow.rank, ResultRow.winner, ResultRow.ejected)
                 .join(ResultRow, ResultRow.game_id == GameRow.id).join(BotRow, BotRow.id == ResultRow.bot_id)
                 .where(GameRow.league_id == league_id).order_by(GameRow.index, ResultRow.id))
        for index, name, rank, winner, ejected in session.execute(query):
            index = cast(int, index)   # a league's games have one
            entry = games.setdefault(index, (index, {}, set(), set()))
            entry[1][name] = rank
            if winner:
                entry[2].add(name)
            if ejected:
                entry[3].add(name)
    return [games[i] for i in sorted(games)]


def run_league(plan: LeaguePlan, engine: Engine, runner: LocalBackend | RayBackend,
               progress: Callable[[Progress], None] = lambda _p: None,
               check: bool = True) -> RatingBook:
    """Play the plan's games not yet in the database; the league's own ratings. Raises
    BotsNeverStarted (after writing every game) when an untrusted bot never started.
    ``check=False``: the caller has checked the bots already (``Bot.check``)."""
    sandbox = plan.sandbox
    if any(bot.kind != "builtin" for bot in plan.bots):
        try:   # decided here, once: the workers get the answer (and the warning is said once)
            sandbox = resolve_policy(plan.sandbox)
        except SandboxUnavailable as exc:
            raise LeagueError(str(exc)) from None
    for bot in plan.bots if check else ():
        bot.check(plan.game, sandbox if sandbox.mode != "auto" else None)
    size = plan.table_size
    if not plan.game.min_players <= size <= plan.game.max_players:
        raise LeagueError(f"{plan.game.name} takes {plan.game.min_players}..{plan.game.max_players} players "
                          f"a game, not {size}")
    try:
        schedule = Schedule([b.name for b in plan.bots], size, plan.seed)
    except ValueError as exc:
        raise LeagueError(str(exc)) from None
    league_id = _league_row(engine, plan)
    played = _played(engine, league_id)
    done = len(played)
    if [entry[0] for entry in played] != list(range(done)):
        raise LeagueError(f"league {plan.league_name!r} has a gap in its games; it was not written by this program")
    bots = {b.name: b for b in plan.bots}
    ours = RatingBook()          # this league's own ratings (pairing, the final table)
    snapshot = RatingBook()      # as of the end of the previous block
    for index, ranks, winners, ejected in played:
        if index < (done // plan.block) * plan.block:
            snapshot.update(plan.game.name, ranks, winners, ejected)
        ours.update(plan.game.name, ranks, winners, ejected)
    every = RatingBook.load(engine, plan.game.name)
    started = time.perf_counter()
    progress(Progress(done, plan.games, started, ours.table(plan.game.name)))
    if plan.replays is not None:
        plan.replays.mkdir(parents=True, exist_ok=True)
    extra = (("league", plan.league_name),)
    starts = _Starts()
    while done < plan.games:
        block_start = (done // plan.block) * plan.block
        block_end = min(block_start + plan.block, plan.games)
        rating = (lambda name, snapshot=snapshot: snapshot.of(plan.game.name, name).mu) if schedule.needs_ratings else None
        tasks = [TableTask(plan.game.name, i, game_seed(plan.seed, i),
                           tuple(bots[name].spec for name in schedule.table(i, rating)), extra, sandbox)
                 for i in range(done, block_end)]
        attempts = {task.index: 0 for task in tasks}
        finished: dict[int, TableOutcome] = {}
        while tasks:
            again: list[TableTask] = []
            for task, outcome in runner.run(tasks):
                if isinstance(outcome, BaseException):
                    attempts[task.index] += 1
                    if attempts[task.index] >= 3:
                        raise LeagueError(f"game {task.index} failed three times: {type(outcome).__name__}: {outcome}")
                    logger.info(f"game {task.index} is played again: {type(outcome).__name__}: {outcome}")
                    again.append(task)
                    continue
                finished[task.index] = outcome
                starts.count(outcome)
                while done in finished:   # write in index order
                    ready = finished.pop(done)
                    record = ready.record
                    record_game(engine, record, league_id=league_id, index=done, ratings=every, replay=ready.replay,
                                digest=ready.digest, bots={seat["name"]: seat["bot"] for seat in record.config["seats"]})
                    if plan.replays is not None:
                        (plan.replays / f"{plan.league_name}-{done:06d}.jsonl").write_text(
                            unpack(ready.replay), encoding="utf-8")
                    _rate(ours, record)
                    done += 1
                    progress(Progress(done, plan.games, started, ours.table(plan.game.name)))
            tasks = sorted(again, key=lambda t: t.index)
        snapshot = _copy(ours)
    never = starts.never()
    if never:
        raise BotsNeverStarted("; ".join(never), ours)
    return ours


class _Starts:
    """Which program and Python bots started in the games played by this run."""

    def __init__(self) -> None:
        self.seated: dict[str, int] = {}
        self.started: dict[str, int] = {}
        self.reason: dict[str, str] = {}

    def count(self, outcome: TableOutcome) -> None:
        unstarted = dict(outcome.unstarted)
        for seat in outcome.record.config.get("seats", []):
            name = seat["name"]
            if not {"command", "python", "policy"} & set(seat.get("bot", {})):
                continue
            self.seated[name] = self.seated.get(name, 0) + 1
            if name in unstarted:
                self.reason[name] = unstarted[name]
            else:
                self.started[name] = self.started.get(name, 0) + 1

    def never(self) -> list[str]:
        """One line per untrusted bot that never started in any of its games."""
        return [f"bot {name!r} never started in any of its {count} game{'s' * (count != 1)}: {self.reason[name]}"
                for name, count in self.seated.items() if not self.started.get(name)]


def _rate(book: RatingBook, record: MatchRecord) -> None:
    from gameroom.league.db import bot_ranks

    ranks, winners, ejected = bot_ranks(record)
    book.update(record.game, ranks, winners, ejected)


def _copy(book: RatingBook) -> RatingBook:
    import copy

    return copy.deepcopy(book)
