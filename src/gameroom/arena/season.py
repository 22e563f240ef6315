"""The end of a season: freezing a competition, and the frozen table its finals are seeded from.

A freeze (``gameroom arena freeze`` or ``final``, the administrator's page, or the
competition's ``freeze_at`` in arena.toml) stops the competition's ladder and its uploads.
Games already in flight are still played and written, so the table is not final at the
moment of the freeze: the running arena writes the **frozen table** (``table_rows`` of
the stored ratings, with the number of ladder games it was made of) once no ladder game
of the competition is in flight any more. The standings page shows that table, and every
final is seeded from exactly it. Thawing forgets it; the next freeze writes a new one.

Who writes it: the serving arena, from its scheduler (:meth:`Season.tick`, about every
second, which also beats a heartbeat into ``arena_settings``, applies ``freeze_at`` and
tells the live pages of finals that a command beside it played).
A command beside it (the final) waits for the table (:func:`wait_for_table`); when no
arena serves — no heartbeat for :data:`STALE_SECONDS` — nothing can be in flight, and the
command writes the table itself. Both write it only when it is missing, in one locked
transaction (``tables.update_season``), so there is one frozen table per freeze.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gameroom.arena.config import ArenaConfig, Competition
from gameroom.arena.standings import league_name, table_rows
from gameroom.arena.tables import FinalRow, StateRow, now, set_setting, setting, state_of, update_season
from gameroom.core.errors import GameroomError
from gameroom.league.db import GameRow, LeagueRow
from gameroom.league.ratings import RatingBook



class Scheduler(Protocol):
    """What :meth:`Season.tick` needs of the engine (``arena.ladder.Arena``)."""

    frozen: dict[str, bool]

    @property
    def running(self) -> Mapping[Any, Any]:
        """The games in flight, each with ``kind`` and ``competition``."""

    @property
    def lock(self) -> Any:
        """Held to read ``running``."""

    def bump(self) -> None:
        """Something the pages show changed."""

__all__ = ["SeasonError", "Season", "freeze", "thaw", "frozen_table", "settle", "serving", "wait_for_table",
           "HEARTBEAT", "STALE_SECONDS"]

log = logging.getLogger("gameroom.arena")

HEARTBEAT = "serving"
"""The setting the serving arena beats: ``{"at": ISO time, "pid": N}``."""
BEAT_SECONDS = 2.0
STALE_SECONDS = 30.0
"""A heartbeat older than this: no arena serves (a loaded machine may hold the scheduler
a few seconds; a final must not take a live arena for a dead one)."""


class SeasonError(GameroomError):
    """The season cannot do what was asked (the message says why)."""


def freeze(engine: Engine, competition: str, by: str) -> bool:
    """Freeze ``competition`` (``by``: who — final, staff, schedule); whether it was
    thawed until now. Its frozen table is written once its games in flight are."""
    def change(row: StateRow, season: dict[str, Any]) -> bool:
        if row.frozen:
            return False
        row.frozen = True
        season.update(table=None, frozen_at=now().isoformat(), frozen_by=by)
        return True

    froze: bool = update_season(engine, competition, change)
    if froze:
        log.info("freeze", extra={"fields": {"competition": competition, "by": by}})
    return froze


def thaw(engine: Engine, competition: str) -> bool:
    """Let the ladder of ``competition`` go on (its frozen table is forgotten; its finals
    stay); whether it was frozen."""
    def change(row: StateRow, season: dict[str, Any]) -> bool:
        if not row.frozen:
            return False
        row.frozen = False
        season.update(table=None, thawed_at=now().isoformat())
        return True

    thawed: bool = update_season(engine, competition, change)
    if thawed:
        log.info("thaw", extra={"fields": {"competition": competition}})
    return thawed


def ladder_games(engine: Engine, competition: str) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count(GameRow.id)).join(LeagueRow, LeagueRow.id == GameRow.league_id)
                              .where(LeagueRow.name == league_name(competition))) or 0


def frozen_table(engine: Engine, competition: Competition) -> dict[str, Any]:
    """The competition's table as the database has it now (the stored ratings)."""
    book = RatingBook.load(engine, competition.game)
    return {"at": now().isoformat(), "games": ladder_games(engine, competition.name),
            "rows": table_rows(engine, competition, book)}


