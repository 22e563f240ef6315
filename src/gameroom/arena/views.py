"""What the arena's pages show, as JSON-ready data: the standings of each competition (with
its rules and limits, its frozen table and every final), a bot's page (versions with
build logs, games and every ejection with the call it failed on, its reason and stderr
tail), the administrator's view, and the Prometheus metrics.

**Who sees what.** Results and games are public. A bot's build logs, its programs'
stderr, the full reasons of its ejections and what happened to its remote connection are
for its owner and staff only (:class:`Viewer`); others see each version's status with a
one-line public summary and each ejection's call, kind and reason without stderr or
paths. A student's own view has the arena's folders taken out of paths (its bot's files
are named relative to its folder); staff see everything.

**Counts that agree.** The standings' games, wins and ejections are the playing version's
ladder games (what its rating is made of: ``standings.table_rows``); the bot page shows
the same three figures for every version beside its qualification and final games, and
labels each game and ejection with its kind (ladder, qualification, final N) and version.

The standings come from the engine's ratings (``Arena.books``, kept equal to the stored
ones) and its rating histories; the rest from the database.
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gameroom.arena.config import Competition
from gameroom.arena.final import TIEBREAK_ROUNDS, settle_interrupted
from gameroom.arena.ladder import Arena
from gameroom.arena.standings import table_rows
from gameroom.arena.tables import EntryRow, FinalRow, StderrRow, VersionRow, state_of
from gameroom.core.options import named_options
from gameroom.games import registry
from gameroom.league.db import BotRow, EjectionRow, GameRow, ResultRow, SeatRow
from gameroom.web.account_rows import AccountRow

__all__ = ["Viewer", "GUEST", "standings", "bot_page", "admin_view", "metrics_text", "sparkline", "game_kind",
           "public_reason", "stderr_lines", "log_lines", "rules_of", "remote_status", "finals_of"]

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



@dataclass(frozen=True)
class Viewer:
    """Who looks at a page: an account's key and its role (``admin``, ``participant`` or
    None), or nobody (a guest)."""

    key: str | None = None
    role: str | None = None

    def private(self, owner: str) -> bool:
        """Whether this viewer sees the private parts of ``owner``'s bot."""
        return self.role == "admin" or (self.key is not None and self.key == owner)


GUEST = Viewer()

_STDERR = re.compile(r"; (stderr: .*|no stderr)$", re.S)
_PATH = re.compile(r"(?<![\w.~])/(?:[^\s'\"/:;,()\[\]|]+/)+[^\s'\":;,()\[\]|]*")


def public_reason(reason: str) -> str:
    """An ejection's reason as anybody may read it: without the program's stderr tail, and
    without any absolute path."""
    return _PATH.sub("[path]", _STDERR.sub("", reason))


def stderr_lines(tail: str) -> str:
    """A stderr tail one line per line (the sandbox joins its lines with `` | `` to keep a
    reason on one line)."""
    return "\n".join(tail.split(" | "))


def log_lines(log: str) -> str:
    """A version's log with each stderr tail in it one line per line (a build's, a failed
    qualification's), indented under its line."""
    out = []
    for line in log.splitlines():
        head, marker, tail = line.partition("; stderr: ")
        if not marker:
            out.append(line)
            continue
        out.append(f"{head}; stderr:")
        out += [f"    {part}" for part in stderr_lines(tail).splitlines()]
    return "\n".join(out)


def _stderr_of(reason: str) -> str:
    """The stderr tail a program's ejection reason carries (``league.programs``)."""
    marker = "; stderr: "
    return reason.split(marker, 1)[1] if marker in reason else ""


def _final_number(tournament: str) -> int:
    tail = tournament.rsplit(":final", 1)[1]
    return int(tail[1:]) if tail.startswith(":") and tail[1:].isdigit() else 1


def game_kind(game: GameRow) -> str:
    """``ladder``, ``qualification`` or ``final N`` (the final's number)."""
    if game.league_id is not None:
        return "ladder"
    tournament = game.tournament or ""
    if ":final" in tournament:
        return f"final {_final_number(tournament)}"
    return "qualification" if tournament.endswith(":qualify") else tournament or "game"


