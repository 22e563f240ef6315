"""The results database's games and leaderboards as JSON (``gameroom web --db URL``;
without one these answer 404 saying so; ``web.app``'s docstring lists each answer):

    GET  /api/results                       the games with stored games
    GET  /api/results/games                 ?game=G&per_page=M&before=ID: newest first, paged by id
    GET  /api/results/games/{id}            one stored game
    GET  /api/results/games/{id}/steps      ?from=K&count=N: the viewer's page of steps
    GET  /api/results/games/{id}/replay     JSON Lines, one spectator's frame per step, with pictures
    GET  /api/results/ratings/{game}        a game's leaderboard
"""

from __future__ import annotations

import asyncio
import json

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from gameroom.web.bodies import refusal
from gameroom.web.matches import BadRequest
from gameroom.web.served import NO_DATABASE, served

__all__ = ["RESULT_ROUTES"]


def _natural_param(request: Request, name: str, default: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit() or not 1 <= int(text) <= high:
        raise BadRequest(f"{name}: expected a whole number in 1..{high}, got {text[:40]!r}")
    return int(text)


def _game_named(request: Request, name: str | None) -> str | None:
    games = served(request).games
    if name is not None and name not in games:
        raise BadRequest(f"game: {name!r} is not a game; choose from {', '.join(games)}")
    return name


def _stored_id(request: Request) -> int | None:
    text = request.path_params["id"]
    return int(text) if text.isdigit() and len(text) < 19 else None


async def results_overview(request: Request) -> Response:
    results = served(request).results
    if results is None:
        return JSONResponse({"games": [], "message": NO_DATABASE})
    return JSONResponse(await asyncio.to_thread(results.overview))


async def stored_games(request: Request) -> Response:
    results = served(request).results
    if results is None:
        return refusal(404, NO_DATABASE)
    from gameroom.web.results import MAX_PER_PAGE

    game = _game_named(request, request.query_params.get("game"))
    before = _natural_param(request, "before", 0, 2 ** 62) or None
    per_page = _natural_param(request, "per_page", 20, MAX_PER_PAGE)
    if "page" in request.query_params:
        raise BadRequest("page: the games are paged by before=ID, the next of the page before")
    return JSONResponse(await asyncio.to_thread(results.games, game, before, per_page))


async def stored_game(request: Request) -> Response:
    results = served(request).results
    if results is None:
        return refusal(404, NO_DATABASE)
    game_id = _stored_id(request)
    found = None if game_id is None else await asyncio.to_thread(results.game, game_id)
    return refusal(404, f"no stored game {request.path_params['id']!r}") if found is None else JSONResponse(found)


async def stored_replay(request: Request) -> Response:
    state = served(request)
    if state.results is None:
        return refusal(404, NO_DATABASE)
    game_id = _stored_id(request)
    drawn = None
    if game_id is not None:
        async with state.drawing:
            drawn = await asyncio.to_thread(state.results.replay, game_id)
    if drawn is None:
        return refusal(404, f"no stored game {request.path_params['id']!r}")
    frames, check = drawn
    text = "".join(json.dumps(frame) + "\n" for frame in frames)
    # a game the rules cannot re-deal is neither verified nor altered: said in replay verify's words
    verdict = "yes" if check["verified"] else ("no" if check.get("re_dealable", True) else "not-re-dealable")
    headers = {"x-replay-verified": verdict}
    if check.get("message"):
        headers["x-replay-message"] = check["message"].encode("ascii", "replace").decode("ascii")[:1000]
    return Response(text, media_type="application/x-ndjson", headers=headers)


async def stored_steps(request: Request) -> Response:
    state = served(request)
    if state.viewer is None:
        return refusal(404, NO_DATABASE)
    from gameroom.web.viewer import PAGE, Busy, encoded, wait_page

    game_id = _stored_id(request)
    text = request.query_params.get("from", "0")
    if not text.isdigit() or len(text) > 9:
        return refusal(400, f"from: expected a step number (0 or more), got {text[:40]!r}")
    count_text = request.query_params.get("count", str(PAGE))
    if not count_text.isdigit() or int(count_text) > PAGE:
        return refusal(400, f"count: expected a number of steps in 0..{PAGE}, got {count_text[:40]!r}")
    try:
        steps = None if game_id is None else await asyncio.to_thread(state.viewer.open, game_id)
    except Busy as exc:
        return refusal(503, str(exc), {"retry-after": "5"})
    if steps is None:
        return refusal(404, f"no stored game {request.path_params['id']!r}")
    page = await wait_page(steps, int(text), int(count_text))
    body = json.dumps(page, ensure_ascii=False)
    if not await state.room.is_staff(request.scope):   # compressed, so made public first (web.public)
        body = state.room.scrubber.text(body)
    return encoded(request, body.encode("utf-8"), "application/json")


async def stored_ratings(request: Request) -> Response:
    results = served(request).results
    if results is None:
        return refusal(404, NO_DATABASE)
    game: str = request.path_params["game"]
    try:
        _game_named(request, game)
    except BadRequest as exc:
        return refusal(404, str(exc))
    return JSONResponse(await asyncio.to_thread(results.leaderboard, game))


RESULT_ROUTES: list[BaseRoute] = [
    Route("/api/results", results_overview),
    Route("/api/results/games", stored_games),
    Route("/api/results/games/{id}", stored_game),
    Route("/api/results/games/{id}/steps", stored_steps),
    Route("/api/results/games/{id}/replay", stored_replay),
    Route("/api/results/ratings/{game}", stored_ratings),
]
