"""What every part of the arena's engine shares (:class:`ArenaState`): its configuration,
database, worker pool and sandbox, the lock, the games in flight, the qualification queue,
and each competition's league, next index, ratings, pause, freeze and playing versions,
as stored when the engine starts; and what the pages read of them. A game in flight is a
:class:`Running`; the engine's counters are its :class:`Metrics`.

``arena.ladder.Arena`` is this state with its parts: a bot's versions
(``arena.versions``), the scheduling of games (``arena.scheduler``) and the writing of
their outcomes (``arena.outcomes``). Each part holds the state it is handed: an upload, a
game picked and a game written change the same queues, ratings and playing versions,
under the one lock, so the state stays one object's rather than being copied between
parts.
"""

from __future__ import annotations

import collections
import concurrent.futures
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gameroom.arena.config import ArenaConfig
from gameroom.arena.errors import ArenaError
from gameroom.arena.fairness import FairQueue, Pacer
from gameroom.arena.interpreters import Interpreters, runnable
from gameroom.arena.matchmaking import meeting
from gameroom.arena.pool import Pool
from gameroom.arena.remote import Hall
from gameroom.arena.retention import Retention
from gameroom.arena.season import Season
from gameroom.arena.standings import league_name, rebuild
from gameroom.arena.tables import EntryRow, VersionRow, state_of
from gameroom.sandbox.policy import SandboxPolicy, resolve_policy
from gameroom.league.db import BotRow, GameRow, LeagueRow, SeatRow
from gameroom.league.ratings import RatingBook

__all__ = ["ArenaState", "Metrics", "Running"]


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


class ArenaState:
    """The state of one arena's engine, loaded from its database (see the module)."""

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
        self.stopping = threading.Event()
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
            self.load_playing(name)

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

    # -- the playing versions --------------------------------------------------------------

    def refresh_playing(self, competition: str) -> None:
        """Read the competition's playing versions again (staff disabled or enabled a bot)."""
        self.load_playing(competition)
        self.bump()

    def load_playing(self, competition: str) -> None:
        """Read the competition's playing versions (a version qualified, failed or retired),
        without telling the pages (the caller does, once it has done the rest)."""
        with Session(self.engine) as session:
            rows = session.execute(select(VersionRow.bot, VersionRow.spec).join(EntryRow)
                                   .where(EntryRow.competition == competition, VersionRow.status == "active",
                                          EntryRow.disabled.is_(None))).all()
        playing = {bot: self.runnable(spec) for bot, spec in rows}   # may ask an interpreter: not under the lock
        with self.lock:
            self.playing[competition] = playing

    def runnable(self, spec: dict[str, Any]) -> dict[str, Any]:
        """A version's bot spec with its interpreter resolved on this host (``interpreters.
        runnable``); on a cluster each node resolves it where it plays (``play_here``)."""
        return spec if self.pool.cluster is not None else runnable(spec, self.interpreters)

    def bump(self) -> None:
        """Something the pages show changed: the version they wait on goes up."""
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    # -- where versions' files are -------------------------------------------------------

    @property
    def scratch(self) -> Path:
        """Where uploads are unpacked before they are versions (the data folder's file system)."""
        return self.config.data / "scratch"

    def folder(self, entry: str, number: int) -> Path:
        """A version's files."""
        return self.config.data / "builds" / entry / f"v{number}"

    def data_path(self) -> Path:
        return self.config.data

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