class _Scrub:
    """Paths taken out of what a student reads: the arena's data folder (a version's own
    folder becomes relative) and the database's URL."""

    def __init__(self, arena: Arena, viewer: Viewer) -> None:
        self.staff = viewer.role == "admin"
        self.data = str(arena.config.data)
        self.database = arena.config.database

    def __call__(self, text: str, entry: str = "", number: int | None = None) -> str:
        if self.staff or not text:
            return text
        if number is not None:
            text = text.replace(f"{self.data}/builds/{entry}/v{number}/", "")
        return text.replace(self.database, "[database]").replace(self.data, "[arena data]")


def _connection(arena: Arena, entry: str, bots: set[str], seen_at: Any, note: str | None) -> dict[str, Any]:
    """A remote bot's connection now: waiting in the hall, playing, or disconnected (with
    when it was last seen and what last happened)."""
    with arena.lock:
        playing = any(bot in r.bots for r in arena.running.values() for bot in bots)
    live = arena.hall.status(entry, bots) if arena.hall is not None else {"waiting": False, "seen": None,
                                                                           "note": None}
    seen = live["seen"] or (seen_at.isoformat() if seen_at is not None else None)
    state = "playing" if playing else "waiting" if live["waiting"] else "disconnected"
    return {"connected": state != "disconnected", "state": state, "seen": seen, "note": live["note"] or note}


def remote_status(arena: Arena, competition: str) -> dict[str, dict[str, Any]]:
    """Every remote entry's connection (without its note: for its owner and staff), by
    entry name."""
    with Session(arena.engine) as session:
        rows = session.execute(select(EntryRow.name, EntryRow.seen_at, EntryRow.note, VersionRow.bot)
                               .join(VersionRow, VersionRow.entry_id == EntryRow.id)
                               .where(EntryRow.competition == competition, VersionRow.language == "remote")).all()
    entries: dict[str, tuple[set[str], Any, str | None]] = {}
    for name, seen_at, note, bot in rows:
        entries.setdefault(name, (set(), seen_at, note))[0].add(bot)
    out = {}
    for name, (bots, seen_at, note) in entries.items():
        connection = _connection(arena, name, bots, seen_at, note)
        connection.pop("note")
        out[name] = connection
    return out


def rules_of(arena: Arena, competition: Competition) -> dict[str, Any]:
    """The competition's rules, options and limits, as facts and as sentences to read."""
    from gameroom.games import registry

    game = registry.game(competition.game)
    call = competition.call_seconds if competition.call_seconds is not None else game.limits.call
    limits, uploads = arena.config.limits, arena.config.uploads
    options = dict(competition.options)
    dealt = f", with {', '.join(f'{k} = {v}' for k, v in options.items())}" if options else ", the game's own deal"
    whose = " (this competition's)" if competition.call_seconds is not None else " (the game's own)"
    languages = ", ".join(f"{lang.name} ({' '.join(lang.suffixes)})" if lang.suffixes else lang.name
                          for lang in arena.config.languages)
    lines = [
        f"Game: {competition.game}, {competition.players} players a table{dealt}.",
        (f"Time limit: {call:g} s for each call to a bot{whose}" if call is not None else
         "Time limit: none for a call to a bot") + "; a bot that does not answer in time is ejected.",
        "A bot is ejected (ranked last) for a time-out, an illegal move, an invalid reply, a crash or a hang-up; "
        "its page shows each ejection with the call it failed on.",
        f"Each bot runs in a sandbox without network: {limits.cpu_seconds} s of CPU, {limits.memory_mb} MB of memory, "
        f"{limits.processes} processes, files up to {limits.file_mb} MB.",
        f"Uploads: one file, or a zip or tar.gz archive with a bot.toml; at most {uploads.max_bytes} bytes, "
        f"{uploads.max_files} files and {uploads.max_unpacked_bytes} bytes unpacked; built within "
        f"{uploads.build_seconds} s. Languages: {languages}.",
        f"A new version first plays {competition.qualification} qualification game(s) against the built-in "
        f"players ({', '.join(competition.builtins)}); ejected in none, it replaces the bot's playing version.",
        "Ladder: games are played continuously; ratings are openskill's (Plackett-Luce) and the table is ordered "
        "by mu - 3 sigma; games, wins and ejections are the playing version's ladder games.",
        "Freeze: " + (f"scheduled at {competition.freeze_at.isoformat()}" if competition.freeze_at else
                      "by the staff") + "; a freeze stops the ladder and uploads, the games in flight are written, "
        "then the table is frozen and the finals are seeded from it.",
        "Finals: a round robin (ties on wins broken by head-to-head, then tie-break games, then the frozen table) "
        f"or a knock-out (a level match goes to tie-break games in pairs, at most {TIEBREAK_ROUNDS}, then to the "
        "better seed); finals do not change ratings.",
    ]
    if arena.config.remote is not None:
        lines.append("Remote bots may run on their owners' machines: registered here, they connect to the arena's "
                     "remote port with their token for every game.")
    return {"game": competition.game, "players": competition.players, "options": options, "call_seconds": call,
            "qualification": competition.qualification, "builtins": list(competition.builtins),
            "bots": {"cpu_seconds": limits.cpu_seconds, "memory_mb": limits.memory_mb,
                     "processes": limits.processes, "file_mb": limits.file_mb},
            "uploads": {"max_bytes": uploads.max_bytes, "max_files": uploads.max_files,
                        "max_unpacked_bytes": uploads.max_unpacked_bytes, "build_seconds": uploads.build_seconds},
            "freeze_at": competition.freeze_at.isoformat() if competition.freeze_at else None,
            "lines": lines}


