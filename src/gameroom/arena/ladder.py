"""The arena's engine: builds, qualification and the continuous ladder on a worker pool.

One scheduling thread keeps ``workers`` games in flight on a pool (``local``: spawned
processes; ``ray``: Ray tasks), each game a ``league.table.TableTask`` played by
``play_table`` with every uploaded bot a sandboxed program. What it schedules, in order:

1. qualification games of new versions (the version against the competition's built-in
   players; it qualifies when it is ejected in none, and only then replaces the entry's
   playing version, which plays on meanwhile);
2. ladder games of each competition not paused or frozen, by ``arena.matchmaking``.

Only the scheduling thread writes games: a ladder game is written when it has finished,
with ``league.db.record_game`` (its rows, replay and rating changes in one transaction),
under its competition's league and its index, so a game is stored whole or not at all
and never twice (the league's unique index). After a crash or ``kill -9`` the engine
starts from what is stored: the next index after the largest, the ratings as stored, the
versions still building or qualifying built and qualified again; the games that were in
flight are simply not there (nor their rating changes). Qualification games are stored
too (labelled ``arena:{competition}:qualify``), without ratings.

Builds run on a thread of their own (each in the sandbox, ``arena.uploads``).
"""

from __future__ import annotations

import collections
import concurrent.futures
import logging
import multiprocessing
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gameroom.arena.config import NAME, ArenaConfig, Competition
from gameroom.arena.matchmaking import pair
from gameroom.arena.remote import Hall
from gameroom.arena.season import Season
from gameroom.arena.standings import league_name, rebuild
from gameroom.arena.tables import EntryRow, VersionRow, keep_stderr, now, set_state, state_of
from gameroom.arena.uploads import UploadError, build, fill, language_for, read_manifest, unpack
from gameroom.core.errors import GameroomError
from gameroom.core.match import Seat
from gameroom.core.sandbox import SandboxPolicy, resolve_policy
from gameroom.league.db import GameRow, LeagueRow, record_game
from gameroom.league.programs import failed_caller
from gameroom.league.ratings import RatingBook
from gameroom.league.schedule import game_seed
from gameroom.league.table import TableOutcome, TableTask, play_table

__all__ = ["Arena", "ArenaError", "Pool", "Running"]

log = logging.getLogger("gameroom.arena")


class ArenaError(GameroomError, ValueError):
    """A request the arena refuses (``status`` is the HTTP status, the message says why)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _start_worker(parent: int, setup: Callable[..., None] | None, setup_args: tuple[Any, ...]) -> None:
    from gameroom.league.runner import watch_parent

    watch_parent(parent)
    if setup is not None:
        setup(*setup_args)


class Pool:
    """Games played elsewhere: a process pool or Ray; ``submit`` gives a future."""

    def __init__(self, backend: str, workers: int, setup: Callable[..., None] | None = None,
                 setup_args: tuple[Any, ...] = ()) -> None:
        """``setup(*setup_args)``: run in each local worker as it starts (a picklable function)."""
        self.backend, self.workers = backend, workers
        self.setup, self.setup_args = setup, setup_args
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._remote: Any = None

    def submit(self, task: TableTask) -> concurrent.futures.Future[TableOutcome]:
        if self.backend == "ray":
            if self._remote is None:
                import ray

                if not ray.is_initialized():
                    ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                             logging_level=logging.ERROR, configure_logging=False)
                self._remote = ray.remote(max_retries=0)(play_table)
            return self._remote.remote(task).future()
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                initargs=(os.getpid(), self.setup, self.setup_args))
        return self._executor.submit(play_table, task)

    def reset(self) -> None:
        """After a worker died: a fresh pool for what comes next."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        if self._remote is not None:
            import ray

            ray.shutdown()
            self._remote = None


@dataclass
class Running:
    """A game in flight."""

    kind: str                 # ladder, qualify
    competition: str
    index: int | None
    bots: list[str]
    started: float
    version: int | None = None


