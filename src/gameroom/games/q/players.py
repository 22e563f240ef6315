"""Q players: the interface a referee calls, the built-in strategy player, and the
misbehaving players of the spec (section 9: exception raisers, loopers, cheaters).

Players are plain objects with the methods ``name``, ``setup``, ``take_turn``,
``new_tiles`` and ``win``. Built-in players are pure computation; only the loopers block
(through ``gameroom.core.misbehaviour.hang``) and must therefore be called through a
timed caller, never directly.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from gameroom.core.misbehaviour import CallCounter, PlayerMisbehaved, hang, misbehaves_through
from gameroom.games.q.actions import Action
from gameroom.games.q.actors import ActorSpec
from gameroom.games.q.cheats import CHEATS
from gameroom.games.q.protocol import PROTOCOL
from gameroom.games.q.state import PublicState
from gameroom.games.q.strategies import STRATEGIES, iterate
from gameroom.games.q.pieces import Tile

__all__ = ["QPlayer", "StrategyPlayer", "RaisingPlayer", "LoopingPlayer", "CheatingPlayer",
           "player_from_spec", "is_well_behaved"]


class QPlayer(Protocol):
    """The logical player interface of q.md section 5."""

    def name(self) -> str: ...
    def setup(self, pub: PublicState, tiles: Sequence[Tile]) -> None: ...
    def take_turn(self, pub: PublicState) -> Action: ...
    def new_tiles(self, tiles: Sequence[Tile]) -> None: ...
    def win(self, won: bool) -> None: ...


class StrategyPlayer:
    """The built-in player: takes turns by iterating a strategy over the public state."""

    def __init__(self, name: str, strategy: str = "dag") -> None:
        self._name = name
        self.strategy = strategy
        self._step = STRATEGIES[strategy]
        self.tiles: list[Tile] = []
        self.won: bool | None = None

    def name(self) -> str:
        return self._name

    def setup(self, pub: PublicState, tiles: Sequence[Tile]) -> None:
        self.tiles = list(tiles)

    def take_turn(self, pub: PublicState) -> Action:
        return iterate(self._step, pub)

    def new_tiles(self, tiles: Sequence[Tile]) -> None:
        return None

    def win(self, won: bool) -> None:
        self.won = won


@misbehaves_through(PROTOCOL)
class _Misbehaving(StrategyPlayer):
    """A built-in player that does each method's normal work, then ``_misbehave``s (the
    methods are derived from the protocol table)."""

    def _after(self, wire: str, answer: Any, _args: tuple[Any, ...]) -> Any:
        self._misbehave(wire)
        return answer

    def _misbehave(self, method: str) -> None:
        raise NotImplementedError


class RaisingPlayer(_Misbehaving):
    """Does the normal work of ``method``, then raises — on its first call (9.4)."""

    def __init__(self, name: str, strategy: str, method: str) -> None:
        super().__init__(name, strategy)
        self.method = method

    def _misbehave(self, method: str) -> None:
        if method == self.method:
            raise PlayerMisbehaved(f"{self._name} raises in {method} on purpose")


class LoopingPlayer(_Misbehaving):
    """Does the normal work of ``method``; on its k-th call it then never returns (9.4)."""

    def __init__(self, name: str, strategy: str, method: str, count: int) -> None:
        super().__init__(name, strategy)
        self.method = method
        self.count = count
        self.calls = CallCounter()

    def setup(self, pub: PublicState, tiles: Sequence[Tile]) -> None:
        self.calls.reset()   # counting starts at the start of the game
        super().setup(pub, tiles)

    def _misbehave(self, method: str) -> None:
        if method == self.method and self.calls.tick(method) == self.count:
            hang()


class CheatingPlayer(StrategyPlayer):
    """Computes (and discards) the normal turn, then cheats when the cheat is possible (9.3)."""

    def __init__(self, name: str, strategy: str, cheat: str) -> None:
        super().__init__(name, strategy)
        self.cheat = cheat
        self._cheat = CHEATS[cheat]

    def take_turn(self, pub: PublicState) -> Action:
        normal = super().take_turn(pub)
        cheat = self._cheat(pub)
        return normal if cheat is None else cheat


def player_from_spec(spec: ActorSpec) -> StrategyPlayer:
    """The player an actor specification describes."""
    if spec.loop_count is not None and spec.exn is not None:
        return LoopingPlayer(spec.name, spec.strategy, spec.exn, spec.loop_count)
    if spec.exn is not None:
        return RaisingPlayer(spec.name, spec.strategy, spec.exn)
    if spec.cheat is not None:
        return CheatingPlayer(spec.name, spec.strategy, spec.cheat)
    return StrategyPlayer(spec.name, spec.strategy)


def is_well_behaved(spec: ActorSpec) -> bool:
    """Only plain strategy players may be called directly, without a time limit."""
    return spec.exn is None and spec.cheat is None and spec.loop_count is None
