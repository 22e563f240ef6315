"""Goofspiel as gameroom sees it: the one descriptor its entry point names."""

from __future__ import annotations

from typing import Any

from gameroom.core.game import GameDescriptor, SeatViews
from gameroom.core.hosting import Hosting, RoomHosting
from goofspiel_game import game


def _learning() -> Any:
    from goofspiel_game.learning import LEARNING

    return LEARNING


GAME: GameDescriptor[game.Goofspiel, int] = GameDescriptor(
    name="goofspiel",
    summary="Goofspiel, secret simultaneous bids for prize cards (2-4 players)",
    min_players=2,
    max_players=4,
    protocol=game.PROTOCOL,
    strategies={kind: (lambda name, seed, k=kind: game.Player(k, seed)) for kind in game.STRATEGIES},
    misbehaviours={"cheat": lambda name, seed: game.Player("cheat", seed)},
    deal=game.deal,
    play=game.play,
    limits=game.LIMITS,
    state_codec=game.STATE,
    action_codec=game.CARD,
    views=SeatViews(seat=game.view, spectator=game.view, vary_secret=game.vary_secret, conceal=game.conceal),
    render=game.render,
    harnesses=dict,
    # No play hosting: `gameroom play goofspiel` is the generic local game, which also
    # takes the game's own options (--cards), as lobby rooms and `play --replay` do.
    hosting=Hosting(rooms=RoomHosting(options=(game.CARDS_OPTION,))),
    moves=game.moves,
    learning=_learning,
    simultaneous=True,
)
