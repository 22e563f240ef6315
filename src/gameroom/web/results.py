"""The results database in the web room (``gameroom web --db URL``): the games a league or
tournament stored, one stored game with its seats, result and ejections, its replay as
pictures step by step, and each game's leaderboard.

Everything is read through the league's own pieces: the SQLAlchemy models of
``league.db`` (rows, ``replay_of``), ``league.ratings.RatingBook`` for the leaderboard
(the very figures ``gameroom ratings`` prints) and ``league.replay.verify`` to re-run a
stored game through the real rules — a replay keeps calls, not states, so the states to
draw are those of the re-run, told by the game's narrator as ``gameroom play`` tells them.
A game the rules cannot re-deal (a tournament's: no seed) says so in the command line's
words (``league.replay.NOT_RE_DEALABLE``), never as an alteration, and is drawn from the
state snapshots its replay keeps. A stored game is drawn as a spectator sees it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Session, selectinload

from gameroom.core.narration import winners_caption
from gameroom.core.record import CALL, EJECT, STATE, Event, MatchRecord
from gameroom.core.wire import WireError
from gameroom.games import registry
from gameroom.league.db import EjectionRow, GameRow, LeagueRow, SeatRow, replay_of
from gameroom.league.ratings import RatingBook
from gameroom.league.replay import NOT_RE_DEALABLE, verify
from gameroom.web.matches import Frame, state_frame

__all__ = ["Results", "MAX_PER_PAGE"]

MAX_PER_PAGE = 100
CACHED_REPLAYS = 16
"""Replays drawn lately, kept: scrubbing a page asks once, but a game is re-run per ask."""
CACHED_BYTES = 4 * 1024 * 1024
"""A replay whose pictures are larger is drawn again when asked again (the viewer asks
for steps, ``web.viewer``, not for this)."""


class Results:
    """Read-only questions to one results database (thread-safe: a session per question)."""

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self.url = make_url(url).render_as_string(hide_password=True)
        self._drawn: OrderedDict[int, tuple[list[Frame], dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def overview(self) -> dict[str, Any]:
        """How many games of each game the database holds (where it is, the operator knows:
        its URL is no visitor's business)."""
        with Session(self.engine) as session:
            counts = dict(session.execute(select(GameRow.game, func.count()).group_by(GameRow.game)).all())
        return {"games": [{"name": name, "stored": counts.get(name, 0)} for name in registry.names()]}

    def games(self, game: str | None, before: int | None, per_page: int) -> dict[str, Any]:
        """One page of stored games (of ``game``, or of all), newest first: those whose id
        is below ``before`` (None: the newest). Paged by the last id seen, not by an
        offset: games written while someone pages through are never seen twice nor
        skipped (an offset over newest-first rows shifted by one with each new game).
        ``next`` is the ``before`` of the next page (None: this is the last)."""
        where = [] if game is None else [GameRow.game == game]
        with Session(self.engine) as session:
            total = session.scalar(select(func.count()).select_from(GameRow).where(*where)) or 0
            if before is not None:
                where.append(GameRow.id < before)
            rows = session.scalars(select(GameRow).where(*where).order_by(GameRow.id.desc())
                                   .limit(per_page + 1).options(*_loads())).all()
            games = [self._summary(session, row) for row in rows[:per_page]]
        return {"game": game, "per_page": per_page, "total": total, "games": games,
                "next": games[-1]["id"] if len(rows) > per_page else None}

    def game(self, game_id: int) -> dict[str, Any] | None:
        """One stored game: seats with bot, rank, score, win and ejection; winners; ejections."""
        with Session(self.engine) as session:
            row = session.scalar(select(GameRow).where(GameRow.id == game_id).options(*_loads()))
            return None if row is None else self._summary(session, row)

    def replay(self, game_id: int) -> tuple[list[Frame], dict[str, Any]] | None:
        """The stored game's steps as spectators' state frames (pictures of the re-run's
        states, or of the recorded ones) and what its check found (``verified``,
        ``re_dealable``, ``message``); None when there is no such game."""
        with self._lock:
            if game_id in self._drawn:
                self._drawn.move_to_end(game_id)
                return self._drawn[game_id]
        with Session(self.engine) as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            record = MatchRecord.from_jsonl(replay_of(row))
        drawn = draw(record)
        if sum(len(frame.get("svg") or "") for frame in drawn[0]) > CACHED_BYTES:
            return drawn   # a long game's pictures (a Q game's reached 276 MB) are not kept
        with self._lock:
            self._drawn[game_id] = drawn
            while len(self._drawn) > CACHED_REPLAYS:
                self._drawn.popitem(last=False)
        return drawn

    def leaderboard(self, game: str) -> list[dict[str, Any]]:
        """``gameroom ratings``' table as JSON: best rating (mu - 3 sigma) first."""
        table = RatingBook.load(self.engine, game).table(game)
        return [{"rank": place, "bot": s.name, "rating": round(s.ordinal, 2), "mu": round(s.mu, 2),
                 "sigma": round(s.sigma, 2), "games": s.games, "wins": s.wins, "ejections": s.ejections}
                for place, s in enumerate(table, 1)]

    @staticmethod
    def _summary(session: Session, row: GameRow) -> dict[str, Any]:
        results = {r.bot_id: r for r in row.results}
        seats = []
        for seat in row.seats:
            result = results.get(seat.bot_id)
            seats.append({"position": seat.position, "bot": seat.bot.name,
                          "rank": result.rank if result else None, "score": result.score if result else None,
                          "winner": bool(result and result.winner), "ejected": bool(result and result.ejected)})
        names = {seat.bot_id: seat.bot.name for seat in row.seats}
        ejections = session.scalars(select(EjectionRow).where(EjectionRow.game_id == row.id)
                                    .order_by(EjectionRow.position)).all()
        league = session.get(LeagueRow, row.league_id) if row.league_id is not None else None
        return {"id": row.id, "game": row.game, "league": league.name if league else None, "index": row.index,
                "tournament": row.tournament, "seed": row.seed, "finished_at": row.finished_at.isoformat(),
                "status": "over", "seats": seats, "winners": [s["bot"] for s in seats if s["winner"]],
                "re_dealable": row.seed is not None, "note": None if row.seed is not None else NOT_RE_DEALABLE,
                "ejected": [{"seat": names.get(e.bot_id, "?"), "method": e.method, "kind": e.kind,
                             "reason": e.reason} for e in ejections]}


def _loads() -> list[Any]:
    return [selectinload(GameRow.seats).selectinload(SeatRow.bot), selectinload(GameRow.results)]


def draw(record: MatchRecord) -> tuple[list[Frame], dict[str, Any]]:
    """Spectators' state frames of a recorded game and what its check found. A game dealt
    from a seed is re-run through the real rules (``verify`` with an observer) and told by
    its narrator; one the registry cannot re-deal (a tournament's or a served game: no
    seed) is drawn from the snapshots its replay recorded, with their captions, and
    checked as "not re-dealable" — when it recorded none, as its calls and ejections
    (without arguments, which may hold a seat's secrets)."""
    try:
        game = registry.game(record.game)
    except registry.UnknownGame as exc:
        return [], {"verified": False, "re_dealable": False, "message": str(exc)}
    frames: list[Frame] = []
    story = game.story(record.seed if isinstance(record.seed, int) else 0, record.seats)

    def observe(event: Event) -> None:
        told = story.tell(event)
        if told.drawn:
            frames.append(state_frame(game, told.state, None, len(frames) + 1, told.caption or "", story, told.lines))

    divergence = verify(record, observers=[observe])
    if divergence is not None and divergence.unverifiable:
        check = {"verified": False, "re_dealable": False, "message": divergence.message}
        return _recorded(game, record) or _calls(record), check
    if divergence is None and record.result is not None and story.last is not None:
        # the last picture names the winners, as in gameroom play (the stored result is the
        # core's: the narrator's closing lines, which may read a game's own result, are not told)
        caption = story.narrator.final_caption(record.result)
        if caption is not None:
            frames.append(state_frame(game, story.last, None, len(frames) + 1, caption, story))
    return frames, {"verified": divergence is None, "re_dealable": True,
                    "message": None if divergence is None else str(divergence)}


def _recorded(game: Any, record: MatchRecord) -> list[Frame]:
    """The state snapshots a replay recorded, drawn as a spectator sees them, captioned as
    they were; a snapshot the game cannot read is shown as text saying so."""
    frames: list[Frame] = []
    last = None
    for event in record.events:
        if event.kind != STATE or event.data.get("state") is None:
            continue
        step = len(frames) + 1
        caption = str(event.get("caption") or f"step {step}")
        try:
            last = game.state_codec.decode(event.data["state"])
        except (WireError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            frames.append({"type": "state", "step": step, "caption": f"{caption} (unreadable snapshot: {exc})",
                           "narration": [caption], "view": None, "svg": None})
            last = None
            continue
        frames.append(state_frame(game, last, None, step, caption, narration=[caption]))
    if last is not None and record.result is not None:   # the last picture names the winners
        frames.append(state_frame(game, last, None, len(frames) + 1, winners_caption(record.result)))
    return frames


def _calls(record: MatchRecord) -> list[Frame]:
    frames: list[Frame] = []
    for event in record.events:
        if event.kind == CALL:
            text = f"{event.get('seat')}: {event.get('method')}" + (" (failed)" if event.get("reply") is None else "")
        elif event.kind == EJECT:
            text = f"{event.get('seat')} ejected on {event.get('method')}: {event.get('reason')}"
        else:
            continue
        frames.append({"type": "state", "step": len(frames) + 1, "caption": text, "narration": [text], "view": None,
                       "svg": None})
    return frames