def finals_of(arena: Arena, competition: str) -> list[dict[str, Any]]:
    """Every final of the competition, the latest first (one whose process is gone marked
    interrupted first: ``arena.final``)."""
    settle_interrupted(arena.engine, competition)
    with Session(arena.engine) as session:
        rows = session.scalars(select(FinalRow).where(FinalRow.competition == competition)
                               .order_by(FinalRow.number.desc())).all()
    return [{"number": row.number, "format": row.format, "status": row.status, "started": row.started_at.isoformat(),
             "result": _shown(row.result)} for row in rows]


def _shown(result: Any) -> Any:
    """A final's result without the process that played it (host, pid: not for the pages)."""
    if not isinstance(result, dict):
        return result
    shown = {key: value for key, value in result.items() if key not in ("host", "pid", "started")}
    return shown or None


_SNAPSHOTS: "weakref.WeakKeyDictionary[Arena, tuple[int, dict[str, Any]]]" = weakref.WeakKeyDictionary()
"""Each arena's standings as of its version: every live page pushes the same snapshot, made
once per change rather than once per page."""


def standings(arena: Arena) -> dict[str, Any]:
    """Every competition with its table (entries by rating, with owner, playing and latest
    versions, rating, mu, sigma, games, wins, ejections, the sparkline, a remote bot's
    connection), its rules, its frozen table and its finals (a shallow copy of the
    snapshot of the arena's version: the caller may add keys)."""
    version = arena.version
    cached = _SNAPSHOTS.get(arena)
    if cached is None or cached[0] != version:
        cached = (version, _standings(arena, version))
        _SNAPSHOTS[arena] = cached
    return dict(cached[1])


def _standings(arena: Arena, version: int) -> dict[str, Any]:
    out = []
    for competition in arena.config.competitions:
        table = table_rows(arena.engine, competition, arena.books[competition.name])
        connections = remote_status(arena, competition.name)
        for row in table:
            row["spark"] = sparkline(arena.history.get(row["playing"], []) if row["playing"] else [])
            row["connection"] = connections.get(row["bot"]) if row["remote"] else None
            row["disabled"] = row["disabled"] is not None   # why: on the bot's page, for its owner and staff
        state = state_of(arena.engine, competition.name)
        frozen_table = (state.season or {}).get("table") if state.frozen else None
        if frozen_table is not None:
            frozen_table = {**frozen_table, "rows": [{**row, "disabled": row["disabled"] is not None}
                                                     for row in frozen_table["rows"]]}
        with arena.lock:
            in_flight = sum(1 for r in arena.running.values()
                            if r.kind == "ladder" and r.competition == competition.name)
        out.append({"name": competition.name, "game": competition.game, "players": competition.players,
                    "options": named_options(registry.game(competition.game).room_options,
                                             dict(competition.options)), "rules": rules_of(arena, competition),
                    "paused": arena.paused.get(competition.name, False),
                    "frozen": arena.frozen.get(competition.name, False),
                    "frozen_table": frozen_table, "in_flight": in_flight,
                    "finals": finals_of(arena, competition.name),
                    "games": arena.stored[competition.name], "standings": table})
    return {"competitions": out, "version": version}


