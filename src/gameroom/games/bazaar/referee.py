"""The Bazaar referee: runs one game from a given state to its Result (spec §3.3, §4, §8.3).

The turn sequence, the kicks, the end conditions, the bonus and the order of the Result are
Bazaar's; every call to a player goes through :class:`gameroom.core.match.Match`, which
enforces the time limit, catches exceptions, validates replies and records drop-outs in
order. The rules themselves are the pure functions of :mod:`gameroom.games.bazaar.rules`.

What players are handed (equations, TurnStates) is immutable, so an untrusted player whose
call was abandoned at its time limit cannot disturb the game: every value it holds is its
own. A TurnState never carries another player's wallet (only scores).

Observers (§8.3) hear ``state(step)`` after the set-up, after each player's set-up, after
each action and once at the end (a :class:`Step`: who, what, the action as sent, the Game
afterwards and a message), and ``end(winners, drop_outs)``; a failing observer is dropped.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.protocol import Codec
from gameroom.core.record import MatchResult
from gameroom.core.wire import expect_object
from gameroom.games.bazaar import codec, rules
from gameroom.games.bazaar.config import PER_CALL_SECONDS, WAIT_FOR_SIGNUP
from gameroom.games.bazaar.pieces import Card, Equation
from gameroom.games.bazaar.protocol import PROTOCOL
from gameroom.games.bazaar.rules import Bonus
from gameroom.games.bazaar.state import GameState, bind_names, turn_state

__all__ = ["GameRefused", "LIMITS", "Step", "run_game", "describe_first_action", "describe_purchase"]

LIMITS = Limits(call=PER_CALL_SECONDS, signup_first_byte=WAIT_FOR_SIGNUP, signup_complete=WAIT_FOR_SIGNUP)
"""Bazaar's limits (§8): seconds per call, and for a sign-up name."""


class GameRefused(ValueError):
    """The referee does not run this game (§3.2): player and record counts differ, more
    than 6 players, or names repeat."""


@dataclass(frozen=True)
class Step:
    """One event of a game as observers hear it.

    ``kind`` is ``"start"``, ``"setup"``, ``"first-action"``, ``"purchase"`` or ``"end"``.
    ``action`` is what the reference's traces show: ``"setup"`` at the start, ``"okay"`` /
    ``"fail"`` for a set-up, the action the player sent (``False``, exchanges or cards;
    also when it was illegal), or a text for a call that failed. ``kicked`` tells whether
    the player was removed; ``game`` is the state after the event.
    """

    kind: str
    name: str | None
    action: Any
    game: GameState
    message: str
    kicked: bool = False
    scores: dict[str, int] = field(default_factory=dict)


def encode_state(state: GameState) -> Any:
    """A referee state as JSON: the equations and the Game."""
    return {"equations": codec.encode_equations(state.equations), "game": codec.encode_game(state)}


def decode_state(value: Any, where: str = "$") -> GameState:
    obj = expect_object(value, ("equations", "game"), where)
    return codec.decode_game(obj["game"], f"{where}.game",
                             equations=codec.decode_equations(obj["equations"], f"{where}.equations"))


STATE_CODEC = Codec(encode_state, decode_state, "Equations and Game")


def describe_first_action(action: Any) -> str:
    """A first action in words (pebbles by their letters, §9.5)."""
    if action is False:
        return "asks for a pebble"
    if not action:
        return "makes no exchange (and pays a card)"
    return "exchanges " + ", ".join(f"{e.left.letters()}→{e.right.letters()}" for e in action)


def describe_purchase(cards: Sequence[Card]) -> str:
    """A purchase in words."""
    if not cards:
        return "buys nothing"
    return "buys " + ", ".join(f"{c.pebbles.letters()}{' (face)' if c.face else ''}" for c in cards)


