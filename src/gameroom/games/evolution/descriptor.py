"""Evolution as the registry sees it (spec ``evolution.md``): the one :data:`GAME` descriptor.

A game "from a seed" deals from the deck shuffled by that seed (the reference's sorted
deck is the default of ``gameroom play evolution`` and of the server). The state is the
dealer's table; its JSON is the Configuration of spec 8.3 / 10.1.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.game import GameDescriptor, SeatViews
from gameroom.core.layout import package_parts
from gameroom.core.match import Seat
from gameroom.core.record import MatchResult
from gameroom.games.evolution.actions import Action4
from gameroom.games.evolution.pieces import MAX_PLAYERS, MIN_PLAYERS, shuffled_deck
from gameroom.games.evolution.protocol import ACTION4, PROTOCOL, PlayerInterface
from gameroom.games.evolution.rules import PlayerState, Table, player_id, score
from gameroom.games.evolution.referee import LIMITS, STATE_CODEC, run_game, snapshot
from gameroom.games.evolution.players import BADDIES, BaddiePlayer, SillyPlayer
from gameroom.games.evolution.codec import encode_configuration, encode_player

__all__ = ["GAME"]



def deal(seed: int, names: Sequence[str]) -> Table:
    """Players with the spec's ids (3.1) and nothing yet, an empty watering hole, the deck
    shuffled by ``seed``."""
    return Table([PlayerState(player_id(name, i)) for i, name in enumerate(names)], 0, shuffled_deck(seed))


def play(seed: int, seats: Sequence[Seat], context: MatchContext = NO_CONTEXT) -> MatchResult:
    """A game on the deck shuffled by ``seed``; winners are the seats of the top score."""
    return run_game(seats, shuffled_deck(seed), context)


def _player_of(state: Table, name: str) -> PlayerState | None:
    return next((p for p in state.players if p.id == name or str(p.id).rsplit("#", 1)[0] == name), None)


def _name(player: PlayerState) -> str:
    """The player's name, as the seat is known everywhere (the spec's ``name#seat`` id is
    for its reports only)."""
    return str(player.id).rsplit("#", 1)[0]


def _shown(player: PlayerState, boards_only: bool = True) -> Any:
    """A player as the views show it: under its name; boards only, or everything."""
    named = PlayerState(_name(player), player.boards) if boards_only else \
        PlayerState(_name(player), player.boards, player.bag, player.cards)
    return encode_player(named)[:2] if boards_only else encode_player(named)


def seat_view(state: Table, name: str) -> Any:
    """The player's own bag, boards and hand; the others' boards; the watering hole (spec
    5); every player under its name."""
    me = _player_of(state, name)
    return {"me": _shown(me, boards_only=False) if me is not None else None, "wateringHole": state.hole,
            "others": [_shown(p) for p in state.players if p is not me]}


def spectator_view(state: Table) -> Any:
    """Every player's boards, the watering hole and the size of the deck; no hands, and no
    bags until the game is over (then each player's bag and score, spec 3.9); every player
    under its name."""
    view = {"players": [_shown(p) for p in state.players], "wateringHole": state.hole, "deck": len(state.deck)}
    if state.over:
        view["scores"] = {_name(p): {"bag": p.bag, "score": score(p)} for p in state.players}
    return view


def vary_secret(state: Table, name: str, rng: random.Random) -> Table:
    """The same table with a different hand and bag for ``name``: its hand swapped for cards
    of the deck, its bag changed (while the game goes on: at its end the bags are public)."""
    varied = snapshot(state)
    me = _player_of(varied, name)
    if me is not None:
        pool = me.cards + varied.deck
        rng.shuffle(pool)
        me.cards, varied.deck = pool[:len(me.cards)], pool[len(me.cards):]
        if not state.over:
            me.bag += rng.randint(1, 9)
    return varied


def _baddie(kind: str) -> Callable[[str, int], Any]:
    return lambda _name, _seed: BaddiePlayer(kind, 0)


def conceal(state: Table, name: str | None) -> list[Any]:
    """The Configuration ``name`` (None: a spectator) may draw: every other player's bag
    unknown (None) until the game is over (then the scores are public, so are the bags)
    and its hand, like the deck, reduced to blank cards of the same count."""
    me = _player_of(state, name) if name is not None else None
    players = []
    for p in state.players:
        if p is me:
            players.append(encode_player(p))
        else:
            players.append([["id", p.id], ["species", encode_player(PlayerState(p.id, p.boards))[1][1]],
                            ["bag", p.bag if state.over else None], ["cards", [None] * len(p.cards)]])
    return [players, state.hole, [None] * len(state.deck)]


PERSON_LIMIT = 120.0
"""A person's time for one decision: a turn's card actions take reading a whole hand
against the boards (evolution.md's 1 s is for programs)."""


def _render(state: Any, caption: str) -> str:
    from gameroom.games.evolution.render import render_svg

    return render_svg(state if isinstance(state, list) else encode_configuration(state), caption)


def _person_moves() -> Callable[[str, tuple[Any, ...]], list[tuple[str, Any]] | None]:
    from gameroom.games.evolution.moves import PersonMoves

    return PersonMoves()


GAME: GameDescriptor[Table, Action4] = GameDescriptor(
    name="evolution",
    summary="Evolution, species, traits and a watering hole (3-8 players)",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    protocol=PROTOCOL,
    player_interface=PlayerInterface,
    strategies={"silly": lambda _name, _seed: SillyPlayer(),
                "silly-need": lambda _name, _seed: SillyPlayer("need")},
    misbehaviours={kind: _baddie(kind) for kind in BADDIES},
    deal=deal,
    play=play,
    limits=LIMITS,
    state_codec=STATE_CODEC,
    action_codec=ACTION4,
    views=SeatViews(seat=seat_view, spectator=spectator_view, vary_secret=vary_secret, conceal=conceal),
    **package_parts(__name__, render=_render),
    seat_moves=_person_moves,
    person_limit=PERSON_LIMIT,
    decision_words={"start": "take the turn's cards", "choose": "play cards: food, species, traits",
                    "feed_next": "feed a species"},
)