@dataclass
class _BotRows:
    """What one bot's page is made of, read in one session (``bot_page``)."""

    entry: EntryRow
    owner_name: str | None
    versions: list[VersionRow]
    number_of: dict[str, int]          # bot (a version's name) -> version number
    names: dict[int, str]              # bot id -> bot
    games: list[Any]                   # (GameRow, ResultRow), newest first
    seated: dict[int, list[str]]       # game id -> its seats' bots
    ejections: list[Any]               # (EjectionRow, GameRow), newest first
    tails: dict[tuple[int, int], str]  # (game id, bot id) -> the stderr kept
    counted: list[Any]                 # (bot id, tournament, games, ejections)


def _bot_rows(arena: Arena, name: str, recent: int) -> _BotRows | None:
    with Session(arena.engine) as session:
        found = session.execute(select(EntryRow, AccountRow.name)
                                .outerjoin(AccountRow, AccountRow.key == EntryRow.owner)
                                .where(EntryRow.name == name)).first()
        if found is None:
            return None
        entry, owner_name = found
        versions = list(session.scalars(select(VersionRow).where(VersionRow.entry_id == entry.id)
                                        .order_by(VersionRow.number.desc())).all())
        number_of = {v.bot: v.number for v in versions}
        bot_ids = dict(session.execute(select(BotRow.name, BotRow.id).where(BotRow.name.in_(list(number_of)))).all())
        ids = list(bot_ids.values())
        games = list(session.execute(select(GameRow, ResultRow).join(ResultRow, ResultRow.game_id == GameRow.id)
                                     .where(ResultRow.bot_id.in_(ids)).order_by(GameRow.id.desc())
                                     .limit(recent)).all())
        game_ids = [game.id for game, _ in games]
        seated: dict[int, list[str]] = {}
        for game_id, bot in session.execute(select(SeatRow.game_id, BotRow.name).join(BotRow)
                                            .where(SeatRow.game_id.in_(game_ids)).order_by(SeatRow.position)):
            seated.setdefault(game_id, []).append(bot)
        ejections = list(session.execute(select(EjectionRow, GameRow).join(GameRow, GameRow.id == EjectionRow.game_id)
                                         .where(EjectionRow.bot_id.in_(ids)).order_by(EjectionRow.id.desc())
                                         .limit(100)).all())
        tails = {(row.game_id, row.bot_id): row.stderr for row in session.scalars(
            select(StderrRow).where(StderrRow.game_id.in_([game.id for _, game in ejections]),
                                    StderrRow.bot_id.in_(ids)))}
        counted = list(session.execute(select(ResultRow.bot_id, GameRow.tournament, func.count(),
                                              func.count().filter(ResultRow.ejected))
                                       .join(GameRow, GameRow.id == ResultRow.game_id)
                                       .where(ResultRow.bot_id.in_(ids), GameRow.league_id.is_(None))
                                       .group_by(ResultRow.bot_id, GameRow.tournament)).all())
    return _BotRows(entry, owner_name, versions, number_of, {v: k for k, v in bot_ids.items()}, games, seated,
                    ejections, tails, counted)


