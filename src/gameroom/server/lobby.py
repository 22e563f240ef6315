"""The lobby: one asyncio server holding every connection and every room (eriantys.md 4.5,
6, 7; docs/lobby.md), for one game or for every game installed.

Clients log in with a unique name, list, create, join and watch rooms of the lobby's
games, and play: by sending events when they like in a game that supplies a
``core.lobbygame.LobbyGame`` (Eriantys), by answering the calls of the game's own referee
in any other (``server.referee_rooms``). Everything a request changes happens synchronously in the loop,
within the handling of that one message, so the events of a room are processed one at a
time in arrival order and every broadcast a request causes is queued to every member
before its reply (7.4). Time limits (log-in, turn, keep-alive, reconnection grace, solo
time-out) are timers of the loop.

:class:`Lobby` is its parts together, each a module of one purpose: connections, their
quotas and keep-alive (``server.lobby_clients``), a connection's outbox and write budget,
and a room (``server.lobby_members``), the state every part shares and the journal
(``server.lobby_state``), departures and returns (``server.lobby_departures``), the games
in play (``server.lobby_play``), rooms and seating (``server.lobby_rooms``) and log-in
(``server.lobby_login``); here, each message dispatched to its part, starting and
stopping.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
from typing import Any, Awaitable, Callable, Sequence

from gameroom.core.game import GameDescriptor
from gameroom.core.lobbygame import LobbyGame
from gameroom.server.admission import Listening, file_limit
from gameroom.server.journal import JournalError, open_journal
from gameroom.server.journal_resume import resume
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.lobby_login import Login, valid_username
from gameroom.server.lobby_members import CLOSED, CONNECTED, LINGER_SECONDS, Client, Room, nack
from gameroom.server.lobby_rooms import Refused, Seating

__all__ = ["Lobby", "serve_lobby", "CLIENT_TYPES", "valid_username"]

logger = logging.getLogger(__name__)

CLIENT_TYPES = frozenset({"LOGIN", "LOGOUT", "GET_PUBLIC_ROOMS", "CREATE_ROOM", "ACCESS_ROOM", "LEAVE_ROOM",
                          "GAME_EVENT", "GET_GAME_STATE", "PONG",
                          # docs/lobby.md: every game's rooms, spectators, house bots, calls
                          "GET_GAMES", "WATCH_ROOM", "ADD_BOT", "REPLY", "CHECK"})


class Lobby(Login, Seating):
    """Every connection and room of one server, for one game or several
    (``server.lobby_state.LobbyState``: ``Lobby(games, config, debug_log)``)."""

    async def start(self, host: str, port: int) -> Listening:
        if self.config.state is not None and self.journal is None:
            self.journal = open_journal(self.config.state)
            resume(self, self.journal, Room)   # the rooms of the journal, built again
            self._alive_task = asyncio.get_running_loop().create_task(self._alive())
        return await self.connections.listen(host, port)

    def handle(self, client: Client, message: Any) -> Awaitable[None] | None:
        """Handle one message of ``client`` at once; an awaitable when its answer comes
        later (a CHECK, judged off the loop): the client's next request waits for it."""
        if self.debug_log is not None:
            self.debug_log(f"<- {client.label()} {json.dumps(message, ensure_ascii=False)}")
        kind = message.get("type") if isinstance(message, dict) else None
        if not isinstance(kind, str) or (kind not in CLIENT_TYPES and kind not in self.server_types):
            client.send(nack("Not a message"))
            return None
        if kind not in CLIENT_TYPES:
            client.send(nack("Did not receive a client message"))
            self.lost(client, "EJECTED" if self.config.referee else "CONNECTION_LOST", f"sent {kind}")
            return None
        if client.state == CONNECTED and kind != "LOGIN":
            client.send(nack("Login message missing"))
            return None
        later: Awaitable[None] | None = None
        try:
            later = getattr(self, "_" + kind.lower())(client, message)
        except Refused:
            pass
        if client.unlogged and client.state not in (CONNECTED, CLOSED):   # logged in: no longer unfinished
            client.unlogged = False
            self.addresses.logged_in(client.address)
        return later

    # -- shutting down -----------------------------------------------------------------

    async def stop(self) -> None:
        """Stop: the journal committed and closed first (what the teardown does to the
        rooms is no change of theirs: a restart resumes them), then every connection."""
        if self.journal is not None:
            self.left()
            try:
                self.journal.close(clean=True)
            except JournalError as exc:
                logger.error("%s", exc)
        if self._alive_task is not None:
            self._alive_task.cancel()
        tasks = self.connections.close_all()
        for room in list(self.rooms.values()):
            room.cancel_timers()
            if room.referee is not None and not room.referee.over:
                room.referee.stop()
        if tasks:
            await asyncio.wait(tasks, timeout=LINGER_SECONDS + 1)
        for task in tasks:
            task.cancel()
        if self._thinkers is not None:
            self._thinkers.shutdown(wait=False, cancel_futures=True)


async def serve_lobby(games: GameDescriptor[Any, Any] | LobbyGame | Sequence[GameDescriptor[Any, Any]], config: LobbyConfig,
                      debug_log: Callable[[str], None] | None = None,
                      ready: Callable[[int], None] | None = None) -> None:
    """Run a lobby of ``games`` on ``config.host:config.port`` until cancelled or sent
    SIGTERM (then it stops cleanly: its journal committed and closed, every connection
    closed, within a few seconds)."""
    lobby = Lobby(games, config, debug_log)
    server = await lobby.start(config.host, config.port)
    port = server.sockets[0].getsockname()[1]
    logger.info(f"lobby listening on {config.host}:{port}")
    logger.info(f"lobby: at most {lobby.connections.max_connections or 'any number of'} connections at once (file-handle limit "
                f"{file_limit()}), {config.max_connections_per_address or 'any number'} from one address of which "
                f"{lobby.addresses.max_unlogged or 'any number'} not logged in, each logged in within "
                f"{min(t for t in (config.login_timeout, config.login_within, float('inf')) if t > 0):g} s")
    if ready is not None:
        ready(port)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, stopping.set)
    except (NotImplementedError, RuntimeError, ValueError):   # not the main thread (a test's lobby)
        pass
    try:
        await stopping.wait()
        logger.info(f"lobby stopping (SIGTERM): {len(lobby.rooms)} room(s)"
                    + (" kept in the journal" if lobby.journal is not None else " closed"))
    finally:
        try:
            loop.remove_signal_handler(signal.SIGTERM)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
        await lobby.stop()
