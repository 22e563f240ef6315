"""The Evolution test harnesses of spec 10 as pure functions from the JSON values read on
standard input to the values to print.

``xattack``, ``xfeed``, ``xsilly``, ``xstep`` and ``xstep4`` are the course's harnesses;
``xgame`` plays a whole game with a per-turn trace and ``xmain`` prints the result lines
of a sorted-deck game between n silly players. Bad input raises ``WireError``.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable

from gameroom.core.record import STATE, Event
from gameroom.core.wire import PlainText, WireError, describe, expect_list
from gameroom.games.evolution.actions import apply_action
from gameroom.games.evolution.dealer import Dealer
from gameroom.games.evolution.pieces import CARD_SET, MAX_PLAYERS, MIN_PLAYERS, sorted_deck
from gameroom.games.evolution.referee import STATE_CODEC, snapshot
from gameroom.games.evolution.rules import PlayerState, attackable, player_id
from gameroom.games.evolution.players import XGAME_KINDS, BaddiePlayer, SillyFailed, SillyPlayer, silly_choice, silly_feeding
from gameroom.games.evolution.codec import (decode_action4, decode_cards, decode_configuration,
                                           decode_lob, decode_natural, decode_player, decode_players,
                                           decode_species, encode_action4, encode_configuration,
                                           encode_feeding_choice, encode_harness_action4)

__all__ = ["HARNESSES", "result_lines", "xattack", "xfeed", "xsilly", "xstep", "xstep4", "xgame", "xmain",
           "decode_player_count", "silly_game"]


def result_lines(results: Iterable[tuple[int, Any, int]]) -> list[str]:
    """The runners' result lines (spec 3.9)."""
    return ["results", "-" * 24] + [f"{rank} player id: {pid} score: {score}" for rank, pid, score in results]


def _opt_species(value: Any, where: str) -> Any:
    return None if value is False else decode_species(value, where)


def xattack(value: Any) -> list[Any]:
    """``[defender, attacker, left, right]`` -> whether the defender is attackable."""
    items = expect_list(value, "$", 4, 4)
    defender = decode_species(items[0], "$[0]")
    attacker = decode_species(items[1], "$[1]")
    return [attackable(defender, attacker, _opt_species(items[2], "$[2]"), _opt_species(items[3], "$[3]"))]


def xfeed(value: Any) -> list[Any]:
    """``[Player, food, [Player, ...]]`` -> the silly feeding choice, or nothing."""
    items = expect_list(value, "$", 3, 3)
    player = decode_player(items[0], "$[0]")
    hole = decode_natural(items[1], "$[1]", low=1)
    others = decode_players(items[2], "$[2]")
    try:
        choice = silly_feeding(player.boards, hole, [o.boards for o in others])
    except SillyFailed:
        return []
    return [encode_feeding_choice(choice)]


def xsilly(value: Any) -> list[Any]:
    """``[Player+, LOB, LOB]`` -> the silly Action4 in harness form, or nothing."""
    items = expect_list(value, "$", 3, 3)
    player = decode_player(items[0], "$[0]")
    decode_lob(items[1], "$[1]")
    decode_lob(items[2], "$[2]")
    try:
        return [encode_harness_action4(silly_choice(player.boards, player.cards))]
    except SillyFailed:
        return []


def _silly_dealer(value: Any, where: str) -> Dealer:
    players, hole, deck = decode_configuration(value, where)
    for p in players:
        p.seat = SillyPlayer()
    return Dealer(players, deck, hole=hole)


def xstep(value: Any) -> list[Any]:
    """A Configuration -> the Configuration after one FEED1 of its first player."""
    dealer = _silly_dealer(value, "$")
    if dealer.players:
        dealer.feed1(deque(dealer.players))
    return [encode_configuration(dealer)]


def xstep4(value: Any) -> list[Any]:
    """``[Configuration, [Action4, ...]]`` -> the Configuration after step 4 (card actions
    applied without validation, then the whole feeding phase)."""
    items = expect_list(value, "$", 2, 2)
    dealer = _silly_dealer(items[0], "$[0]")
    actions = [decode_action4(a, f"$[1][{i}]", tagged=True) for i, a in enumerate(expect_list(items[1], "$[1]"))]
    if len(actions) != len(dealer.players):
        raise WireError(f"expected one Action4 per player ({len(dealer.players)}), got {len(actions)}", "$[1]")
    for i, (p, action) in enumerate(zip(dealer.players, actions)):
        try:
            value_of_food = apply_action(action, p.boards, p.cards)[0]
        except IndexError:
            raise WireError("the Action4 refers to a card or board that does not exist", f"$[1][{i}]") from None
        dealer.hole = max(0, dealer.hole + value_of_food)
    dealer.feeding_phase()
    return [encode_configuration(dealer)]


