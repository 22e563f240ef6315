"""Running an arena and administering it: what ``gameroom arena`` and its sub-commands do.

``serve`` opens (and migrates) the database, starts the engine and serves the pages with
uvicorn on the configured address (``web.serve.serve_app``: the connections bounded per
address as ``[limits]`` says); SIGTERM or SIGINT stops it gracefully within
``[limits] shutdown_seconds``: no new games, open requests and live pages closed, the
games in flight finished and written, then exit. The others work on the database
directly and may run while the arena does: ``admin`` (make or promote an administrator),
``invite`` (invite codes), ``sign_out`` (end an account's sessions), ``import_accounts`` (a CSV of ``username,password`` lines, made
participants of a competition), ``recompute`` and ``final``.
"""

from __future__ import annotations

import asyncio
import csv
import io
import logging
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gameroom.arena.config import ArenaConfig
from gameroom.arena.tables import ADMIN, add_member
from gameroom.core import textfile
from gameroom.core.errors import GameroomError

if TYPE_CHECKING:   # types only: the web room's and the admission's modules load when the arena serves
    from gameroom.arena.tables import EntryRow
    from gameroom.server.admission import Admission
    from gameroom.web.limits import RoomLimits

__all__ = ["ServiceError", "open_arena_database", "serve", "make_admin", "import_accounts", "recompute_all"]

log = logging.getLogger("gameroom.arena")


class ServiceError(GameroomError):
    """The arena cannot do what was asked (one line saying why; the command exits 2)."""


def open_arena_database(config: ArenaConfig) -> Engine:
    from gameroom.league.db import DatabaseError, open_database

    try:
        return open_database(config.database)
    except DatabaseError as exc:
        raise ServiceError(str(exc)) from None


def serve(config: ArenaConfig) -> int:
    """Serve the arena until SIGTERM or SIGINT."""
    from gameroom.arena.errors import ArenaError
    from gameroom.arena.ladder import Arena
    from gameroom.arena.logs import setup
    from gameroom.arena.web import arena_app
    from gameroom.web.account_rows import DatabaseAccounts
    from gameroom.web.accounts import Passwords
    from gameroom.web.archive import MatchArchive
    from gameroom.web.book import MatchBook
    from gameroom.web.guard import is_loopback
    from gameroom.arena.tables import role_of
    from gameroom.web.public import database_folder
    from gameroom.web.results import Results
    from gameroom.web.room import Room
    from gameroom.server.admission import TrustedProxies
    from gameroom.web.serve import ServeError, listening_socket, serve_app, session_secret, this_machine_only

    setup()
    if not config.public and not this_machine_only(config.host, is_loopback):
        raise ServiceError(f"{config.path}: listen: {config.host} is beyond this machine; set public = true to "
                           "serve a network")
    if config.remote is not None and not config.public and not this_machine_only(config.remote[0], is_loopback):
        raise ServiceError(f"{config.path}: remote: {config.remote[0]} is beyond this machine; set public = true to "
                           "take remote bots from a network")
    try:
        secret, note = session_secret(config.secret_file)
    except ServeError as exc:
        raise ServiceError(str(exc)) from None
    engine = open_arena_database(config)
    config.data.mkdir(parents=True, exist_ok=True)
    try:
        arena = Arena(config, engine)
    except ArenaError as exc:
        raise ServiceError(str(exc)) from None
    limits = arena_limits(config)
    remote_total = 0
    if arena.hall is not None:
        arena.hall.bound(remote_admission(limits), limits.head_seconds)
        remote_total = arena.hall.admission.bounds.total
    room = Room(MatchBook(limits, MatchArchive(engine)), DatabaseAccounts(engine, config.database), Passwords(),
                secret, private=tuple(f for f in (database_folder(config.database), str(config.data)) if f),
                staff=lambda account: role_of(engine, account.key) == "admin")
    app = arena_app(arena, room, Results(engine, config.database))
    try:
        sock = listening_socket(config.host, config.port)
    except OSError as exc:
        raise ServiceError(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}") from None
    port = sock.getsockname()[1]
    if note:
        log.warning(note)
    # uvicorn stops gracefully on SIGTERM and SIGINT (its open requests and pages get
    # shutdown_seconds), then raises the signal again to the handler it found: ours, which
    # lets the engine stop too (games in flight written within what is left of the grace).
    for stop_signal in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop_signal, lambda number, _frame: log.info("signal", extra={"fields": {"signal": number}}))
    arena.start()
    log.info("serving", extra={"fields": {"url": f"http://{config.host}:{port}/arena", "database": config.database,
                                          "remote_port": arena.hall.port if arena.hall is not None else None,
                                          "workers": config.workers, "backend": config.backend,
                                          "sandbox": arena.sandbox.mode}})
    stopping = [0.0]
    try:
        serve_app(app, sock, limits, TrustedProxies(config.proxy or ""),
                  lambda line: log.info("connections", extra={"fields": {"limits": line}}), uvicorn_logging=False,
                  elsewhere=remote_total)
        stopping[0] = time.monotonic()
    finally:
        started = stopping[0] or time.monotonic()
        log.info("stopping", extra={"fields": {"games_in_flight": len(arena.running)}})
        arena.stop(max(1.0, limits.shutdown_seconds - (time.monotonic() - started)))
        log.info("stopped")
    return 0


