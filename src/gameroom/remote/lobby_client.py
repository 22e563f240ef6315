"""Bots that play in a lobby over TCP (eriantys.md 5-7, docs/lobby.md), for any game.

A bot logs in, creates a room (of the game, with the room's options) or joins one by its
id, and plays to the end. In a room played by events (a game with a ``LobbyGame``) it
keeps a client view of the game from the broadcasts (``LobbyGame.client_view``) and,
whenever the game waits for its seat and no request of its own is outstanding, asks its
player (the logical interface of eriantys.md §5: ``setup``, ``observe``, ``act``,
``end``) for an event. What ``act`` returns is sent as it is: an event object as a
``GAME_EVENT``, text as raw bytes (a garbage player). A player that raises
:class:`~gameroom.core.misbehaviour.PlayerMisbehaved` closes its socket; one that blocks
(:class:`Silence`) stops sending but keeps the connection open; a slow reader
(:class:`StopReading`) stops reading altogether.

In a room played by calls (any other game) the bot answers each ``CALL`` with the method
of its player (a player of the game's protocol: a built-in strategy, answered on the
loop, or a misbehaving one, answered on a thread of its own so that a player that hangs
holds nothing but its own seat) and sends the result as ``REPLY``, in the protocol's own
codecs. A player that raises closes the socket.

Coming back (``come_back`` seconds, 0 by default: never): a bot whose connection is lost
during its game (the lobby restarted) logs in again under its name from the same address,
after 0.5 s, then twice as long each time up to 8 s; the lobby gives its seat back
(docs/lobby.md, "Coming back") with the state and the call waiting for it, and the bot
plays on (an event of its own that was not answered is sent again if still its turn). In a
room played by events its view of the game starts again from the ``GAME_STATE`` it is sent
(the game's ``client_view`` applies it), so it sees whose turn it is; after a restart the
lobby tells it ``START_GAME`` first (it may have died before writing it), which sets the
bot up again if it never was.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from gameroom.core.game import GameDescriptor
from gameroom.core.handoff import Worker
from gameroom.core.lobbygame import LobbyGame, Silence, StopReading
from gameroom.core.misbehaviour import PlayerMisbehaved
from gameroom.core.protocol import WireProtocol
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, encode

__all__ = ["BotResult", "LobbyConnection", "play_room", "RoomPlan"]

logger = logging.getLogger(__name__)


class LobbyConnection:
    """One client connection: send messages, receive them one at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.decoder = JSONStreamDecoder()
        self.closed = False
        self.address: tuple[str, int] | None = None   # the lobby's, to come back to
        self.name: str | None = None       # logged in as (to log in again)
        self.come_back_seconds = 0.0       # how long a lost connection is tried again (0: never)
        self.returns = 0                   # times it came back

    @classmethod
    async def open(cls, host: str, port: int, attempts: int = 50) -> "LobbyConnection":
        for attempt in range(attempts):
            try:
                reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
                conn = cls(reader, writer)
                conn.address = (host, port)
                return conn
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
        out: list[Any] = []
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
            try:
                data = await self.reader.read(1 << 16)
            except OSError:   # a reset: a server killed with our messages unread closes so
                data = b""
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
                    self.unread(values[i + 1:])
                    return value, before
                before.append(value)

    def unread(self, values: list[Any]) -> None:
        """Put messages back in front of what is still to be read."""
        if values:
            data = b"".join(encode(v) for v in values)
            self.decoder._buf[:0] = data   # noqa: SLF001 - put the rest back in front

    def close(self) -> None:
        self.closed = True
        self.writer.transport.abort()

    async def come_back(self) -> bool:
        """The connection was lost: log in again as :attr:`name` with back-off until the
        lobby takes it (True: this connection reads and writes the new one) or
        :attr:`come_back_seconds` have passed (False)."""
        if self.come_back_seconds <= 0 or self.name is None or self.address is None:
            return False
        loop = asyncio.get_running_loop()
        deadline, delay = loop.time() + self.come_back_seconds, COME_BACK_FIRST
        logger.info(f"{self.name}: the connection to the lobby was lost: coming back")
        while loop.time() < deadline:
            await asyncio.sleep(delay)
            delay = min(delay * 2, COME_BACK_LAST)
            try:
                fresh = await LobbyConnection.open(*self.address, attempts=1)
            except OSError:
                continue
            reply, before = await fresh.request({"type": "LOGIN", "username": self.name}, ("ACK",))
            if reply is not None and reply.get("type") == "ACK":
                self.writer.transport.abort()
                self.reader, self.writer, self.decoder, self.closed = fresh.reader, fresh.writer, fresh.decoder, False
                self.unread(before)
                self.returns += 1
                logger.info(f"{self.name}: back in the lobby")
                return True
            fresh.close()   # the lobby has not seen the old connection go yet (the name is still taken)
        return False


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
    """One room the bots fill: its size, its options (as ``CREATE_ROOM`` fields, by the
    options' names), whether it is private, its game (None: the lobby's default) and the
    id its creator learns."""

    players: int
    options: dict[str, Any] = field(default_factory=dict)
    private: bool = False
    room_id: "asyncio.Future[int] | None" = None
    over: asyncio.Event = field(default_factory=asyncio.Event)   # set when a bot of the room is done
    # set when a bot of the room was refused or failed before playing: the others, waiting
    # for the room to fill, give up instead of waiting for ever
    failed: asyncio.Event = field(default_factory=asyncio.Event)
    game: str | None = None


