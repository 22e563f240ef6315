"""The web room's pages and the browser modules they load (``web.app`` lists every route):

    GET  /                    the lobby page
    GET  /favicon.ico         the pages' icon (an SVG)
    GET  /matches/{id}        the match page (a page saying so when the match is not here)
    GET  /rooms/{id}          a room of the lobby server (/rooms/new makes one)
    GET  /boards/{game}.js    the game's board module, else the generic board
    GET  /drawings/{game}.js  the game's picture drawn in the browser from a view
    GET  /results, /results/games/{id}, /results/ratings/{game}   the results database's pages
    GET  /static/...          the pages' files
"""

from __future__ import annotations

import html
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from gameroom.web.book import Gone
from gameroom.web.bodies import refusal
from gameroom.web.match_api import located, missing
from gameroom.web.matches import WebMatch
from gameroom.web.served import served

__all__ = ["PAGE_ROUTES", "STATIC"]

STATIC = Path(__file__).parent / "static"


def _gone_page(message: str) -> str:
    """The page of a match that is not (or no longer) here: what happened, and the way back."""
    return ('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<title>match not here</title><link rel="stylesheet" href="/static/style.css"></head>'
            f'<body><main><h1>match not here</h1><p id="gone">{html.escape(message)}</p>'
            '<p><a href="/">back to the lobby</a></p></main></body></html>\n')


async def lobby_page(_: Request) -> Response:
    return FileResponse(STATIC / "lobby.html")


async def favicon(_: Request) -> Response:   # every page's icon (browsers ask for it unasked)
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml", headers={"cache-control": "max-age=86400"})


async def match_page(request: Request) -> Response:
    found = await located(request)
    if isinstance(found, WebMatch):
        return FileResponse(STATIC / "match.html")
    if isinstance(found, Gone) and found.stored is not None:
        return missing(request, found, "/results/games/{}")   # its stored game's page
    # a person's page, not the API's JSON: a match finished and evicted, or none such
    return HTMLResponse(_gone_page(found.message if isinstance(found, Gone)
                                   else f"no match {request.path_params['id'][:60]!r}"), status_code=404)


async def room_page(_: Request) -> Response:   # /rooms/new and /rooms/ID: the page reads its own address
    return FileResponse(STATIC / "room.html")


async def board_module(request: Request) -> Response:
    game = served(request).games.get(request.path_params["game"])
    if game is None:
        return refusal(404, f"no game {request.path_params['game'][:60]!r}")
    found = game.board if game.board is not None and game.board.is_file() else STATIC / "generic-board.js"
    return FileResponse(found, media_type="text/javascript")


async def drawing_module(request: Request) -> Response:
    game = served(request).games.get(request.path_params["game"])
    if game is None or game.drawing is None or not game.drawing.is_file():
        return refusal(404, f"no drawing of {request.path_params['game'][:60]!r} in the browser")
    return FileResponse(game.drawing, media_type="text/javascript")


async def results_page(_: Request) -> Response:
    return FileResponse(STATIC / "results.html")


async def stored_page(_: Request) -> Response:
    return FileResponse(STATIC / "match.html")


async def ratings_page(request: Request) -> Response:
    if request.path_params["game"] not in served(request).games:
        return refusal(404, f"no game {request.path_params['game']!r}")
    return FileResponse(STATIC / "ratings.html")


PAGE_ROUTES: list[BaseRoute] = [
    Route("/", lobby_page),
    Route("/favicon.ico", favicon),
    Route("/matches/{id}", match_page),
    Route("/rooms/{id}", room_page),
    Route("/boards/{game}.js", board_module),
    Route("/drawings/{game}.js", drawing_module),
    Route("/results", results_page),
    Route("/results/games/{id}", stored_page),
    Route("/results/ratings/{game}", ratings_page),
]
"""The pages; the static files' mount goes last (``web.app``)."""


def static_mount() -> Mount:
    """``/static``: the pages' files."""
    return Mount("/static", StaticFiles(directory=STATIC), name="static")