@dataclass
class Metrics:
    games: collections.Counter[str] = field(default_factory=collections.Counter)   # by competition
    qualification_games: int = 0
    ejections: collections.Counter[str] = field(default_factory=collections.Counter)   # by failure kind
    failed_games: int = 0
    finished_at: collections.deque[float] = field(default_factory=lambda: collections.deque(maxlen=10_000))

    def per_second(self, window: float = 60.0) -> float:
        horizon = time.monotonic() - window
        recent = sum(1 for at in self.finished_at if at >= horizon)
        return recent / window


def _next_version(session: Session, competition: str, owner: str, entry: str) -> tuple[EntryRow, int]:
    """The entry (made for ``owner`` when new; another's name is refused) and the number of
    its next version."""
    row = session.scalar(select(EntryRow).where(EntryRow.name == entry))
    if row is None:
        row = EntryRow(competition=competition, name=entry, owner=owner, created_at=now())
        session.add(row)
        session.flush()
    elif row.owner != owner or row.competition != competition:
        raise ArenaError(409, f"the bot name {entry!r} is taken")
    number = (session.scalar(select(func.max(VersionRow.number)).where(VersionRow.entry_id == row.id)) or 0) + 1
    return row, number


class Arena:
    """The engine of one arena (see the module). Thread-safe: the web handlers call
    :meth:`upload`, :meth:`pause` and read :meth:`snapshot` while the scheduler runs."""

    def __init__(self, config: ArenaConfig, engine: Engine, pool: Pool | None = None, serving: bool = True) -> None:
        """``serving=False``: an engine for a command beside a running arena (the final):
        it takes no remote bots and leaves unfinished builds and qualifications to the
        arena."""
        self.config = config
        self.engine = engine
        self.sandbox: SandboxPolicy = resolve_policy(config.sandbox)   # its warning: a JSON line (logs.setup)
        self.pool = pool or Pool(config.backend, config.workers)
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.version = 0                      # bumped at every change the pages show
        self.metrics = Metrics()
        self.running: dict[concurrent.futures.Future[Any], Running] = {}
        self.qualifying: collections.deque[tuple[int, int]] = collections.deque()   # (version id, game number)
        self.qualified: dict[int, int] = {}   # version id -> games it still has to play
        self.builds = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="arena-build")
        self.builds_waiting = 0
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.league_ids: dict[str, int] = {}
        self.next_index: dict[str, int] = {}
        self.stored: collections.Counter[str] = collections.Counter()   # ladder games in the database
        self.books: dict[str, RatingBook] = {}
        self.history: dict[str, list[float]] = {}
        self.paused: dict[str, bool] = {}
        self.frozen: dict[str, bool] = {}
        self.playing: dict[str, dict[str, dict[str, Any]]] = {}   # competition -> bot -> spec
        # games with a remote bot are played here, where its connection lives
        self.local = concurrent.futures.ThreadPoolExecutor(config.workers, thread_name_prefix="arena-remote-game")
        self.hall: Hall | None = None
        self.serving = serving
        self.season = Season(engine, config)   # freezes, frozen tables, the heartbeat (while serving)
        self._load()
        if config.remote is not None and serving:
            from gameroom.games import registry

            games = {c.name: c.game for c in config.competitions}
            self.hall = Hall(engine, lambda competition: registry.game(games[competition]).protocol.greeting,
                             self.bump)
            self.hall.listen(*config.remote)

    # -- start-up: everything from the database ------------------------------------------

    def _load(self) -> None:
        for competition in self.config.competitions:
            name = competition.name
            with Session(self.engine) as session, session.begin():
                row = session.scalar(select(LeagueRow).where(LeagueRow.name == league_name(name)))
                if row is None:
                    row = LeagueRow(name=league_name(name), game=competition.game, seed=competition.seed, planned=0,
                                    config={"arena": name, "players": competition.players})
                    session.add(row)
                    session.flush()
                elif row.game != competition.game:
                    raise ArenaError(500, f"competition {name!r} was played as {row.game} in this database; "
                                          f"arena.toml now says {competition.game}")
                self.league_ids[name] = row.id
                top = session.scalar(select(func.max(GameRow.index)).where(GameRow.league_id == row.id))
                self.next_index[name] = 0 if top is None else top + 1
            rebuilt = rebuild(self.engine, name, competition.game)
            stored = RatingBook.load(self.engine, competition.game)
            book = RatingBook()
            for bot in rebuilt.book.standings.get(competition.game, {}):   # this competition's bots only
                book.standings.setdefault(competition.game, {})[bot] = stored.of(competition.game, bot)
            self.books[name] = book
            self.stored[name] = rebuilt.games
            self.history.update(rebuilt.history)
            state = state_of(self.engine, name)
            self.paused[name], self.frozen[name] = state.paused, state.frozen
            self._refresh_playing(name)
        with Session(self.engine) as session:
            unfinished = session.execute(select(VersionRow.id, VersionRow.status)
                                         .where(VersionRow.status.in_(("building", "qualifying")))).all()
        for version_id, status in unfinished if self.serving else ():
            log.info("resumed", extra={"fields": {"version": version_id, "status": status}})
            self._start_build(version_id)   # a remote version is queued for its qualification again

    def refresh_playing(self, competition: str) -> None:
        """Read the competition's playing versions again (staff disabled or enabled a bot)."""
        self._refresh_playing(competition)
        self.bump()

    def _refresh_playing(self, competition: str) -> None:
        with Session(self.engine) as session:
            rows = session.execute(select(VersionRow.bot, VersionRow.spec).join(EntryRow)
                                   .where(EntryRow.competition == competition, VersionRow.status == "active",
                                          EntryRow.disabled.is_(None))).all()
        with self.lock:
            self.playing[competition] = {bot: spec for bot, spec in rows}

    # -- uploads and builds --------------------------------------------------------------

    def upload(self, competition: str, owner: str, entry: str, language: str | None, filename: str,
               data: bytes) -> dict[str, Any]:
        """A new version of ``entry`` (made for ``owner`` on its first upload): unpacked
        now, built and qualified in the background. ArenaError says what is refused."""
        self._open(competition, entry)
        if language is not None and self.config.language(language) is None:
            raise ArenaError(400, f"language {language!r} is not offered; choose from "
                                  f"{', '.join(lang.name for lang in self.config.languages)}")
        with Session(self.engine) as session, session.begin():
            row, number = _next_version(session, competition, owner, entry)
            directory = self.config.data / "builds" / entry / f"v{number}"
            if directory.exists():   # left by a crash before its row was written
                shutil.rmtree(directory)
            try:
                archive = unpack(data, filename, directory, self.config.uploads)
                if archive:
                    language, main = read_manifest(directory)
                    if self.config.language(language) is None:
                        raise UploadError(f"bot.toml: language {language!r} is not offered")
                else:
                    main = next(directory.iterdir()).name
                    if language is None:
                        guessed = language_for(main, self.config.languages)
                        if guessed is None:
                            raise UploadError(f"cannot tell the language of {main!r}: choose one")
                        language = guessed.name
            except UploadError as exc:
                shutil.rmtree(directory, ignore_errors=True)
                raise ArenaError(400, str(exc)) from None
            assert language is not None
            version = VersionRow(entry_id=row.id, number=number, language=language, status="building",
                                 detail=f"main: {main}", bot=f"{entry}-v{number}", spec=None, created_at=now())
            session.add(version)
            session.flush()
            version_id = version.id
        log.info("upload", extra={"fields": {"competition": competition, "bot": entry, "version": number,
                                             "language": language, "bytes": len(data)}})
        self._start_build(version_id)
        self.bump()
        return {"bot": entry, "version": number, "status": "building"}

    def _open(self, competition: str, entry: Any) -> Competition:
        """The competition, when it takes a new version of a bot named ``entry``."""
        found = self.config.competition(competition)
        if found is None:
            raise ArenaError(404, f"no competition {competition!r}")
        if self.frozen.get(competition):
            raise ArenaError(409, f"competition {competition!r} is frozen: no more bots or versions")
        if not isinstance(entry, str) or not NAME.match(entry):
            raise ArenaError(400, "name: 1-24 lower-case letters, digits or -, starting with a letter or digit")
        return found

    def register_remote(self, competition: str, owner: str, entry: str) -> dict[str, Any]:
        """A remote bot for ``owner`` (a new version of its entry, with a new token, when
        the entry exists): the token, shown this once."""
        from gameroom.arena.tables import digest, new_secret

        if self.hall is None:
            raise ArenaError(404, "this arena takes no remote bots (no remote address in its configuration)")
        found = self._open(competition, entry)
        token = new_secret()
        with Session(self.engine) as session, session.begin():
            row, number = _next_version(session, competition, owner, entry)
            row.token_hash = digest(token)
            bot = f"{entry}-v{number}"
            version = VersionRow(entry_id=row.id, number=number, language="remote", status="qualifying",
                                 detail="remote: connects with its token", bot=bot,
                                 spec={"name": bot, "remote": True}, created_at=now())
            session.add(version)
            session.flush()
            version_id = version.id
        if found.qualification == 0:
            self._finish_version(version_id, "active", "remote: connects with its token\nqualified: no "
                                                       "qualification games")
        else:
            with self.lock:
                self.qualified[version_id] = found.qualification
                self.qualifying.extend((version_id, game) for game in range(found.qualification))
        log.info("remote bot", extra={"fields": {"competition": competition, "bot": entry, "version": number}})
        self.bump()
        return {"bot": entry, "version": number, "token": token, "port": self.hall.port}

    def _start_build(self, version_id: int) -> None:
        with self.lock:
            self.builds_waiting += 1
        self.builds.submit(self._build, version_id)

    def _build(self, version_id: int) -> None:
        try:
            with Session(self.engine) as session:
                version = session.get(VersionRow, version_id)
                assert version is not None
                entry = session.get(EntryRow, version.entry_id)
                assert entry is not None
                language = self.config.language(version.language)
                directory = self.config.data / "builds" / entry.name / f"v{version.number}"
                main_name = version.detail.split("\n", 1)[0].removeprefix("main: ")
                bot, competition_name = version.bot, entry.competition
            competition = self.config.competition(competition_name)
            if version.language == "remote" and competition is not None:
                with self.lock:
                    self.qualified[version_id] = competition.qualification
                    self.qualifying.extend((version_id, game) for game in range(competition.qualification))
                return
            if language is None or competition is None or not directory.is_dir():
                self._finish_version(version_id, "failed", "the language, competition or files of this version "
                                                            "are no longer configured or present")
                return
            main = directory / main_name
            built, build_log = build(language, main, directory, self.config.limits, self.sandbox,
                                     self.config.uploads.build_seconds)
            detail = f"main: {main_name}\n{build_log}"
            if not built:
                self._finish_version(version_id, "failed", detail)
                return
            spec = {"name": bot, "command": fill(language.run, main, directory), "read": [str(directory)],
                    "cpu_seconds": self.config.limits.cpu_seconds, "memory_mb": self.config.limits.memory_mb,
                    "processes": self.config.limits.processes, "file_mb": self.config.limits.file_mb}
            with Session(self.engine) as session, session.begin():
                row = session.get(VersionRow, version_id)
                assert row is not None
                row.status, row.detail, row.spec = "qualifying", detail, spec
            if competition.qualification == 0:
                self._finish_version(version_id, "active", detail + "\nqualified: no qualification games")
            else:
                with self.lock:
                    self.qualified[version_id] = competition.qualification
                    self.qualifying.extend((version_id, game) for game in range(competition.qualification))
            self.bump()
        except Exception:   # a build never takes the arena down; the version says what happened
            log.exception("build failed", extra={"fields": {"version": version_id}})
            self._finish_version(version_id, "failed", "the build failed inside the arena (see its log)")
        finally:
            with self.lock:
                self.builds_waiting -= 1

    def _finish_version(self, version_id: int, status: str, detail: str) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(VersionRow, version_id)
            assert row is not None
            entry = session.get(EntryRow, row.entry_id)
            assert entry is not None
            if status == "active":
                for other in session.scalars(select(VersionRow).where(VersionRow.entry_id == row.entry_id,
                                                                      VersionRow.status == "active")):
                    other.status = "retired"
            row.status, row.detail = status, detail
            competition = entry.competition
        log.info("version", extra={"fields": {"version": version_id, "status": status}})
        self._refresh_playing(competition)
        self.bump()

    # -- the scheduler -------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="arena-ladder", daemon=True)
        self._thread.start()

    def stop(self, grace: float = 30.0) -> None:
        """Stop scheduling; let the games in flight finish and be written (within
        ``grace`` seconds), then close the pool."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(grace + 5)
        self.builds.shutdown(wait=False, cancel_futures=True)
        self.local.shutdown(wait=False, cancel_futures=True)
        if self.hall is not None:
            self.hall.close()
        self.pool.close()

    def pause(self, paused: bool, competition: str | None = None) -> None:
        for name in [competition] if competition else [c.name for c in self.config.competitions]:
            set_state(self.engine, name, paused=paused)
            self.paused[name] = paused
        log.info("pause" if paused else "resume", extra={"fields": {"competition": competition or "*"}})
        self.bump()

    def bump(self) -> None:
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def _run(self) -> None:
        last_state = 0.0
        drain_until: float | None = None
        while True:
            if self._stopping.is_set():
                if drain_until is None:
                    drain_until = time.monotonic() + 30.0
                if not self.running or time.monotonic() > drain_until:
                    self.season.stopped()
                    return
            elif time.monotonic() - last_state > 1.0:   # a freeze or pause by another process (the CLI)
                last_state = time.monotonic()
                for competition in self.config.competitions:
                    state = state_of(self.engine, competition.name)
                    if (state.paused, state.frozen) != (self.paused[competition.name], self.frozen[competition.name]):
                        self.paused[competition.name], self.frozen[competition.name] = state.paused, state.frozen
                        self.bump()
                self.season.tick(self)
            if not self._stopping.is_set():
                self._fill()
            if not self.running:
                time.sleep(0.05)
                continue
            done, _ = concurrent.futures.wait(list(self.running), timeout=0.25,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                with self.lock:
                    running = self.running.pop(future)
                try:
                    outcome = future.result()
                except Exception as exc:   # a worker died (or Ray failed): the game is not written
                    self.metrics.failed_games += 1
                    # the traceback says where (a worker's bug, a lost process, Ray), as "error"
                    log.error("game failed", exc_info=True,
                              extra={"fields": {"competition": running.competition, "index": running.index}})
                    if isinstance(exc, concurrent.futures.process.BrokenProcessPool):
                        self.pool.reset()
                    if running.kind == "qualify" and running.version is not None:
                        with self.lock:
                            self.qualifying.append((running.version, -1))
                    continue
                try:
                    self._write(running, outcome)
                except Exception:
                    log.exception("cannot write a game", extra={"fields": {"competition": running.competition,
                                                                           "index": running.index}})

    def _fill(self) -> None:
        while len(self.running) < self.config.workers:
            task = self._next_task()
            if task is None:
                return
            running, table = task
            future = self.submit(table)
            with self.lock:
                self.running[future] = running
            self.bump()

    def submit(self, table: TableTask) -> concurrent.futures.Future[TableOutcome]:
        """Play a game: on the pool, or here when a remote bot plays in it."""
        remote = [spec["name"] for spec in table.bots if spec.get("remote")]
        return self._play_here(table, remote) if remote else self.pool.submit(table)

    def _play_here(self, table: TableTask, remote: list[str]) -> concurrent.futures.Future[TableOutcome]:
        """Play a game with remote bots on a thread of this process, over their connections."""
        from gameroom.games import registry

        assert self.hall is not None
        protocol = registry.game(table.game).protocol
        given = {}
        for bot in remote:
            connection = self.hall.take(bot)
            if connection is None:   # gone since it was paired: its seat fails at its first call
                given[bot] = Seat(bot, failed_caller("the remote bot hung up before its game began"))
            else:
                given[bot] = self.hall.seat(protocol, connection, bot)
        return self.local.submit(play_table, table, given)

    def _remote_ready(self, bot: str, spec: dict[str, Any]) -> bool:
        """A remote bot can be seated when its connection waits and it plays no game now."""
        if not spec.get("remote"):
            return True
        return self.hall is not None and bot in self.hall.ready() \
            and not any(bot in r.bots for r in self.running.values())

    def _next_task(self) -> tuple[Running, TableTask] | None:
        with self.lock:
            for _ in range(len(self.qualifying)):
                version_id, number = self.qualifying.popleft()
                if version_id not in self.qualified:
                    continue
                task = self._qualification_task(version_id, number)
                if task is None:
                    continue
                candidate = task[0].bots[0]
                spec = next(b for b in task[1].bots if b.get("name") == candidate)
                if not self._remote_ready(candidate, spec):
                    self.qualifying.append((version_id, number))   # waits for its connection
                    continue
                return task
            order = sorted(self.config.competitions, key=lambda c: self.metrics.games[c.name]
                           + sum(1 for r in self.running.values() if r.competition == c.name))
            for competition in order:
                if self.paused.get(competition.name) or self.frozen.get(competition.name):
                    continue
                task = self._ladder_task(competition)
                if task is not None:
                    return task
        return None

    def _ladder_task(self, competition: Competition) -> tuple[Running, TableTask] | None:
        specs = {bot: spec for bot, spec in self.playing.get(competition.name, {}).items()
                 if self._remote_ready(bot, spec)}
        book = self.books[competition.name]
        in_flight = collections.Counter(bot for r in self.running.values() for bot in r.bots)
        bots = {bot: (book.of(competition.game, bot).games + in_flight[bot], book.of(competition.game, bot).ordinal)
                for bot in specs}
        index = self.next_index[competition.name]
        table = pair(bots, competition.players, competition.seed, index)
        if table is None:
            return None
        self.next_index[competition.name] = index + 1
        task = TableTask(competition.game, index, game_seed(competition.seed, index),
                         tuple(specs[bot] for bot in table), (("arena", competition.name),), self.sandbox,
                         competition.call_seconds, competition.options)
        return Running("ladder", competition.name, index, table, time.monotonic()), task

    def _qualification_task(self, version_id: int, number: int) -> tuple[Running, TableTask] | None:
        with Session(self.engine) as session:
            version = session.get(VersionRow, version_id)
            entry = session.get(EntryRow, version.entry_id) if version is not None else None
        if version is None or entry is None or version.spec is None:
            return None
        competition = self.config.competition(entry.competition)
        if competition is None:
            return None
        if number < 0:   # played again after a worker failed
            number = competition.qualification + self.metrics.failed_games
        opponents = [{"name": f"house-{strategy}-{at + 1}", "builtin": strategy}
                     for at, strategy in enumerate((competition.builtins * competition.players)
                                                   [number % len(competition.builtins):]
                                                   [:competition.players - 1])]
        seats = [version.spec, *opponents]
        turn = number % len(seats)
        seats = seats[turn:] + seats[:turn]
        seed = game_seed(competition.seed ^ 0x51A1, version_id * 1000 + number)
        task = TableTask(competition.game, number, seed, tuple(seats),
                         (("arena", competition.name), ("qualify", version.bot)), self.sandbox,
                         competition.call_seconds, competition.options)
        return Running("qualify", competition.name, None, [version.bot], time.monotonic(), version_id), task

    def _write(self, running: Running, outcome: TableOutcome) -> None:
        record = outcome.record
        assert record.result is not None
        bots = {seat["name"]: seat["bot"] for seat in record.config["seats"]}
        for ejection in record.result.ejections:
            self.metrics.ejections[ejection.kind.value] += 1
        tails = dict(outcome.stderr)
        if running.kind == "qualify":
            assert running.version is not None
            game_id = record_game(self.engine, record, tournament=f"arena:{running.competition}:qualify", bots=bots,
                                  replay=outcome.replay)
            keep_stderr(self.engine, game_id, tails)
            self.metrics.qualification_games += 1
            bot = running.bots[0]
            failures = [e for e in record.result.ejections if e.name == bot]
            with self.lock:
                left = self.qualified.get(running.version)
                if left is None:
                    return
                if failures:
                    del self.qualified[running.version]
                else:
                    self.qualified[running.version] = left - 1
            detail = self._version_detail(running.version)
            if failures:
                failure = failures[0]
                tail = f"; stderr: {tails[bot]}" if bot in tails else ""
                self._finish_version(running.version, "failed", f"{detail}\nqualification failed: ejected on "
                                                                f"{failure.method} ({failure.kind.value}): "
                                                                f"{failure.reason}{tail}")
            elif left - 1 == 0:
                with self.lock:
                    del self.qualified[running.version]
                self._finish_version(running.version, "active", f"{detail}\nqualified: ejected in none of "
                                                                f"its qualification games")
            return
        competition = self.config.competition(running.competition)
        assert competition is not None and running.index is not None
        book = self.books[running.competition]
        try:
            game_id = record_game(self.engine, record, league_id=self.league_ids[running.competition],
                                  index=running.index, bots=bots, ratings=book, replay=outcome.replay)
        except Exception:
            self.books[running.competition] = self._reload_book(competition)   # the transaction did not happen
            raise
        keep_stderr(self.engine, game_id, tails)
        self.metrics.games[running.competition] += 1
        self.stored[running.competition] += 1
        self.metrics.finished_at.append(time.monotonic())
        for name in record.seats:
            self.history.setdefault(name, []).append(round(book.of(competition.game, name).ordinal, 4))
        log.info("game", extra={"fields": {"competition": running.competition, "index": running.index,
                                           "seed": record.seed, "seats": record.seats,
                                           "winners": record.result.winners,
                                           "ejected": [e.name for e in record.result.ejections]}})
        self.bump()

    def _version_detail(self, version_id: int) -> str:
        with Session(self.engine) as session:
            row = session.get(VersionRow, version_id)
            return row.detail if row is not None else ""

    def _reload_book(self, competition: Competition) -> RatingBook:
        stored = RatingBook.load(self.engine, competition.game)
        book = RatingBook()
        for bot in self.books[competition.name].standings.get(competition.game, {}):
            book.standings.setdefault(competition.game, {})[bot] = stored.of(competition.game, bot)
        return book

    # -- what the pages and metrics read ---------------------------------------------------

    def workers(self) -> list[dict[str, Any]]:
        with self.lock:
            rows = list(self.running.values())
        moment = time.monotonic()
        return [{"kind": r.kind, "competition": r.competition, "index": r.index, "bots": r.bots,
                 "seconds": round(moment - r.started, 1)} for r in rows]

    def queue_depth(self) -> int:
        with self.lock:
            return len(self.qualifying) + self.builds_waiting

    def data_path(self) -> Path:
        return self.config.data
