"""How the commands host Eriantys: a local game for ``play`` (the descriptor's
:data:`HOSTING`: mode and players as options), and the lobby (eriantys.md 6-7), the
:class:`LobbyGame` of the descriptor that ``serve``, ``clients`` and ``connect`` use. The
rules are ``rules.step``; this module adds the room's other changes to a game as pure
functions of the same shape: ejection under the referee policy (7.7), and the resilience
mode's disconnection, reconnection and solo time-out (7.6); and the bots of ``gameroom
clients`` (the players of 9, plus a slow reader that stops reading).
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from gameroom.core.context import MatchContext
from gameroom.core.hosting import Hosting, LocalMatch, PlayHosting
from gameroom.core.lobbygame import LobbyGame, Silence, StopReading, Transition
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.core.options import Option, OptionError, Options, comma_list, players_option, seed_option
from gameroom.games.eriantys import rules, text
from gameroom.games.eriantys.config import decode_hooks
from gameroom.games.eriantys.narrator import TEAMS, EriantysNarrator
from gameroom.games.eriantys.pieces import PLANNING, TOWER_COLORS, team_of
from gameroom.games.eriantys.players import PLAYER_KINDS, EriantysPlayer, parse_strategy
from gameroom.games.eriantys.referee import LIMITS, run_game
from gameroom.games.eriantys.state import GameState, from_snapshot, new_game, snapshot
from gameroom.games.eriantys.strategies import STRATEGIES, legal_events
from gameroom.games.eriantys.view import TableView

__all__ = ["LOBBY", "SERVER_TYPES", "HOSTING"]

SERVER_TYPES = frozenset({
    "ACK", "NACK", "ROOM_ID", "PUBLIC_ROOMS", "ADD_PLAYER", "START_GAME", "NOTIFY_CHARACTER_CARD",
    "ADD_STUDENT_TO", "MOVE_STUDENT", "MOVE_TOWERS", "MERGE_ISLANDS", "NO_ENTRY", "SET_PROFESSOR_TO",
    "MOVE_MOTHER_NATURE", "PLAY_ASSISTANT_CARD", "ACTIVATE_CHARACTER_CARD", "REMOVE_COIN", "ADD_COIN",
    "CHANGE_PHASE", "CHANGE_TURN", "END_GAME", "PLAYER_DISCONNECT", "PLAYER_RECONNECT", "GAME_SUSPENDED",
    "GAME_RESUMED", "GAME_STATE", "PING"})
"""The message types of 6.4: a client that sends one is dropped (4.5)."""


def _start(usernames: list[str], options: Mapping[str, Any], seed: int, hooks: Any, room_id: int) -> Transition:
    if hooks is not None and hooks.first_player is not None and hooks.first_player >= len(usernames):
        raise ValueError(f"testHooks.firstPlayer {hooks.first_player} is not a seat of a "
                         f"{len(usernames)}-player game")
    return new_game(usernames, bool(options.get("expert")), seed, hooks, room_id)


def _eject(state: GameState, seat: int, reason: str) -> Transition:
    new = state.copy()
    return new, rules.eject(new, seat, reason)


def _connected_teams(s: GameState) -> set[int]:
    return {s.team(seat) for seat in range(s.n) if s.connected[seat] and s.team(seat) not in s.eliminated}


def _skip_current(s: GameState, out: list[dict[str, Any]]) -> None:
    """The game waits for a disconnected seat: its planning decision or turn is skipped
    (7.6 rule 3); a pending card input is cancelled, unrefunded."""
    while not s.finished and not s.connected[s.current] and any(s.connected):
        if s.phase == PLANNING:
            rules._advance_planning(s, out)
        else:
            rules._end_turn(s, out)


def _disconnect(state: GameState, seat: int, solo_timeout: float) -> Transition:
    """7.6 rules 1, 3 and 4: the seat is marked disconnected, skipped if it is the current
    one, and the game is suspended when the connected seats are all of one team."""
    s = state.copy()
    s.connected[seat] = False
    out: list[dict[str, Any]] = [{"type": "PLAYER_DISCONNECT", "username": s.usernames[seat],
                                  "roomClosed": False, "reason": "CONNECTION_LOST"}]
    if s.finished:
        return s, out
    _skip_current(s, out)
    if not s.finished and not s.suspended and len(_connected_teams(s)) <= 1:
        s.suspended = True
        out.append({"type": "GAME_SUSPENDED", "timeoutSeconds": int(solo_timeout)})
    return s, out


def _reconnect(state: GameState, seat: int) -> Transition:
    """7.6 rule 2: the seat is back; the game resumes when two teams are connected again."""
    s = state.copy()
    s.connected[seat] = True
    out: list[dict[str, Any]] = [{"type": "PLAYER_RECONNECT", "username": s.usernames[seat]}]
    if s.suspended and len(_connected_teams(s)) >= 2:
        s.suspended = False
        out.append({"type": "GAME_RESUMED"})
        _skip_current(s, out)
    return s, out


def _abandon(state: GameState) -> Transition:
    """7.6 rule 4: the solo time-out ran out; the team that stayed connected wins."""
    s = state.copy()
    teams = _connected_teams(s)
    s.finished, s.suspended = True, False
    s.winners = [s.usernames[seat] for seat in range(s.n) if s.team(seat) in teams]
    return s, [{"type": "END_GAME", "winners": list(s.winners)}]


BOT_KINDS = (*PLAYER_KINDS, "slowreader@K")


class _Bot(EriantysPlayer):
    """A lobby bot: an Eriantys player whose ``timeout`` falls silent instead of blocking
    the thread, and ``slowreader@K`` stops reading its socket at decision K."""

    def __init__(self, name: str, kind: str, seed: int) -> None:
        self.stops_reading = None
        if kind.startswith("slowreader@"):
            k = kind.partition("@")[2]
            if not k.isdigit() or int(k) < 1:
                raise ValueError(f"unknown player {kind!r} (K >= 1)")
            self.stops_reading, kind = int(k), "first-legal"
        super().__init__(name, kind, random.Random(seed), block=_silence)

    def act(self, state: dict[str, Any]) -> Any:
        if self.stops_reading is not None and self.decisions + 1 == self.stops_reading:
            raise StopReading(self.name())
        return super().act(state)


def _silence() -> None:
    raise Silence()


def _ranking(snap: dict[str, Any]) -> list[str]:
    return rules.ranking(from_snapshot(snap))


_WORDS = {"assistantCard": "card", "islandIndex": "island", "cloudIndex": "cloud", "amount": "steps",
          "color": "", "characterCardIndex": "character"}


def _label(event: dict[str, Any]) -> str:
    """``play assistant card: card 4``, ``move student from entrance to island: RED, island 3``."""
    words = event["eventType"].lower().replace("_", " ")
    facts = ", ".join(f"{_WORDS.get(key, key)} {value}".strip() for key, value in event.items()
                      if key not in ("eventType", "playerNumber"))
    return f"{words}: {facts}" if facts else words


def legal_moves(snap: dict[str, Any], seat: int | None) -> list[tuple[str, dict[str, Any]]]:
    """The events ``seat`` (None: the seat the game waits for) may send in the game of
    ``snap`` (character cards included in expert mode), tested with the server's own
    checks, each with its label: a person's moves, in the web room and in the lobby."""
    state = from_snapshot(snap)
    if state.finished or seat is not None and seat != state.current:
        return []
    return [(_label(event), event) for event in legal_events(state, state.current, activations=True)]


