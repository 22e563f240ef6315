"""The arena's pages and endpoints, added to the web room's application (its log-in,
guard, sessions, stored games and replay viewer come with it).

    GET  /arena                          standings of every competition (live)
    GET  /arena/bots/{name}              a bot's page (live)
    GET  /arena/admin                    the administrator's page
    GET  /metrics                        Prometheus text
    GET  /api/arena                      {"competitions": [...], "me": {...}}
    GET  /api/arena/bots/{name}          versions, recent games, ejections (logs, stderr and a
                                         remote bot's notes for its owner and staff only)
    POST /api/arena/join                 {"code"} -> {"competition"}          (logged in)
    POST /api/arena/{competition}/bots   ?name=N&language=L&filename=F, the file as the body
                                                                            (a member)
    POST /api/arena/{competition}/remote {"name"} -> {"bot", "version", "token", "host", "port",
                                         "command"}: a remote bot, its secret token and where it
                                         connects (a member)
    GET  /api/arena/games/{id}/replay.jsonl   the stored replay (JSON Lines) to download: the stored
                                         bytes as Content-Encoding zstd, else gzip or plain (410: not kept)
    GET  /api/arena/admin                workers, queue, pause state         (administrator)
    POST /api/arena/admin/pause          {"paused": bool}                    (administrator)
    POST /api/arena/admin/invites        {"competition", "count"} -> {"codes"} (administrator)
    WS   /api/arena/ws                   ?bot=NAME: a snapshot at every change (standings, or
                                         the bot's page as the viewer may see it)

The staff's overview, bots disabled, freezes and the CSV of the standings: ``arena.web_staff``.
A stored game opens in the web room's viewer at ``/results/games/{id}``.

The endpoints are module-level functions grouped by resource; the arena and the web room
are on ``app.state`` (``arena``, ``room``), request bodies are schema types
(``arena.bodies``), and a refusal is raised (``ArenaError`` with its status, or the body's
``BadBody``) and answered by the application's exception handlers as ``{"error": why}``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from gameroom.arena.bodies import Invites, Join, Joined, MadeInvites, Pause, Remote, RemoteBot
from gameroom.arena.errors import ArenaError
from gameroom.arena.ladder import Arena
from gameroom.arena.tables import InviteRefused, competitions_of, make_invites, redeem, role_of
from gameroom.arena.views import Viewer, admin_view, bot_page, metrics_text, standings
from gameroom.arena.web_access import JSON_BODY, admin_only, arena_of, member, who
from gameroom.arena.web_staff import STAFF_ROUTES
from gameroom.league.db import NOT_KEPT, GameRow
from gameroom.league.packing import pack, unpack
from gameroom.web.app import create_app
from gameroom.web.bodies import answer, read_body, refusal
from gameroom.web.public import public_replay
from gameroom.web.results import Results
from gameroom.web.room import Room, room_of
from gameroom.web.sockets import serve_updates
from gameroom.web.viewer import download

__all__ = ["arena_app", "ROUTES", "STATIC", "PUSH_EVERY", "SEND_WITHIN"]

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
PUSH_EVERY = 0.25
"""Seconds between two looks at whether anything changed: at most four pushes a second."""
SEND_WITHIN = 10.0
"""Seconds a page has to take a push; a page that does not read is closed."""


def _public_blob(blob: bytes, scrub: Callable[[str], str]) -> bytes:
    """A stored replay as a visitor may download it (``web.public.public_replay``), packed
    again as stored replays are: scrubbed before it is compressed, since no later look
    can read a compressed body."""
    return pack(public_replay(unpack(blob), scrub))


def _disabled(arena: Arena, name: str) -> str | None:
    """Why staff disabled the bot ``name`` (None: it is not disabled, or does not exist)."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from gameroom.arena.tables import EntryRow

    with Session(arena.engine) as session:
        return session.scalar(select(EntryRow.disabled).where(EntryRow.name == name))


