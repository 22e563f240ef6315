"""Who asks the arena's endpoints, and the refusals every endpoint shares: the arena and
the web room on ``app.state``, the logged-in account and its role, a participant of the
path's competition, an administrator (``arena.web`` and ``arena.web_staff``)."""

from __future__ import annotations

import asyncio

from starlette.requests import HTTPConnection, Request

from gameroom.arena.errors import ArenaError
from gameroom.arena.ladder import Arena
from gameroom.arena.tables import competitions_of, role_of
from gameroom.web.room import room_of

__all__ = ["JSON_BODY", "admin_only", "arena_of", "member", "who"]

JSON_BODY = 16 * 1024
"""Bytes of a JSON request body the arena reads at most."""


def arena_of(connection: HTTPConnection) -> Arena:
    """The arena this application serves."""
    arena: Arena = connection.app.state.arena
    return arena


async def who(connection: HTTPConnection) -> tuple[str | None, str | None, str | None]:
    """(account key, name, role) of the logged-in account."""
    account = await room_of(connection).signed_in(connection)
    if account is None:
        return None, None, None
    role = await asyncio.to_thread(role_of, arena_of(connection).engine, account.key)
    return account.key, account.name, role


async def member(request: Request) -> str:
    """The account key of a participant of the path's competition (or an administrator)."""
    key, _, role = await who(request)
    competition = request.path_params["competition"]
    if key is None:
        raise ArenaError(401, "log in first")
    if role != "admin" and competition not in await asyncio.to_thread(competitions_of, arena_of(request).engine, key):
        raise ArenaError(403, f"you are not a participant of {competition[:40]!r}: join with an invite code")
    return key


async def admin_only(request: Request) -> None:
    """Refuses (403) anyone but an administrator."""
    _, _, role = await who(request)
    if role != "admin":
        raise ArenaError(403, "the administrator's page: log in as an administrator")
