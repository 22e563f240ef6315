"""Bots that play in a lobby over TCP (eriantys.md 5-7), for any lobby-hosted game.

A bot logs in, creates a room or joins one by its id, keeps a client view of the game
from the broadcasts (``LobbyGame.client_view``) and, whenever the game waits for its
seat and no request of its own is outstanding, asks its player (the logical interface
of §5: ``setup``, ``observe``, ``act``, ``end``) for an event. What ``act`` returns is
sent as it is: an event object as a ``GAME_EVENT``, text as raw bytes (a garbage
player). A player that raises :class:`~gameroom.core.misbehaviour.PlayerMisbehaved`
closes its socket; one that blocks (:class:`Silence`) stops sending but keeps the
connection open; a slow reader (:class:`StopReading`) stops reading altogether.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Callable

from gameroom.core.lobbygame import LobbyGame, Silence, StopReading
from gameroom.core.misbehaviour import PlayerMisbehaved
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, encode

__all__ = ["BotResult", "LobbyConnection", "play_room", "RoomPlan"]


class LobbyConnection:
    """One client connection: send messages, receive them one at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.decoder = JSONStreamDecoder()
        self.closed = False

    @classmethod
    async def open(cls, host: str, port: int, attempts: int = 50) -> "LobbyConnection":
        for attempt in range(attempts):
            try:
                reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
                return cls(reader, writer)
            except OSError:
                if attempt == attempts - 1:
                    raise
                await asyncio.sleep(0.1)
        raise AssertionError("unreachable")

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(encode(message))

    def send_raw(self, data: bytes) -> None:
        self.writer.write(data)

    def ready(self) -> list[Any]:
        """The messages already received and decoded (without waiting)."""
        out = []
        while True:
            value = self.decoder.next_value()
            if value is NEED_MORE:
                return out
            out.append(value)

    async def receive(self) -> list[Any]:
        """At least one message, or [] when the server closed the connection."""
        while True:
            values = self.ready()
            if values:
                return values
            data = await self.reader.read(1 << 16)
            if not data:
                self.closed = True
                return []
            self.decoder.feed(data)

    async def request(self, message: dict[str, Any], replies: tuple[str, ...]) -> tuple[dict[str, Any] | None,
                                                                                          list[dict[str, Any]]]:
        """Send ``message`` and read up to its reply (one of ``replies`` or ``NACK``):
        (the reply or None when the connection closed, the messages before it)."""
        self.send(message)
        before: list[dict[str, Any]] = []
        while True:
            values = await self.receive()
            if not values:
                return None, before
            for i, value in enumerate(values):
                if isinstance(value, dict) and value.get("type") in (*replies, "NACK"):
                    self._unread(values[i + 1:])
                    return value, before
                before.append(value)

    def _unread(self, values: list[Any]) -> None:
        if values:
            data = b"".join(encode(v) for v in values)
            self.decoder._buf[:0] = data   # noqa: SLF001 - put the rest back in front

    def close(self) -> None:
        self.closed = True
        self.writer.transport.abort()


@dataclass
class BotResult:
    name: str
    room: int | None = None
    winners: list[str] | None = None     # END_GAME's winners
    closed: str | None = None            # why the game did not end (PLAYER_DISCONNECT reason, ...)
    refused: bool = False                # the lobby refused the log-in, the room or the join
    consistent: bool = True              # the winners agree with the final position the bot saw
    events: int = 0


@dataclass
class RoomPlan:
    players: int
    expert: bool
    private: bool = False
    room_id: "asyncio.Future[int] | None" = None
    over: asyncio.Event = field(default_factory=asyncio.Event)   # set when a bot of the room is done
    # set when a bot of the room was refused or failed before playing: the others, waiting
    # for the room to fill, give up instead of waiting for ever
    failed: asyncio.Event = field(default_factory=asyncio.Event)


async def play_room(game: LobbyGame, host: str, port: int, name: str, player: Any, creates: bool, plan: RoomPlan,
                    ranking: Callable[[dict[str, Any]], list[str]] | None = None,
                    log: Callable[[str], None] = lambda _t: None) -> BotResult:
    """One bot: log in, create (``creates``) or join the planned room, play to the end.
    A creator that cannot create the room tells the room's other bots (``plan.room_id``
    fails), so they stop waiting for it."""
    result = BotResult(name)
    assert plan.room_id is not None
    try:
        conn = await LobbyConnection.open(host, port)
    except BaseException as exc:
        if creates:
            _no_room(plan, f"{name} could not connect: {exc}")
        plan.failed.set()
        raise
    try:
        reply, _ = await conn.request({"type": "LOGIN", "username": name}, ("ACK",))
        if reply is None or reply["type"] != "ACK":
            result.refused = True
            result.closed = f"login refused: {_why(reply)}"
            return result
        view = game.client_view()
        inbox: list[dict[str, Any]] = []
        if creates:
            reply, inbox = await conn.request({"type": "CREATE_ROOM", "numberOfPlayers": plan.players,
                                               "expert": plan.expert, "isPrivate": plan.private}, ("ROOM_ID",))
            if reply is None or reply["type"] != "ROOM_ID":
                result.refused = True
                result.closed = f"room refused: {_why(reply)}"
                return result
            plan.room_id.set_result(reply["id"])
            result.room = reply["id"]
        else:
            try:
                result.room = await plan.room_id
            except RuntimeError as exc:
                result.refused = True
                result.closed = f"no room to join: {exc}"
                return result
            reply, inbox = await conn.request({"type": "ACCESS_ROOM", "id": result.room}, ("ACK",))
            if reply is None or reply["type"] != "ACK":
                result.refused = True
                result.closed = f"join refused: {_why(reply)}"
                return result
        await _play(conn, game, view, player, name, inbox, result, ranking, plan)
        plan.over.set()
        if result.winners is not None or result.closed is not None:
            log(f"{name}: room {result.room}: " + (f"winners {result.winners}" if result.winners is not None
                                                    else f"closed ({result.closed})"))
        return result
    finally:
        if creates:
            _no_room(plan, f"{name} did not create it ({result.closed or 'failed'})")
        if result.refused or result.winners is None and result.closed is None:
            plan.failed.set()   # refused, or an exception: the room will not fill
        conn.close()


