"""What course staff see and do beyond the workers' page: the season's overview, bots
disabled and enabled, freezes by hand, and the standings exported for grading.

The overview of each competition lists its participants (those without a bot stand out),
every bot with its owner, its latest version's status, its playing version, whether it
is disabled, its failed versions with why, and its ejections counted by reason (over all
its versions and games); the competition's state (paused, frozen, its scheduled freeze,
its frozen table, its finals).

A disabled bot plays no ladder or final game, takes no upload and its remote connection
is turned away (its page tells its owner why); versions already queued still qualify.
The CSV has one line per entry of the frozen table when the competition is frozen (else
of the live table) with the owner's username, the figures of the standings and each
final's outcome; a text cell that a spreadsheet would read as a formula is quoted with
a leading ``'``.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gameroom.arena.config import Competition
from gameroom.arena.errors import ArenaError
from gameroom.arena.ladder import Arena
from gameroom.arena.season import freeze, thaw
from gameroom.arena.standings import table_rows
from gameroom.arena.tables import ADMIN, EntryRow, MemberRow, VersionRow, state_of
from gameroom.arena.views import finals_of, remote_status
from gameroom.league.db import BotRow, EjectionRow
from gameroom.web.account_rows import AccountRow

__all__ = ["overview", "set_disabled", "set_frozen", "standings_csv", "MAX_REASON"]

MAX_REASON = 300


def _failure(detail: str) -> str:
    """Why a version failed, from its log: the qualification's line, else the build's end."""
    lines = [line for line in detail.splitlines() if line.strip()]
    failed = next((line for line in lines if line.startswith("qualification failed")), None)
    return (failed or " / ".join(lines[1:]) or "failed")[:MAX_REASON]


def overview(arena: Arena) -> dict[str, Any]:
    """Every competition's participants, bots and state (see the module)."""
    with Session(arena.engine) as session:
        members = session.execute(select(MemberRow.competition, MemberRow.account_key, AccountRow.name)
                                  .outerjoin(AccountRow, AccountRow.key == MemberRow.account_key)
                                  .where(MemberRow.competition != ADMIN)).all()
        rows = session.execute(select(EntryRow, VersionRow, AccountRow.name)
                               .join(VersionRow, VersionRow.entry_id == EntryRow.id)
                               .outerjoin(AccountRow, AccountRow.key == EntryRow.owner)
                               .order_by(EntryRow.id, VersionRow.number)).all()
        ejections = session.execute(select(BotRow.name, EjectionRow.kind).join(BotRow, BotRow.id == EjectionRow.bot_id)
                                    .join(VersionRow, VersionRow.bot == BotRow.name)).all()
    by_version: dict[str, Counter[str]] = {}
    for bot, kind in ejections:
        by_version.setdefault(bot, Counter())[kind] += 1
    out = []
    for competition in arena.config.competitions:
        bots: dict[str, dict[str, Any]] = {}
        for entry, version, owner in rows:
            if entry.competition != competition.name:
                continue
            item = bots.setdefault(entry.name, {
                "bot": entry.name, "owner": owner or entry.owner, "owner_key": entry.owner, "disabled": entry.disabled,
                "playing": None, "latest": None, "failures": [], "ejections": Counter()})
            item["latest"] = {"version": version.number, "status": version.status, "language": version.language,
                              "uploaded": version.created_at.isoformat()}
            if version.status == "active":
                item["playing"] = version.bot
            if version.status == "failed":
                item["failures"].append({"version": version.number, "reason": _failure(version.detail)})
            item["ejections"].update(by_version.get(version.bot, Counter()))
        connections = remote_status(arena, competition.name)
        for name, item in bots.items():
            item["ejections"] = dict(item["ejections"])
            item["connection"] = connections.get(name)
        owned: dict[str, list[str]] = {}
        for item in bots.values():
            owned.setdefault(item.pop("owner_key"), []).append(item["bot"])
        participants = sorted(({"username": name or key, "bots": owned.get(key, [])}
                               for where, key, name in members if where == competition.name),
                              key=lambda p: (bool(p["bots"]), p["username"]))
        state = state_of(arena.engine, competition.name)
        season = state.season or {}
        table = season.get("table") if state.frozen else None
        totals: Counter[str] = Counter()
        for item in bots.values():
            totals.update(item["ejections"])
        out.append({"name": competition.name, "game": competition.game,
                    "paused": arena.paused.get(competition.name, False), "frozen": state.frozen,
                    "frozen_at": season.get("frozen_at") if state.frozen else None,
                    "frozen_by": season.get("frozen_by") if state.frozen else None,
                    "frozen_table": None if table is None else {"at": table["at"], "games": table["games"]},
                    "freeze_at": competition.freeze_at.isoformat() if competition.freeze_at else None,
                    "participants": participants, "without_bot": sum(1 for p in participants if not p["bots"]),
                    "bots": list(bots.values()), "ejections": dict(totals),
                    "finals": [{"number": f["number"], "format": f["format"], "status": f["status"],
                                "winner": (f["result"] or {}).get("winner")} for f in finals_of(arena,
                                                                                                 competition.name)]})
    return {"competitions": out}


