"""A lobby's games in play (:class:`Play`): a room played by events takes each seat's
``GAME_EVENT`` through the game's rules (its broadcasts, then the reply, 7.4), its turn
timers, house bots' turns, views and ejections; a room played by calls routes ``REPLY``
and ``CHECK`` to its referee (``server.referee_rooms``) and is what that referee asks of
the lobby (``tell``, ``encode``, ``unseat``, ``referee_over``).

A layer of the one ``server.lobby.Lobby`` over ``server.lobby_departures`` (a mixin
chain: a game's step changes the rooms and seats departures change too).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Awaitable

from gameroom.server.lobby_games import HouseBot
from gameroom.server.lobby_members import LOBBY, IN_ROOM, Client, Room, encode, nack
from gameroom.server.lobby_departures import Returns
from gameroom.server.referee_rooms import RefereeGame

__all__ = ["Play"]

logger = logging.getLogger(__name__)


class Play(Returns):
    """Events and calls of the lobby's games, their turns and time limits."""

    def _get_game_state(self, client: Client, _m: dict[str, Any]) -> None:
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
        elif not room.started:
            client.send(nack("The game has not started yet"))
        elif room.referee is not None:
            if client.seat < 0:
                client.send(*room.referee.views.spectator_message(client.pictures))
            else:
                client.send(room.referee.view_message(client.seat))
        else:
            client.send(*self._game_state(room))

    def _game_state(self, room: Room) -> tuple[dict[str, Any], bytes]:
        """GAME_STATE for the room's game, encoded once per state of the game."""
        if room.snapshot is None or room.snapshot[0] is not room.game:
            assert room.hosted.events is not None
            message = {"type": "GAME_STATE", "state": room.hosted.events.snapshot(room.game)}
            room.snapshot = (room.game, message, encode(message))
        return room.snapshot[1], room.snapshot[2]

    def _game_event(self, client: Client, m: dict[str, Any]) -> None:
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
            return
        if not room.started:
            client.send(nack("The game has not started yet"))
            return
        if client.seat < 0:
            client.send(nack("Spectators do not play"))
            return
        if room.hosted.events is None:
            client.send(nack(f"{room.hosted.name} is played by REPLY to each CALL"))
            return
        self._apply_event(room, client.seat, m, client)

    def _apply_event(self, room: Room, seat: int, m: dict[str, Any], client: Client | None) -> None:
        """The event of ``seat`` (from ``client``, or from a house bot): the game's rules,
        then its broadcasts and the reply (7.4), and the policy for a refused one."""
        game = room.hosted.events
        assert game is not None
        self.events += 1
        in_turn = game.current(room.game) == seat
        state = room.game
        room.game, broadcasts, reply = game.step(room.game, seat, m)
        if reply.get("type") == "ACK":
            if room.game is not state:
                self.note(room, "step", {"s": seat, "e": m})
            room.last = broadcasts
            room.broadcast(broadcasts)
            if client is not None:
                client.send(reply)
            if self.latencies is not None:
                self.latencies.append(time.perf_counter() - self.arrived)
            self._after_change(room, accepted=True)
            return
        if client is None:   # a house bot's event refused: the bot is out
            logger.info(f"room {room.id}: bot {room.usernames[seat]}'s event refused: {reply.get('errorMessage')}")
            self._eject(room, seat, "EJECTED")
            return
        client.send(reply)
        if not in_turn or game.suspended(room.game):
            return   # a race, not a rule break (4.4)
        if self.config.referee:
            self._eject(room, seat, "EJECTED")
        elif self.config.max_nacks_per_turn:
            room.nacks += 1
            # 7.8: maxNacksPerTurn is the number of invalid events *tolerated* per turn (the
            # referee policy, which tolerates none, could not be written as a count since 0
            # means unlimited), so the one beyond it is what ends the player's game.
            if room.nacks > self.config.max_nacks_per_turn:
                self.lost(client, "TIMEOUT", f"{room.nacks} invalid events this turn")

    def _reply(self, client: Client, m: dict[str, Any]) -> None:
        referee = self._referee_of(client)
        if referee is not None:
            referee.reply(client, m)

    def _check(self, client: Client, m: dict[str, Any]) -> Awaitable[None] | None:
        referee = self._referee_of(client)
        return referee.check(client, m) if referee is not None else None

    def _referee_of(self, client: Client) -> RefereeGame | None:
        """The referee of the room the seat of ``client`` plays by calls (a ``REPLY`` or a
        ``CHECK`` goes to it); None, and the NACK sent, otherwise."""
        room = client.room
        if room is None:
            client.send(nack("Not yet in a room!"))
        elif not room.started:
            client.send(nack("The game has not started yet"))
        elif client.seat < 0:
            client.send(nack("Spectators do not play"))
        elif room.referee is None:
            client.send(nack(f"{room.hosted.name} is played by GAME_EVENT"))
        else:
            return room.referee
        return None

    def _after_change(self, room: Room, accepted: bool = False, elapsed: float = 0.0) -> None:
        """After the game changed: end the room at END_GAME, else (re)start the turn timer
        and the NACK count for whoever the game now waits for; a house bot's turn is
        taken once the loop has handled what is at hand."""
        game = room.hosted.events
        assert game is not None
        if room.views is not None:
            self._send_views(room)
        if game.finished(room.game):
            room.ended = [self._game_state(room)[0], *[m for m in room.last if m.get("type") == "END_GAME"]]
            self._dissolve(room)
            return
        current = game.current(room.game)
        turn = game.turn(room.game) if game.turn is not None else current
        if current != room.current or turn != room.turn:
            room.nacks = 0
        room.turn = turn
        restart = current != room.current or accepted or room.turn_timer is None
        room.current = current
        waiting = current is not None and not game.suspended(room.game)
        if room.turn_timer is not None and (restart or not waiting):
            room.turn_timer.cancel()   # a suspended game waits for nobody
            room.turn_timer = None
        if current is not None and waiting and isinstance(room.members[current], HouseBot):
            asyncio.get_running_loop().call_soon(self._house_turn, room, room.game)
        elif restart and waiting and current is not None and self._turn_limit(room, current):
            room.turn_timer = asyncio.get_running_loop().call_later(   # ``elapsed``: of a turn resumed
                max(0.0, self._turn_limit(room, current) - elapsed), self._turn_timeout, room, current)

    def _send_views(self, room: Room) -> None:
        """The game as it is now to every seat and spectator that asked for views
        (``server.event_views``): a person's seat the game waits for with its moves."""
        views = room.views
        assert views is not None
        for member in room.members:
            if isinstance(member, Client) and member.views and member.room is room:
                message = views.message(room.game, member.seat, member.pictures, member.person)
                limit = self._turn_limit(room, member.seat)
                if "moves" in message and limit:
                    message["limit"] = limit   # the turn's timer starts now
                member.send(message)
        for watcher in room.watchers:
            if watcher.views:
                watcher.send(views.message(room.game, None, watcher.pictures))

    def _house_turn(self, room: Room, state: Any) -> None:
        """A house bot's event, if the game still waits for it in the same state."""
        game = room.hosted.events
        if self.rooms.get(room.id) is not room or room.game is not state or game is None:
            return
        seat = game.current(state)
        bot = room.members[seat] if seat is not None else None
        if seat is None or not isinstance(bot, HouseBot):
            return
        try:
            event = bot.player.act(game.snapshot(state))
        except Exception as exc:   # a built-in's bug (or a silent kind): the bot is out
            logger.debug("room %s: house bot %s failed", room.id, bot.username, exc_info=True)
            logger.info(f"room {room.id}: bot {bot.username} failed: {type(exc).__name__}: {exc}")
            self._eject(room, seat, "EJECTED")
            return
        if not isinstance(event, dict):
            self._eject(room, seat, "EJECTED")
            return
        self._apply_event(room, seat, {**event, "type": game.event_type}, None)

    def _turn_limit(self, room: Room, seat: int) -> float:
        """The seconds seat ``seat`` has for its turn in a room played by events (0: no
        limit): ``turnTimeoutSeconds``; for a person's seat ``personTimeoutSeconds``, else
        the game's time for a person (never less than the turn's)."""
        turn = self.config.turn_timeout
        member = room.members[seat] if 0 <= seat < len(room.members) else None
        if not (isinstance(member, Client) and member.person):
            return turn
        if self.config.person_timeout is not None:
            return self.config.person_timeout
        person = room.hosted.descriptor.person_limit if room.hosted.descriptor is not None else None
        return turn if person is None else max(turn, person)

    def _turn_timeout(self, room: Room, seat: int) -> None:
        room.turn_timer = None
        game = room.hosted.events
        if self.rooms.get(room.id) is not room or game is None or game.current(room.game) != seat:
            return
        member = room.members[seat]
        why = f"no valid event within {self._turn_limit(room, seat):g} s"
        if self.config.referee:
            self._eject(room, seat, "TIMEOUT", why)
        elif isinstance(member, Client) and member.person:
            # a person is told, and stays in the lobby; the room closes as for any departure (7.5)
            member.send({"type": "PLAYER_DISCONNECT", "username": member.username, "roomClosed": True,
                         "reason": "TIMEOUT", "message": why})
            logger.info(f"{member.username}: {why}")
            self._close_room(room, member, "TIMEOUT")
        elif isinstance(member, Client):
            self.lost(member, "TIMEOUT", why)

    def _eject(self, room: Room, seat: int, reason: str, why: str | None = None) -> None:
        """7.7: the seat's team is eliminated, the others are told, its connection closed
        (a person's is not: it is told why, and is back in the lobby)."""
        game = room.hosted.events
        assert game is not None
        member = room.members[seat]
        room.members[seat] = None
        if isinstance(member, HouseBot):
            self._release(member)
        elif member is not None and member.person:
            member.room, member.seat, member.person, member.views, member.state = None, -1, False, False, LOBBY
            member.send({"type": "PLAYER_DISCONNECT", "username": member.username, "roomClosed": False,
                         "reason": reason, "message": why or f"ejected ({reason})"})
            logger.info(f"{member.username}: ejected ({reason})")
        elif member is not None:
            member.room, member.seat, member.state = None, -1, LOBBY
            self.lost(member, reason, f"ejected ({reason})")
        self.note(room, "eject", {"s": seat, "reason": reason})
        self.touch(room)
        room.game, broadcasts = game.eject(room.game, seat, reason)
        room.last = broadcasts
        room.broadcast(broadcasts)
        self._after_change(room)

    # -- what a room played by calls asks of the lobby (server.referee_rooms) ---------------

    def tell(self, room: Room, message: dict[str, Any]) -> None:
        """``message`` to everybody in the room."""
        room.broadcast([message])

    def encode(self, message: dict[str, Any]) -> bytes:
        return encode(message)

    def unseat(self, room: Room, seat: int) -> None:
        """The referee ejected ``seat``: its member is back in the lobby (a house bot is
        gone); a room with nobody left to tell is closed."""
        member = room.members[seat] if seat < len(room.members) else None
        self._drop_hold(room, seat)
        if member is None:   # a seat that left, or was held for its person and not taken back
            asyncio.get_running_loop().call_soon(self._close_if_abandoned, room, room.usernames[seat], "EJECTED")
            return
        room.members[seat] = None
        self.touch(room)
        if isinstance(member, HouseBot):
            self._release(member)
        elif member.room is room:
            member.room, member.seat, member.person, member.views = None, -1, False, False
            if member.state == IN_ROOM:
                member.state = LOBBY
            self._back_in_lobby(member)
        # not from inside the referee: the room's end stops it
        asyncio.get_running_loop().call_soon(self._close_if_abandoned, room, member.username or "", "EJECTED")

    def referee_over(self, room: Room, outcome: dict[str, Any]) -> None:
        """The referee ended the game: ``END_GAME`` to the room, which then ceases to exist."""
        if self.rooms.get(room.id) is not room:
            return
        logger.info(f"room {room.id}: game over: " + json.dumps(outcome.get("winners"), ensure_ascii=False))
        room.ended = [outcome]
        assert room.referee is not None
        # each seat's view of the last state, for a held seat that collects the end later
        room.finals = {seat: room.referee.view_message(seat) for seat in range(len(room.usernames))}
        room.broadcast([outcome])
        self._dissolve(room)