def _no_room(plan: RoomPlan, why: str) -> None:
    """The room will not be created: its joiners, waiting for its id, learn why."""
    assert plan.room_id is not None
    if not plan.room_id.done():
        plan.room_id.set_exception(RuntimeError(why))
        plan.room_id.exception()   # retrieved: no warning when no joiner is left to read it


def _why(reply: dict[str, Any] | None) -> str:
    """A refusal in words: the NACK's message, or that the server hung up."""
    if reply is None:
        return "the server closed the connection"
    if reply.get("type") == "NACK":
        return f"NACK {reply.get('errorMessage')}"
    return json.dumps(reply, ensure_ascii=False)[:200]


STOP_READING_SECONDS = 600.0   # the longest a bot that stopped reading keeps its socket


async def _play(conn: LobbyConnection, game: LobbyGame, view: Any, player: Any, name: str,
                inbox: list[dict[str, Any]], result: BotResult,
                ranking: Callable[[dict[str, Any]], list[str]] | None, plan: RoomPlan) -> None:
    pending: dict[str, Any] | None = None    # our event awaiting its ACK/NACK
    started = False
    seat = -1
    while True:
        for m in inbox:
            kind = m.get("type") if isinstance(m, dict) else None
            if kind in ("ACK", "NACK"):
                if kind == "ACK" and pending is not None:
                    view.acknowledge(pending)
                pending = None
                continue
            view.apply(m)
            if kind == "ADD_PLAYER" and m.get("username") == name:
                seat = m.get("position", -1)
            if kind == "START_GAME":
                started = True
                player.setup(seat, list(m.get("players", [])), bool(m.get("expert")))
            if started:
                player.observe(m)
            if kind == "END_GAME":
                result.winners = list(m["winners"])
                if ranking is not None:
                    result.consistent = ranking(view.snapshot()) == result.winners
                player.end(result.winners)
                return
            if kind == "PLAYER_DISCONNECT" and m.get("roomClosed"):
                result.closed = f"{m.get('username')} {m.get('reason')}"
                player.end([])
                return
            if kind == "PING":
                conn.send({"type": "PONG"})
        if started and pending is None:
            snap = view.snapshot()
            if snap.get("currentPlayer") == seat and not snap.get("finished") and not snap.get("suspended"):
                try:
                    event = player.act(snap)
                except Silence:
                    result.closed = "silent"
                    await _wait_closed(conn)
                    return
                except StopReading:
                    # keep the socket open without reading until the room is over for the others
                    result.closed = "stopped reading"
                    try:
                        await asyncio.wait_for(plan.over.wait(), STOP_READING_SECONDS)
                    except asyncio.TimeoutError:
                        pass
                    return
                except PlayerMisbehaved:
                    result.closed = "crashed"
                    return
                result.events += 1
                if isinstance(event, str):
                    conn.send_raw(event.encode("utf-8"))
                    pending = {}
                else:
                    pending = {**event, "type": game.event_type}
                    conn.send(pending)
        if started:
            inbox = await conn.receive()
        else:
            received = await _receive_unless(conn, plan.failed)
            if received is None:
                result.closed = "the room did not fill: a room-mate was refused or failed"
                return
            inbox = received
        if not inbox:
            result.closed = result.closed or "connection closed by the server"
            return


async def _receive_unless(conn: LobbyConnection, failed: asyncio.Event) -> list[Any] | None:
    """The next messages, or None as soon as ``failed`` is set."""
    if failed.is_set():
        return None
    receiving = asyncio.ensure_future(conn.receive())
    giving_up = asyncio.ensure_future(failed.wait())
    await asyncio.wait({receiving, giving_up}, return_when=asyncio.FIRST_COMPLETED)
    if receiving.done():
        giving_up.cancel()
        return receiving.result()
    receiving.cancel()
    return None


async def _wait_closed(conn: LobbyConnection) -> None:
    """Keep the connection open, reading (and dropping) until the server closes it."""
    while await conn.receive():
        pass


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
