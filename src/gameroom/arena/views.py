"""What the arena's pages show, as JSON-ready data: the standings of each competition, a
bot's page (versions with build logs, recent games, every ejection with the call it failed
on, its reason and stderr tail), the administrator's view, and the Prometheus metrics.

The standings come from the engine's ratings (``Arena.books``, kept equal to the stored
ones) and its rating histories; the rest from the database.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gameroom.arena.ladder import Arena
from gameroom.arena.tables import EntryRow, VersionRow, state_of
from gameroom.core.options import named_options
from gameroom.games import registry
from gameroom.league.db import BotRow, EjectionRow, GameRow, ResultRow, SeatRow

__all__ = ["standings", "bot_page", "admin_view", "metrics_text", "sparkline"]

SPARK_POINTS = 60


def sparkline(values: list[float], width: int = 120, height: int = 24) -> str:
    """An SVG polyline of the last values (rating after each game), scaled to fit."""
    points = values[-SPARK_POINTS:]
    label = "rating history" if points else "no games yet"
    if len(points) < 2:
        return (f'<svg class="spark" role="img" aria-label="{label}" width="{width}" height="{height}" '
                f'viewBox="0 0 {width} {height}"></svg>')
    low, high = min(points), max(points)
    span = (high - low) or 1.0
    step = width / (len(points) - 1)
    drawn = " ".join(f"{i * step:.1f},{height - 2 - (v - low) / span * (height - 4):.1f}" for i, v in enumerate(points))
    return (f'<svg class="spark" role="img" aria-label="{label}: {points[0]:.1f} to {points[-1]:.1f}" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
            f'<polyline fill="none" stroke="currentColor" stroke-width="1.5" points="{drawn}"/></svg>')


def standings(arena: Arena) -> dict[str, Any]:
    """Every competition with its table: entries by rating (ordinal) with mu, sigma,
    games, wins, ejections, the sparkline, and the playing and latest versions."""
    with Session(arena.engine) as session:
        rows = session.execute(select(EntryRow, VersionRow).join(VersionRow, VersionRow.entry_id == EntryRow.id)
                               .order_by(EntryRow.id, VersionRow.number)).all()
    entries: dict[int, dict[str, Any]] = {}
    for entry, version in rows:
        item = entries.setdefault(entry.id, {"bot": entry.name, "competition": entry.competition, "playing": None,
                                             "latest": None, "owner": entry.owner})
        item["latest"] = {"version": version.number, "status": version.status}
        if version.status == "active":
            item["playing"] = version.bot
    out = []
    for competition in arena.config.competitions:
        book = arena.books[competition.name]
        table = []
        for item in entries.values():
            if item["competition"] != competition.name:
                continue
            playing = item["playing"]
            standing = book.of(competition.game, playing) if playing is not None else None
            table.append({"bot": item["bot"], "version": item["latest"], "playing": playing,
                          "rating": round(standing.ordinal, 3) if standing else None,
                          "mu": round(standing.mu, 3) if standing else None,
                          "sigma": round(standing.sigma, 3) if standing else None,
                          "games": standing.games if standing else 0, "wins": standing.wins if standing else 0,
                          "ejections": standing.ejections if standing else 0,
                          "spark": sparkline(arena.history.get(playing, []) if playing else [])})
        table.sort(key=lambda row: (row["rating"] is None, -(row["rating"] or 0.0), row["bot"]))
        for place, row in enumerate(table, 1):
            row["rank"] = place
        final = state_of(arena.engine, competition.name).final if arena.frozen.get(competition.name) else None
        out.append({"name": competition.name, "game": competition.game, "players": competition.players,
                    "options": named_options(registry.game(competition.game).room_options,
                                             dict(competition.options)), "final": final,
                    "paused": arena.paused.get(competition.name, False),
                    "frozen": arena.frozen.get(competition.name, False),
                    "games": arena.stored[competition.name], "standings": table})
    return {"competitions": out, "version": arena.version}


def bot_page(arena: Arena, name: str, recent: int = 30) -> dict[str, Any] | None:
    """One entry's page, or None when there is no such bot."""
    with Session(arena.engine) as session:
        entry = session.scalar(select(EntryRow).where(EntryRow.name == name))
        if entry is None:
            return None
        versions = session.scalars(select(VersionRow).where(VersionRow.entry_id == entry.id)
                                   .order_by(VersionRow.number.desc())).all()
        bots = [v.bot for v in versions]
        bot_ids = dict(session.execute(select(BotRow.name, BotRow.id).where(BotRow.name.in_(bots))).all())
        ids = list(bot_ids.values())
        games = session.execute(select(GameRow, ResultRow).join(ResultRow, ResultRow.game_id == GameRow.id)
                                .where(ResultRow.bot_id.in_(ids)).order_by(GameRow.id.desc()).limit(recent)).all()
        game_ids = [game.id for game, _ in games]
        seated: dict[int, list[str]] = {}
        for game_id, bot in session.execute(select(SeatRow.game_id, BotRow.name).join(BotRow)
                                            .where(SeatRow.game_id.in_(game_ids)).order_by(SeatRow.position)):
            seated.setdefault(game_id, []).append(bot)
        ejections = session.execute(select(EjectionRow, GameRow).join(GameRow, GameRow.id == EjectionRow.game_id)
                                    .where(EjectionRow.bot_id.in_(ids)).order_by(EjectionRow.id.desc())
                                    .limit(100)).all()
        names = {v: k for k, v in bot_ids.items()}
        return {
            "bot": entry.name, "competition": entry.competition, "owner": entry.owner,
            "versions": [{"version": v.number, "bot": v.bot, "language": v.language, "status": v.status,
                          "log": v.detail, "uploaded": v.created_at.isoformat()} for v in versions],
            "games": [{"id": game.id, "index": game.index, "kind": "ladder" if game.league_id else "qualification",
                       "seed": game.seed, "seats": seated.get(game.id, []), "rank": result.rank,
                       "winner": result.winner, "ejected": result.ejected,
                       "finished": game.finished_at.isoformat()} for game, result in games],
            "ejections": [{"game": game.id, "bot": names.get(row.bot_id, "?"), "call": row.method, "kind": row.kind,
                           "reason": row.reason, "stderr": _stderr_of(row.reason)} for row, game in ejections],
        }


