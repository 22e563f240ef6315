"""The Starlette application of the web room: pages, the JSON API and one websocket per
match (frames pushed as they happen; a person's moves taken). Every game is driven
through its registry descriptor; nothing here knows a game.

    GET  /                          the lobby page
    GET  /favicon.ico               the pages' icon (an SVG)
    GET  /matches/{id}              the match page
    GET  /rooms/new?game=G&players=N&private=1&bots=a,b&OPTION=V   a new room of the lobby server (--lobby),
                                    its bots seated; /rooms/{id} joins a room, /rooms/{id}?watch=1 watches
                                    (the page plays over /api/lobby/ws, docs/lobby.md)
    GET  /boards/{game}.js          the game's board module (``docs/boards.md``), else the generic board
    GET  /drawings/{game}.js        the game's picture drawn in the browser from a view (404: it has none)
    GET  /api/games                 [{"name", "summary", "players": [min, max], "strategies", "policies", "human",
                                      "time_limit", "person_limit", "least_person_limit",
                                      "decisions": {wire name: the game's words}}]  (policies: the operator's trained agents,
                                      gameroom web --policy; a seat names one like a strategy)
    POST /api/matches               {"game", "seats", "seed"?, "time_limit"? (the bots' seats), "person_limit"?
                                     (the people's, at least least_person_limit), "pace"?} -> {"id", "tokens"}
    GET  /api/matches               [summary, ...]
    GET  /api/matches/{id}          {"id", "game", "status", "seats", "result", ...}
    GET  /api/matches/{id}/replay   JSON Lines, one line per state change
    GET  /api/lobby                 the lobby server's games and public rooms of every game (--lobby)
    WS   /api/lobby/ws              the browser's own connection to the lobby server, logged in under the
                                    person's account (``web.lobby_socket``; docs/lobby.md)
    WS   /api/matches/{id}/ws       ?seat=NAME&token=T for a person's seat (logged in), else a spectator

    GET  /signup, /login; POST /api/signup, /api/login, /api/logout; GET /api/me  (``web.login``)

A match with people's seats needs a log-in; bots-only matches and watching do not. A
match beyond the room's caps or the owner's quota is refused (503 / 429, ``web.book``);
an evicted match answers 404 saying so, or — kept in the results database — redirects to
its stored game. Every request passes ``web.guard.RoomGuard`` (host, origin, body size)
and the session middleware (signed cookies).

With a results database (``gameroom web --db URL``; without one the API answers 404 and
the pages say so):

    GET  /results                           the stored games page (per game, newest first, paged by id)
    GET  /results/games/{id}                a stored game on the match page (its replay scrubbed)
    GET  /results/ratings/{game}            the leaderboard page of a game
    GET  /api/results                       {"games": [{"name", "stored"}]}
    GET  /api/results/games                 ?game=G&per_page=M&before=ID -> {"total", "games": [...], "next"}:
                                            newest first; ``next`` (the last id of the page, or null
                                            at the end) is the ``before`` of the next page
    GET  /api/results/games/{id}            {"id", "game", "league", "seed", "seats", "winners", "ejected", ...}
    GET  /api/results/games/{id}/steps      ?from=K&count=N: the viewer's page of steps K+1.. (N at most 64,
                                            the default; 0: only how far the re-run is, ``web.viewer``): each
                                            step's caption and spectator view (the first whole, the others as
                                            deltas), its picture only for a game the browser cannot draw;
                                            "known", "done", "total", "verified" (yes | no | not-re-dealable |
                                            not-kept) and "message" once the re-run is over; compressed
    GET  /api/results/games/{id}/replay     JSON Lines, one spectator's state frame per step, each with its
                                            picture (every step drawn: the viewer asks for steps instead);
                                            header x-replay-verified: yes | no | not-re-dealable (a
                                            tournament's game: drawn from its recorded snapshots),
                                            x-replay-message
    GET  /api/results/ratings/{game}        [{"rank", "bot", "rating", "mu", "sigma", "games", "wins", "ejections"}]
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import time
from dataclasses import replace
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from gameroom.games import registry
from gameroom.server.journal import TICK
from gameroom.web.book import Gone, MatchBook, Refused
from gameroom.web.guard import BadBody, RoomGuard, read_json
from gameroom.web.login import login_routes
from gameroom.web.matches import BadRequest, MatchRequest, WebMatch, least_person_limit
from gameroom.web.public import PublicAnswers
from gameroom.web.room import Room
from gameroom.web.lobby import LobbyRooms
from gameroom.web.lobby_socket import relay_socket
from gameroom.web.sockets import match_socket

__all__ = ["create_app", "SESSION_COOKIE", "SWEEP_EVERY"]

STATIC = Path(__file__).parent / "static"
SESSION_COOKIE = "gameroom_session"
SWEEP_EVERY = 5.0
"""Seconds between two sweeps of the match book (evictions also happen at every start)."""


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


NO_DATABASE = "no results database: start the web room with gameroom web --db URL"


def _gone_page(message: str) -> str:
    """The page of a match that is not (or no longer) here: what happened, and the way back."""
    return ('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<title>match not here</title><link rel="stylesheet" href="/static/style.css"></head>'
            f'<body><main><h1>match not here</h1><p id="gone">{html.escape(message)}</p>'
            '<p><a href="/">back to the lobby</a></p></main></body></html>\n')


class Recent:
    """The answer of a slow question (``ask``, run on a worker thread), asked by one request
    at a time and shared for ``keep`` seconds: the lobby page's listing would otherwise open a
    connection to the lobby server per request of anyone."""

    def __init__(self, ask: Callable[[], Any], keep: float) -> None:
        self.ask, self.keep = ask, keep
        self._lock = asyncio.Lock()
        self._at = float("-inf")
        self._value: Any = None

    async def __call__(self) -> Any:
        async with self._lock:
            if time.monotonic() - self._at >= self.keep:
                self._value = await asyncio.to_thread(self.ask)
                self._at = time.monotonic()
            return self._value


LOBBY_KEPT = 2.0
"""Seconds a listing of the lobby server's rooms is shared."""


