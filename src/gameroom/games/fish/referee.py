"""The Fish referee: one game from the players' seats to the ranking (spec 3, 4, 5.3, 5.5).

The steps are the reference's, in order:

1. **inform** every player in turn: ``playing-as(color)`` and, right after it succeeds,
   ``playing-with(others)`` (the other colors of the initial state, in turn order);
2. **placement**: ``6 - k`` rounds (k players survived step 1); each round makes one
   ``setup`` call per player still in the game at its start, always to the current first
   player; a wrong answer removes the player, and the state rotates in both cases (the
   reference quirk of 3.2);
3. **playing**: a player that cannot move while someone else can is skipped without a call
   (``skip`` is recorded); otherwise ``take-turn(state, actions)`` with the actions of 5.2; an
   answer that is not one of the legal moves removes the player (penguins vanish, tiles stay)
   and clears the record of actions. During the first round ``take-turn`` gets the ready
   time (30 s) instead of the per-call limit; the first round ends as soon as the record
   holds as many actions as there are players (a removal clears the record and so
   prolongs it) and never restarts;
4. **ranking** of the survivors by score (ties keep the final turn order).

Every call goes through :class:`gameroom.core.match.Match` (time limit, exceptions, reply
shape). A local untrusted player receives its own copy of the state, so an abandoned call
cannot disturb the game. Observers hear, through ``match.observe``: ``placed(color,
position)``, ``placement_over(state)``, ``turn(state_before, outcome)`` after every
``take-turn`` (outcome ``[move, state_after]`` or a message, spec 5.5), ``skipped(color)``,
``removed(color, reason)``, ``state(state, caption)`` (for pictures) and
``game_over(ranking, removed)`` (colors). States given to observers are copies.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.calls import CallFailed
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.protocol import Codec
from gameroom.core.record import Ejection, MatchResult
from gameroom.core.tournament import GameRecord
from gameroom.games.fish.protocol import (NAME_TIMEOUT, PROTOCOL, READY_TIME, REFEREE_BOARD, TIME_PER_CALL_REFEREE,
                                          actions_since_last_turn, ready_time_applies)
from gameroom.games.fish.queries import GameView, QueryDesk, TournamentView, answer_query
from gameroom.games.fish.state import SKIP, Action, Color, GameState, penguins_per_player
from gameroom.games.fish.codec import decode_state, encode_state

__all__ = ["LIMITS", "FishResult", "run_game", "new_state", "STATE_CODEC"]

LIMITS = Limits(call=TIME_PER_CALL_REFEREE, ready=READY_TIME, signup_first_byte=NAME_TIMEOUT,
                signup_complete=NAME_TIMEOUT)
"""Fish's limits (spec 7, 8.2): per call, the first playing round, a sign-up name."""

STATE_CODEC = Codec(encode_state, decode_state, "State")


@dataclass
class FishResult(MatchResult):
    """The match's result (by seat name) plus what is Fish's, by seat (names need not be
    distinct, spec 7): the surviving seats grouped by score (best first), the removed
    seats in the reference's order (during play, most recent first; then during placement,
    most recent first; then while being informed, in player order), the final state, the
    seat of each color and the number of turns."""

    seat_ranking: list[list[Seat]] = field(default_factory=list)
    removed: list[Seat] = field(default_factory=list)
    state: GameState | None = None
    colors: dict[Color, Seat] = field(default_factory=dict)
    turns: int = 0

    def record(self) -> GameRecord:
        """What the tournament manager needs from this game: seats, not names."""
        return GameRecord(list(self.seat_ranking[0] if self.seat_ranking else []), list(self.removed), self)


def new_state(players: int, rows: int = REFEREE_BOARD[0], columns: int = REFEREE_BOARD[1],
              fish: int | None = None, rng: random.Random | None = None) -> GameState:
    """The state a referee builds for `players` players: colors red, white, brown, black in
    order; `fish` on every tile, or random 1..5 fish drawn from `rng` (no holes)."""
    return GameState.create(rows, columns, players, fish=fish, rng=rng or random.Random(0))


def _offer_queries(seats: Sequence[Seat], view: Callable[[], GameView]) -> GameView | None:
    """Give a query desk to every player that asks for one: local players with a
    ``use_queries`` method get the desk, remote ones (proxies with a ``side`` hook) get
    their wire queries answered. The view is created only if someone asks."""
    made: GameView | None = None
    for seat in seats:
        wants_local = callable(getattr(seat.player, "use_queries", None))
        wants_wire = hasattr(seat.player, "side") and not wants_local
        if not (wants_local or wants_wire) or seat.ejected is not None:
            continue
        made = made or view()
        desk = QueryDesk(made)
        if wants_wire:
            seat.player.side = lambda message, desk=desk: answer_query(desk, message)
        else:
            try:
                seat.caller("use_queries", (desk,), 1.0)
            except CallFailed:
                pass   # an extension: a player that cannot take the desk plays without it
    return made