async def _refuse_disabled(arena: Arena, name: str) -> None:
    disabled = await asyncio.to_thread(_disabled, arena, name[:40])
    if disabled is not None:
        raise ArenaError(403, f"{name[:40]!r} is disabled by staff: {disabled}")


# -- pages and what they read ---------------------------------------------------------------

async def page(request: Request) -> Response:
    return FileResponse(STATIC / request.scope["route"].name)


async def overview(request: Request) -> Response:
    arena = arena_of(request)
    key, name, role = await who(request)
    mine = await asyncio.to_thread(competitions_of, arena.engine, key) if key else []
    data = await asyncio.to_thread(standings, arena)
    data["me"] = {"username": name, "role": role, "competitions": mine,
                  "languages": [lang.name for lang in arena.config.languages]}
    return JSONResponse(data)


async def bot(request: Request) -> Response:
    key, _, role = await who(request)
    name = request.path_params["name"][:40]
    found = await asyncio.to_thread(bot_page, arena_of(request), name, Viewer(key, role))
    if found is None:
        raise ArenaError(404, f"no bot {name!r}")
    return JSONResponse(found)


async def metrics(request: Request) -> Response:
    return PlainTextResponse(metrics_text(arena_of(request)), media_type="text/plain; version=0.0.4")


async def live(websocket: WebSocket) -> None:
    """A snapshot at every change: the standings, or the bot's page as the viewer may see it."""
    arena, room = arena_of(websocket), room_of(websocket)
    name = websocket.query_params.get("bot")
    account = await room.signed_in(websocket)
    user = account.key if account is not None else None
    looker = Viewer(user, await asyncio.to_thread(role_of, arena.engine, user)) if user else Viewer()

    async def snapshot() -> str:
        data = await asyncio.to_thread(bot_page, arena, name[:40], looker) if name else \
            await asyncio.to_thread(standings, arena)
        return json.dumps({"kind": "bot" if name else "standings", "data": data})

    await serve_updates(websocket, room, lambda: arena.version, snapshot, PUSH_EVERY, SEND_WITHIN)


# -- a student's competitions and bots -------------------------------------------------------

async def join(request: Request) -> Response:
    key, _, _ = await who(request)
    if key is None:
        raise ArenaError(401, "log in first (/login), then join with your invite code")
    body = await read_body(request, Join, JSON_BODY)
    try:
        competition = await asyncio.to_thread(redeem, arena_of(request).engine, body.code.strip(), key)
    except InviteRefused as exc:
        raise ArenaError(exc.status, str(exc)) from None
    return answer(Joined(competition=competition))


async def upload(request: Request) -> Response:
    arena = arena_of(request)
    key = await member(request)
    limit = arena.config.uploads.max_bytes
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ArenaError(413, f"the upload is more than {limit} bytes (uploads.max_bytes)")
        chunks.append(chunk)
    params = request.query_params
    await _refuse_disabled(arena, params.get("name", ""))
    try:
        made = await asyncio.to_thread(arena.upload, request.path_params["competition"], key,
                                       params.get("name", ""), params.get("language") or None,
                                       params.get("filename", "bot"), b"".join(chunks))
    except OSError as exc:   # the arena's disk, not the upload: no path in the answer
        logger.error("an upload could not be stored: %s", exc.strerror or exc)
        raise ArenaError(503, "the arena cannot store uploads just now: try again later") from None
    return JSONResponse(made, status_code=201)


async def remote(request: Request) -> Response:
    arena = arena_of(request)
    key = await member(request)
    body = await read_body(request, Remote, JSON_BODY)
    await _refuse_disabled(arena, body.name)
    made = await asyncio.to_thread(arena.register_remote, request.path_params["competition"], key, body.name)
    host = arena.config.remote[0] if arena.config.remote is not None else ""
    if host in ("", "0.0.0.0", "::"):   # listening everywhere: where this page was reached
        host = request.url.hostname or "127.0.0.1"
    where = f"[{host}]:{made['port']}" if ":" in host else f"{host}:{made['port']}"
    return answer(RemoteBot(bot=made["bot"], version=made["version"], token=made["token"], host=host,
                            port=made["port"], command=f"python3 python_bot.py {where} {made['token']}"), 201)


