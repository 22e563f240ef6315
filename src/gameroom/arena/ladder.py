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

:class:`Arena` is its parts together, each a module of one purpose: the state they share,
loaded from the database at start (``arena.ladder_state``), the games' pool
(``arena.pool``), a bot's versions: uploads, builds, qualification queued
(``arena.versions``), the scheduling of games (``arena.scheduler``) and their writing
(``arena.outcomes``); here, starting, stopping and pausing, and what callers ask of it.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from typing import Any

from sqlalchemy.engine import Engine

from gameroom.arena.config import ArenaConfig
from gameroom.arena.errors import ArenaError
from gameroom.arena.ladder_state import ArenaState, Running
from gameroom.arena.outcomes import Outcomes
from gameroom.arena.pool import Pool
from gameroom.arena.scheduler import Scheduler
from gameroom.arena.tables import set_state
from gameroom.arena.versions import Versions
from gameroom.league.table import TableOutcome, TableTask

__all__ = ["Arena", "ArenaError", "Pool", "Running"]

log = logging.getLogger("gameroom.arena")


class Arena(ArenaState):
    """The engine of one arena (see the module): its state, and the parts that act on it
    (``versions``, ``scheduler``, ``outcomes``). Thread-safe: the web handlers call
    :meth:`upload`, :meth:`pause` and read the state while the scheduler runs."""

    def __init__(self, config: ArenaConfig, engine: Engine, pool: Pool | None = None, serving: bool = True) -> None:
        """``serving=False``: an engine for a command beside a running arena (the final):
        it takes no remote bots and leaves unfinished builds and qualifications to the
        arena."""
        super().__init__(config, engine, pool, serving)
        self.versions = Versions(self)
        self.outcomes = Outcomes(self, self.versions)
        self.scheduler = Scheduler(self, self.outcomes)
        self._thread: threading.Thread | None = None
        if serving:
            self.versions.resume()

    def start(self) -> None:
        self._thread = threading.Thread(target=self.scheduler.run, name="arena-ladder", daemon=True)
        self._thread.start()

    def stop(self, grace: float = 30.0) -> None:
        """Stop scheduling; let the games in flight finish and be written (within
        ``grace`` seconds), then close the pool."""
        self.stopping.set()
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

    def upload(self, competition: str, owner: str, entry: str, language: str | None, filename: str,
               data: bytes) -> dict[str, Any]:
        """A new version of ``entry`` (``arena.versions.Versions.upload``)."""
        return self.versions.upload(competition, owner, entry, language, filename, data)

    def register_remote(self, competition: str, owner: str, entry: str) -> dict[str, Any]:
        """A remote bot for ``owner`` (``arena.versions.Versions.register_remote``)."""
        return self.versions.register_remote(competition, owner, entry)

    def submit(self, table: TableTask) -> concurrent.futures.Future[TableOutcome]:
        """Play a game: on the pool, or here when a remote bot plays in it."""
        return self.scheduler.submit(table)
