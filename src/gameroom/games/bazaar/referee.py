"""The Bazaar referee: runs one game from a given state to its Result (spec §3.3, §4, §8.3).

The turn sequence, the kicks, the end conditions, the bonus and the order of the Result are
Bazaar's; every call to a player goes through the core's referee skeleton
(:class:`gameroom.core.match.Match`), which enforces the time limit, catches exceptions,
validates replies, checks each decision with the rules and records drop-outs in order;
its ``on_eject`` hook kicks the active player out. The rules themselves are the pure
functions of :mod:`gameroom.games.bazaar.rules`.

What players are handed (equations, TurnStates) is immutable, so an untrusted player whose
call was abandoned at its time limit cannot disturb the game: every value it holds is its
own. A TurnState never carries another player's wallet (only scores).

Observers (§8.3) hear ``state(step)`` after the set-up, after each player's set-up, after
each action and once at the end (a :class:`Step`: who, what, the action as sent, the Game
afterwards and a message), and ``end(winners, drop_outs)``; a failing observer is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from gameroom.core.errors import GameRefused
from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat, ranking_by_score
from gameroom.core.protocol import Codec
from gameroom.core.record import Ejection, MatchResult
from gameroom.games.bazaar import codec, rules
from gameroom.games.bazaar.config import PER_CALL_SECONDS, WAIT_FOR_SIGNUP
from gameroom.games.bazaar.pieces import Card, Equation
from gameroom.games.bazaar.protocol import PROTOCOL
from gameroom.games.bazaar.rules import Bonus
from gameroom.games.bazaar.state import GameState, bind_names, turn_state

__all__ = ["GameRefused", "LIMITS", "Step", "run_game", "describe_first_action", "describe_purchase"]

LIMITS = Limits(call=PER_CALL_SECONDS, signup_first_byte=WAIT_FOR_SIGNUP, signup_complete=WAIT_FOR_SIGNUP)
"""Bazaar's limits (§8): seconds per call, and for a sign-up name."""


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


STATE_CODEC = Codec(codec.encode_referee_state, codec.decode_referee_state, "Equations and Game")


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


def run_game(seats: Sequence[Seat], state: GameState, context: MatchContext = NO_CONTEXT, *,
             equations: Sequence[Equation] | None = None, bonus: Bonus | None = None,
             check_visible: bool = True) -> MatchResult:
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
    seat_of = {name: index for index, name in enumerate(names)}   # names are distinct (§3.2)
    step = "setup"

    def tell(kind: str, name: str | None, action: Any, message: str, kicked: bool = False) -> None:
        if match.observers:
            scores = {p.name: p.score for p in game.players}
            match.state(game, message, Step(kind, name, action, game, message, kicked, scores),
                        step=kind, player=name, kicked=kicked, scores=scores)

    def kick(ejection: Ejection) -> None:
        """Remove the active player, whose set-up or turn failed or broke the rules (§3.3)."""
        nonlocal game
        game = rules.kick(game)
        seat = seats[ejection.seat]
        if step == "setup":
            tell(step, seat.name, "fail", f"{seat.name}'s set-up failed: {seat.ejected}", True)
        else:
            refused = match.refused(seat)
            shown = f"{seat.name}'s call failed: {seat.ejected}" if refused is FAILED else refused
            tell(step, seat.name, shown, f"{seat.name} is kicked out: {seat.ejected}", True)

    def first_action_problem(action: Any) -> str | None:
        return rules.first_action_problem(game, action)

    def purchase_problem(cards: Any) -> str | None:
        return rules.purchase_problem(game, cards, check_visible=check_visible)

    match = Match(PROTOCOL, seats, context, limits=LIMITS, state_codec=STATE_CODEC, on_eject=kick)
    tell("start", None, "setup", "the game begins")

    # SETUP, in player order: success binds the player to the first record and rotates,
    # failure removes that record (§3.3 step 1).
    for seat in seats:
        if match.call(seat, "setup", game.equations) is not FAILED:
            game = rules.rotate(game)
            tell("setup", seat.name, "okay", f"{seat.name} is set up")

    # TURNS (§3.3.1): game_over before every turn and right after every first action.
    while not rules.game_over(game):
        seat = seats[seat_of[game.active.name]]
        step = "first-action"
        action = match.decide(seat, "request_pebble_or_trades", turn_state(game), legal=first_action_problem)
        if action is FAILED:
            continue
        if action is False:
            game = rules.request_pebble(game)
            tell(step, seat.name, action, f"{seat.name} asks for a pebble and gets {game.active.wallet.items[-1].colour}")
        else:
            game = rules.trade(game, action)
            tell(step, seat.name, action, f"{seat.name} {describe_first_action(action)}")
        if rules.game_over(game):
            break
        step = "purchase"
        cards = match.decide(seat, "request_cards", turn_state(game), legal=purchase_problem)
        if cards is FAILED:
            continue
        before = game.active.score
        game = rules.finish_turn(game, cards, check_visible=check_visible)
        if match.observers:
            gained = game.players[-1].score - before
            tell(step, seat.name, cards,
                 f"{seat.name} {describe_purchase(cards)}" + (f" for {gained} points" if cards else ""))

    # BONUS, RANK, INFORM, RESULT (§3.3 steps 3-6); a failed ``win`` kicks nobody out.
    match.on_eject = None
    reason = rules.end_reason(game) or "the game is over"
    game = rules.apply_bonus(game, bonus)
    winners, losers = rules.rank(game)
    acknowledged = match.announce("win", [seats[seat_of[n]] for n in winners], [seats[seat_of[n]] for n in losers])
    won, drop_outs = rules.result([s.name for s in acknowledged], match.misbehaved)
    tell("end", None, None, f"game over ({reason}); winners: {', '.join(won) or 'none'}")
    scores = {seat_of[p.name]: p.score for p in game.players}
    return match.result([seat_of[n] for n in won], [seat_of[n] for n in drop_outs], ranking_by_score(scores), scores)