def decode_player_count(value: Any, where: str = "$") -> int:
    if type(value) is not int or not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise WireError(f"expected a number of players in {MIN_PLAYERS}..{MAX_PLAYERS}, got {describe(value)}",
                        where)
    return value


def _player_of(kind: Any, where: str) -> Any:
    if kind == "silly":
        return SillyPlayer()
    items = expect_list(kind, where, 2, 2)
    if items[0] not in XGAME_KINDS:
        raise WireError(f'expected "silly" or [kind, k] with kind one of {", ".join(XGAME_KINDS)}, '
                        f"got {describe(kind)}", where)
    return BaddiePlayer(XGAME_KINDS[items[0]], decode_natural(items[1], f"{where}[1]"))


def _full_deck(value: Any, where: str) -> list:
    deck = decode_cards(value, where)
    if len(deck) != len(CARD_SET) or set(deck) != CARD_SET:
        raise WireError("expected all 122 cards, each once", where)
    return deck


def silly_game(players: list[Any], deck: list, observers: Iterable[Any] = ()) -> Dealer:
    """A dealer for built-in players named "0", "1", ... with ids "<i>#<i+1>"; observers
    get a ``state`` event (a copy of the table) at the start of every turn (for ``--show``)."""
    states = [PlayerState(player_id(str(i), i), seat=player) for i, player in enumerate(players)]
    dealer = Dealer(states, deck)
    watchers = list(observers)
    if watchers:
        def show(d: Dealer) -> None:
            table = snapshot(d)
            event = Event(STATE, {"caption": f"turn {d.turn}"}, subject=table,
                          encode=lambda: {"state": STATE_CODEC.encode(table)})
            for observer in watchers:
                observer(event)
        dealer.on_turn = show
    return dealer


def xgame(value: Any, observers: Iterable[Any] = ()) -> list[Any]:
    """``n`` or ``[[Kind, ...], Cards]`` -> ``[Turns, Results]`` (spec 10.8)."""
    if type(value) is int:
        players: list[Any] = [SillyPlayer() for _ in range(decode_player_count(value))]
        deck = sorted_deck()
    else:
        items = expect_list(value, "$", 2, 2)
        kinds = expect_list(items[0], "$[0]", MIN_PLAYERS, MAX_PLAYERS)
        players = [_player_of(kind, f"$[0][{i}]") for i, kind in enumerate(kinds)]
        deck = _full_deck(items[1], "$[1]")
    dealer = silly_game(players, deck, observers)
    turns: list[list[Any]] = []
    show = dealer.on_turn

    def on_turn(d: Dealer) -> None:
        turns.append([d.turn, [], None, None])
        if show is not None:
            show(d)

    def on_fed(d: Dealer) -> None:
        turns[-1][2] = encode_configuration(d)

    def on_end(d: Dealer) -> None:
        turns[-1][1] = [encode_action4(a) for a in d.actions]
        turns[-1][3] = encode_configuration(d)

    dealer.on_turn, dealer.on_fed, dealer.on_end = on_turn, on_fed, on_end
    results = dealer.play()
    return [[turns, [list(r) for r in results]]]


def xmain(value: Any, observers: Iterable[Any] = ()) -> list[Any]:
    """``n`` -> the result lines of a sorted-deck game between n silly players."""
    n = decode_player_count(value)
    dealer = silly_game([SillyPlayer() for _ in range(n)], sorted_deck(), observers)
    return [PlainText("\n".join(result_lines(dealer.play())))]


def _each(harness: Callable[[Any], list[Any]]) -> Callable[[list[Any]], list[Any]]:
    def run(inputs: list[Any]) -> list[Any]:
        out: list[Any] = []
        for value in inputs:
            out += harness(value)
        return out
    run.__name__ = harness.__name__
    run.__doc__ = harness.__doc__
    return run


def _each_game(harness: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
    """Like ``_each`` for the whole-game harnesses, which take observers (``--show``)."""
    def run(inputs: list[Any], observers: Iterable[Any] = ()) -> list[Any]:
        out: list[Any] = []
        for value in inputs:
            out += harness(value, observers)
        return out
    run.__name__ = harness.__name__
    run.__doc__ = harness.__doc__
    return run


HARNESSES: dict[str, Callable[..., list[Any]]] = {
    **{name: _each(fn) for name, fn in (("xattack", xattack), ("xfeed", xfeed), ("xsilly", xsilly),
                                        ("xstep", xstep), ("xstep4", xstep4))},
    "xgame": _each_game(xgame),
    "xmain": _each_game(xmain),
}