async def replay(request: Request) -> Response:
    arena = arena_of(request)
    text = request.path_params["id"]
    if not text.isdigit() or len(text) > 18:
        raise ArenaError(404, f"no stored game {text[:40]!r}")

    def read() -> tuple[bool, bytes | None]:
        from sqlalchemy.orm import Session

        with Session(arena.engine) as session:
            row = session.get(GameRow, int(text))
            return (False, None) if row is None else (True, row.replay)

    found, blob = await asyncio.to_thread(read)
    if not found:
        raise ArenaError(404, f"no stored game {text!r}")
    if blob is None:
        raise ArenaError(410, f"game {text}: {NOT_KEPT}")
    room = room_of(request)
    if not await room.is_staff(request.scope):   # staff download it as it is stored
        blob = await asyncio.to_thread(_public_blob, blob, room.scrubber.text)
    return download(request, blob, f"game-{text}.jsonl")


# -- the administrator ---------------------------------------------------------------------

async def admin(request: Request) -> Response:
    await admin_only(request)
    return JSONResponse(admin_view(arena_of(request)))


async def pause(request: Request) -> Response:
    await admin_only(request)
    body = await read_body(request, Pause, JSON_BODY)
    arena = arena_of(request)
    await asyncio.to_thread(arena.pause, body.paused)
    return JSONResponse(admin_view(arena))


async def invites(request: Request) -> Response:
    await admin_only(request)
    body = await read_body(request, Invites, JSON_BODY)
    arena = arena_of(request)
    if arena.config.competition(body.competition) is None:
        raise ArenaError(400, f"competition: choose from {', '.join(c.name for c in arena.config.competitions)}")
    codes = await asyncio.to_thread(make_invites, arena.engine, body.competition, body.count)
    return answer(MadeInvites(competition=body.competition, codes=codes), 201)


async def _refused(_: Request, exc: Exception) -> Response:
    """An arena refusal, as ``{"error": why}`` with its status."""
    assert isinstance(exc, ArenaError)
    return refusal(exc.status, str(exc))


ROUTES: list[BaseRoute] = [
    *STAFF_ROUTES,
    Route("/arena", page, name="arena.html"),
    Route("/arena/bots/{name}", page, name="bot.html"),
    Route("/arena/admin", page, name="admin.html"),
    Route("/metrics", metrics),
    Route("/api/arena", overview),
    Route("/api/arena/bots/{name}", bot),
    Route("/api/arena/join", join, methods=["POST"]),
    Route("/api/arena/admin", admin),
    Route("/api/arena/admin/pause", pause, methods=["POST"]),
    Route("/api/arena/admin/invites", invites, methods=["POST"]),
    Route("/api/arena/games/{id}/replay.jsonl", replay),
    Route("/api/arena/{competition}/bots", upload, methods=["POST"]),
    Route("/api/arena/{competition}/remote", remote, methods=["POST"]),
    WebSocketRoute("/api/arena/ws", live),
    Mount("/arena-static", StaticFiles(directory=STATIC), name="arena-static"),
]
"""The arena's routes, before the web room's (its own paths win where they overlap)."""


def arena_app(arena: Arena, room: Room, results: Results) -> Starlette:
    """The web room's application over ``room`` and ``results`` with the arena's routes."""
    app = create_app(results=results, room=room)
    app.state.arena = arena
    app.router.routes[0:0] = ROUTES
    app.add_exception_handler(ArenaError, _refused)   # bad bodies: the web room's handler
    return app