def _natural_param(request: Request, name: str, default: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit() or not 1 <= int(text) <= high:
        raise BadRequest(f"{name}: expected a whole number in 1..{high}, got {text[:40]!r}")
    return int(text)


def create_app(book: MatchBook | None = None, lobby: LobbyRooms | None = None,
               results: Any = None, room: Room | None = None) -> Starlette:
    """The application over ``room`` (made around ``book`` — a new one by default — with
    accounts in memory and a session secret of this run, when not given); ``lobby`` is
    the lobby server whose games and rooms the lobby page lists and whose rooms browsers
    play in (``/api/lobby/ws``); ``results`` (a
    ``web.results.Results``) is the results database whose games and leaderboards the
    results pages show."""
    room = room if room is not None else Room(book if book is not None else MatchBook())
    book = room.book
    limits = room.limits
    games = registry.games()
    listing = Recent(lobby, LOBBY_KEPT) if lobby is not None else None
    drawing = asyncio.Semaphore(1)   # a stored replay is drawn by re-running its game: one at a time
    viewer = None
    if results is not None:
        from gameroom.web.viewer import Viewer

        viewer = Viewer(results.engine)

    async def lobby_page(_: Request) -> Response:
        return FileResponse(STATIC / "lobby.html")

    async def located(request: Request) -> WebMatch | Gone | None:
        """The match the path names: in memory, or why it is gone (the database is asked off the loop)."""
        match_id = request.path_params["id"]
        found = book.get(match_id)
        return found if found is not None else await asyncio.to_thread(book.find, match_id)

    def missing(request: Request, found: Gone | None, stored_path: str) -> Response:
        if isinstance(found, Gone) and found.stored is not None:
            return RedirectResponse(stored_path.format(found.stored), status_code=303)
        if isinstance(found, Gone):
            return _error(404, found.message)
        return _error(404, f"no match {request.path_params['id'][:60]!r}")

    async def match_page(request: Request) -> Response:
        found = await located(request)
        if isinstance(found, WebMatch):
            return FileResponse(STATIC / "match.html")
        if isinstance(found, Gone) and found.stored is not None:
            return missing(request, found, "/results/games/{}")   # its stored game's page
        # a person's page, not the API's JSON: a match finished and evicted, or none such
        return HTMLResponse(_gone_page(found.message if isinstance(found, Gone)
                                       else f"no match {request.path_params['id'][:60]!r}"), status_code=404)

    async def favicon(_: Request) -> Response:   # every page's icon (browsers ask for it unasked)
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml",
                            headers={"cache-control": "max-age=86400"})

    async def room_page(_: Request) -> Response:   # /rooms/new and /rooms/ID: the page reads its own address
        return FileResponse(STATIC / "room.html")

    async def board_module(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        if game is None:
            return _error(404, f"no game {request.path_params['game'][:60]!r}")
        found = game.board if game.board is not None and game.board.is_file() else STATIC / "generic-board.js"
        return FileResponse(found, media_type="text/javascript")

    async def drawing_module(request: Request) -> Response:
        game = games.get(request.path_params["game"])
        if game is None or game.drawing is None or not game.drawing.is_file():
            return _error(404, f"no drawing of {request.path_params['game'][:60]!r} in the browser")
        return FileResponse(game.drawing, media_type="text/javascript")

    async def list_games(_: Request) -> Response:
        return JSONResponse([{"name": g.name, "summary": g.summary, "players": [g.min_players, g.max_players],
                              "strategies": list(g.strategies), "policies": room.policies.names(g.name),
                              "human": g.playable_by_people,
                              "time_limit": g.limits.call,
                              "person_limit": limits.person_limit if limits.person_limit is not None else g.person_limit,
                              "least_person_limit": least_person_limit(g),
                              "decisions": {m.wire: g.decision(m.name) for m in g.protocol.methods}}
                             for g in games.values()])

    async def start_match(request: Request) -> Response:
        try:
            match_request = MatchRequest.from_json(await read_json(request, limits.max_body), games, room.policies,
                                                   limits.person_limit)
        except BadBody as exc:
            return _error(exc.status, str(exc))
        except BadRequest as exc:
            return _error(400, str(exc))
        owner, account = await room.owner(request)
        if account is not None:   # shown on the seat it plays
            owner = replace(owner, name=account.name)
        if owner.user is None and any(kind == "human" for kind in match_request.seats):
            return _error(401, "log in to play at a person's seat (/login or /signup); bots-only matches "
                               "need no account")
        try:   # on the loop, unless journaled (a commit): a thread hop costs a wait for the interpreter lock
            if book.journal is None:
                match = book.start(match_request, owner)
            else:
                match = await asyncio.to_thread(book.start, match_request, owner)
        except Refused as exc:
            return _error(exc.status, str(exc), {"retry-after": "5"})
        return JSONResponse({"id": match.id, "tokens": match.tokens}, status_code=201)

    async def list_matches(_: Request) -> Response:
        return JSONResponse([m.summary() for m in book.all()])

    async def show_match(request: Request) -> Response:
        found = await located(request)
        if not isinstance(found, WebMatch):
            return missing(request, found, "/api/results/games/{}")
        return JSONResponse(found.summary())

    async def replay(request: Request) -> Response:
        found = await located(request)
        if not isinstance(found, WebMatch):
            return missing(request, found, "/api/results/games/{}/replay")
        return Response(found.replay_text(), media_type="application/x-ndjson")

    async def lobby_rooms(_: Request) -> Response:
        if listing is None:
            return JSONResponse({"server": None, "games": [], "rooms": []})
        return JSONResponse(await listing())

    async def lobby_socket(websocket: WebSocket) -> None:
        await relay_socket(websocket, room, lobby)

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
            return JSONResponse({"games": [], "message": NO_DATABASE})
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
            before = _natural_param(request, "before", 0, 2 ** 62) or None
            per_page = _natural_param(request, "per_page", 20, MAX_PER_PAGE)
            if "page" in request.query_params:
                raise BadRequest("page: the games are paged by before=ID, the next of the page before")
        except BadRequest as exc:
            return _error(400, str(exc))
        return JSONResponse(await asyncio.to_thread(results.games, game, before, per_page))

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
        drawn = None
        if game_id is not None:
            async with drawing:
                drawn = await asyncio.to_thread(results.replay, game_id)
        if drawn is None:
            return _error(404, f"no stored game {request.path_params['id']!r}")
        frames, check = drawn
        text = "".join(json.dumps(frame) + "\n" for frame in frames)
        # a game the rules cannot re-deal is neither verified nor altered: said in replay verify's words
        verdict = "yes" if check["verified"] else ("no" if check.get("re_dealable", True) else "not-re-dealable")
        headers = {"x-replay-verified": verdict}
        if check.get("message"):
            headers["x-replay-message"] = check["message"].encode("ascii", "replace").decode("ascii")[:1000]
        return Response(text, media_type="application/x-ndjson", headers=headers)

    async def stored_steps(request: Request) -> Response:
        if viewer is None:
            return _error(404, NO_DATABASE)
        from gameroom.web.viewer import Busy, encoded, wait_page

        game_id = stored_id(request)
        from gameroom.web.viewer import PAGE

        text = request.query_params.get("from", "0")
        if not text.isdigit() or len(text) > 9:
            return _error(400, f"from: expected a step number (0 or more), got {text[:40]!r}")
        count_text = request.query_params.get("count", str(PAGE))
        if not count_text.isdigit() or int(count_text) > PAGE:
            return _error(400, f"count: expected a number of steps in 0..{PAGE}, got {count_text[:40]!r}")
        try:
            steps = None if game_id is None else await asyncio.to_thread(viewer.open, game_id)
        except Busy as exc:
            return _error(503, str(exc), {"retry-after": "5"})
        if steps is None:
            return _error(404, f"no stored game {request.path_params['id']!r}")
        page = await wait_page(steps, int(text), int(count_text))
        body = json.dumps(page, ensure_ascii=False)
        if not await room.is_staff(request.scope):   # compressed, so made public first (web.public)
            body = room.scrubber.text(body)
        return encoded(request, body.encode("utf-8"), "application/json")

    async def stored_ratings(request: Request) -> Response:
        if results is None:
            return _error(404, NO_DATABASE)
        try:
            game = game_named(request.path_params["game"])
        except BadRequest as exc:
            return _error(404, str(exc))
        return JSONResponse(await asyncio.to_thread(results.leaderboard, game))

    async def socket(websocket: WebSocket) -> None:
        await match_socket(websocket, room)

    routes = [
        Route("/", lobby_page),
        Route("/favicon.ico", favicon),
        Route("/matches/{id}", match_page),
        Route("/rooms/{id}", room_page),
        Route("/boards/{game}.js", board_module),
        Route("/drawings/{game}.js", drawing_module),
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
        Route("/api/results/games/{id}/steps", stored_steps),
        Route("/api/results/games/{id}/replay", stored_replay),
        Route("/api/results/ratings/{game}", stored_ratings),
        WebSocketRoute("/api/matches/{id}/ws", socket),
        WebSocketRoute("/api/lobby/ws", lobby_socket),
        *login_routes(room, STATIC),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    async def sweeping() -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            await asyncio.to_thread(book.sweep)

    async def alive() -> None:   # the journal's notes that the room lives (a resumed call's time left)
        while book.journal is not None:
            await asyncio.to_thread(book.journal.alive)
            await asyncio.sleep(TICK)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        sweeper = asyncio.create_task(sweeping())
        ticker = asyncio.create_task(alive())
        try:
            yield
        finally:
            sweeper.cancel()
            ticker.cancel()
            if book.journal is not None:   # first: the matches the stop cancels stay as they stood
                await asyncio.to_thread(book.journal.close, True)
            book.close()
            if viewer is not None:
                viewer.close()

    middleware = [Middleware(RoomGuard, limits=limits, strikes=room.strikes),
                  Middleware(SessionMiddleware, secret_key=room.secret, session_cookie=SESSION_COOKIE,
                             same_site="lax", https_only=False),
                  Middleware(PublicAnswers, scrubber=room.scrubber, staff=room.is_staff)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.room = room
    app.state.book = book
    return app
