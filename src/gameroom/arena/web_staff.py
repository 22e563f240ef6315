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
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gameroom.arena.ladder import Arena, ArenaError
from gameroom.arena.staff import MAX_REASON, overview, set_disabled, set_frozen, standings_csv

__all__ = ["staff_routes"]

AdminOnly = Callable[[Request], Awaitable[Response | None]]
AdminBody = Callable[[Request], Awaitable[tuple[Any, Response | None]]]


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def staff_routes(arena: Arena, admin_only: AdminOnly, admin_body: AdminBody) -> list[Route]:
    """The routes; ``admin_only`` refuses a request of anyone but an administrator and
    ``admin_body`` reads an administrator's JSON body (``arena.web``)."""

    async def seen(request: Request) -> Response:
        refused = await admin_only(request)
        return refused or JSONResponse(await asyncio.to_thread(overview, arena))

    async def disable(request: Request) -> Response:
        body, refused = await admin_body(request)
        if refused:
            return refused
        reason = body.get("disabled", ...) if isinstance(body, dict) else ...
        if reason is not None and (not isinstance(reason, str) or len(reason) > MAX_REASON):
            return _error(400, f"the body must be {{\"disabled\": \"why (at most {MAX_REASON} characters)\"}} "
                               "or {\"disabled\": null}")
        try:
            done = await asyncio.to_thread(set_disabled, arena, request.path_params["name"], reason)
        except ArenaError as exc:
            return _error(exc.status, str(exc))
        return JSONResponse(done)

    async def freeze(request: Request) -> Response:
        body, refused = await admin_body(request)
        if refused:
            return refused
        competition = arena.config.competition(request.path_params["competition"])
        if competition is None:
            return _error(404, f"no competition {request.path_params['competition'][:40]!r}")
        if not isinstance(body, dict) or not isinstance(body.get("frozen"), bool):
            return _error(400, "the body must be {\"frozen\": true or false}")
        return JSONResponse(await asyncio.to_thread(set_frozen, arena, competition, body["frozen"]))

    async def export(request: Request) -> Response:
        refused = await admin_only(request)
        if refused:
            return refused
        competition = arena.config.competition(request.path_params["competition"])
        if competition is None:
            return _error(404, f"no competition {request.path_params['competition'][:40]!r}")
        text = await asyncio.to_thread(standings_csv, arena, competition)
        return Response(text, media_type="text/csv; charset=utf-8", headers={
            "content-disposition": f'attachment; filename="{competition.name}-standings.csv"'})

    return [Route("/api/arena/admin/overview", seen),
            Route("/api/arena/admin/bots/{name}", disable, methods=["POST"]),
            Route("/api/arena/admin/{competition}/freeze", freeze, methods=["POST"]),
            Route("/api/arena/admin/{competition}/standings.csv", export)]
