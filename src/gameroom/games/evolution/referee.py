"""The Evolution dealer on ``core.match`` (spec 3, 4, 8.3): every call to a player through
the core's referee skeleton (:meth:`gameroom.core.match.Match.decide`: the per-call limit,
1 s by default, and the dealer's checks of each answer), removal of a misbehaving player at
once (also in the middle of the feeding cycle), observers told of every turn without
pausing the game, and the ranking of spec 3.9.

Players are seats, their identity; the spec's player ids (``"<name>#<i+1>"``, spec 3.1)
are derived from the seats for what the spec prints: the result lines and the log.
Observers receive ``core.record`` events: ``state`` at the start of every turn (note
``event="turn"``: spec 8.3's observer), after every step a person would want to see
(``event`` ``dealt``, ``chose``, ``feeding``, ``fed`` or ``cleanup``, with the ``player``
id where one acted; the caption says who did what) and once at the end naming the winners
(``event="over"``; its table is marked ``over``, so the bags are shown to all). The subject
is a copy of the dealer's :class:`Table`, encoded through :data:`STATE_CODEC` as the
Configuration JSON of spec 8.3, players with their cards. A ``state`` without a state
reports each removal (notes ``event="removed"``, the player's ``player`` id and
``reason``); then every call and ejection, and the ``end`` with the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import Match, Seat
from gameroom.core.protocol import Codec
from gameroom.core.record import Ejection, MatchResult
from gameroom.games.evolution.dealer import Dealer
from gameroom.games.evolution.pieces import CALL_TIME_LIMIT, EXTINCTION_CARDS, Card, sorted_deck
from gameroom.games.evolution.protocol import PROTOCOL
from gameroom.games.evolution.rules import PlayerState, Table, player_id
from gameroom.games.evolution.codec import decode_configuration, encode_configuration

__all__ = ["EvolutionResult", "LIMITS", "run_game", "snapshot", "STATE_CODEC"]

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
    """The match's result (by seat) plus what is Evolution's: the number of turns started
    and, derived from the seats, the spec's result lines."""

    turns: int = 0

    @property
    def results(self) -> list[tuple[int, str, int]]:
        """``(rank, id, score)`` per remaining player, best first: the result lines of spec 3.9."""
        return [(rank, player_id(self.names[seat], seat), self.seat_scores[seat])
                for rank, group in enumerate(self.ranking_seats, 1) for seat in group]


def run_game(seats: Sequence[Seat], deck: list[Card] | None = None, context: MatchContext = NO_CONTEXT, *,
             extinction_cards: int = EXTINCTION_CARDS) -> EvolutionResult:
    """Play one game between the seats (turn order = their order) with the deck (default:
    the sorted deck): the deck is Evolution's starting state."""
    time_limit = context.limits_or(LIMITS).call
    ids = [player_id(seat.name, i) for i, seat in enumerate(seats)]

    def line(ejection: Ejection) -> str:
        """The removal's line as the dealer says it (by player id, with the limit)."""
        said = f"{ids[ejection.seat]} dropped out on {ejection.method}: {ejection.reason}"
        return f"{said} [time limit {time_limit:g} s]" if time_limit else said

    def removed(ejection: Ejection) -> None:
        """Tell the observers of the removal."""
        match.state(None, f"{ids[ejection.seat]} is removed: {ejection.reason}", event="removed",
                    player=ids[ejection.seat], reason=ejection.reason)

    match = Match(PROTOCOL, seats, context, limits=LIMITS, state_codec=STATE_CODEC, on_eject=removed,
                  ejection_line=line)
    dealer = Dealer([PlayerState(pid, seat=seat) for pid, seat in zip(ids, seats)],
                    sorted_deck() if deck is None else list(deck), match.decide, extinction_cards=extinction_cards)
    if match.observers:
        dealer.on_turn = lambda d: match.state(
            snapshot(d), f"turn {d.turn} begins: {', '.join(str(p.id) for p in d.players)} in turn order",
            event="turn", turn=d.turn)
        dealer.on_step = lambda d, kind, p, words: match.state(
            snapshot(d), f"{p.id} {'plays ' if kind == 'chose' else ''}{words}" if p is not None else words,
            event=kind, turn=d.turn, **({"player": p.id} if p is not None else {}))
    results = dealer.play()
    top = results[0][2] if results else None
    if match.observers:
        best = [pid for _rank, pid, points in results if points == top]
        match.state(snapshot(dealer, over=True),
                    f"game over after {dealer.turn} turn(s): {'winner' if len(best) == 1 else 'winners'} "
                    f"{', '.join(map(str, best)) or 'none'} ("
                    + ", ".join(f"{pid} {points}" for _rank, pid, points in results) + ")",
                    event="over", turns=dealer.turn)
    seat_of = {pid: i for i, pid in enumerate(ids)}
    outcome = match.result(match.by_name(seat_of[pid] for _rank, pid, points in results if points == top),
                           ranking=[[seat_of[pid]] for _rank, pid, _points in results],
                           scores={seat_of[pid]: points for _rank, pid, points in results})
    return EvolutionResult(**vars(outcome), turns=dealer.turn)
