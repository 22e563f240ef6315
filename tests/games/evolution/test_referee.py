"""The Evolution dealer on core.match (evolution.md 3, 4, 8.3): a whole sorted-deck game,
every in-game baddie removed with its reason (also in the middle of the feeding cycle),
observers, and hidden information: no message to a player carries another player's cards
or food bag."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, guarded_seat, trusted_seat
from gameroom.core.record import EJECT, END, STATE, Event
from gameroom.games.evolution.dealer import Dealer
from gameroom.games.evolution.pieces import shuffled_deck
from gameroom.games.evolution.protocol import PROTOCOL
from gameroom.games.evolution.referee import run_game
from gameroom.games.evolution.rules import PlayerState, player_id
from gameroom.games.evolution.players import BADDIES, BaddiePlayer, SillyPlayer


def silly_seats(n: int) -> list:
    return [trusted_seat(str(i), SillyPlayer()) for i in range(n)]


def test_the_first_sorted_game_of_the_spec() -> None:
    result = run_game(silly_seats(3))
    assert result.turns == 6
    assert result.results == [(1, "2#3", 7), (2, "1#2", 7), (3, "0#1", 5)]
    assert result.ejections == []


def test_choose_baddies_are_removed_at_their_first_bad_call() -> None:
    seats = silly_seats(3) + [guarded_seat(name, BaddiePlayer(name, 0)) for name in ("over", "no-fc", "cinf")]
    result = run_game(seats, context=MatchContext(limits=Limits(call=0.3)))
    removed = {player_id(f.name, f.seat): f for f in result.ejections}
    assert set(removed) == {"over#4", "no-fc#5", "cinf#6"}
    assert all(f.method == "choose" for f in result.ejections)
    assert "invalid action" in removed["over#4"].reason
    assert "invalid reply" in removed["no-fc#5"].reason
    assert "time limit" in removed["cinf#6"].reason
    ranked = {pid for _rank, pid, _score in result.results}
    assert ranked == {"0#1", "1#2", "2#3"}


def _first_feed_question(seed: int) -> bool:
    """Whether a game on this shuffled deck ever asks a player to feed (>= 2 possibilities)."""
    asked = []

    class Asked(SillyPlayer):
        def feed_next(self, *args: Any) -> Any:
            asked.append(1)
            return super().feed_next(*args)

    run_game([trusted_seat(str(i), Asked()) for i in range(4)], shuffled_deck(seed), context=MatchContext(limits=Limits()))
    return bool(asked)


def test_feeding_baddies_are_removed_in_the_middle_of_feeding() -> None:
    seed = next(s for s in range(100) if _first_feed_question(s))
    for name in ("feed", "finf"):
        seats = [guarded_seat(name, BaddiePlayer(name, 0))] + [guarded_seat(f"s{i}", BaddiePlayer(name, 0))
                                                               for i in range(3)]
        result = run_game(seats, shuffled_deck(seed), context=MatchContext(limits=Limits(call=0.3)))
        assert result.ejections, name
        assert all(f.method == "feedNext" for f in result.ejections)
        expected = "not possible" if name == "feed" else "time limit"
        assert all(expected in f.reason for f in result.ejections)
        ranked = {pid for _rank, pid, _score in result.results}
        assert not ranked & {player_id(f.name, f.seat) for f in result.ejections}


class Watcher:
    def __init__(self) -> None:
        self.states: list[Any] = []
        self.over: Any = None

    def __call__(self, event: Event) -> None:
        if event.kind == STATE:
            self.states.append((event.get("caption"), event.get("state"), event.get("event")))
        elif event.kind == END:
            self.over = event.subject


def broken(_event: Event) -> None:
    raise RuntimeError("observer bug")


def test_observers_see_every_turn_and_cannot_stop_the_game() -> None:
    watcher = Watcher()
    result = run_game(silly_seats(4), context=MatchContext(observers=[broken, watcher]))
    kinds = [kind for _caption, _state, kind in watcher.states]
    assert kinds.count("turn") == result.turns and kinds[-1] == "over" and kinds.count("over") == 1
    # a picture at every step: the cards dealt, each player's actions, each feeding, cleanup
    assert kinds.count("dealt") == kinds.count("cleanup") == result.turns
    assert kinds.count("chose") == 4 * result.turns and "fed" in kinds
    assert watcher.states[0][0] == "turn 1 begins: 0#1, 1#2, 2#3, 3#4 in turn order"
    winners = [pid for _rank, pid, score in result.results if score == result.results[0][2]]
    assert watcher.states[-1][0].startswith(f"game over after {result.turns} turn(s): winners {', '.join(winners)} (")
    first = watcher.states[0][1]
    assert [p[0][1] for p in first[0]] == ["0#1", "1#2", "2#3", "3#4"] and first[1] == 0
    assert watcher.over.to_record() == result.to_record()
    assert watcher.over.scores == {pid.split("#")[0]: score for _rank, pid, score in result.results}
    assert [group for group in watcher.over.ranking] == [[pid.split("#")[0]] for _r, pid, _s in result.results]


def test_removals_are_told_by_player_id_and_ejections_by_seat_name() -> None:
    watcher: list[Event] = []
    seats = silly_seats(3) + [guarded_seat("over", BaddiePlayer("over", 0))]
    result = run_game(seats, context=MatchContext(limits=Limits(call=0.3), observers=[watcher.append]))
    removals = [e for e in watcher if e.kind == STATE and e.get("event") == "removed"]
    assert [(e.get("player"), e.subject) for e in removals] == [("over#4", None)]
    assert [e.get("seat") for e in watcher if e.kind == EJECT] == ["over"]
    assert result.misbehaved == ["over"]
    assert [player_id(f.name, f.seat) for f in result.ejections] == ["over#4"]


def _cards_in(value: Any) -> list[tuple]:
    found = []
    if isinstance(value, list):
        if len(value) == 2 and type(value[0]) is int and isinstance(value[1], str):
            return [(value[0], value[1])]
        for item in value:
            found += _cards_in(item)
    return found


@settings(max_examples=30)
@given(players=st.integers(3, 8), seed=st.integers(0, 10_000), baddie=st.sampled_from([None, *BADDIES]))
def test_no_message_carries_another_players_cards_or_bag(players: int, seed: int, baddie: str | None) -> None:
    seen = {"calls": 0}

    class Seated:   # what the dealer's decide gets: the player and, for the checks, its state
        def __init__(self, state: PlayerState, player: Any) -> None:
            self.state, self.player = state, player

    def call(seat: Seated, method: str, *args: Any, legal: Any = None) -> Any:
        p = seat.state
        spec = PROTOCOL.by_name[method]
        message = json.loads(json.dumps(PROTOCOL.envelope.encode_call(spec, args)))
        own = set(p.cards)
        for card in _cards_in(message):
            assert card in own, f"{method} to {p.id} carries {card}, not in its hand"
        assert "bag" not in json.dumps(message)
        if method in ("start", "feed_next"):
            assert args[0 if method == "feed_next" else 1] == p.bag
            assert list(args[3 if method == "start" else 2]) == p.cards
        seen["calls"] += 1
        try:
            answer = getattr(seat.player, method)(*args)
        except Exception:
            return FAILED
        return answer if legal is None or legal(answer) is None else FAILED

    states = [PlayerState(str(i)) for i in range(players)]
    for i, state in enumerate(states):
        bad = i == 0 and baddie is not None and baddie not in ("cinf", "finf")
        state.seat = Seated(state, BaddiePlayer(baddie, seed % 3) if bad else SillyPlayer())
    Dealer(states, shuffled_deck(seed), call).play()
    assert seen["calls"] > 0


@settings(max_examples=20)
@given(players=st.integers(3, 8), seed=st.integers(0, 10_000))
def test_the_referee_plays_the_same_game_as_the_pure_dealer(players: int, seed: int) -> None:
    from gameroom.games.evolution.harness import silly_game

    pure = silly_game([SillyPlayer() for _ in range(players)], shuffled_deck(seed)).play()
    guarded = [guarded_seat(str(i), SillyPlayer()) for i in range(players)]
    assert run_game(guarded, shuffled_deck(seed)).results == pure


def test_duplicate_names_keep_their_seats_and_the_spec_ids() -> None:
    """Names need not be distinct (spec 3.1): seats are the identity, ids only printed."""
    result = run_game([trusted_seat("x", SillyPlayer()) for _ in range(3)])
    assert result.results == [(1, "x#3", 7), (2, "x#2", 7), (3, "x#1", 5)]
    assert result.ranking_seats == [[2], [1], [0]] and result.seat_scores == {2: 7, 1: 7, 0: 5}
    assert result.winner_seats == [1, 2] and result.winners == ["x", "x"]
