"""The lobby's rooms as its journal keeps them, and built again from it on start
(``server.journal``; docs/ARCHITECTURE.md, "The lobby's journal").

:func:`room_row` is what the journal holds of a room: its game, size, options, privacy,
creator's address, and for each seat a house bot (strategy, seed), a connection's proof
(``server.lobby_identity``: the account, the reconnect secret's digest, the address) and the seat's
settings, or a seat out of the game; once started, its seed and ``START_GAME``; once
over, the messages that ended it (for the held seats that have not collected them).

:func:`resume` builds every journaled room again: house bots made again with their seeds,
each connection's seat held for the reconnect grace (the connection gets it back with its
proof, as after a lost connection; a seat not taken back within the grace is then treated
as any lost connection), and a started game run again from its seed through the journaled
steps (a room played by calls: its referee with a ``Replay``; one played by events: the
game's own functions), telling nobody, before the lobby listens.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from gameroom.core.options import OptionError
from gameroom.server.event_views import EventViews
from gameroom.server.journal import Journal, Replay, RoomRecord, SeatRecord
from gameroom.server.journal_store import StoredEntry
from gameroom.server.lobby_games import HouseBot
from gameroom.server.lobby_identity import secret_digest
from gameroom.server.referee_rooms import RefereeGame, ReplayDiverged

__all__ = ["room_row", "resume", "replay_events"]

logger = logging.getLogger(__name__)


def room_row(lobby: Any, room: Any) -> dict[str, Any] | None:
    """The journal's row of ``room`` (None: the room is gone and nothing of it is kept)."""
    seats: list[SeatRecord] = []
    ended = None
    if room.ended is not None:   # over: kept for the held seats that have not collected the end
        waiting = {held.seat: end for held, end in lobby.collect.values() if held.room is room}
        if not waiting:
            return None
        ended = {str(seat): end for seat, end in waiting.items()}
        for index, name in enumerate(room.usernames):
            held = next((h for h, _end in lobby.collect.values() if h.room is room and h.seat == index), None)
            seats.append(_held_seat(name, held) if held is not None else SeatRecord(name, gone=True))
    elif lobby.rooms.get(room.id) is not room:
        return None
    else:
        for index, name in enumerate(room.usernames):
            member = room.members[index] if index < len(room.members) else None
            if isinstance(member, HouseBot):
                seats.append(SeatRecord(name, bot=member.strategy, seed=member.seed))
            elif member is not None and member.room is room:
                seats.append(SeatRecord(name, settings=(member.person, member.views, member.pictures),
                                        account=member.account, address=member.own_address,
                                        secret=None if member.secret is None else secret_digest(member.secret)))
            else:
                held = next((h for h in lobby.reserved.values() if h.room is room and h.seat == index), None)
                seats.append(_held_seat(name, held) if held is not None else SeatRecord(name, gone=True))
    return RoomRecord(room.id, room.hosted.name, room.players, room.hosted.listed_options(room.options), room.private,
                      room.address, seats, room.seed, room.start, ended).row()


def _held_seat(name: str, held: Any) -> SeatRecord:
    return SeatRecord(name, settings=held.settings, account=held.proof.account, secret=held.proof.secret,
                      address=held.proof.address)


def resume(lobby: Any, journal: Journal, room_class: Callable[..., Any]) -> None:
    """Every room of ``journal`` built again in ``lobby`` (before it listens); one warning
    line for each room that cannot be, which leaves the journal."""
    loaded, down_at = journal.read()
    base = loaded.meta.get("base_seed")
    if base is not None:
        lobby.base_seed = int(base)
    else:
        journal.note("base_seed", lobby.base_seed)
    lobby.games_started = max(lobby.games_started, int(loaded.meta.get("games_started", "0")))
    lobby.skip_ids(int(loaded.meta.get("ids_drawn", "0")))
    resumed = 0
    for room_id, row in sorted(loaded.rooms.items()):
        try:
            record = RoomRecord.of(room_id, row)
            hosted = lobby.games.get(record.game)
            if hosted is None:
                raise ValueError(f"this lobby serves no {record.game}")
            _rebuild(lobby, journal, room_class, record, hosted, loaded.entries.get(room_id, []), down_at)
            resumed += 1
        except (KeyError, TypeError, ValueError, OptionError, ReplayDiverged) as exc:
            logger.warning("the journal's room %s cannot be resumed: %s: %s", room_id, type(exc).__name__, exc)
            logger.debug("room %s not resumed", room_id, exc_info=True)
            lobby.discard(room_id)
            journal.drop(room_id)
    for room_id in loaded.entries.keys() - loaded.rooms.keys():   # entries of a room whose row was damaged
        journal.drop(room_id)
    journal.flush()
    if resumed:
        logger.info(f"resumed {resumed} room(s) from the journal {journal.store.where}")


