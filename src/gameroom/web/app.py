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

The endpoints are module-level functions grouped by resource: the pages (``web.pages``),
the matches and the lobby's rooms (``web.match_api``), the results database
(``web.results_api``) and the accounts (``web.login``). They find the room and the rest on
``app.state`` (``web.served``); a bad body or request raises ``BadBody`` or ``BadRequest``,
answered here as ``{"error": why}`` by the application's exception handlers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import Response

from gameroom.games import registry
from gameroom.server.journal import TICK
from gameroom.web.book import MatchBook
from gameroom.web.guard import BadBody, RoomGuard
from gameroom.web.lobby import LobbyRooms
from gameroom.web.login import LOGIN_ROUTES
from gameroom.web.bodies import refusal
from gameroom.web.match_api import MATCH_ROUTES
from gameroom.web.matches import BadRequest
from gameroom.web.pages import PAGE_ROUTES, static_mount
from gameroom.web.public import PublicAnswers
from gameroom.web.results_api import RESULT_ROUTES
from gameroom.web.room import Room
from gameroom.web.served import LOBBY_KEPT, Recent, Served

if TYPE_CHECKING:   # types only: a room without a results database never loads the league's modules
    from gameroom.web.results import Results

__all__ = ["create_app", "SESSION_COOKIE", "SWEEP_EVERY"]

SESSION_COOKIE = "gameroom_session"
SWEEP_EVERY = 5.0
"""Seconds between two sweeps of the match book (evictions also happen at every start)."""


async def _refused(_: Request, exc: Exception) -> Response:
    """A bad body (its status) or a bad request (400), as ``{"error": why}``."""
    if isinstance(exc, BadBody):
        return refusal(exc.status, str(exc))
    return refusal(400, str(exc))


def create_app(book: MatchBook | None = None, lobby: LobbyRooms | None = None,
               results: Results | None = None, room: Room | None = None) -> Starlette:
    """The application over ``room`` (made around ``book`` — a new one by default — with
    accounts in memory and a session secret of this run, when not given); ``lobby`` is
    the lobby server whose games and rooms the lobby page lists and whose rooms browsers
    play in (``/api/lobby/ws``); ``results`` (a
    ``web.results.Results``) is the results database whose games and leaderboards the
    results pages show."""
    room = room if room is not None else Room(book if book is not None else MatchBook())
    state = Served(room, registry.games(), lobby, results,
                   listing=Recent(lobby, LOBBY_KEPT) if lobby is not None else None)
    if results is not None:
        from gameroom.web.viewer import Viewer

        state.viewer = Viewer(results.engine)

    book = room.book

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
            if state.viewer is not None:
                state.viewer.close()

    middleware = [Middleware(RoomGuard, limits=room.limits, strikes=room.strikes),
                  Middleware(SessionMiddleware, secret_key=room.secret, session_cookie=SESSION_COOKIE,
                             same_site="lax", https_only=False),
                  Middleware(PublicAnswers, scrubber=room.scrubber, staff=room.is_staff)]
    app = Starlette(routes=[*PAGE_ROUTES, *MATCH_ROUTES, *RESULT_ROUTES, *LOGIN_ROUTES, static_mount()],
                    lifespan=lifespan, middleware=middleware,
                    exception_handlers={BadBody: _refused, BadRequest: _refused})
    app.state.served = state
    app.state.room = room
    app.state.book = room.book
    return app