def set_disabled(arena: Arena, name: str, reason: str | None) -> dict[str, Any]:
    """Disable the bot ``name`` (``reason``: why, shown to its owner) or enable it (None)."""
    if reason is not None:
        reason = " ".join(reason.split())[:MAX_REASON] or "no reason given"
    with Session(arena.engine) as session, session.begin():
        entry = session.scalar(select(EntryRow).where(EntryRow.name == name))
        if entry is None:
            raise ArenaError(404, f"no bot {name[:40]!r}")
        entry.disabled = reason
        competition = entry.competition
        bots = set(session.scalars(select(VersionRow.bot).where(VersionRow.entry_id == entry.id)))
    arena.refresh_playing(competition)
    if reason is not None and arena.hall is not None:
        arena.hall.turn_away(bots, f"disabled by staff: {reason}")
    arena.bump()
    return {"bot": name, "disabled": reason}


def set_frozen(arena: Arena, competition: Competition, frozen: bool) -> dict[str, Any]:
    """Freeze (by staff) or thaw a competition; its state."""
    changed = freeze(arena.engine, competition.name, "staff") if frozen else thaw(arena.engine, competition.name)
    arena.frozen[competition.name] = frozen
    arena.bump()
    return {"competition": competition.name, "frozen": frozen, "changed": changed}


_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return "" if value is None else value


def _outcome(result: dict[str, Any] | None, bot: str | None) -> str:
    """A bot's outcome in one final: its place, or how far it went in a knock-out."""
    if not result or bot is None:
        return ""
    if "table" in result:
        return next((str(row["place"]) for row in result["table"] if row["bot"] == bot), "")
    if result.get("champion") == bot:
        return "champion"
    for stage in result.get("rounds", []):
        for match in stage["matches"]:
            if bot in match["bots"] and match["winner"] != bot:
                return f"out in round {stage['round']}"
    return ""


def standings_csv(arena: Arena, competition: Competition) -> str:
    """The competition's standings as CSV for grading (see the module)."""
    state = state_of(arena.engine, competition.name)
    table = (state.season or {}).get("table") if state.frozen else None
    rows = table["rows"] if table is not None else table_rows(arena.engine, competition,
                                                              arena.books[competition.name])
    finals = [f for f in reversed(finals_of(arena, competition.name)) if f["status"] == "done"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["place", "bot", "owner", "playing_version", "rating", "mu", "sigma", "games", "wins",
                     "ejections", "latest_version", "latest_status", "disabled", "table",
                     *(f"final_{f['number']}_{f['format']}" for f in finals)])
    which = f"frozen at {table['at']}" if table is not None else "live"
    for row in rows:
        latest = row.get("version") or {}
        writer.writerow([_cell(v) for v in (
            row["rank"], row["bot"], row["owner"], row.get("playing_version"), row["rating"], row["mu"],
            row["sigma"], row["games"], row["wins"], row["ejections"], latest.get("version"), latest.get("status"),
            row.get("disabled") or "", which, *(_outcome(f["result"], row.get("playing")) for f in finals))])
    return out.getvalue()
