"""The arena's engine: builds, qualification and the continuous ladder on a worker pool.

One scheduling thread keeps ``workers`` games in flight on a pool (``local``: spawned
processes; ``ray``: Ray tasks), each game a ``league.table.TableTask`` played by
``play_table`` with every uploaded bot a sandboxed program. On a Ray cluster it keeps
more than the slots when games are short (``Pool.in_flight``: a batch for each slot and
another waiting), the games it picks at once given together, so that a Ray task plays
several (``league.cluster``); matchmaking then picks that far ahead, counting every game
given as in flight, as it does a worker's. What it schedules, in order:

1. qualification games of new versions (the version against the competition's built-in
   players; it qualifies when it is ejected in none, and only then replaces the entry's
   playing version, which plays on meanwhile), taken round-robin between students
   (``arena.fairness.FairQueue``), holding at most ``qualification_workers`` workers
   while ladder games wait, and alternating with them within that share;
2. ladder games of each competition not paused or frozen, by ``arena.matchmaking``,
   at the competition's pace (``arena.fairness.Pacer``: ``games_per_hour`` and each
   bot's ``bot_games_per_hour``).

Only the scheduling thread writes games: a ladder game is written when it has finished,
with ``league.db.record_game`` (its rows, replay and rating changes in one transaction),
under its competition's league and its index, so a game is stored whole or not at all
and never twice (the league's unique index). After a crash or ``kill -9`` the engine
starts from what is stored: the next index after the largest, the ratings as stored, the
versions still building or qualifying built and qualified again; the games that were in
flight are simply not there (nor their rating changes). Qualification games are stored
too (labelled ``arena:{competition}:qualify``), without ratings.

Builds run on a thread of their own (each in the sandbox, ``arena.uploads``), taken
round-robin between students too.

An upload is unpacked into a scratch folder outside any transaction; its version number
is then decided by the database (``league.atomic.write_transaction``: ``BEGIN IMMEDIATE`` on SQLite,
the owner's rows locked elsewhere) together with the student's daily quota
(``uploads.per_day``), and its folder moved into place before that transaction commits:
a version row always has its files, a refused upload leaves none, and simultaneous
uploads get consecutive numbers (a lost race on a bot's name is one 409). A new version
replaces the entry's versions still building or qualifying; a failed version's folder is
deleted, and of a student's other versions only the newest ``uploads.versions_kept``
keep theirs (the playing and pending ones always do).
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, cast

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from gameroom.arena.config import NAME, ArenaConfig, Competition
from gameroom.arena.fairness import FairQueue, Pacer
from gameroom.arena.interpreters import Interpreters, runnable
from gameroom.arena.matchmaking import meeting, pair
from gameroom.arena.remote import Hall
from gameroom.arena.retention import Retention
from gameroom.arena.season import Season
from gameroom.arena.standings import league_name, rebuild
from gameroom.arena.tables import EntryRow, MemberRow, VersionRow, keep_stderr, now, set_state, state_of
from gameroom.arena.uploads import UploadError, build, fill, language_for, read_manifest, unpack
from gameroom.core.errors import GameroomError
from gameroom.core.match import Seat
from gameroom.sandbox.policy import SandboxPolicy, resolve_policy
from gameroom.league.atomic import write_transaction
from gameroom.league.db import BotRow, GameRow, LeagueRow, SeatRow, record_game
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
    """Games played elsewhere: a process pool, or the nodes of a Ray cluster
    (``league.cluster``: joined at ``address``, else ``RAY_ADDRESS``, else a local Ray
    instance of ``workers`` slots); ``submit`` gives a future."""

    def __init__(self, backend: str, workers: int, setup: Callable[..., None] | None = None,
                 setup_args: tuple[Any, ...] = (), address: str | None = None) -> None:
        """``setup(*setup_args)``: run in each local worker as it starts (a picklable
        function). The Ray backend joins its cluster here: ArenaError (503) says why it
        cannot (a node of another version, no cluster at the address)."""
        self.backend, self.workers = backend, workers
        self.setup, self.setup_args = setup, setup_args
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self.cluster: Any = None
        if backend == "ray":
            from gameroom.arena.interpreters import play_here
            from gameroom.league.cluster import ClusterError, RayCluster

            try:   # each node resolves the languages' programs itself (play_here)
                self.cluster = RayCluster(address, workers, play=play_here, need_capacity=False)
            except ClusterError as exc:
                raise ArenaError(503, str(exc)) from None

    def submit(self, task: TableTask) -> concurrent.futures.Future[TableOutcome]:
        if self.cluster is not None:
            return cast("concurrent.futures.Future[TableOutcome]", self.cluster.submit(task))
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                initargs=(os.getpid(), self.setup, self.setup_args))
        return self._executor.submit(play_table, task)

    def in_flight(self) -> int:
        """Games to keep given: the workers; on a cluster, its slots and the games that wait
        for them, to be played in batches (``league.cluster.RayCluster.in_flight``)."""
        return self.cluster.in_flight() if self.cluster is not None else self.workers

    def together(self) -> contextlib.AbstractContextManager[None]:
        """Games submitted within go to a cluster together, as batches (nothing for a
        process pool, whose workers take a game each)."""
        return self.cluster.together() if self.cluster is not None else contextlib.nullcontext()

    def nodes(self) -> list[dict[str, Any]]:
        """The cluster's nodes (``league.cluster.RayCluster.nodes``); none for a process pool."""
        return self.cluster.nodes() if self.cluster is not None else []

    def reset(self) -> None:
        """After a worker died: a fresh pool for what comes next."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None


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


PENDING = ("building", "qualifying")
CLAIM_ATTEMPTS = 3


def _claim_version(session: Session, competition: str, owner: str, entry: str, per_day: int
                   ) -> tuple[EntryRow, int]:
    """In a :func:`~gameroom.league.atomic.write_transaction` transaction: the entry (made for ``owner``
    when new; another's name is refused) and the number of its next version, the
    owner's rows locked (elsewhere than SQLite, whose transaction holds the database)
    and the owner's uploads of the last 24 hours under ``per_day``."""
    list(session.scalars(select(MemberRow.id).where(MemberRow.account_key == owner).with_for_update()))
    since = now() - timedelta(days=1)
    recent = session.scalars(select(VersionRow.created_at).join(EntryRow)
                             .where(EntryRow.owner == owner, VersionRow.created_at > since)
                             .order_by(VersionRow.created_at)).all()
    if len(recent) >= per_day:
        first = recent[0] if recent[0].tzinfo else recent[0].replace(tzinfo=since.tzinfo)
        raise ArenaError(429, f"{len(recent)} versions in the last 24 hours is the most allowed (uploads.per_day); "
                              f"the next is allowed from {(first + timedelta(days=1)):%Y-%m-%d %H:%M} UTC")
    row = session.scalar(select(EntryRow).where(EntryRow.name == entry).with_for_update())
    if row is None:
        row = EntryRow(competition=competition, name=entry, owner=owner, created_at=now())
        session.add(row)
        session.flush()
    elif row.owner != owner or row.competition != competition:
        raise ArenaError(409, f"the bot name {entry!r} is taken")
    number = (session.scalar(select(func.max(VersionRow.number)).where(VersionRow.entry_id == row.id)) or 0) + 1
    return row, number


def _replace_pending(session: Session, entry_id: int, number: int) -> list[tuple[int, int]]:
    """Mark the entry's versions still building or qualifying as replaced by version
    ``number``: their (id, number)."""
    replaced = []
    for row in session.scalars(select(VersionRow).where(VersionRow.entry_id == entry_id, VersionRow.number < number,
                                                        VersionRow.status.in_(PENDING))):
        row.status, row.detail = "failed", f"{row.detail}\nreplaced by v{number} before it qualified"
        replaced.append((row.id, row.number))
    return replaced


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
        self.pool = pool or Pool(config.backend, config.workers, address=config.ray_address)
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.version = 0                      # bumped at every change the pages show
        self.metrics = Metrics()
        self.running: dict[concurrent.futures.Future[Any], Running] = {}
        self.qualifying: FairQueue[tuple[int, int]] = FairQueue()   # by owner: (version id, game number)
        self.qualified: dict[int, int] = {}   # version id -> games it still has to play
        self.owners: dict[int, str] = {}      # version id -> its owner (the fair queues' key)
        self.builds = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="arena-build")
        self.build_queue: FairQueue[int] = FairQueue()   # by owner: version ids
        self.builds_waiting = 0
        self.interpreters = Interpreters()
        self.pacers = {c.name: Pacer(c.games_per_hour, c.bot_games_per_hour) for c in config.competitions}
        self.met: dict[str, collections.Counter[tuple[str, str]]] = {}   # competition -> meetings of two bots
        self.last_started = "ladder"          # qualification and ladder games alternate within the share
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
        self.retention = Retention(engine, config.replays_per_bot, self.league_ids)
        if serving:
            self.retention.sweep()
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
            self.met[name] = self._meetings(self.league_ids[name])
            self._refresh_playing(name)
        with Session(self.engine) as session:
            unfinished = session.execute(select(VersionRow.id, VersionRow.status, EntryRow.owner).join(EntryRow)
                                         .where(VersionRow.status.in_(PENDING)).order_by(VersionRow.id)).all()
        if self.serving:
            shutil.rmtree(self.scratch, ignore_errors=True)   # uploads a crash interrupted: never a version
        for version_id, status, owner in unfinished if self.serving else ():
            log.info("resumed", extra={"fields": {"version": version_id, "status": status}})
            self._start_build(version_id, owner)   # a remote version is queued for its qualification again

    def _meetings(self, league_id: int) -> collections.Counter[tuple[str, str]]:
        """How often each two bots have met in the competition's stored ladder games."""
        with Session(self.engine) as session:
            rows = session.execute(select(SeatRow.game_id, BotRow.name).join(BotRow, SeatRow.bot_id == BotRow.id)
                                   .join(GameRow, SeatRow.game_id == GameRow.id)
                                   .where(GameRow.league_id == league_id)).all()
        tables: dict[int, list[str]] = collections.defaultdict(list)
        for game_id, bot in rows:
            tables[game_id].append(bot)
        met: collections.Counter[tuple[str, str]] = collections.Counter()
        for bots in tables.values():
            met.update(meeting(a, b) for at, a in enumerate(bots) for b in bots[at + 1:])
        return met

    def refresh_playing(self, competition: str) -> None:
        """Read the competition's playing versions again (staff disabled or enabled a bot)."""
        self._refresh_playing(competition)
        self.bump()

    def _refresh_playing(self, competition: str) -> None:
        with Session(self.engine) as session:
            rows = session.execute(select(VersionRow.bot, VersionRow.spec).join(EntryRow)
                                   .where(EntryRow.competition == competition, VersionRow.status == "active",
                                          EntryRow.disabled.is_(None))).all()
        playing = {bot: self._runnable(spec) for bot, spec in rows}   # may ask an interpreter: not under the lock
        with self.lock:
            self.playing[competition] = playing

    def _runnable(self, spec: dict[str, Any]) -> dict[str, Any]:
        """A version's bot spec with its interpreter resolved on this host (``interpreters.
        runnable``); on a cluster each node resolves it where it plays (``play_here``)."""
        return spec if self.pool.cluster is not None else runnable(spec, self.interpreters)

    @property
    def scratch(self) -> Path:
        """Where uploads are unpacked before they are versions (the data folder's file system)."""
        return self.config.data / "scratch"

    def folder(self, entry: str, number: int) -> Path:
        """A version's files."""
        return self.config.data / "builds" / entry / f"v{number}"

    # -- uploads and builds --------------------------------------------------------------

    def upload(self, competition: str, owner: str, entry: str, language: str | None, filename: str,
               data: bytes) -> dict[str, Any]:
        """A new version of ``entry`` (made for ``owner`` on its first upload): unpacked
        now into a scratch folder, numbered and moved into place in one short
        transaction, built and qualified in the background. ArenaError says what is
        refused (one line, its HTTP status)."""
        self._open(competition, entry)
        if language is not None and self.config.language(language) is None:
            raise ArenaError(400, f"language {language!r} is not offered; choose from "
                                  f"{', '.join(lang.name for lang in self.config.languages)}")
        self._check_quota(owner)   # before the work of unpacking; decided again when numbered
        self.scratch.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix="upload-", dir=self.scratch))
        try:
            unpacked = scratch / "bot"
            try:
                archive = unpack(data, filename, unpacked, self.config.uploads)
                if archive:
                    language, main = read_manifest(unpacked)
                    if self.config.language(language) is None:
                        raise UploadError(f"bot.toml: language {language!r} is not offered")
                else:
                    main = next(unpacked.iterdir()).name
                    if language is None:
                        guessed = language_for(main, self.config.languages)
                        if guessed is None:
                            raise UploadError(f"cannot tell the language of {main!r}: choose one")
                        language = guessed.name
            except UploadError as exc:
                raise ArenaError(400, str(exc)) from None
            assert language is not None
            version_id, number, replaced = self._claim(
                competition, owner, entry, lambda number: self._version_row(entry, number, language, main),
                unpacked)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        log.info("upload", extra={"fields": {"competition": competition, "bot": entry, "version": number,
                                             "language": language, "bytes": len(data)}})
        self._forget(entry, replaced)
        self._start_build(version_id, owner)
        self._prune(owner)
        self.bump()
        return {"bot": entry, "version": number, "status": "building"}

    @staticmethod
    def _version_row(entry: str, number: int, language: str, main: str) -> VersionRow:
        return VersionRow(number=number, language=language, status="building", detail=f"main: {main}",
                          bot=f"{entry}-v{number}", spec=None, created_at=now())

    def _check_quota(self, owner: str) -> None:
        with Session(self.engine) as session:
            count = session.scalar(select(func.count()).select_from(VersionRow).join(EntryRow)
                                   .where(EntryRow.owner == owner,
                                          VersionRow.created_at > now() - timedelta(days=1))) or 0
        if count >= self.config.uploads.per_day:
            raise ArenaError(429, f"{count} versions in the last 24 hours is the most allowed (uploads.per_day)")

    def _claim(self, competition: str, owner: str, entry: str, make: Callable[[int], VersionRow],
               files: Path | None, token_hash: str | None = None) -> tuple[int, int, list[tuple[int, int]]]:
        """Number a new version of ``entry`` and store its row (``make(number)``), its
        files (``files``, moved to its folder) in place before the transaction commits,
        and a remote bot's ``token_hash`` with its entry: (version id, number, the pending
        versions it replaced). A lost race on a new bot's name (another student's,
        elsewhere than SQLite) is tried again: then the name is taken (409). A database
        that stays busy is a 503 (SQLite has waited its busy time-out already)."""
        for attempt in range(CLAIM_ATTEMPTS):
            placed: Path | None = None
            try:
                with write_transaction(self.engine) as session:
                    row, number = _claim_version(session, competition, owner, entry, self.config.uploads.per_day)
                    if token_hash is not None:
                        row.token_hash = token_hash
                    version = make(number)
                    version.entry_id = row.id
                    session.add(version)
                    replaced = _replace_pending(session, row.id, number)
                    session.flush()
                    if files is not None:
                        placed = self.folder(entry, number)
                        if placed.exists():   # left by a crash before its row was written
                            shutil.rmtree(placed)
                        placed.parent.mkdir(parents=True, exist_ok=True)
                        files.rename(placed)
                    return version.id, number, replaced
            except (IntegrityError, OperationalError) as exc:
                if placed is not None and files is not None and placed.exists():
                    placed.rename(files)   # back to the scratch folder for the next attempt
                log.info("upload raced", extra={"fields": {"bot": entry, "attempt": attempt + 1,
                                                           "error": " ".join(str(exc.orig).split())[:200]}})
                if isinstance(exc, OperationalError) and (self.engine.dialect.name == "sqlite"
                                                          or attempt + 1 == CLAIM_ATTEMPTS):
                    raise ArenaError(503, "the arena's database is busy: send it again in a moment") from None
            except BaseException:
                if placed is not None:
                    shutil.rmtree(placed, ignore_errors=True)
                raise
        raise ArenaError(409, f"another version of {entry!r} was being stored at the same moment: send it again")

    def _forget(self, entry: str, replaced: list[tuple[int, int]]) -> None:
        """Versions replaced before they qualified: out of the queues, their files gone."""
        if not replaced:
            return
        ids = {version_id for version_id, _ in replaced}
        with self.lock:
            self.qualifying.remove(lambda item: item[0] in ids)
            self.build_queue.remove(lambda version_id: version_id in ids)
            for version_id in ids:
                self.qualified.pop(version_id, None)
        for _, number in replaced:
            shutil.rmtree(self.folder(entry, number), ignore_errors=True)
        for version_id, number in replaced:
            log.info("version", extra={"fields": {"version": version_id, "status": "failed",
                                                  "replaced_by": number}})

    def _prune(self, owner: str) -> None:
        """Delete the files of the owner's failed versions, and of its retired versions
        beyond the newest ``uploads.versions_kept`` that played (the playing and waiting
        ones keep theirs; the database keeps every version's row, log and games)."""
        with Session(self.engine) as session:
            rows = session.execute(select(EntryRow.name, VersionRow.number, VersionRow.status, VersionRow.language)
                                   .join(EntryRow).where(EntryRow.owner == owner)
                                   .order_by(VersionRow.created_at.desc(), VersionRow.id.desc())).all()
        kept = 0
        for name, number, status, language in rows:
            if language == "remote" or status in PENDING:   # waiting versions keep their files, uncounted
                continue
            if status != "failed":
                kept += 1
            if status == "active" or (status != "failed" and kept <= self.config.uploads.versions_kept):
                continue
            folder = self.folder(name, number)
            if folder.exists():
                shutil.rmtree(folder, ignore_errors=True)
                log.info("pruned", extra={"fields": {"bot": f"{name}-v{number}", "status": status}})

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

        def remote_row(number: int) -> VersionRow:
            bot = f"{entry}-v{number}"
            return VersionRow(number=number, language="remote", status="qualifying",
                              detail="remote: connects with its token", bot=bot, spec={"name": bot, "remote": True},
                              created_at=now())

        version_id, number, replaced = self._claim(competition, owner, entry, remote_row, None, digest(token))
        self._forget(entry, replaced)
        if found.qualification == 0:
            self._finish_version(version_id, "active", "remote: connects with its token\nqualified: no "
                                                       "qualification games")
        else:
            self._queue_qualification(version_id, owner, found.qualification)
        log.info("remote bot", extra={"fields": {"competition": competition, "bot": entry, "version": number}})
        self.bump()
        return {"bot": entry, "version": number, "token": token, "port": self.hall.port}

    def _queue_qualification(self, version_id: int, owner: str, games: int) -> None:
        with self.lock:
            self.owners[version_id] = owner
            self.qualified[version_id] = games
            self.qualifying.extend(owner, ((version_id, game) for game in range(games)))

    def _start_build(self, version_id: int, owner: str) -> None:
        """Queue a version's build: the build thread takes the builds round-robin between
        owners."""
        with self.lock:
            self.builds_waiting += 1
            self.owners[version_id] = owner
            self.build_queue.put(owner, version_id)
        self.builds.submit(self._build_next)

    def _build_next(self) -> None:
        with self.lock:
            version_id = self.build_queue.take()
            if version_id is None:   # replaced while it waited
                self.builds_waiting -= 1
                return
        try:
            self._build(version_id)
        finally:
            with self.lock:
                self.builds_waiting -= 1

    def _build(self, version_id: int) -> None:
        try:
            with Session(self.engine) as session:
                version = session.get(VersionRow, version_id)
                assert version is not None
                entry = session.get(EntryRow, version.entry_id)
                assert entry is not None
                language = self.config.language(version.language)
                directory = self.folder(entry.name, version.number)
                main_name = version.detail.split("\n", 1)[0].removeprefix("main: ")
                bot, competition_name, owner, status = version.bot, entry.competition, entry.owner, version.status
            if status not in PENDING:   # replaced meanwhile
                return
            competition = self.config.competition(competition_name)
            if version.language == "remote" and competition is not None:
                self._queue_qualification(version_id, owner, competition.qualification)
                return
            if language is None or competition is None or not directory.is_dir():
                self._finish_version(version_id, "failed", "the language, competition or files of this version "
                                                            "are no longer configured or present")
                return
            main = directory / main_name
            built, build_log = build(language, main, directory, self.config.limits, self.sandbox,
                                     self.config.uploads.build_seconds, self.interpreters)
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
                if row.status != "building":   # replaced while it was built
                    return
                row.status, row.detail, row.spec = "qualifying", detail, spec
            if competition.qualification == 0:
                self._finish_version(version_id, "active", detail + "\nqualified: no qualification games")
            else:
                self._queue_qualification(version_id, owner, competition.qualification)
            self.bump()
        except Exception:   # a build never takes the arena down; the version says what happened
            log.exception("build failed", extra={"fields": {"version": version_id}})
            self._finish_version(version_id, "failed", "the build failed inside the arena (see its log)")

    def _finish_version(self, version_id: int, status: str, detail: str) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(VersionRow, version_id)
            assert row is not None
            entry = session.get(EntryRow, row.entry_id)
            assert entry is not None
            if row.status not in PENDING:   # replaced by a newer version meanwhile
                return
            if status == "active":
                for other in session.scalars(select(VersionRow).where(VersionRow.entry_id == row.entry_id,
                                                                      VersionRow.status == "active")):
                    other.status = "retired"
            row.status, row.detail = status, detail
            competition, owner = entry.competition, entry.owner
        with self.lock:   # whatever of its qualification still waits is moot now
            self.owners.pop(version_id, None)
            self.qualified.pop(version_id, None)
            self.qualifying.remove(lambda item: item[0] == version_id)
        log.info("version", extra={"fields": {"version": version_id, "status": status}})
        self._refresh_playing(competition)
        self._prune(owner)
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
                            owner = self.owners.get(running.version)
                            if owner is not None:
                                self.qualifying.put(owner, (running.version, -1))
                    continue
                try:
                    self._write(running, outcome)
                except Exception:
                    log.exception("cannot write a game", extra={"fields": {"competition": running.competition,
                                                                           "index": running.index}})

    def _fill(self) -> None:
        with self.pool.together():   # on a cluster, the games picked now go as batches
            while len(self.running) < self.pool.in_flight():
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
        """The next game: qualification and ladder games in turn while both wait, the
        qualification games holding at most ``qualification_workers`` workers then; when
        no competition's ladder can play (too few bots, paused, frozen), qualification
        may take every worker."""
        with self.lock:
            qualifying = sum(1 for r in self.running.values() if r.kind == "qualify")
            within_share = qualifying < self.config.qualification_workers
            if within_share and self.last_started == "ladder":
                task = self._next_qualification()
                if task is not None:
                    self.last_started = "qualify"
                    return task
            task, waiting = self._next_ladder()
            if task is not None:
                self.last_started = "ladder"
                return task
            if within_share or not waiting:
                task = self._next_qualification()
                if task is not None:
                    self.last_started = "qualify"
                    return task
        return None

    def _next_qualification(self) -> tuple[Running, TableTask] | None:
        """The next qualification game that can start, round-robin between owners (a
        remote bot's waits for its connection; a version gone meanwhile is dropped)."""
        tasks: dict[tuple[int, int], tuple[Running, TableTask] | None] = {}

        def ready(item: tuple[int, int]) -> bool:
            if item not in tasks:
                tasks[item] = self._qualification_task(*item) if item[0] in self.qualified else None
            task = tasks[item]
            if task is None:
                return True   # taken, then dropped below
            candidate = task[0].bots[0]
            spec = next(b for b in task[1].bots if b.get("name") == candidate)
            return self._remote_ready(candidate, spec)

        while (item := self.qualifying.take(ready)) is not None:
            if tasks[item] is not None:
                return tasks[item]
        return None

    def _next_ladder(self) -> tuple[tuple[Running, TableTask] | None, bool]:
        """The next ladder game, and whether some competition's ladder could play (it may
        be waiting for its pace)."""
        waiting = False
        order = sorted(self.config.competitions, key=lambda c: self.metrics.games[c.name]
                       + sum(1 for r in self.running.values() if r.competition == c.name))
        for competition in order:
            if self.paused.get(competition.name) or self.frozen.get(competition.name):
                continue
            if len(self.playing.get(competition.name, {})) >= competition.players:
                waiting = True
            task = self._ladder_task(competition)
            if task is not None:
                return task, True
        return None, waiting

    def _ladder_task(self, competition: Competition) -> tuple[Running, TableTask] | None:
        pacer = self.pacers[competition.name]
        if not pacer.due():
            return None
        specs = {bot: spec for bot, spec in self.playing.get(competition.name, {}).items()
                 if self._remote_ready(bot, spec) and pacer.allowed(bot)}
        book = self.books[competition.name]
        in_flight = collections.Counter(bot for r in self.running.values() for bot in r.bots)
        bots = {bot: (book.of(competition.game, bot).games + in_flight[bot], book.of(competition.game, bot).ordinal)
                for bot in specs}
        index = self.next_index[competition.name]
        met = self.met.setdefault(competition.name, collections.Counter())
        table = pair(bots, competition.players, competition.seed, index, met)
        if table is None:
            return None
        self.next_index[competition.name] = index + 1
        pacer.started(table)
        met.update(meeting(a, b) for at, a in enumerate(table) for b in table[at + 1:])
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
        seats = [self._runnable(version.spec), *opponents]   # its interpreter resolved, as the ladder's
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
            self.retention.after_game(running.competition, record.seats)
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
        if self._stored(running.competition, running.index):   # a game is written once, whatever came back twice
            log.warning("game stored already", extra={"fields": {"competition": running.competition,
                                                                 "index": running.index}})
            return
        try:
            game_id = record_game(self.engine, record, league_id=self.league_ids[running.competition],
                                  index=running.index, bots=bots, ratings=book, replay=outcome.replay)
        except Exception:
            self.books[running.competition] = self._reload_book(competition)   # the transaction did not happen
            raise
        keep_stderr(self.engine, game_id, tails)
        self.retention.after_game(running.competition, record.seats)
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

    def _stored(self, competition: str, index: int) -> bool:
        """Whether the competition's ladder game ``index`` is in the database (its key: the
        league's unique (league, index) makes a second write fail, this makes it a no-op)."""
        with Session(self.engine) as session:
            return session.scalar(select(GameRow.id).where(GameRow.league_id == self.league_ids[competition],
                                                           GameRow.index == index)) is not None

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
