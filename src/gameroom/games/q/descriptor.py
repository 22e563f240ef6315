"""Q as the registry sees it (spec ``q.md``): the one :data:`GAME` descriptor."""

from __future__ import annotations

import random
from collections import deque
from typing import Any, Callable, Iterable, Mapping, Sequence

from gameroom.core.game import GameDescriptor, SeatViews
from gameroom.core.limits import Limits
from gameroom.core.match import Outcome, Seat
from gameroom.core.protocol import Codec
from gameroom.games.q import codec
from gameroom.games.q.actors import CHEAT_NAMES, EXN_METHODS
from gameroom.games.q.players import CheatingPlayer, LoopingPlayer, RaisingPlayer, StrategyPlayer
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.referee import DEFAULT_TIME_LIMIT, QRules, run_game
from gameroom.games.q.state import PublicState, RefereeState, new_game
from gameroom.games.q.strategies import STRATEGIES

__all__ = ["GAME"]

LIMITS = Limits(call=DEFAULT_TIME_LIMIT, signup_first_byte=2.0, signup_complete=2.0)


def deal(seed: int, names: Sequence[str]) -> RefereeState:
    """The complete set shuffled by ``seed``, one tile on the map, six tiles per player."""
    return new_game(names, random.Random(seed))


def play(seed: int, seats: Sequence[Seat], *, limits: Limits | None = None, observers: Iterable[Any] = (),
         log: Callable[[str], None] | None = None) -> Outcome:
    """A game dealt from ``seed`` (the shuffled complete set), bonuses of q.md 8.3."""
    state = deal(seed, [seat.name for seat in seats])
    return run_game(state, seats, QRules(), (limits or LIMITS).call, observers, log)


def _public_for(state: RefereeState, name: str) -> PublicState:
    """What the player called ``name`` may know: the JPub it would get as the active player."""
    at = next(i for i, r in enumerate(state.players) if r.name == name)
    me = state.players[at]
    others = state.players[at + 1:] + state.players[:at]
    return PublicState(state.qmap, me.name, me.score, tuple(me.hand), tuple(r.score for r in others),
                       len(state.pile))


def seat_view(state: RefereeState, name: str) -> Any:
    return codec.pub_to_json(_public_for(state, name))


def spectator_view(state: RefereeState) -> Any:
    return {"map": codec.map_to_json(state.qmap), "tile*": len(state.pile),
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


def _strategy(strategy: str) -> Callable[[str, int], StrategyPlayer]:
    return lambda name, _seed: StrategyPlayer(name, strategy)


def _misbehaviours() -> Mapping[str, Callable[[str, int], Any]]:
    table: dict[str, Callable[[str, int], Any]] = {}
    for method in EXN_METHODS:
        table[f"raise-in-{method}"] = lambda name, _seed, m=method: RaisingPlayer(name, "dag", m)
        table[f"loop-in-{method}"] = lambda name, _seed, m=method: LoopingPlayer(name, "dag", m, 1)
    for cheat in CHEAT_NAMES:
        table[f"cheat-{cheat}"] = lambda name, _seed, c=cheat: CheatingPlayer(name, "dag", c)
    return table


def _harnesses() -> Mapping[str, Any]:
    from gameroom.games.q import games_harness, harness

    return {**harness.HARNESSES, **games_harness.HARNESSES}


def _render(state: RefereeState, caption: str) -> str:
    from gameroom.games.q.render import render_svg

    return render_svg(state, caption)


GAME = GameDescriptor(
    name="q",
    summary="Q, a Qwirkle-like tile game (2-4 players)",
    min_players=2,
    max_players=4,
    protocol=PROTOCOL,
    strategies={name: _strategy(name) for name in STRATEGIES},
    misbehaviours=_misbehaviours(),
    deal=deal,
    play=play,
    limits=LIMITS,
    state_codec=Codec(codec.state_to_json, codec.state_from_json, "JState"),
    action_codec=Codec(codec.choice_to_json, codec.choice_from_json, "JChoice"),
    views=SeatViews(seat=seat_view, spectator=spectator_view, vary_secret=vary_secret),
    render=_render,
    harnesses=_harnesses,
    commands="gameroom.cli.q",
    benchmark="gameroom.bench.q",
)
