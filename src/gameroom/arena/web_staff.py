"""The staff's endpoints of the arena (administrators only; ``arena.staff`` does the work):

    GET  /api/arena/admin/overview                    participants, bots, failures, ejections by
                                                      reason, each competition's state and finals
    POST /api/arena/admin/bots/{name}                 {"disabled": "why"} disables the bot,
                                                      {"disabled": null} enables it
    POST /api/arena/admin/{competition}/freeze        {"frozen": bool}: freeze (the games in
                                                      flight are written, then the table is
                                                      frozen) or thaw
    GET  /api/arena/admin/{competition}/standings.csv the standings for grading (CSV)
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from gameroom.arena.bodies import Disable, Freeze
from gameroom.arena.config import Competition
from gameroom.arena.errors import ArenaError
from gameroom.arena.staff import overview, set_disabled, set_frozen, standings_csv
from gameroom.arena.web_access import JSON_BODY, admin_only, arena_of
from gameroom.web.bodies import read_body

__all__ = ["STAFF_ROUTES"]


async def seen(request: Request) -> Response:
    await admin_only(request)
    return JSONResponse(await asyncio.to_thread(overview, arena_of(request)))


async def disable(request: Request) -> Response:
    await admin_only(request)
    body = await read_body(request, Disable, JSON_BODY)
    return JSONResponse(await asyncio.to_thread(set_disabled, arena_of(request), request.path_params["name"],
                                                body.disabled))


def _competition(request: Request) -> Competition:
    competition = arena_of(request).config.competition(request.path_params["competition"])
    if competition is None:
        raise ArenaError(404, f"no competition {request.path_params['competition'][:40]!r}")
    return competition


async def freeze(request: Request) -> Response:
    await admin_only(request)
    competition = _competition(request)
    body = await read_body(request, Freeze, JSON_BODY)
    return JSONResponse(await asyncio.to_thread(set_frozen, arena_of(request), competition, body.frozen))


async def export(request: Request) -> Response:
    await admin_only(request)
    competition = _competition(request)
    text = await asyncio.to_thread(standings_csv, arena_of(request), competition)
    return Response(text, media_type="text/csv; charset=utf-8", headers={
        "content-disposition": f'attachment; filename="{competition.name}-standings.csv"'})


STAFF_ROUTES: list[BaseRoute] = [
    Route("/api/arena/admin/overview", seen),
    Route("/api/arena/admin/bots/{name}", disable, methods=["POST"]),
    Route("/api/arena/admin/{competition}/freeze", freeze, methods=["POST"]),
    Route("/api/arena/admin/{competition}/standings.csv", export),
]