def _rebuild(lobby: Any, journal: Journal, room_class: Callable[..., Any], record: RoomRecord, hosted: Any,
             entries: list[StoredEntry], down_at: float) -> None:
    options = hosted.room_options(record.options)   # typed again from the fields the listing shows
    room = room_class(record.id, hosted, record.players, options, record.private, record.address, lobby.several)
    room.seed, room.start = record.seed, record.start
    if record.ended is not None:   # over: each held seat may still collect its end
        room.usernames = [seat.name for seat in record.seats]
        room.ended = []
        for index, seat in enumerate(record.seats):
            end = record.ended.get(str(index))
            if seat.bot is None and not seat.gone and end is not None:
                lobby.hold_restored(room, index, seat, ended=end)
        return
    lobby.rooms[room.id] = room
    lobby.addresses.room_created(room.address)
    held, gone = set(), set()
    for index, seat in enumerate(record.seats):
        room.usernames.append(seat.name)
        if seat.bot is not None:
            bot = lobby.house_bot(hosted, seat.name, seat.bot, seat.seed)
            bot.room, bot.seat = room, index
            room.members.append(bot)
        else:
            room.members.append(None)
            if seat.gone:
                gone.add(index)
            else:
                held.add(index)
                lobby.hold_restored(room, index, seat)
    if record.seed is None:   # a room waiting for players
        lobby.touch(room)
        return
    # Nothing of the replay is journaled again: the referee journals only once live, and
    # the events are applied here through the game's own functions, not the lobby's.
    if hosted.events is None:
        referee = RefereeGame(lobby, room, hosted, record.seed, Replay(entries, down_at),
                              [seat.settings[0] for seat in record.seats])
        referee.held |= held
        for index in gone:
            referee.gone[index] = "left the room"
            referee.announced.add(index)
        room.referee = referee
        lobby.touch(room)
        referee.begin()   # runs again through the journal, then live until it first waits
    else:
        disconnected = replay_events(lobby, room, record.seed, entries)
        for index in disconnected & held:   # lost before the lobby stopped: back as after a lost connection
            lobby.reserved_of(room, index).restored = False
        lobby.touch(room)
        lobby.after_resume(room, max(0.0, down_at - (entries[-1].at if entries else down_at)))


def replay_events(lobby: Any, room: Any, seed: int, entries: list[StoredEntry]) -> set[int]:
    """A room played by events run again from its seed through its journaled changes:
    the house bots see every broadcast and are asked for the events they made (their own
    randomness goes on), nobody else is told. The seats the game holds as disconnected."""
    game = room.hosted.events
    hooks = lobby.config.test_hooks if room.hosted is lobby.default else None
    room.game, setup = game.start(list(room.usernames), room.options, seed, hooks, room.id)
    room.broadcast(setup)
    disconnected: set[int] = set()
    for entry in entries:
        body = entry.body
        seat = int(body.get("s", -1))
        if entry.kind == "step":
            member = room.members[seat]
            if isinstance(member, HouseBot):
                member.player.act(game.snapshot(room.game))   # its own randomness goes on as it did
            room.game, broadcasts, reply = game.step(room.game, seat, body["e"])
            if reply.get("type") != "ACK":
                raise ReplayDiverged(f"the journal's step {entry.seq} is refused: {reply.get('errorMessage')}")
        elif entry.kind == "eject":
            member = room.members[seat]
            room.members[seat] = None
            if isinstance(member, HouseBot):
                lobby.release(member)
            room.game, broadcasts = game.eject(room.game, seat, body["reason"])
        elif entry.kind == "disconnect":
            room.game, broadcasts = game.disconnect(room.game, seat, body["solo"])
            disconnected.add(seat)
        elif entry.kind == "reconnect":
            room.game, broadcasts = game.reconnect(room.game, seat)
            disconnected.discard(seat)
        elif entry.kind == "abandon":
            room.game, broadcasts = game.abandon(room.game)
        else:
            raise ReplayDiverged(f"the journal's step {entry.seq} is of an unknown kind {entry.kind!r}")
        room.broadcast(broadcasts)
        room.last = broadcasts
    if any(getattr(m, "views", False) for m in room.members):
        room.views = EventViews(room.hosted, list(room.usernames))
    return disconnected
