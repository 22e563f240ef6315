"""The Evolution dealer on ``core.match`` (spec 3, 4, 8.3): every call to a player through
the one safe-call path with the per-call limit (1 s by default), removal of a misbehaving
player at once (also in the middle of the feeding cycle), observers told of every turn
without pausing the game, and the ranking of spec 3.9.

Observers receive ``core.record`` events: ``state`` at the start of every turn (note
``event="turn"``: spec 8.3's observer), after every step a person would want to see
(``event`` ``dealt``, ``chose``, ``feeding``, ``fed`` or ``cleanup``, with the ``player``
id where one acted; the caption says who did what) and once at the end naming the winners
(``event="over"``; its table is marked ``over``, so the bags are shown to all). The subject
is a copy of the dealer's :class:`Table`, encoded through :data:`STATE_CODEC` as the
Configuration JSON of spec 8.3, players with their cards. A ``state`` without a state
reports each removal (notes ``event="removed"``, the player's ``player`` id and
``reason``: remote players' names need not be distinct, their ids are); then every call
and ejection, and the ``end`` with the result.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat
from gameroom.core.protocol import Codec
from gameroom.core.record import Ejection, MatchResult
from gameroom.games.evolution.dealer import Dealer
from gameroom.games.evolution.pieces import CALL_TIME_LIMIT, EXTINCTION_CARDS, Card, sorted_deck
from gameroom.games.evolution.protocol import PROTOCOL
from gameroom.games.evolution.rules import PlayerState, Table
from gameroom.games.evolution.codec import decode_configuration, encode_configuration

__all__ = ["EvolutionResult", "LIMITS", "run_game", "player_ids", "snapshot", "STATE_CODEC"]

LIMITS = Limits(call=CALL_TIME_LIMIT, signup_first_byte=5.0, signup_complete=5.0)
"""Evolution's limits (spec 8.2): per call, and for a sign-up name."""


def _decode_table(value: Any) -> Table:
    players, hole, deck = decode_configuration(value)
    return Table(players, hole, deck)


STATE_CODEC: Codec[Table] = Codec(encode_configuration, _decode_table, "Configuration")
"""The dealer's table as the Configuration JSON of spec 8.3 / 10.1."""


def snapshot(table: Table, over: bool = False) -> Table:
    """A copy of the table (players' boards, bags and hands, the watering hole, the deck)
    that the game going on cannot change; ``over`` marks the game's last one."""
    players = [PlayerState(p.id, [s.copy() for s in p.boards], p.bag, list(p.cards)) for p in table.players]
    return Table(players, table.hole, list(table.deck), table.extinction_cards, over or table.over)


@dataclass
class EvolutionResult(MatchResult):
    """The match's result (by seat name) plus what is Evolution's: ``(rank, id, score)``
    per remaining player (the spec's result lines), the removed players' ejections by
    player id in order (names need not be distinct, ids are), the number of turns started
    and the seat of each player id."""

    results: list[tuple[int, str, int]] = field(default_factory=list)
    removals: list[Ejection] = field(default_factory=list)
    turns: int = 0
    ids: dict[str, Seat] = field(default_factory=dict)


def player_ids(seats: Sequence[Seat]) -> list[str]:
    """``"<name>#<i+1>"`` for the seat at position i (spec 3.1)."""
    return [f"{seat.name}#{i + 1}" for i, seat in enumerate(seats)]


def run_game(seats: Sequence[Seat], deck: list[Card] | None = None, *, extinction_cards: int = EXTINCTION_CARDS,
             limits: Limits = LIMITS, observers: Iterable[Any] = (), log: Callable[[str], None] | None = None,
             cancel: threading.Event | None = None) -> EvolutionResult:
    """Play one game between the seats (turn order = their order) with the deck (default:
    the sorted deck): the deck is Evolution's starting state."""
    time_limit = limits.call
    # The match records ejections by seat name; the log and ``failures`` name player ids,
    # since remote players' names need not be distinct.
    match = Match(PROTOCOL, seats, time_limit, observers, state_codec=STATE_CODEC, cancel=cancel)
    ids = player_ids(seats)
    players = [PlayerState(pid, seat=seat) for pid, seat in zip(ids, seats)]
    failures: list[Ejection] = []

    def removed(player: PlayerState) -> None:
        ejection = match.ejections[-1]
        failure = Ejection(player.id, ejection.method, ejection.kind, ejection.reason)
        failures.append(failure)
        if log is not None:
            log(f"{failure} [time limit {time_limit:g} s]" if time_limit else str(failure))
        match.state(None, f"{player.id} is removed: {failure.reason}", event="removed", player=player.id,
                    reason=failure.reason)

    def call(player: PlayerState, method: str, args: tuple) -> Any:
        result = match.call(player.seat, method, *args)
        if result is FAILED:
            removed(player)
        return result

    def reject(player: PlayerState, method: str, reason: str) -> None:
        match.eject(player.seat, reason, PROTOCOL.by_name[method].wire)
        removed(player)

    dealer = Dealer(players, sorted_deck() if deck is None else list(deck), call, reject,
                    extinction_cards=extinction_cards)
    if match.observers:
        dealer.on_turn = lambda d: match.state(
            snapshot(d), f"turn {d.turn} begins: {', '.join(str(p.id) for p in d.players)} in turn order",
            event="turn", turn=d.turn)
        dealer.on_step = lambda d, kind, p, words: match.state(
            snapshot(d), f"{p.id} {'plays ' if kind == 'chose' else ''}{words}" if p is not None else words,
            event=kind, turn=d.turn, **({"player": p.id} if p is not None else {}))
    results = dealer.play()
    by_id = dict(zip(ids, seats))
    top = results[0][2] if results else None
    if match.observers:
        best = [pid for _rank, pid, points in results if points == top]
        match.state(snapshot(dealer, over=True),
                    f"game over after {dealer.turn} turn(s): {'winner' if len(best) == 1 else 'winners'} "
                    f"{', '.join(map(str, best)) or 'none'} ("
                    + ", ".join(f"{pid} {points}" for _rank, pid, points in results) + ")",
                    event="over", turns=dealer.turn)
    ranks: dict[int, list[str]] = {}
    for rank, pid, _points in results:
        ranks.setdefault(rank, []).append(by_id[pid].name)
    outcome = match.result(sorted(by_id[pid].name for _rank, pid, points in results if points == top),
                           ranking=[ranks[r] for r in sorted(ranks)],
                           scores={by_id[pid].name: points for _rank, pid, points in results})
    return EvolutionResult(**vars(outcome), results=results, removals=failures, turns=dealer.turn, ids=by_id)