def bot_page(arena: Arena, name: str, viewer: Viewer = GUEST, recent: int = 30) -> dict[str, Any] | None:
    """One entry's page as ``viewer`` may see it (see the module), or None when there is
    no such bot."""
    rows = _bot_rows(arena, name, recent)
    if rows is None:
        return None
    entry, versions, number_of, names, tails = rows.entry, rows.versions, rows.number_of, rows.names, rows.tails
    competition = arena.config.competition(entry.competition)
    book = arena.books.get(entry.competition)
    private = viewer.private(entry.owner)
    scrub = _Scrub(arena, viewer)
    counts: dict[str, dict[str, Counter[str]]] = {}
    for bot_id, tournament, played, ejected in rows.counted:   # ladder games: the rating book's, as the standings
        kind = "qualification" if (tournament or "").endswith(":qualify") else "final"
        tally = counts.setdefault(names[bot_id], {}).setdefault(kind, Counter())
        tally["games"] += played
        tally["ejections"] += ejected

    def version_view(v: VersionRow) -> dict[str, Any]:
        rated = book is not None and competition is not None and v.bot in book.standings.get(competition.game, {})
        standing = book.of(competition.game, v.bot) if rated and book is not None and competition else None
        tallies = counts.get(v.bot, {})
        item: dict[str, Any] = {
            "version": v.number, "bot": v.bot, "language": v.language, "status": v.status,
            "uploaded": v.created_at.isoformat(), "summary": _summary(v),
            "ladder": {"games": standing.games if standing else 0, "wins": standing.wins if standing else 0,
                       "ejections": standing.ejections if standing else 0},
            "qualification": {"games": tallies.get("qualification", Counter())["games"],
                              "ejections": tallies.get("qualification", Counter())["ejections"]},
            "final": {"games": tallies.get("final", Counter())["games"],
                      "ejections": tallies.get("final", Counter())["ejections"]}}
        if private:
            item["log"] = scrub(log_lines(v.detail), entry.name, v.number)
        return item

    def ejection_view(row: EjectionRow, game: GameRow) -> dict[str, Any]:
        bot = names.get(row.bot_id, "?")
        item: dict[str, Any] = {"game": game.id, "bot": bot, "version": number_of.get(bot), "kind": game_kind(game),
                                "call": row.method, "failure": row.kind, "reason": public_reason(row.reason)}
        if private:
            tail = _stderr_of(row.reason) or tails.get((game.id, row.bot_id), "")
            item["reason"] = scrub(_STDERR.sub("", row.reason), entry.name, number_of.get(bot))
            item["stderr"] = scrub(stderr_lines(tail), entry.name, number_of.get(bot))
        return item

    playing = next((v for v in versions if v.status == "active"), None)
    page: dict[str, Any] = {
        "bot": entry.name, "competition": entry.competition, "owner": rows.owner_name or entry.owner,
        "private": private, "playing": playing.bot if playing is not None else None,
        "disabled": None if entry.disabled is None else entry.disabled if private else True,
        "versions": [version_view(v) for v in versions],
        "games": [{"id": game.id, "index": game.index, "kind": game_kind(game), "seed": game.seed,
                   "version": number_of.get(names.get(result.bot_id, "")),
                   "seats": rows.seated.get(game.id, []), "rank": result.rank, "winner": result.winner,
                   "ejected": result.ejected, "finished": game.finished_at.isoformat()} for game, result in rows.games],
        "ejections": [ejection_view(row, game) for row, game in rows.ejections],
    }
    if any(v.language == "remote" for v in versions):
        connection = _connection(arena, entry.name, {v.bot for v in versions}, entry.seen_at, entry.note)
        if private:
            connection["port"] = arena.hall.port if arena.hall is not None else None
        else:
            connection.pop("note")
        page["remote"] = connection
    return page


def _summary(version: VersionRow) -> str:
    """A version's status in one line anybody may read (its log is its owner's)."""
    if version.status == "failed":
        failed = next((line for line in version.detail.splitlines() if line.startswith("qualification failed")),
                      None)
        if failed is None:
            return "the build failed"
        # "qualification failed: ejected on CALL (KIND): reason": the call and the kind
        return public_reason(failed.split("): ", 1)[0] + ")") if "): " in failed else "qualification failed"
    return {"building": "being built", "qualifying": "playing its qualification games",
            "active": "playing on the ladder", "retired": "replaced by a newer version"}.get(version.status,
                                                                                           version.status)


def admin_view(arena: Arena) -> dict[str, Any]:
    return {"workers": arena.config.workers, "backend": arena.config.backend, "running": arena.workers(),
            "queue": arena.queue_depth(), "paused": dict(arena.paused), "frozen": dict(arena.frozen),
            "games_per_second": round(arena.metrics.per_second(), 3),
            "qualification_games": arena.metrics.qualification_games, "failed_games": arena.metrics.failed_games,
            "sandbox": arena.sandbox.mode, "nodes": arena.pool.nodes()}


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