def run_game(seats: Sequence[Seat], state: GameState | None = None, *,
             rows: int = REFEREE_BOARD[0], columns: int = REFEREE_BOARD[1], fish: int | None = None,
             rng: random.Random | None = None, limits: Limits = LIMITS, observers: Iterable[Any] = (),
             log: Callable[[str], None] | None = None, tournament: TournamentView | None = None,
             cancel: threading.Event | None = None) -> FishResult:
    """Run one game for 2..4 seats (in turn order) and return its result.

    ``state`` is a prepared state without penguins whose players match the seats by position
    (default: a new ``rows`` x ``columns`` board with ``fish`` per tile or random fish from
    ``rng``). ``limits.call`` bounds each call (None: no limit), ``limits.ready`` the
    ``take-turn`` calls of the first playing round. ``tournament`` lets players' queries
    see the tournament's rounds.
    """
    if state is None:
        state = new_state(len(seats), rows, columns, fish, rng)
    if len(state.players) != len(seats):
        raise ValueError(f"{len(seats)} seats for {len(state.players)} players in the state")
    match = Match(PROTOCOL, seats, limits.call, observers, log, STATE_CODEC, cancel)
    seat_of: dict[Color, Seat] = {p.color: seat for p, seat in zip(state.players, seats)}
    initial_colors = state.colors()
    view = _offer_queries(seats, lambda: GameView(state, tournament))
    watched = bool(match.observers)

    def given(seat: Seat) -> GameState:
        # A local untrusted player could keep running after its time-out: its own copy.
        return state if seat.trusted else state.copy()

    def removed(color: Color, reason: str | None, message: str | None = None, turn: int | None = None) -> None:
        # A removal during a turn is a new position (a picture); before play it is a fact.
        notes = {"turn": turn, "message": message} if turn is not None else {}
        caption = f"turn {turn}: {message}" if turn is not None else f"{color.value} is removed: {reason}"
        match.state(state.copy() if turn is not None else None, caption, event="removed", color=color.value,
                    reason=reason, **notes)

    def publish(phase: str) -> None:
        if view is not None:
            view.publish(phase, state)

    # -- 1. inform --------------------------------------------------------------------
    informed_out: list[Seat] = []
    for color in initial_colors:
        seat = seat_of[color]
        others = [c for c in initial_colors if c != color]
        if (match.call(seat, "playing_as", color) is FAILED
                or match.call(seat, "playing_with", others) is FAILED):
            state.remove_player(color)
            informed_out.append(seat)
            if watched:
                removed(color, seat.ejected)

    # -- 2. placement -----------------------------------------------------------------
    placed_out: list[Seat] = []
    if watched:   # a picture before the first penguin: a person places on the board it shows
        match.state(state.copy(), "the board is dealt", event="dealt")
    for _round in range(penguins_per_player(len(state.players))):
        for _call in range(len(state.players)):
            player = state.players[0]
            seat = seat_of[player.color]
            publish("placing")
            spot = match.call(seat, "initial", given(seat))
            if spot is not FAILED and state.can_place(spot):
                state.place(spot)
                if watched:
                    match.state(state.copy(), f"{player.color.value} places a penguin on {list(spot)}",
                                event="placed", color=player.color.value, position=list(spot))
            else:
                if spot is not FAILED:
                    match.eject(seat, f"cannot place a penguin at {list(spot)}: not a free tile", "setup")
                state.remove_player(player.color)
                placed_out.insert(0, seat)
                if watched:
                    removed(player.color, seat.ejected)
            state.rotate()
    if watched:
        match.state(state.copy(), "after placement", event="placement-over")

    # -- 3. playing -------------------------------------------------------------------
    played_out: list[Seat] = []
    history: list[Action] = []
    first_round_over = False
    turns = 0
    while True:
        moves = state.legal_moves()
        if not moves:
            if state.is_over():
                break
            skipped = state.players[0].color
            history.append(SKIP)
            state.rotate()
            if watched:
                match.state(None, f"{skipped.value} cannot move and is skipped", event="skipped",
                            color=skipped.value)
        else:
            player = state.players[0]
            seat = seat_of[player.color]
            n = len(state.players)
            ready = limits.call is not None and ready_time_applies(len(history), n, first_round_over)
            limit = limits.ready if ready else None
            publish("playing")
            move = match.call(seat, "take_turn", given(seat), actions_since_last_turn(history, n), limit=limit)
            turns += 1
            if move is not FAILED and move in moves:
                fish = state.board.fish_at(move[0]) if watched else 0
                state.apply(move)
                history.append(move)
                if watched:
                    match.state(state.copy(), f"turn {turns}: {seat.name} ({player.color.value}) moved {list(move[0])} -> {list(move[1])}", event="moved",
                                color=player.color.value, move=[list(move[0]), list(move[1])], fish=fish,
                                turn=turns)
            else:
                if move is FAILED:
                    message = f"{player.color.value} failed: {seat.ejected}"
                else:
                    message = (f"{player.color.value} attempted to cheat, trying to move from "
                               f"{list(move[0])} to {list(move[1])}")
                    match.eject(seat, f"illegal move from {list(move[0])} to {list(move[1])}")
                state.remove_player(player.color)
                played_out.insert(0, seat)
                history.clear()
                if watched:
                    removed(player.color, seat.ejected, message, turns)
        if not first_round_over and len(history) >= len(state.players):
            first_round_over = True

    # -- 4. ranking -------------------------------------------------------------------
    publish("over")
    ranking = [[seat_of[c] for c in group] for group in state.ranking()]
    out = played_out + placed_out + informed_out
    result = match.result(sorted(s.name for s in ranking[0]) if ranking else [], [s.name for s in out],
                          [[s.name for s in group] for group in ranking],
                          {seat_of[p.color].name: p.score for p in state.players})
    return FishResult(**vars(result), seat_ranking=ranking, removed=out, state=state, colors=seat_of, turns=turns)