def run_game(seats: Sequence[Seat], state: GameState, *, equations: Sequence[Equation] | None = None,
             bonus: Bonus | None = None, limits: Limits = LIMITS,
             observers: Iterable[Any] = (), log: Callable[[str], None] | None = None,
             check_visible: bool = True, cancel: threading.Event | None = None) -> MatchResult:
    """Play ``state`` with ``seats`` (the i-th seat takes the i-th player record) and
    return the result: winners that acknowledged ``win(true)`` and all drop-outs, both
    sorted (§3.11), and the final scores of the remaining players.

    ``equations`` defaults to ``state.equations``. Raises :class:`GameRefused` when the
    referee refuses the game.
    """
    names = [seat.name for seat in seats]
    problems = rules.setup_problems(state, names)
    if problems:
        raise GameRefused("; ".join(problems))
    if equations is not None:
        state = replace(state, equations=tuple(equations))
    game = bind_names(state, names)
    seat_of = dict(zip(names, seats))
    match = Match(PROTOCOL, seats, limits.call, observers, log, STATE_CODEC, cancel)

    def tell(kind: str, name: str | None, action: Any, message: str, kicked: bool = False,
             shown: GameState | None = None) -> None:
        if match.observers:
            now = game if shown is None else shown
            scores = {p.name: p.score for p in now.players}
            match.state(now, message, Step(kind, name, action, now, message, kicked, scores),
                        step=kind, player=name, kicked=kicked, scores=scores)

    def kick(seat: Seat, kind: str, action: Any, why: str, method: str) -> GameState:
        """Remove the active player (already ejected by a failed call, or now for ``why``)."""
        failed = seat.ejected is not None
        if not failed:
            match.eject(seat, why, method)
        shown = f"{seat.name}'s call failed: {seat.ejected}" if failed else action
        after = rules.kick(game)
        tell(kind, seat.name, shown, f"{seat.name} is kicked out: {seat.ejected}", True, after)
        return after

    tell("start", None, "setup", "the game begins")

    # SETUP, in player order: success binds the player to the first record and rotates,
    # failure removes that record (§3.3 step 1).
    for seat in seats:
        if match.call(seat, "setup", game.equations) is FAILED:
            game = rules.kick(game)
            tell("setup", seat.name, "fail", f"{seat.name}'s set-up failed: {seat.ejected}", True)
        else:
            game = rules.rotate(game)
            tell("setup", seat.name, "okay", f"{seat.name} is set up")

    # TURNS (§3.3.1): game_over before every turn and right after every first action.
    while not rules.game_over(game):
        seat = seat_of[game.active.name]
        action = match.call(seat, "request_pebble_or_trades", turn_state(game))
        if action is FAILED:
            game = kick(seat, "first-action", None, "", "request-pebble-or-trades")
            continue
        problem = rules.first_action_problem(game, action)
        if problem is not None:
            game = kick(seat, "first-action", action, problem, "request-pebble-or-trades")
            continue
        if action is False:
            game = rules.request_pebble(game)
            tell("first-action", seat.name, action,
                 f"{seat.name} asks for a pebble and gets {game.active.wallet.items[-1].colour}")
        else:
            game = rules.trade(game, action)
            tell("first-action", seat.name, action, f"{seat.name} {describe_first_action(action)}")
        if rules.game_over(game):
            break
        cards = match.call(seat, "request_cards", turn_state(game))
        if cards is FAILED:
            game = kick(seat, "purchase", None, "", "request-cards")
            continue
        problem = rules.purchase_problem(game, cards, check_visible=check_visible)
        if problem is not None:
            game = kick(seat, "purchase", cards, problem, "request-cards")
            continue
        before = game.active.score
        game = rules.finish_turn(game, cards, check_visible=check_visible)
        if match.observers:
            gained = game.players[-1].score - before
            tell("purchase", seat.name, cards,
                 f"{seat.name} {describe_purchase(cards)}" + (f" for {gained} points" if cards else ""))

    # BONUS, RANK, INFORM, RESULT (§3.3 steps 3-6).
    reason = rules.end_reason(game) or "the game is over"
    game = rules.apply_bonus(game, bonus)
    winners, losers = rules.rank(game)
    acknowledged = [name for name in winners if match.call(seat_of[name], "win", True) is not FAILED]
    for name in losers:
        match.call(seat_of[name], "win", False)
    won, drop_outs = rules.result(acknowledged, match.misbehaved)
    tell("end", None, None, f"game over ({reason}); winners: {', '.join(won) or 'none'}")
    scores = {p.name: p.score for p in game.players}
    ranking = [[n for n, s in scores.items() if s == best] for best in sorted(set(scores.values()), reverse=True)]
    return match.result(won, drop_outs, ranking, scores)
