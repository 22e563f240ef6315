"""A bot's versions (:class:`Versions`): an upload unpacked, numbered within its owner's
daily quota and put in place, a remote bot registered, builds queued and run, a version
finished (qualified, failed, replaced) and the files of old ones pruned.

An upload is unpacked into a scratch folder outside any transaction; its version number
is then decided by the database (``league.atomic.write_transaction``: ``BEGIN IMMEDIATE`` on SQLite,
the owner's rows locked elsewhere) together with the student's daily quota
(``uploads.per_day``), and its folder moved into place before that transaction commits:
a version row always has its files, a refused upload leaves none, and simultaneous
uploads get consecutive numbers (a lost race on a bot's name is one 409). A new version
replaces the entry's versions still building or qualifying; a failed version's folder is
deleted, and of a student's other versions only the newest ``uploads.versions_kept``
keep theirs (the playing and pending ones always do).

Builds run on a thread of their own (each in the sandbox, ``arena.uploads``), taken
round-robin between students; a built version waits in the qualification queue
(``ArenaState.qualifying``) that ``arena.scheduler`` plays.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from gameroom.arena.config import NAME, Competition
from gameroom.arena.errors import ArenaError
from gameroom.arena.ladder_state import ArenaState
from gameroom.arena.tables import EntryRow, MemberRow, VersionRow, now
from gameroom.arena.uploads import UploadError, build, fill, language_for, read_manifest, unpack
from gameroom.league.atomic import write_transaction

__all__ = ["Versions", "PENDING"]

log = logging.getLogger("gameroom.arena")

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


class Versions:
    """The versions of an arena's bots, on its state (see the module)."""

    def __init__(self, state: ArenaState) -> None:
        self.state = state

    def resume(self) -> None:
        """At start: the versions a crash left building or qualifying are built (a remote
        one queued for its qualification) again; uploads it interrupted were never
        versions, their scratch folders go."""
        with Session(self.state.engine) as session:
            unfinished = session.execute(select(VersionRow.id, VersionRow.status, EntryRow.owner).join(EntryRow)
                                         .where(VersionRow.status.in_(PENDING)).order_by(VersionRow.id)).all()
        shutil.rmtree(self.state.scratch, ignore_errors=True)
        for version_id, status, owner in unfinished:
            log.info("resumed", extra={"fields": {"version": version_id, "status": status}})
            self.start_build(version_id, owner)

    def upload(self, competition: str, owner: str, entry: str, language: str | None, filename: str,
               data: bytes) -> dict[str, Any]:
        """A new version of ``entry`` (made for ``owner`` on its first upload): unpacked
        now into a scratch folder, numbered and moved into place in one short
        transaction, built and qualified in the background. ArenaError says what is
        refused (one line, its HTTP status)."""
        self._open(competition, entry)
        if language is not None and self.state.config.language(language) is None:
            raise ArenaError(400, f"language {language!r} is not offered; choose from "
                                  f"{', '.join(lang.name for lang in self.state.config.languages)}")
        self._check_quota(owner)   # before the work of unpacking; decided again when numbered
        self.state.scratch.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix="upload-", dir=self.state.scratch))
        try:
            unpacked = scratch / "bot"
            try:
                archive = unpack(data, filename, unpacked, self.state.config.uploads)
                if archive:
                    language, main = read_manifest(unpacked)
                    if self.state.config.language(language) is None:
                        raise UploadError(f"bot.toml: language {language!r} is not offered")
                else:
                    main = next(unpacked.iterdir()).name
                    if language is None:
                        guessed = language_for(main, self.state.config.languages)
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
        self.start_build(version_id, owner)
        self._prune(owner)
        self.state.bump()
        return {"bot": entry, "version": number, "status": "building"}

    @staticmethod
    def _version_row(entry: str, number: int, language: str, main: str) -> VersionRow:
        return VersionRow(number=number, language=language, status="building", detail=f"main: {main}",
                          bot=f"{entry}-v{number}", spec=None, created_at=now())

    def _check_quota(self, owner: str) -> None:
        with Session(self.state.engine) as session:
            count = session.scalar(select(func.count()).select_from(VersionRow).join(EntryRow)
                                   .where(EntryRow.owner == owner,
                                          VersionRow.created_at > now() - timedelta(days=1))) or 0
        if count >= self.state.config.uploads.per_day:
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
                with write_transaction(self.state.engine) as session:
                    row, number = _claim_version(session, competition, owner, entry, self.state.config.uploads.per_day)
                    if token_hash is not None:
                        row.token_hash = token_hash
                    version = make(number)
                    version.entry_id = row.id
                    session.add(version)
                    replaced = _replace_pending(session, row.id, number)
                    session.flush()
                    if files is not None:
                        placed = self.state.folder(entry, number)
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
                if isinstance(exc, OperationalError) and (self.state.engine.dialect.name == "sqlite"
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
        with self.state.lock:
            self.state.qualifying.remove(lambda item: item[0] in ids)
            self.state.build_queue.remove(lambda version_id: version_id in ids)
            for version_id in ids:
                self.state.qualified.pop(version_id, None)
        for _, number in replaced:
            shutil.rmtree(self.state.folder(entry, number), ignore_errors=True)
        for version_id, number in replaced:
            log.info("version", extra={"fields": {"version": version_id, "status": "failed",
                                                  "replaced_by": number}})

    def _prune(self, owner: str) -> None:
        """Delete the files of the owner's failed versions, and of its retired versions
        beyond the newest ``uploads.versions_kept`` that played (the playing and waiting
        ones keep theirs; the database keeps every version's row, log and games)."""
        with Session(self.state.engine) as session:
            rows = session.execute(select(EntryRow.name, VersionRow.number, VersionRow.status, VersionRow.language)
                                   .join(EntryRow).where(EntryRow.owner == owner)
                                   .order_by(VersionRow.created_at.desc(), VersionRow.id.desc())).all()
        kept = 0
        for name, number, status, language in rows:
            if language == "remote" or status in PENDING:   # waiting versions keep their files, uncounted
                continue
            if status != "failed":
                kept += 1
            if status == "active" or (status != "failed" and kept <= self.state.config.uploads.versions_kept):
                continue
            folder = self.state.folder(name, number)
            if folder.exists():
                shutil.rmtree(folder, ignore_errors=True)
                log.info("pruned", extra={"fields": {"bot": f"{name}-v{number}", "status": status}})

    def _open(self, competition: str, entry: Any) -> Competition:
        """The competition, when it takes a new version of a bot named ``entry``."""
        found = self.state.config.competition(competition)
        if found is None:
            raise ArenaError(404, f"no competition {competition!r}")
        if self.state.frozen.get(competition):
            raise ArenaError(409, f"competition {competition!r} is frozen: no more bots or versions")
        if not isinstance(entry, str) or not NAME.match(entry):
            raise ArenaError(400, "name: 1-24 lower-case letters, digits or -, starting with a letter or digit")
        return found

    def register_remote(self, competition: str, owner: str, entry: str) -> dict[str, Any]:
        """A remote bot for ``owner`` (a new version of its entry, with a new token, when
        the entry exists): the token, shown this once."""
        from gameroom.arena.tables import digest, new_secret

        if self.state.hall is None:
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
            self.finish(version_id, "active", "remote: connects with its token\nqualified: no "
                                                       "qualification games")
        else:
            self.queue_qualification(version_id, owner, found.qualification)
        log.info("remote bot", extra={"fields": {"competition": competition, "bot": entry, "version": number}})
        self.state.bump()
        return {"bot": entry, "version": number, "token": token, "port": self.state.hall.port}

    def queue_qualification(self, version_id: int, owner: str, games: int) -> None:
        with self.state.lock:
            self.state.owners[version_id] = owner
            self.state.qualified[version_id] = games
            self.state.qualifying.extend(owner, ((version_id, game) for game in range(games)))

    def start_build(self, version_id: int, owner: str) -> None:
        """Queue a version's build: the build thread takes the builds round-robin between
        owners."""
        with self.state.lock:
            self.state.builds_waiting += 1
            self.state.owners[version_id] = owner
            self.state.build_queue.put(owner, version_id)
        self.state.builds.submit(self._build_next)

    def _build_next(self) -> None:
        with self.state.lock:
            version_id = self.state.build_queue.take()
            if version_id is None:   # replaced while it waited
                self.state.builds_waiting -= 1
                return
        try:
            self._build(version_id)
        finally:
            with self.state.lock:
                self.state.builds_waiting -= 1

    def _build(self, version_id: int) -> None:
        try:
            with Session(self.state.engine) as session:
                version = session.get(VersionRow, version_id)
                assert version is not None
                entry = session.get(EntryRow, version.entry_id)
                assert entry is not None
                language = self.state.config.language(version.language)
                directory = self.state.folder(entry.name, version.number)
                main_name = version.detail.split("\n", 1)[0].removeprefix("main: ")
                bot, competition_name, owner, status = version.bot, entry.competition, entry.owner, version.status
            if status not in PENDING:   # replaced meanwhile
                return
            competition = self.state.config.competition(competition_name)
            if version.language == "remote" and competition is not None:
                self.queue_qualification(version_id, owner, competition.qualification)
                return
            if language is None or competition is None or not directory.is_dir():
                self.finish(version_id, "failed", "the language, competition or files of this version "
                                                            "are no longer configured or present")
                return
            main = directory / main_name
            built, build_log = build(language, main, directory, self.state.config.limits, self.state.sandbox,
                                     self.state.config.uploads.build_seconds, self.state.interpreters)
            detail = f"main: {main_name}\n{build_log}"
            if not built:
                self.finish(version_id, "failed", detail)
                return
            limits = self.state.config.limits
            spec = {"name": bot, "command": fill(language.run, main, directory), "read": [str(directory)],
                    "cpu_seconds": limits.cpu_seconds, "memory_mb": limits.memory_mb,
                    "processes": limits.processes, "file_mb": limits.file_mb}
            with Session(self.state.engine) as session, session.begin():
                row = session.get(VersionRow, version_id)
                assert row is not None
                if row.status != "building":   # replaced while it was built
                    return
                row.status, row.detail, row.spec = "qualifying", detail, spec
            if competition.qualification == 0:
                self.finish(version_id, "active", detail + "\nqualified: no qualification games")
            else:
                self.queue_qualification(version_id, owner, competition.qualification)
            self.state.bump()
        except Exception:   # a build never takes the arena down; the version says what happened
            log.exception("build failed", extra={"fields": {"version": version_id}})
            self.finish(version_id, "failed", "the build failed inside the arena (see its log)")

    def finish(self, version_id: int, status: str, detail: str) -> None:
        with Session(self.state.engine) as session, session.begin():
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
        with self.state.lock:   # whatever of its qualification still waits is moot now
            self.state.owners.pop(version_id, None)
            self.state.qualified.pop(version_id, None)
            self.state.qualifying.remove(lambda item: item[0] == version_id)
        log.info("version", extra={"fields": {"version": version_id, "status": status}})
        self.state.load_playing(competition)
        self._prune(owner)
        self.state.bump()
