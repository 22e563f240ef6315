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

Every call goes through the core's referee skeleton (:class:`gameroom.core.match.Match`:
time limit, exceptions, reply shape, the rules' check of each placement and move, the
ejection); its ``on_eject`` hook removes the player. A local untrusted player receives its
own copy of the state, so an abandoned call cannot disturb the game. Observers hear state
events noted ``dealt`` (the board before the first penguin), ``placed`` (color,
position), ``placement-over``, ``moved`` (color, move, fish, turn), ``skipped`` (color)
and ``removed`` (color, reason; during play also the turn and the spec's message of 5.5);
states given to observers are copies: the dealt board, then one after every penguin
placed and every move (a person sees the board before each decision), captioned with the
seat's name, its color and what it did.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.protocol import Codec
from gameroom.core.record import Ejection, MatchResult
from gameroom.games.fish.protocol import (NAME_TIMEOUT, PROTOCOL, READY_TIME, REFEREE_BOARD, TIME_PER_CALL_REFEREE,
                                          actions_since_last_turn, ready_time_applies)
from gameroom.games.fish.queries import GameView, TournamentView, offer_queries
from gameroom.games.fish.state import SKIP, Action, Color, GameState, penguins_per_player
from gameroom.games.fish.codec import decode_state, encode_state

__all__ = ["LIMITS", "FishResult", "run_game", "new_state", "STATE_CODEC"]

LIMITS = Limits(call=TIME_PER_CALL_REFEREE, ready=READY_TIME, signup_first_byte=NAME_TIMEOUT,
                signup_complete=NAME_TIMEOUT)
"""Fish's limits (spec 7, 8.2): per call, the first playing round, a sign-up name."""

STATE_CODEC = Codec(encode_state, decode_state, "State")


@dataclass
class FishResult(MatchResult):
    """The match's result plus what is Fish's: the final state, the seat of each color and
    the number of turns. The misbehaving seats are in the reference's order: removed
    during play, most recent first; then during placement, most recent first; then while
    being informed, in player order (names need not be distinct, spec 7: seats are the
    identity)."""

    state: GameState | None = None
    colors: dict[Color, int] = field(default_factory=dict)
    turns: int = 0


def new_state(players: int, rows: int = REFEREE_BOARD[0], columns: int = REFEREE_BOARD[1],
              fish: int | None = None, rng: random.Random | None = None) -> GameState:
    """The state a referee builds for `players` players: colors red, white, brown, black in
    order; `fish` on every tile, or random 1..5 fish drawn from `rng` (no holes)."""
    return GameState.create(rows, columns, players, fish=fish, rng=rng or random.Random(0))


def run_game(seats: Sequence[Seat], state: GameState | None = None, context: MatchContext = NO_CONTEXT, *,
             rows: int = REFEREE_BOARD[0], columns: int = REFEREE_BOARD[1], fish: int | None = None,
             rng: random.Random | None = None, tournament: TournamentView | None = None) -> FishResult:
    """Run one game for 2..4 seats (in turn order) and return its result.

    ``state`` is a prepared state without penguins whose players match the seats by position
    (default: a new ``rows`` x ``columns`` board with ``fish`` per tile or random fish from
    ``rng``). The context's ``limits.call`` bounds each call (None: no limit),
    ``limits.ready`` the ``take-turn`` calls of the first playing round. ``tournament``
    lets players' queries see the tournament's rounds.
    """
    if state is None:
        state = new_state(len(seats), rows, columns, fish, rng)
    if len(state.players) != len(seats):
        raise ValueError(f"{len(seats)} seats for {len(state.players)} players in the state")
    seat_of: dict[Color, int] = {p.color: index for index, p in enumerate(state.players)}
    color_of = [p.color for p in state.players]
    initial_colors = state.colors()
    view = offer_queries(seats, lambda: GameView(state, tournament))
    phase = "inform"
    out: dict[str, list[int]] = {"inform": [], "placement": [], "playing": []}
    history: list[Action] = []
    moves: list[Any] = []   # the legal moves of the turn being asked for
    turns = 0

    def removed(ejection: Ejection) -> None:
        """The ejected player leaves: its penguins vanish, its tiles stay (5.3); a removal
        during play clears the record of actions and is a new position (a picture)."""
        color = color_of[ejection.seat]
        state.remove_player(color)
        out[phase].append(ejection.seat)
        if phase == "playing":
            history.clear()
        if not match.observers:
            return
        caption = f"{seats[ejection.seat].name} ({color.value}) is removed: {ejection.reason}"
        if phase != "playing":
            match.state(None, caption, event="removed", color=color.value, reason=ejection.reason)
            return
        move = match.refused(seats[ejection.seat])
        message = (f"{color.value} failed: {ejection.reason}" if move is FAILED else
                   f"{color.value} attempted to cheat, trying to move from {list(move[0])} to {list(move[1])}")
        match.state(state.copy(), caption, event="removed", color=color.value, reason=ejection.reason, turn=turns,
                    message=message)

    def free_tile(spot: Any) -> str | None:
        return None if state.can_place(spot) else f"cannot place a penguin at {list(spot)}: not a free tile"

    def legal_move(move: Any) -> str | None:
        return None if move in moves else f"illegal move from {list(move[0])} to {list(move[1])}"

    def given(seat: Seat) -> GameState:
        # A local untrusted player could keep running after its time-out: its own copy.
        return state if seat.trusted else state.copy()

    def publish(stage: str) -> None:
        if view is not None:
            view.publish(stage, state)

    match = Match(PROTOCOL, seats, context, limits=LIMITS, state_codec=STATE_CODEC, on_eject=removed)
    limits = match.limits
    watched = bool(match.observers)

    # -- 1. inform --------------------------------------------------------------------
    for color in initial_colors:
        seat = seats[seat_of[color]]
        if match.call(seat, "playing_as", color) is not FAILED:
            match.call(seat, "playing_with", [c for c in initial_colors if c != color])

    # -- 2. placement: the state rotates after every call, also after a removal (3.2) ----
    phase = "placement"
    if watched:   # a picture before the first penguin: a person places on the board it shows
        match.state(state.copy(), "the board is dealt", event="dealt")
    for _round in range(penguins_per_player(len(state.players))):
        for _call in range(len(state.players)):
            player = state.players[0]
            seat = seats[seat_of[player.color]]
            publish("placing")
            spot = match.decide(seat, "initial", given(seat), legal=free_tile)
            if spot is not FAILED:
                state.place(spot)
                if watched:   # a picture per penguin: a person placing the next one sees where they stand
                    match.state(state.copy(), f"{seat.name} ({player.color.value}) places a penguin on {list(spot)}",
                                event="placed", color=player.color.value, position=list(spot))
            state.rotate()
    if watched:
        match.state(state.copy(), "every penguin is placed: the moves begin", event="placement-over")

    # -- 3. playing -------------------------------------------------------------------
    phase = "playing"
    first_round_over = False
    while True:
        moves = state.legal_moves()
        if not moves:
            if state.is_over():
                break
            skipped = state.players[0].color
            history.append(SKIP)
            state.rotate()
            if watched:
                match.state(None, f"{seats[seat_of[skipped]].name} ({skipped.value}) cannot move and is skipped",
                            event="skipped", color=skipped.value)
        else:
            player = state.players[0]
            seat = seats[seat_of[player.color]]
            n = len(state.players)
            ready = limits.call is not None and ready_time_applies(len(history), n, first_round_over)
            publish("playing")
            turns += 1
            move = match.decide(seat, "take_turn", given(seat), actions_since_last_turn(history, n),
                                legal=legal_move, limit=limits.ready if ready else None)
            if move is not FAILED:
                fish = state.board.fish_at(move[0]) if watched else 0
                state.apply(move)
                history.append(move)
                if watched:
                    match.state(state.copy(), f"{seat.name} ({player.color.value}) moves {list(move[0])} -> "
                                f"{list(move[1])}, +{fish} fish", event="moved", color=player.color.value,
                                move=[list(move[0]), list(move[1])], fish=fish, turn=turns)
        if not first_round_over and len(history) >= len(state.players):
            first_round_over = True

    # -- 4. ranking -------------------------------------------------------------------
    publish("over")
    ranking = [[seat_of[c] for c in group] for group in state.ranking()]
    misbehaved = out["playing"][::-1] + out["placement"][::-1] + out["inform"]
    result = match.result(match.by_name(ranking[0]) if ranking else [], misbehaved, ranking,
                          {seat_of[p.color]: p.score for p in state.players})
    return FishResult(**vars(result), state=state, colors=seat_of, turns=turns)
