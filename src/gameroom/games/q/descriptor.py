"""Q as the registry sees it (spec ``q.md``): the one :data:`GAME` descriptor."""

from __future__ import annotations

import random
from collections import deque
from typing import Any, Callable, Mapping, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.game import GameDescriptor, SeatViews
from gameroom.core.layout import package_parts
from gameroom.core.match import Seat
from gameroom.core.record import MatchResult
from gameroom.core.protocol import Codec
from gameroom.games.q import codec
from gameroom.games.q.actions import Action
from gameroom.games.q.actors import CHEAT_NAMES, EXN_METHODS
from gameroom.games.q.players import CheatingPlayer, LoopingPlayer, QPlayer, RaisingPlayer, StrategyPlayer
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.referee import LIMITS, STATE_CODEC, QRules, run_game
from gameroom.games.q.actions import PASS, REPLACE, Placement
from gameroom.games.q.rules import can_exchange, check_placements
from gameroom.games.q.state import PlayerRecord, PublicState, RefereeState, new_game
from gameroom.games.q.strategies import STRATEGIES

__all__ = ["GAME"]

def deal(seed: int, names: Sequence[str]) -> RefereeState:
    """The complete set shuffled by ``seed``, one tile on the map, six tiles per player."""
    return new_game(names, random.Random(seed))


def play(seed: int, seats: Sequence[Seat], context: MatchContext = NO_CONTEXT) -> MatchResult:
    """A game dealt from ``seed`` (the shuffled complete set), bonuses of q.md 8.3."""
    return run_game(seats, deal(seed, [seat.name for seat in seats]), context, rules=QRules(), own_state=True)


def _public_for(state: RefereeState, name: str) -> PublicState | None:
    """What the player called ``name`` may know: the JPub it would get as the active
    player; None when ``name`` is no longer in the game (ejected)."""
    at = next((i for i, r in enumerate(state.players) if r.name == name), None)
    if at is None:
        return None
    me = state.players[at]
    others = state.players[at + 1:] + state.players[:at]
    return PublicState(state.qmap, me.name, me.score, tuple(me.hand), tuple(r.score for r in others),
                       len(state.pile))


def seat_view(state: RefereeState, name: str) -> Any:
    """The seat's JPub; a seat no longer in the game (ejected) sees what a spectator sees."""
    public = _public_for(state, name)
    return spectator_view(state) if public is None else codec.encode_pub(public)


def spectator_view(state: RefereeState) -> Any:
    return {"map": codec.encode_map(state.qmap), "tile*": len(state.pile),
            "players": [{"name": r.name, "score": r.score, "tile*": len(r.hand)} for r in state.players]}


def vary_secret(state: RefereeState, name: str, rng: random.Random) -> RefereeState:
    """``state`` with only ``name``'s hand redrawn: its tiles go back to the pile (which no
    seat sees), the pile is shuffled and as many tiles are drawn again."""
    out = state.copy()
    record = next(r for r in out.players if r.name == name)
    pile = list(out.pile) + record.hand
    rng.shuffle(pile)
    record.hand, out.pile = pile[:len(record.hand)], deque(pile[len(record.hand):])
    return out


class Unseen:
    """Tiles nobody at this view may see: their number, and nothing to draw."""

    def __init__(self, count: int) -> None:
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Any:
        return iter(())


def conceal(state: RefereeState, name: str | None) -> RefereeState:
    """``state`` as ``name`` (None: a spectator) may draw it: the pile and every other
    player's hand reduced to their sizes."""
    players = [r.copy() if r.name == name else PlayerRecord(r.name, r.score, Unseen(len(r.hand)))  # type: ignore[arg-type]
               for r in state.players]
    return RefereeState(state.qmap, players, Unseen(len(state.pile)))  # type: ignore[arg-type]


def moves(method: str, args: tuple[Any, ...]) -> list[tuple[str, Any]] | None:
    """A person's legal turns: every tile of the hand on every coordinate where it fits
    (one tile per turn), an exchange when the pile allows it, and passing."""
    if method != "take_turn":
        return None
    pub: PublicState = args[0]
    offered: list[tuple[str, Any]] = []
    for tile in sorted(set(pub.hand)):
        for coord in sorted(pub.qmap.candidates(tile)):
            offered.append((f"place {tile} at row {coord[0]}, column {coord[1]}",
                            codec.encode_choice((Placement(coord, tile),))))
    if can_exchange(pub.pile_size, len(pub.hand)):
        offered.append(("replace all my tiles", "replace"))
    offered.append(("pass", "pass"))
    return offered


def check(method: str, args: tuple[Any, ...], answer: Any) -> str | None:
    """Why a person's whole turn (a decoded JChoice: several placements in a row, too) is
    illegal under the referee's own checks, or None."""
    if method != "take_turn":
        return f"{method} asks no decision"
    pub: PublicState = args[0]
    if answer is PASS:
        return None
    if answer is REPLACE:
        return None if can_exchange(pub.pile_size, len(pub.hand)) else \
            f"no exchange: the pile holds {pub.pile_size} tile(s), fewer than the hand's {len(pub.hand)}"
    return check_placements(pub.qmap, pub.hand, answer)


def _strategy(strategy: str) -> Callable[[str, int], StrategyPlayer]:
    return lambda name, _seed: StrategyPlayer(name, strategy)


def _misbehaving(kind: Callable[..., Any], *how: Any) -> Callable[[str, int], Any]:
    return lambda name, _seed: kind(name, "dag", *how)


def _misbehaviours() -> Mapping[str, Callable[[str, int], Any]]:
    table: dict[str, Callable[[str, int], Any]] = {}
    for method in EXN_METHODS:
        table[f"raise-in-{method}"] = _misbehaving(RaisingPlayer, method)
        table[f"loop-in-{method}"] = _misbehaving(LoopingPlayer, method, 1)
    for cheat in CHEAT_NAMES:
        table[f"cheat-{cheat}"] = _misbehaving(CheatingPlayer, cheat)
    return table


PERSON_LIMIT = 120.0
"""A person's time for one turn: placing several tiles means looking over the map and
trying cells (q.md's 6 s is for programs)."""


GAME: GameDescriptor[RefereeState, Action] = GameDescriptor(
    name="q",
    summary="Q, a Qwirkle-like tile game (2-4 players)",
    min_players=2,
    max_players=4,
    protocol=PROTOCOL,
    player_interface=QPlayer,
    strategies={name: _strategy(name) for name in STRATEGIES},
    misbehaviours=_misbehaviours(),
    deal=deal,
    play=play,
    limits=LIMITS,
    state_codec=STATE_CODEC,
    action_codec=Codec(codec.encode_choice, codec.decode_choice, "JChoice"),
    views=SeatViews(seat=seat_view, spectator=spectator_view, vary_secret=vary_secret, conceal=conceal),
    **package_parts(__name__),
    moves=moves,
    check=check,
    person_limit=PERSON_LIMIT,
    decision_words={"take_turn": "place tiles, replace the hand or pass"},
)
