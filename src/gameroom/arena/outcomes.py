"""The writing of an arena's finished games (:class:`Outcomes`), by the scheduling thread
alone. A ladder game is written with ``league.db.record_game`` (its rows, replay and
rating changes in one transaction) under its competition's league and its index, so a
game is stored whole or not at all and never twice; a failed write reloads the
competition's ratings as stored. A qualification game is stored too (labelled
``arena:{competition}:qualify``), without ratings, and counts towards its version's
qualification: the first ejection fails the version, the last game passed makes it the
entry's playing one (``arena.versions``).
"""

from __future__ import annotations

import logging
import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from gameroom.arena.config import Competition
from gameroom.arena.ladder_state import ArenaState, Running
from gameroom.arena.tables import VersionRow, keep_stderr
from gameroom.arena.versions import Versions
from gameroom.league.db import GameRow, record_game
from gameroom.league.ratings import RatingBook
from gameroom.league.table import TableOutcome

__all__ = ["Outcomes"]

log = logging.getLogger("gameroom.arena")


class Outcomes:
    """Finished games into the database, and what they change (see the module)."""

    def __init__(self, state: ArenaState, versions: Versions) -> None:
        self.state, self.versions = state, versions

    def write(self, running: Running, outcome: TableOutcome) -> None:
        """Store a finished game (see the module); ``record_game``'s error when it cannot."""
        record = outcome.record
        assert record.result is not None
        for ejection in record.result.ejections:
            self.state.metrics.ejections[ejection.kind.value] += 1
        if running.kind == "qualify":
            self._write_qualification(running, outcome)
        else:
            self._write_ladder(running, outcome)

    def _write_qualification(self, running: Running, outcome: TableOutcome) -> None:
        state, record = self.state, outcome.record
        assert record.result is not None and running.version is not None
        bots = {seat["name"]: seat["bot"] for seat in record.config["seats"]}
        tails = dict(outcome.stderr)
        game_id = record_game(state.engine, record, tournament=f"arena:{running.competition}:qualify", bots=bots,
                              replay=outcome.replay)
        keep_stderr(state.engine, game_id, tails)
        state.retention.after_game(running.competition, record.seats)
        state.metrics.qualification_games += 1
        bot = running.bots[0]
        failures = [e for e in record.result.ejections if e.name == bot]
        with state.lock:
            left = state.qualified.get(running.version)
            if left is None:
                return
            if failures:
                del state.qualified[running.version]
            else:
                state.qualified[running.version] = left - 1
        detail = self._version_detail(running.version)
        if failures:
            failure = failures[0]
            tail = f"; stderr: {tails[bot]}" if bot in tails else ""
            self.versions.finish(running.version, "failed", f"{detail}\nqualification failed: ejected on "
                                                            f"{failure.method} ({failure.kind.value}): "
                                                            f"{failure.reason}{tail}")
        elif left - 1 == 0:
            with state.lock:
                del state.qualified[running.version]
            self.versions.finish(running.version, "active", f"{detail}\nqualified: ejected in none of "
                                                            f"its qualification games")

    def _write_ladder(self, running: Running, outcome: TableOutcome) -> None:
        state, record = self.state, outcome.record
        assert record.result is not None
        competition = state.config.competition(running.competition)
        assert competition is not None and running.index is not None
        book = state.books[running.competition]
        if self._stored(running.competition, running.index):   # a game is written once, whatever came back twice
            log.warning("game stored already", extra={"fields": {"competition": running.competition,
                                                                 "index": running.index}})
            return
        bots = {seat["name"]: seat["bot"] for seat in record.config["seats"]}
        try:
            game_id = record_game(state.engine, record, league_id=state.league_ids[running.competition],
                                  index=running.index, bots=bots, ratings=book, replay=outcome.replay)
        except Exception:
            state.books[running.competition] = self._reload_book(competition)   # the transaction did not happen
            raise
        keep_stderr(state.engine, game_id, dict(outcome.stderr))
        state.retention.after_game(running.competition, record.seats)
        state.metrics.games[running.competition] += 1
        state.stored[running.competition] += 1
        state.metrics.finished_at.append(time.monotonic())
        for name in record.seats:
            state.history.setdefault(name, []).append(round(book.of(competition.game, name).ordinal, 4))
        log.info("game", extra={"fields": {"competition": running.competition, "index": running.index,
                                           "seed": record.seed, "seats": record.seats,
                                           "winners": record.result.winners,
                                           "ejected": [e.name for e in record.result.ejections]}})
        state.bump()

    def _stored(self, competition: str, index: int) -> bool:
        """Whether the competition's ladder game ``index`` is in the database (its key: the
        league's unique (league, index) makes a second write fail, this makes it a no-op)."""
        with Session(self.state.engine) as session:
            return session.scalar(select(GameRow.id).where(GameRow.league_id == self.state.league_ids[competition],
                                                           GameRow.index == index)) is not None

    def _version_detail(self, version_id: int) -> str:
        with Session(self.state.engine) as session:
            row = session.get(VersionRow, version_id)
            return row.detail if row is not None else ""

    def _reload_book(self, competition: Competition) -> RatingBook:
        stored = RatingBook.load(self.state.engine, competition.game)
        book = RatingBook()
        for bot in self.state.books[competition.name].standings.get(competition.game, {}):
            book.standings.setdefault(competition.game, {})[bot] = stored.of(competition.game, bot)
        return book
