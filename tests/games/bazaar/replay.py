"""A minimal, test-only referee loop (spec §3.3) over the pure rules and the reference
players, recording the Game JSON after every event as the reference's traces do.

It exists to check the pure game against the reference's traces; the real referee (time
limits, observers, remote players) is built elsewhere on the game-agnostic core.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from gameroom.games.bazaar.actors import ActorSpec
from gameroom.games.bazaar.codec import encode_cards, encode_first_action, encode_game
from gameroom.games.bazaar.player import make_player
from gameroom.games.bazaar.rules import (
    Bonus, apply_bonus, apply_first_action, finish_turn, first_action_problem, game_over, kick,
    purchase_problem, rank, rotate,
)
from gameroom.games.bazaar.pieces import Equation
from gameroom.games.bazaar.state import GameState, bind_names, turn_state

FAILED = object()


class Hung(Exception):
    """Stands for a time-out: a looping player "hangs" by raising this."""


def hang() -> None:
    raise Hung()


def _call(method: Any, *args: Any) -> Any:
    try:
        return method(*args)
    except Exception:  # an exception or (simulated) time-out is a failure
        return FAILED


def replay(actors: Sequence[ActorSpec], equations: Sequence[Equation], state: GameState,
           bonus: Bonus | None = None) -> tuple[list[tuple[Any, Any]], tuple[list[str], list[str]]]:
    """Run a game; returns the events ``(action JSON, Game JSON)`` - the action is
    ``"failed"`` for a call that raised or hung, else what the player asked for, legal or
    not - and the unsorted ``(winners, drop-outs)``."""
    players = {spec.name: make_player(spec, hang) for spec in actors}
    state = bind_names(replace(state, equations=tuple(equations)), [a.name for a in actors])
    events: list[tuple[Any, Any]] = [("setup", encode_game(state))]
    drop_outs: list[str] = []
    for spec in actors:
        if _call(players[spec.name].setup, list(equations)) is FAILED:
            state = kick(state)
            drop_outs.append(spec.name)
            events.append(("fail", encode_game(state)))
        else:
            state = rotate(state)
            events.append(("okay", encode_game(state)))
    while not game_over(state):
        name = state.active.name
        player = players[name]
        action = _call(player.request_pebble_or_trades, turn_state(state))
        if action is FAILED or first_action_problem(state, action) is not None:
            state = kick(state)
            drop_outs.append(name)
            shown = "failed" if action is FAILED else encode_first_action(action)
            events.append((shown, encode_game(state)))
            continue
        state = apply_first_action(state, action)
        events.append((encode_first_action(action), encode_game(state)))
        if game_over(state):
            break
        cards = _call(player.request_cards, turn_state(state))
        if cards is FAILED or purchase_problem(state, cards) is not None:
            state = kick(state)
            drop_outs.append(name)
            events.append(("failed" if cards is FAILED else encode_cards(cards), encode_game(state)))
            continue
        state = finish_turn(state, cards)
        events.append((encode_cards(cards), encode_game(state)))
    state = apply_bonus(state, bonus)
    winners, losers = rank(state)
    acknowledged = []
    for name in winners:
        if _call(players[name].win, True) is FAILED:
            drop_outs.append(name)
        else:
            acknowledged.append(name)
    for name in losers:
        if _call(players[name].win, False) is FAILED:
            drop_outs.append(name)
    return events, (acknowledged, drop_outs)
