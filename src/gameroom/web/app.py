"""The Starlette application of the web room: pages, the JSON API and one websocket per
match (frames pushed as they happen; a person's moves taken). Every game is driven
through its registry descriptor; nothing here knows a game.

    GET  /                          the lobby page
    GET  /matches/{id}              the match page
    GET  /api/games                 [{"name", "summary", "players": [min, max], "strategies", "human", "time_limit"}]
    POST /api/matches               {"game", "seats", "seed"?, "time_limit"?, "pace"?} -> {"id", "tokens"}
    GET  /api/matches               [summary, ...]
    GET  /api/matches/{id}          {"id", "game", "status", "seats", "result", ...}
    GET  /api/matches/{id}/replay   JSON Lines, one line per state change
    GET  /api/lobby                 the lobby server's games and public rooms of every game (--lobby)
    WS   /api/lobby/ws              ?name=NAME: the browser's own connection to the lobby server, logged in
                                    as NAME; the lobby's messages both ways (docs/lobby.md)
    WS   /api/matches/{id}/ws       ?seat=NAME&token=T for a person's seat, else a spectator

With a results database (``gameroom web --db URL``; without one the API answers 404 and
the pages say so):

    GET  /results                           the stored games page (per game, newest first, paged)
    GET  /results/games/{id}                a stored game on the match page (its replay scrubbed)
    GET  /results/ratings/{game}            the leaderboard page of a game
    GET  /api/results                       {"database", "games": [{"name", "stored"}]}
    GET  /api/results/games                 ?game=G&page=N&per_page=M -> {"total", "pages", "games": [...]}
    GET  /api/results/games/{id}            {"id", "game", "league", "seed", "seats", "winners", "ejected", ...}
    GET  /api/results/games/{id}/replay     JSON Lines, one spectator's state frame per step
    GET  /api/results/ratings/{game}        [{"rank", "bot", "rating", "mu", "sigma", "games", "wins", "ejections"}]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from gameroom.games import registry
from gameroom.web.matches import BadRequest, MatchBook, MatchRequest, WebMatch

__all__ = ["create_app"]

STATIC = Path(__file__).parent / "static"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


NO_DATABASE = "no results database: start the web room with gameroom web --db URL"


def _natural_param(request: Request, name: str, default: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit() or not 1 <= int(text) <= high:
        raise BadRequest(f"{name}: expected a whole number in 1..{high}, got {text!r}")
    return int(text)


def create_app(book: MatchBook | None = None, lobby: Callable[[], Any] | None = None,
               results: Any = None) -> Starlette:
    """The application over ``book`` (a new one by default); ``lobby()`` lists the lobby
    server's rooms for the lobby page; ``results`` (a ``web.results.Results``) is the
    results database whose games and leaderboards the results pages show."""
    book = book if book is not None else MatchBook()
    games = registry.games()

    async def lobby_page(_: Request) -> Response:
        return FileResponse(STATIC / "lobby.html")

    async def match_page(request: Request) -> Response:
        if book.get(request.path_params["id"]) is None:
            return _error(404, f"no match {request.path_params['id']!r}")
        return FileResponse(STATIC / "match.html")

    async def list_games(_: Request) -> Response:
        return JSONResponse([{"name": g.name, "summary": g.summary, "players": [g.min_players, g.max_players],
                              "strategies": list(g.strategies), "human": g.playable_by_people,
                              "time_limit": g.limits.call} for g in games.values()])

    async def start_match(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError) as exc:
            return _error(400, f"the body is not JSON: {exc}")
        try:
            match_request = MatchRequest.from_json(body, games)
        except BadRequest as exc:
            return _error(400, str(exc))
        match = book.start(match_request)
        return JSONResponse({"id": match.id, "tokens": match.tokens}, status_code=201)

    async def list_matches(_: Request) -> Response:
        return JSONResponse([m.summary() for m in book.all()])

    def found(request: Request) -> WebMatch | None:
        return book.get(request.path_params["id"])

    async def show_match(request: Request) -> Response:
        match = found(request)
        return _error(404, f"no match {request.path_params['id']!r}") if match is None else JSONResponse(match.summary())

    async def replay(request: Request) -> Response:
        match = found(request)
        if match is None:
            return _error(404, f"no match {request.path_params['id']!r}")
        text = "".join(json.dumps(frame) + "\n" for frame in match.replay())
        return Response(text, media_type="application/x-ndjson")

    async def lobby_rooms(_: Request) -> Response:
        if lobby is None:
            return JSONResponse({"server": None, "games": [], "rooms": []})
        return JSONResponse(await asyncio.to_thread(lobby))

    async def lobby_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        relay = getattr(lobby, "relay", None)
        name = websocket.query_params.get("name")
        if relay is None:
            await websocket.send_json({"type": "NACK", "errorMessage": "no lobby server: start the web room with "
                                                                       "gameroom web --lobby HOST:PORT"})
        elif not name:
            await websocket.send_json({"type": "NACK", "errorMessage": "name: the name to log in to the lobby as"})
        else:
            await relay(websocket, name)
            return
        await websocket.close()

    # -- the results database ------------------------------------------------------------

    async def results_page(_: Request) -> Response:
        return FileResponse(STATIC / "results.html")

    async def stored_page(_: Request) -> Response:
        return FileResponse(STATIC / "match.html")

    async def ratings_page(request: Request) -> Response:
        if request.path_params["game"] not in games:
            return _error(404, f"no game {request.path_params['game']!r}")
        return FileResponse(STATIC / "ratings.html")

    async def results_overview(_: Request) -> Response:
        if results is None:
            return JSONResponse({"database": None, "games": [], "message": NO_DATABASE})
        return JSONResponse(await asyncio.to_thread(results.overview))

    def game_named(name: str | None) -> str | None:
        if name is not None and name not in games:
            raise BadRequest(f"game: {name!r} is not a game; choose from {', '.join(games)}")
        return name

    async def stored_games(request: Request) -> Response:
        if results is None:
            return _error(404, NO_DATABASE)
        from gameroom.web.results import MAX_PER_PAGE

        try:
            game = game_named(request.query_params.get("game"))
            page = _natural_param(request, "page", 1, 10 ** 9)
            per_page = _natural_param(request, "per_page", 20, MAX_PER_PAGE)
        except BadRequest as exc:
            return _error(400, str(exc))
        return JSONResponse(await asyncio.to_thread(results.games, game, page, per_page))

    def stored_id(request: Request) -> int | None:
        text = request.path_params["id"]
        return int(text) if text.isdigit() and len(text) < 19 else None

    async def stored_game(request: Request) -> Response:
        if results is None:
            return _error(404, NO_DATABASE)
        game_id = stored_id(request)
        found = None if game_id is None else await asyncio.to_thread(results.game, game_id)
        return _error(404, f"no stored game {request.path_params['id']!r}") if found is None else JSONResponse(found)

    async def stored_replay(request: Request) -> Response:
        if results is None:
            return _error(404, NO_DATABASE)
        game_id = stored_id(request)
        drawn = None if game_id is None else await asyncio.to_thread(results.replay, game_id)
        if drawn is None:
            return _error(404, f"no stored game {request.path_params['id']!r}")
        frames, check = drawn
        text = "".join(json.dumps(frame) + "\n" for frame in frames)
        return Response(text, media_type="application/x-ndjson",
                        headers={"x-replay-verified": "yes" if check["verified"] else "no"})

    async def stored_ratings(request: Request) -> Response:
        if results is None:
            return _error(404, NO_DATABASE)
        try:
            game = game_named(request.path_params["game"])
        except BadRequest as exc:
            return _error(404, str(exc))
        return JSONResponse(await asyncio.to_thread(results.leaderboard, game))

    async def socket(websocket: WebSocket) -> None:
        match = book.get(websocket.path_params["id"])
        await websocket.accept()
        if match is None:
            await websocket.send_json({"type": "error", "message": f"no match {websocket.path_params['id']!r}"})
            await websocket.close()
            return
        seat = websocket.query_params.get("seat")
        if seat is not None and match.tokens.get(seat) != websocket.query_params.get("token"):
            await websocket.send_json({"type": "error", "message": f"seat {seat!r}: no person's seat with that token"})
            await websocket.close()
            return
        loop = asyncio.get_running_loop()
        frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        def listener(frame: dict[str, Any]) -> None:
            try:
                loop.call_soon_threadsafe(frames.put_nowait, frame)
            except RuntimeError:   # the connection's loop is gone
                pass

        past = match.subscribe(seat, listener)
        await websocket.send_json({"type": "hello", "match": match.summary(), "seat": seat})
        for frame in past:
            await websocket.send_json(frame)
        if seat is not None:
            match.join(seat)

        async def push() -> None:
            while True:
                await websocket.send_json(await frames.get())

        pusher = asyncio.create_task(push())
        try:
            while True:
                message = await websocket.receive_text()
                if seat is None:
                    refusal: str | None = "spectators cannot move"
                else:
                    try:
                        refusal = match.humans[seat].answer(json.loads(message))
                    except ValueError:
                        refusal = "a move must be JSON"
                if refusal is not None:   # through the queue: one task sends on the socket
                    frames.put_nowait({"type": "refused", "message": refusal})
        except WebSocketDisconnect:
            pass
        finally:
            pusher.cancel()
            match.unsubscribe(seat, listener)

    routes = [
        Route("/", lobby_page),
        Route("/matches/{id}", match_page),
        Route("/api/games", list_games),
        Route("/api/matches", start_match, methods=["POST"]),
        Route("/api/matches", list_matches),
        Route("/api/matches/{id}", show_match),
        Route("/api/matches/{id}/replay", replay),
        Route("/api/lobby", lobby_rooms),
        Route("/results", results_page),
        Route("/results/games/{id}", stored_page),
        Route("/results/ratings/{game}", ratings_page),
        Route("/api/results", results_overview),
        Route("/api/results/games", stored_games),
        Route("/api/results/games/{id}", stored_game),
        Route("/api/results/games/{id}/replay", stored_replay),
        Route("/api/results/ratings/{game}", stored_ratings),
        WebSocketRoute("/api/matches/{id}/ws", socket),
        WebSocketRoute("/api/lobby/ws", lobby_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        book.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.book = book
    return app
