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
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from gameroom.arena.ladder import Arena, ArenaError
from gameroom.arena.tables import InviteRefused, competitions_of, make_invites, redeem, role_of
from gameroom.arena.views import Viewer, admin_view, bot_page, metrics_text, standings
from gameroom.arena.web_staff import staff_routes
from gameroom.league.db import NOT_KEPT, GameRow
from gameroom.web.app import create_app
from gameroom.web.guard import BadBody, read_json
from gameroom.league.packing import pack, unpack
from gameroom.web.public import public_replay
from gameroom.web.room import Room
from gameroom.web.sockets import serve_updates
from gameroom.web.viewer import download

__all__ = ["arena_app", "STATIC", "PUSH_EVERY", "SEND_WITHIN"]

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
JSON_BODY = 16 * 1024
PUSH_EVERY = 0.25
"""Seconds between two looks at whether anything changed: at most four pushes a second."""
SEND_WITHIN = 10.0
"""Seconds a page has to take a push; a page that does not read is closed."""
MAX_INVITES = 500


def _public_blob(blob: bytes, scrub: Callable[[str], str]) -> bytes:
    """A stored replay as a visitor may download it (``web.public.public_replay``), packed
    again as stored replays are: scrubbed before it is compressed, since no later look
    can read a compressed body."""
    return pack(public_replay(unpack(blob), scrub))


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _disabled(arena: Arena, name: str) -> str | None:
    """Why staff disabled the bot ``name`` (None: it is not disabled, or does not exist)."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from gameroom.arena.tables import EntryRow

    with Session(arena.engine) as session:
        return session.scalar(select(EntryRow.disabled).where(EntryRow.name == name))


def arena_app(arena: Arena, room: Room, results: Any) -> Starlette:
    """The web room's application over ``room`` and ``results`` with the arena's routes."""
    app = create_app(results=results, room=room)

    async def who(request: Request | WebSocket) -> tuple[str | None, str | None, str | None]:
        """(account key, name, role) of the logged-in account."""
        account = await room.signed_in(request)
        if account is None:
            return None, None, None
        role = await asyncio.to_thread(role_of, arena.engine, account.key)
        return account.key, account.name, role

    async def viewer(request: Request | WebSocket) -> Viewer:
        key, _, role = await who(request)
        return Viewer(key, role)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / request.scope["route"].name)

    async def overview(request: Request) -> Response:
        key, name, role = await who(request)
        mine = await asyncio.to_thread(competitions_of, arena.engine, key) if key else []
        data = await asyncio.to_thread(standings, arena)
        data["me"] = {"username": name, "role": role, "competitions": mine,
                      "languages": [lang.name for lang in arena.config.languages]}
        return JSONResponse(data)

    async def bot(request: Request) -> Response:
        found = await asyncio.to_thread(bot_page, arena, request.path_params["name"][:40], await viewer(request))
        if found is None:
            return _error(404, f"no bot {request.path_params['name'][:40]!r}")
        return JSONResponse(found)

    async def join(request: Request) -> Response:
        key, _, _ = await who(request)
        if key is None:
            return _error(401, "log in first (/login), then join with your invite code")
        try:
            body = await read_json(request, JSON_BODY)
        except BadBody as exc:
            return _error(exc.status, str(exc))
        code = body.get("code") if isinstance(body, dict) else None
        if not isinstance(code, str) or not 1 <= len(code) <= 100:
            return _error(400, "the body must be {\"code\": \"your invite code\"}")
        try:
            competition = await asyncio.to_thread(redeem, arena.engine, code.strip(), key)
        except InviteRefused as exc:
            return _error(exc.status, str(exc))
        return JSONResponse({"competition": competition})

    async def upload(request: Request) -> Response:
        key, refused = await member(request)
        if refused is not None:
            return refused
        assert key is not None   # member() refuses a request without one
        competition = request.path_params["competition"]
        limit = arena.config.uploads.max_bytes
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                return _error(413, f"the upload is more than {limit} bytes (uploads.max_bytes)")
            chunks.append(chunk)
        params = request.query_params
        disabled = await asyncio.to_thread(_disabled, arena, params.get("name", "")[:40])
        if disabled is not None:
            return _error(403, f"{params.get('name', '')[:40]!r} is disabled by staff: {disabled}")
        try:
            made = await asyncio.to_thread(arena.upload, competition, key, params.get("name", ""),
                                           params.get("language") or None, params.get("filename", "bot"),
                                           b"".join(chunks))
        except ArenaError as exc:
            return _error(exc.status, str(exc))
        except OSError as exc:   # the arena's disk, not the upload: no path in the answer
            logger.error("an upload could not be stored: %s", exc.strerror or exc)
            return _error(503, "the arena cannot store uploads just now: try again later")
        return JSONResponse(made, status_code=201)

    async def member(request: Request) -> tuple[str | None, Response | None]:
        """The account key of a participant of the path's competition (or an administrator)."""
        key, _, role = await who(request)
        competition = request.path_params["competition"]
        if key is None:
            return None, _error(401, "log in first")
        if role != "admin" and competition not in await asyncio.to_thread(competitions_of, arena.engine, key):
            return None, _error(403, f"you are not a participant of {competition[:40]!r}: join with an invite code")
        return key, None

    async def remote(request: Request) -> Response:
        key, refused = await member(request)
        if refused is not None:
            return refused
        assert key is not None   # member() refuses a request without one
        try:
            body = await read_json(request, JSON_BODY)
        except BadBody as exc:
            return _error(exc.status, str(exc))
        name = body.get("name") if isinstance(body, dict) else None
        name = name if isinstance(name, str) else ""
        disabled = await asyncio.to_thread(_disabled, arena, name[:40])
        if disabled is not None:
            return _error(403, f"{name[:40]!r} is disabled by staff: {disabled}")
        try:
            made = await asyncio.to_thread(arena.register_remote, request.path_params["competition"], key, name)
        except ArenaError as exc:
            return _error(exc.status, str(exc))
        host = arena.config.remote[0] if arena.config.remote is not None else ""
        if host in ("", "0.0.0.0", "::"):   # listening everywhere: where this page was reached
            host = request.url.hostname or "127.0.0.1"
        where = f"[{host}]:{made['port']}" if ":" in host else f"{host}:{made['port']}"
        made.update(host=host, command=f"python3 python_bot.py {where} {made['token']}")
        return JSONResponse(made, status_code=201)

    async def replay(request: Request) -> Response:
        text = request.path_params["id"]
        if not text.isdigit() or len(text) > 18:
            return _error(404, f"no stored game {text[:40]!r}")

        def read() -> tuple[bool, bytes | None]:
            from sqlalchemy.orm import Session

            with Session(arena.engine) as session:
                row = session.get(GameRow, int(text))
                return (False, None) if row is None else (True, row.replay)

        found, blob = await asyncio.to_thread(read)
        if not found:
            return _error(404, f"no stored game {text!r}")
        if blob is None:
            return _error(410, f"game {text}: {NOT_KEPT}")
        if not await room.is_staff(request.scope):   # staff download it as it is stored
            blob = await asyncio.to_thread(_public_blob, blob, room.scrubber.text)
        return download(request, blob, f"game-{text}.jsonl")

    async def admin_only(request: Request) -> Response | None:
        _, _, role = await who(request)
        return None if role == "admin" else _error(403, "the administrator's page: log in as an administrator")

    async def admin(request: Request) -> Response:
        refused = await admin_only(request)
        return refused or JSONResponse(admin_view(arena))

    async def admin_body(request: Request) -> tuple[Any, Response | None]:
        """An administrator's JSON body, or the refusal."""
        refused = await admin_only(request)
        if refused:
            return None, refused
        try:
            return await read_json(request, JSON_BODY), None
        except BadBody as exc:
            return None, _error(exc.status, str(exc))

    async def pause(request: Request) -> Response:
        body, refused = await admin_body(request)
        if refused:
            return refused
        if not isinstance(body, dict) or not isinstance(body.get("paused"), bool):
            return _error(400, "the body must be {\"paused\": true or false}")
        await asyncio.to_thread(arena.pause, body["paused"])
        return JSONResponse(admin_view(arena))

    async def invites(request: Request) -> Response:
        body, refused = await admin_body(request)
        if refused:
            return refused
        competition = body.get("competition") if isinstance(body, dict) else None
        count = body.get("count", 1) if isinstance(body, dict) else None
        if arena.config.competition(str(competition)) is None:
            return _error(400, f"competition: choose from {', '.join(c.name for c in arena.config.competitions)}")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_INVITES:
            return _error(400, f"count: a whole number in 1..{MAX_INVITES}")
        codes = await asyncio.to_thread(make_invites, arena.engine, str(competition), count)
        return JSONResponse({"competition": competition, "codes": codes}, status_code=201)

    async def metrics(_: Request) -> Response:
        return PlainTextResponse(metrics_text(arena), media_type="text/plain; version=0.0.4")

    async def live(websocket: WebSocket) -> None:
        name = websocket.query_params.get("bot")
        account = await room.signed_in(websocket)
        user = account.key if account is not None else None
        looker = Viewer(user, await asyncio.to_thread(role_of, arena.engine, user)) if user else Viewer()

        async def snapshot() -> str:
            data = await asyncio.to_thread(bot_page, arena, name[:40], looker) if name else \
                await asyncio.to_thread(standings, arena)
            return json.dumps({"kind": "bot" if name else "standings", "data": data})

        await serve_updates(websocket, room, lambda: arena.version, snapshot, PUSH_EVERY, SEND_WITHIN)

    routes = [
        *staff_routes(arena, admin_only, admin_body),
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
    app.router.routes[0:0] = routes
    return app