def arena_limits(config: ArenaConfig) -> RoomLimits:
    """The web room's limits as the arena's ``[limits]`` table sets them (errors name its
    keys), with a body large enough for the largest upload."""
    from gameroom.arena.config import LIMITS_TABLE
    from gameroom.web.limits import RoomLimits

    return RoomLimits(**dict(config.network), max_body=max(RoomLimits.max_body, config.uploads.max_bytes + 4096),
                      public=config.public, configured_in=LIMITS_TABLE,
                      names=(("max_body", "uploads.max_bytes in arena.toml"), ("public", "public = true in arena.toml")))


def remote_admission(limits: RoomLimits) -> Admission:
    """The remote-bot port's admission: a quarter of the connections the arena may hold
    (the pages keep the rest: ``max_connections`` counts both), a quarter of those from
    one address, and the pages' figure of unfinished ones per address."""
    from gameroom.server.admission import Admission, connection_cap

    total = max(16, connection_cap(limits.max_connections) // 4)
    per_address = max(1, min(limits.connections_per_address, total // 4))
    return Admission(total, per_address, min(limits.unfinished_per_address, per_address), key_name=limits.key)


def _passwords_hash(password: str) -> str:
    from gameroom.web.accounts import Passwords

    return asyncio.run(Passwords().hash(password))


def _account(engine: Engine, config: ArenaConfig, name: str, password: str | None) -> str:
    """The key of account ``name``, made with ``password`` when it does not exist."""
    from gameroom.web.account_rows import DatabaseAccounts
    from gameroom.web.accounts import Account, AccountError, checked_name, checked_password, new_stamp

    try:
        shown, key = checked_name(name)
    except AccountError as exc:
        raise ServiceError(f"username {name!r}: {exc}") from None
    accounts = DatabaseAccounts(engine, config.database)
    if accounts.find(key) is not None:
        return key
    if password is None:
        raise ServiceError(f"there is no account {shown!r}: give its password to make it")
    try:
        checked_password(password)
        accounts.add(Account(shown, key, new_stamp()), _passwords_hash(password))
    except AccountError as exc:
        raise ServiceError(f"account {shown!r}: {exc}") from None
    return key


def make_admin(config: ArenaConfig, name: str, password: str | None) -> str:
    engine = open_arena_database(config)
    key = _account(engine, config, name, password)
    with Session(engine) as session, session.begin():
        add_member(session, ADMIN, key, "admin")
    return key


def sign_out(config: ArenaConfig, name: str) -> int:
    """End every session of account ``name`` (an administrator's "sign out everywhere");
    how many ended."""
    from gameroom.web.account_rows import DatabaseAccounts
    from gameroom.web.accounts import account_key

    engine = open_arena_database(config)
    accounts = DatabaseAccounts(engine, config.database)
    key = account_key(name)
    if accounts.find(key) is None:
        raise ServiceError(f"there is no account {name!r}")
    return accounts.close_sessions(key)


def import_accounts(config: ArenaConfig, text: str, competition: str, source: str) -> int:
    """Make the accounts of a CSV (``username,password`` per line; a header line
    ``username,password`` is skipped) participants of ``competition``; how many."""
    if config.competition(competition) is None:
        raise ServiceError(f"no competition {competition!r} in {config.path}")
    rows = list(csv.reader(io.StringIO(text)))
    if rows and [cell.strip().lower() for cell in rows[0]] == ["username", "password"]:
        rows = rows[1:]
    for line, row in enumerate(rows, 1):
        if len(row) != 2:
            raise ServiceError(f"{source}: line {line}: expected username,password, got {len(row)} fields")
    engine = open_arena_database(config)
    count = 0
    for line, (name, password) in enumerate(rows, 1):
        try:
            key = _account(engine, config, name.strip(), password)
        except ServiceError as exc:
            raise ServiceError(f"{source}: line {line}: {exc}") from None
        with Session(engine) as session, session.begin():
            add_member(session, competition, key)
        count += 1
    return count


def recompute_all(config: ArenaConfig, write: bool) -> dict[str, list[str]]:
    """Each competition's differences between its stored standings and its games."""
    from gameroom.arena.standings import recompute

    engine = open_arena_database(config)
    return {competition.name: recompute(engine, competition.name, competition.game, write)[1]
            for competition in config.competitions}


def entries_of(engine: Engine) -> list[EntryRow]:
    from gameroom.arena.tables import EntryRow

    with Session(engine) as session:
        return list(session.scalars(select(EntryRow)))


def read_text(path: Path) -> str:
    try:
        return textfile.read_text(path)
    except textfile.FileProblem as exc:
        raise ServiceError(str(exc)) from None