async def play_room(game: LobbyGame | GameDescriptor[Any, Any], host: str, port: int, name: str, player: Any, creates: bool,
                    plan: RoomPlan, ranking: Callable[[dict[str, Any]], list[str]] | None = None,
                    trusted: bool = True, come_back: float = 0.0) -> BotResult:
    """One bot: log in, create (``creates``) or join the planned room, play to the end:
    by events when ``game`` is a ``LobbyGame`` (or a descriptor with one), else by
    answering calls with ``player`` (``trusted``: a built-in strategy that answers at
    once, on the loop). A creator that cannot create the room tells the room's other bots
    (``plan.room_id`` fails), so they stop waiting for it."""
    events = game if isinstance(game, LobbyGame) else game.lobby
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
        conn.name, conn.come_back_seconds = name, come_back
        view = events.client_view() if events is not None else None
        inbox: list[dict[str, Any]] = []
        named = {"game": plan.game} if plan.game is not None else {}
        if creates:
            reply, inbox = await conn.request({"type": "CREATE_ROOM", **named, "numberOfPlayers": plan.players,
                                               **plan.options, "isPrivate": plan.private}, ("ROOM_ID",))
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
        if events is not None:
            await _play(conn, events, view, player, name, inbox, result, ranking, plan)
        else:
            assert isinstance(game, GameDescriptor)
            await _answer_calls(conn, game.protocol, player, name, inbox, result, plan, trusted)
        plan.over.set()
        if result.winners is not None or result.closed is not None:
            logger.info(f"{name}: room {result.room}: " + (f"winners {result.winners}" if result.winners is not None
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
    returns = conn.returns
    while True:
        if conn.returns != returns:   # back after a lost connection: an unanswered event is asked again
            returns, pending = conn.returns, None
        for m in inbox:
            kind = m.get("type") if isinstance(m, dict) else None
            if kind in ("ACK", "NACK"):
                if kind == "ACK" and pending is not None:
                    view.acknowledge(pending)
                pending = None
                continue
            view.apply(m)   # a GAME_STATE (back in the seat) replaces the view with its snapshot
            if kind == "ADD_PLAYER" and m.get("username") == name:
                seat = m.get("position", -1)
            if kind == "START_GAME":
                started = True
                # §5's setup(seat, players, expert): the room's options, in the order declared
                player.setup(seat, list(m.get("players", [])), *(m.get(o.name) for o in game.room_options))
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
        next_inbox = await _next_inbox(conn, started, plan, result)
        if next_inbox is None:
            return
        inbox = next_inbox


async def _next_inbox(conn: LobbyConnection, started: bool, plan: RoomPlan,
                      result: BotResult) -> list[dict[str, Any]] | None:
    """The room's next messages; None (``result.closed`` says why) when the connection
    closed, or when the room cannot fill any more (a room-mate was refused or failed)."""
    if started:
        inbox = await conn.receive()
        while not inbox and await conn.come_back():   # lost during the game: back to the seat
            inbox = await conn.receive()
    else:
        received = await _receive_unless(conn, plan.failed)
        while received == [] and await conn.come_back():   # seated, lost before its START_GAME came
            received = await _receive_unless(conn, plan.failed)
        if received is None:
            result.closed = "the room did not fill: a room-mate was refused or failed"
            return None
        inbox = received
    if not inbox:
        result.closed = result.closed or "connection closed by the server"
        return None
    return inbox


async def _answer_calls(conn: LobbyConnection, protocol: WireProtocol, player: Any, name: str,
                        inbox: list[dict[str, Any]], result: BotResult, plan: RoomPlan, trusted: bool) -> None:
    """A room played by calls: each ``CALL`` answered by the player's method, until the
    game ends, the room closes or the bot is out of the game."""
    started = False
    worker = None if trusted else Worker(f"lobby-bot-{name}")
    try:
        while True:
            for m in inbox:
                kind = m.get("type") if isinstance(m, dict) else None
                if kind == "START_GAME":
                    started = True
                elif kind == "CALL":
                    spec = protocol.by_wire.get(m.get("method"))   # type: ignore[arg-type]
                    if spec is None:
                        result.closed = f"a call of no {protocol.game} method: {dumps(m)[:200]}"
                        return
                    try:
                        args = spec.decode_args(m.get("args"), "$.args")
                    except ValueError as exc:
                        result.closed = f"a call of {spec.wire} the game cannot read: {exc}"
                        return
                    method = getattr(player, spec.name)
                    result.events += 1
                    if worker is None:
                        try:
                            answer = method(*args)
                        except Exception as exc:   # noqa: BLE001 -- a player's bug: reported as closed, the referee ejects it
                            result.closed = f"crashed: {type(exc).__name__}: {exc}"
                            return
                    else:
                        outcome = await _await_answer(conn, worker.on_loop(asyncio.get_running_loop(), method, args),
                                                      name, result)
                        if outcome is None:
                            result.closed = result.closed or "connection closed by the server"
                            return
                        ok, answer = outcome
                        if not ok:
                            result.closed = f"crashed: {type(answer).__name__}: {answer}"
                            return
                    if not spec.one_way:
                        conn.send({"type": "REPLY", "call": m.get("call"), "result": spec.result.encode(answer)})
                elif kind == "END_GAME":
                    result.winners = list(m.get("winners") or [])
                    return
                elif kind == "PING":
                    conn.send({"type": "PONG"})
                elif _out_of_game([m], name, result):
                    return
            next_inbox = await _next_inbox(conn, started, plan, result)
            if next_inbox is None:
                return
            inbox = next_inbox
    finally:
        if worker is not None:
            worker.stop()


async def _await_answer(conn: LobbyConnection, done: "asyncio.Future[tuple[bool, Any]]", name: str,
                        result: BotResult) -> tuple[bool, Any] | None:
    """The outcome of a player thinking on its own thread, reading the room meanwhile;
    None when the bot's game ended first (ejected at its time limit, the room closed).
    What arrives meanwhile is handled after the answer, in order: after a one-way call
    (Evolution's ``start``) the referee does not wait, so the next ``CALL`` may come while
    the player still thinks about the last one (dropping it left the bot silent until its
    time-out)."""
    meanwhile: list[Any] = []
    while True:
        receiving = asyncio.ensure_future(conn.receive())
        either: set[asyncio.Future[Any]] = {done, receiving}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if done.done():
            if not receiving.done():
                receiving.cancel()   # a read waiting for bytes loses nothing when cancelled...
                await asyncio.wait({receiving})
            if not receiving.cancelled():   # ...but it may have read before it was told
                meanwhile.extend(receiving.result())
            conn.unread(meanwhile)   # read while thinking: handled after the answer
            return done.result()
        news = receiving.result()
        if not news or _out_of_game(news, name, result):
            return None
        meanwhile.extend(news)


def _out_of_game(messages: list[Any], name: str, result: BotResult) -> bool:
    """Whether these messages end the bot's game: the room closed, or the bot ejected."""
    for m in messages:
        if isinstance(m, dict) and m.get("type") == "PLAYER_DISCONNECT" and (
                m.get("roomClosed") or m.get("username") == name):
            who = "" if m.get("username") == name else f"{m.get('username')} "
            result.closed = f"{who}{m.get('reason')}" + (f": {m['message']}" if m.get("message") else "")
            return True
        if isinstance(m, dict) and m.get("type") == "END_GAME":
            result.winners = list(m.get("winners") or [])
            return True
    return False


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


COME_BACK_FIRST, COME_BACK_LAST = 0.5, 8.0
"""The first wait before logging in again, and the longest (each doubles the one before)."""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