def settle(engine: Engine, competition: Competition) -> dict[str, Any] | None:
    """Write the frozen table of a frozen competition when it has none (call it when no
    ladder game of it is in flight); the table, or None when it is not frozen."""
    table = frozen_table(engine, competition)   # read before the lock: nothing of a frozen ladder changes

    def change(row: StateRow, season: dict[str, Any]) -> dict[str, Any] | None:
        if not row.frozen:
            return None
        if season.get("table") is None:
            season["table"] = {**table, "by": season.get("frozen_by"), "frozen_at": season.get("frozen_at")}
        kept: dict[str, Any] = season["table"]
        return kept

    written: dict[str, Any] | None = update_season(engine, competition.name, change)
    return written


def serving(engine: Engine) -> bool:
    """Whether an arena serves this database (its heartbeat is fresh)."""
    text = setting(engine, HEARTBEAT)
    if text is None:
        return False
    try:
        at = datetime.fromisoformat(json.loads(text)["at"])
    except (ValueError, KeyError, TypeError):
        return False
    return now() - at < timedelta(seconds=STALE_SECONDS)


def wait_for_table(engine: Engine, competition: Competition, seconds: float) -> dict[str, Any]:
    """The frozen table of a frozen competition: written by the serving arena once its
    games in flight are, or here when no arena serves. SeasonError after ``seconds``, or
    when the competition is thawed meanwhile."""
    deadline = time.monotonic() + seconds
    while True:
        state = state_of(engine, competition.name)
        if not state.frozen:
            raise SeasonError(f"{competition.name} was thawed before its frozen table was written")
        table = (state.season or {}).get("table")
        if table is not None:
            return dict(table)
        if not serving(engine):
            written = settle(engine, competition)
            if written is not None:
                return written
        if time.monotonic() > deadline:
            raise SeasonError(f"the running arena has not written the games in flight of {competition.name} "
                              f"within {seconds:g} s: try again later")
        time.sleep(0.2)


class Season:
    """What the serving arena's scheduler does about the season, about every second
    (:meth:`tick`, on its thread)."""

    def __init__(self, engine: Engine, config: ArenaConfig) -> None:
        self.engine = engine
        self.config = config
        self._beaten = 0.0
        self._applied: set[str] = set()   # competitions whose freeze_at was looked at since it came
        self._finals: list[tuple[int, str]] = []   # the finals' rows as last seen (a command plays them)

    def tick(self, arena: Scheduler) -> None:
        """Beat the heartbeat, apply each ``freeze_at`` that has come, and write the frozen
        table of each frozen competition once none of its ladder games is in flight."""
        import os

        moment = time.monotonic()
        if moment - self._beaten >= BEAT_SECONDS:
            self._beaten = moment
            set_setting(self.engine, HEARTBEAT, json.dumps({"at": now().isoformat(), "pid": os.getpid()}))
        with Session(self.engine) as session:
            finals = [(number, status) for number, status in session.execute(
                select(FinalRow.id, FinalRow.status).order_by(FinalRow.id))]
        if finals != self._finals:
            self._finals = finals
            arena.bump()
        for competition in self.config.competitions:
            name = competition.name
            if competition.freeze_at is not None and name not in self._applied and now() >= competition.freeze_at:
                self._applied.add(name)
                if self._scheduled(competition):
                    arena.frozen[name] = True
                    arena.bump()
            if not arena.frozen.get(name):
                continue
            with arena.lock:
                in_flight = any(r.kind == "ladder" and r.competition == name for r in arena.running.values())
            if in_flight:
                continue
            state = state_of(self.engine, name)
            if state.frozen and (state.season or {}).get("table") is None and settle(self.engine, competition):
                log.info("frozen table", extra={"fields": {"competition": name}})
                arena.bump()

    def _scheduled(self, competition: Competition) -> bool:
        """Freeze at the competition's ``freeze_at``, once per configured time (a thaw
        after it is not undone at the next tick); whether it froze now."""
        assert competition.freeze_at is not None
        when = competition.freeze_at.isoformat()

        def change(row: StateRow, season: dict[str, Any]) -> bool:
            if season.get("scheduled") == when:
                return False
            season["scheduled"] = when
            if row.frozen:
                return False
            row.frozen = True
            season.update(table=None, frozen_at=now().isoformat(), frozen_by="schedule")
            return True

        froze: bool = update_season(self.engine, competition.name, change)
        if froze:
            log.info("freeze", extra={"fields": {"competition": competition.name, "by": "schedule", "at": when}})
        return froze

    def stopped(self) -> None:
        """The arena stops serving (its games in flight written): no heartbeat any more."""
        set_setting(self.engine, HEARTBEAT, None)