LOBBY = LobbyGame(
    player_counts=(2, 3, 4),
    start=_start,
    step=rules.step,
    snapshot=snapshot,
    current=lambda s: None if s.finished else s.current,
    # 7.8: NACKs are counted per turn, per planning decision in the planning phase; the
    # last to plan is often the first to act, so the phase is part of the turn.
    turn=lambda s: (s.round, s.phase == PLANNING, s.current),
    finished=lambda s: s.finished,
    eject=_eject,
    disconnect=_disconnect,
    reconnect=_reconnect,
    abandon=_abandon,
    suspended=lambda s: s.suspended,
    seat_fields=lambda seat, players: {"towerColor": TOWER_COLORS[team_of(seat, players)]},
    decode_hooks=lambda value, where: decode_hooks(value, 4, where),
    client_view=TableView,
    server_types=SERVER_TYPES,
    bot=_Bot,
    bot_kinds=BOT_KINDS,
    ranking=_ranking,
    terminal=text,
    room_options=(Option("expert", flag=True, help="expert rooms"),),
    moves=legal_moves,
)


# -- gameroom play eriantys (the descriptor's HOSTING) -------------------------------------------

NAMES = ("Ann", "Ben", "Cyd", "Dot")


def _check_players(value: tuple[str, ...]) -> None:
    for kind in value:
        try:
            parse_strategy(kind)
        except ValueError as exc:
            raise OptionError(str(exc)) from None


PLAY_OPTIONS = (
    players_option(2, 4, 2),
    seed_option("seed of the game's generator"),
    Option("expert", flag=True, help="expert mode: coins and three character cards"),
    Option("strategies", comma_list, ("greedy", "first-legal"),
           "comma-separated players assigned in turn, from " + ", ".join(PLAYER_KINDS) + " (default greedy,first-legal)",
           check=_check_players),
)


def local_match(options: Options) -> LocalMatch:
    """Ann, Ben, ... of the kinds in turn (built-in strategies on trusted seats, the
    misbehaving kinds of 9.3 on guarded ones), the referee policy's limits."""
    kinds, seed, expert = options["strategies"], options["seed"], options["expert"]
    names = list(NAMES[: options["players"]])
    seats = []
    for i, name in enumerate(names):
        kind = kinds[i % len(kinds)]
        player = EriantysPlayer(name, kind, random.Random(seed * 131 + i))
        seats.append(trusted_seat(name, player) if kind in STRATEGIES else guarded_seat(name, player))
    opening = (f"Eriantys, {'expert' if expert else 'simple'} mode, seed {seed}: "
               + ", ".join(f"{s.name} ({TEAMS[i if len(names) == 3 else i % 2]}, {kinds[i % len(kinds)]})"
                           for i, s in enumerate(seats)))
    return LocalMatch(run=lambda observers, log: run_game(seats, seed, expert=expert,
                                                          context=MatchContext(limits=LIMITS, observers=observers, log=log)),
                      narrator=EriantysNarrator(opening, names, TEAMS))


HOSTING = Hosting(play=PlayHosting(PLAY_OPTIONS, local_match), configs="gameroom.games.eriantys",
                  examples=("server.json", "referee-server.json"))
