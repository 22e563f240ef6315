"""The web room's matches and the lobby server's rooms, as JSON and websockets
(``web.app`` lists every route):

    GET  /api/games                 the games, their players, strategies, policies and limits
    POST /api/matches               start a match -> {"id", "tokens"}
    GET  /api/matches               [summary, ...]
    GET  /api/matches/{id}          one match's summary
    GET  /api/matches/{id}/replay   JSON Lines, one line per state change
    GET  /api/lobby                 the lobby server's games and public rooms (--lobby)
    WS   /api/matches/{id}/ws       a person's seat (?seat=NAME&token=T, logged in), else a spectator
    WS   /api/lobby/ws              the browser's own connection to the lobby server

A match that is not here any more answers 404 saying why, or — kept in the results
database — redirects to its stored game (:func:`missing`).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from gameroom.web.bodies import Answer, answer, refusal
from gameroom.web.book import Gone, Refused
from gameroom.web.guard import read_json
from gameroom.web.lobby_socket import relay_socket
from gameroom.web.matches import HUMAN, MatchRequest, WebMatch, least_person_limit
from gameroom.web.served import served
from gameroom.web.sockets import match_socket

__all__ = ["MATCH_ROUTES", "GameEntry", "StartedMatch", "located", "missing"]


class GameEntry(Answer):
    """One game of ``GET /api/games``: what the match form offers and the pages say."""

    name: str
    summary: str
    players: list[int]                      # [least, most]
    strategies: list[str]
    policies: list[str]                     # the operator's trained agents (gameroom web --policy)
    human: bool                             # a person may take a seat
    time_limit: float | None                # the bots' limit of one call
    person_limit: float | None              # a person's time for one decision, unless the request says
    least_person_limit: float
    decisions: dict[str, str]               # a call's wire name -> what it asks a person


class StartedMatch(Answer):
    """``POST /api/matches``: the match's id and each person's seat token."""

    id: str
    tokens: dict[str, str]


async def located(request: Request) -> WebMatch | Gone | None:
    """The match the path names: in memory, or why it is gone (the database is asked off the loop)."""
    book = served(request).book
    match_id = request.path_params["id"]
    found = book.get(match_id)
    return found if found is not None else await asyncio.to_thread(book.find, match_id)


def missing(request: Request, found: Gone | None, stored_path: str) -> Response:
    """The answer for a match that is not here: to its stored game (``stored_path`` with its
    id), or 404 saying why."""
    if isinstance(found, Gone) and found.stored is not None:
        return RedirectResponse(stored_path.format(found.stored), status_code=303)
    if isinstance(found, Gone):
        return refusal(404, found.message)
    return refusal(404, f"no match {request.path_params['id'][:60]!r}")


async def list_games(request: Request) -> Response:
    state = served(request)
    limits, policies = state.room.limits, state.room.policies
    return answer([GameEntry(name=g.name, summary=g.summary, players=[g.min_players, g.max_players],
                             strategies=list(g.strategies), policies=policies.names(g.name),
                             human=g.playable_by_people, time_limit=g.limits.call,
                             person_limit=limits.person_limit if limits.person_limit is not None else g.person_limit,
                             least_person_limit=least_person_limit(g),
                             decisions={m.wire: g.decision(m.name) for m in g.protocol.methods})
                   for g in state.games.values()])


async def start_match(request: Request) -> Response:
    state = served(request)
    room, limits = state.room, state.room.limits
    match_request = MatchRequest.from_json(await read_json(request, limits.max_body), state.games, room.policies,
                                           limits.person_limit)
    owner, account = await room.owner(request)
    if account is not None:   # shown on the seat it plays
        owner = replace(owner, name=account.name)
    if owner.user is None and any(kind == HUMAN for kind in match_request.seats):
        return refusal(401, "log in to play at a person's seat (/login or /signup); bots-only matches need no account")
    book = state.book
    try:   # on the loop, unless journaled (a commit): a thread hop costs a wait for the interpreter lock
        if book.journal is None:
            match = book.start(match_request, owner)
        else:
            match = await asyncio.to_thread(book.start, match_request, owner)
    except Refused as exc:
        return refusal(exc.status, str(exc), {"retry-after": "5"})
    return answer(StartedMatch(id=match.id, tokens=match.tokens), 201)


async def list_matches(request: Request) -> Response:
    return JSONResponse([m.summary() for m in served(request).book.all()])


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


async def lobby_rooms(request: Request) -> Response:
    listing = served(request).listing
    if listing is None:
        return JSONResponse({"server": None, "games": [], "rooms": []})
    return JSONResponse(await listing())


async def lobby_socket(websocket: WebSocket) -> None:
    state = served(websocket)
    await relay_socket(websocket, state.room, state.lobby)


async def socket(websocket: WebSocket) -> None:
    await match_socket(websocket, served(websocket).room)


MATCH_ROUTES: list[BaseRoute] = [
    Route("/api/games", list_games),
    Route("/api/matches", start_match, methods=["POST"]),
    Route("/api/matches", list_matches),
    Route("/api/matches/{id}", show_match),
    Route("/api/matches/{id}/replay", replay),
    Route("/api/lobby", lobby_rooms),
    WebSocketRoute("/api/matches/{id}/ws", socket),
    WebSocketRoute("/api/lobby/ws", lobby_socket),
]