def _stderr_of(reason: str) -> str:
    """The stderr tail a program's ejection reason carries (``league.programs``)."""
    marker = "; stderr: "
    return reason.split(marker, 1)[1] if marker in reason else ""


def admin_view(arena: Arena) -> dict[str, Any]:
    return {"workers": arena.config.workers, "backend": arena.config.backend, "running": arena.workers(),
            "queue": arena.queue_depth(), "paused": dict(arena.paused), "frozen": dict(arena.frozen),
            "games_per_second": round(arena.metrics.per_second(), 3),
            "qualification_games": arena.metrics.qualification_games, "failed_games": arena.metrics.failed_games,
            "sandbox": arena.sandbox.mode}


def metrics_text(arena: Arena) -> str:
    """The Prometheus text exposition of the arena's counters and gauges."""
    lines = ["# HELP gameroom_arena_games_total Ladder games written, by competition.",
             "# TYPE gameroom_arena_games_total counter"]
    for competition in arena.config.competitions:
        lines.append(f'gameroom_arena_games_total{{competition="{competition.name}"}} '
                     f"{arena.metrics.games[competition.name]}")
    lines += ["# HELP gameroom_arena_games_per_second Ladder games written per second over the last minute.",
              "# TYPE gameroom_arena_games_per_second gauge",
              f"gameroom_arena_games_per_second {arena.metrics.per_second():.4f}",
              "# HELP gameroom_arena_qualification_games_total Qualification games written.",
              "# TYPE gameroom_arena_qualification_games_total counter",
              f"gameroom_arena_qualification_games_total {arena.metrics.qualification_games}",
              "# HELP gameroom_arena_failed_games_total Games lost to a failed worker (not written).",
              "# TYPE gameroom_arena_failed_games_total counter",
              f"gameroom_arena_failed_games_total {arena.metrics.failed_games}",
              "# HELP gameroom_arena_queue_depth Builds and qualification games waiting.",
              "# TYPE gameroom_arena_queue_depth gauge",
              f"gameroom_arena_queue_depth {arena.queue_depth()}",
              "# HELP gameroom_arena_workers_busy Games in flight.",
              "# TYPE gameroom_arena_workers_busy gauge",
              f"gameroom_arena_workers_busy {len(arena.running)}",
              "# HELP gameroom_arena_workers Games played at once at most.",
              "# TYPE gameroom_arena_workers gauge",
              f"gameroom_arena_workers {arena.config.workers}",
              "# HELP gameroom_arena_ejections_total Players ejected, by reason.",
              "# TYPE gameroom_arena_ejections_total counter"]
    for kind in ("time-out", "exception", "invalid-reply", "illegal-action", "disconnect"):
        lines.append(f'gameroom_arena_ejections_total{{reason="{kind}"}} {arena.metrics.ejections[kind]}')
    return "\n".join(lines) + "\n"
