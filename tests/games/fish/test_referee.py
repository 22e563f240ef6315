"""The Fish referee (spec 3, 4, 5.2, 5.3, 5.5): call order, placement quirk, skips, the
action history, the first-round ready time, removals, observers, copies for untrusted
players, and the query desk."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from gameroom.core.calls import direct_caller
from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.core.misbehaviour import hang
from gameroom.games.fish.board import Board
from gameroom.games.fish.players import BaddiePlayer, QueryingPlayer, StrategyPlayer
from gameroom.games.fish.protocol import actions_since_last_turn
from gameroom.games.fish.referee import LIMITS, run_game
from gameroom.games.fish.state import COLORS, SKIP, Color, GameState, Player
from gameroom.games.fish.strategies import GreedyStrategy, MaximinStrategy
from gameroom.games.fish.tournament import run_fish_tournament
from tests.games.fish.pure_game import play_local_game, play_strategies


class Recording(StrategyPlayer):
    """A greedy player that logs its calls and checks the action lists of spec 5.2: its own
    previous move and then the actions it is told about lead from the state of its previous
    turn to the state of this one."""

    def __init__(self, name: str, log: list[Any], cheat_on_turn: int | None = None) -> None:
        super().__init__(GreedyStrategy(), name)
        self.log = log
        self.cheat_on_turn = cheat_on_turn
        self.turns = 0
        self.previous: tuple[GameState, Any] | None = None
        self.checked = 0

    def playing_as(self, color: Color) -> None:
        self.log.append((self.name, "playing-as", color))
        super().playing_as(color)

    def playing_with(self, others: list[Color]) -> None:
        self.log.append((self.name, "playing-with", list(others)))
        super().playing_with(others)

    def initial(self, state: GameState) -> Any:
        self.log.append((self.name, "setup"))
        return super().initial(state)

    def take_turn(self, state: GameState, actions: list[Any]) -> Any:
        self.turns += 1
        self.log.append((self.name, "take-turn", list(actions)))
        if actions and self.previous is not None:
            replay = self.previous[0].copy()
            replay.apply(self.previous[1])
            for action in actions:
                replay.apply(action)
            assert replay == state
            self.checked += 1
        if self.turns == self.cheat_on_turn:
            here = state.players[0].places[0]
            return (here, here)
        move = super().take_turn(state, actions)
        self.previous = (state.copy(), move)
        return move


def limit_recorder(player: Any, limits: list[Any]) -> Seat:
    """An untrusted seat calling directly, recording each call's time limit."""
    inner = direct_caller(player)

    def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        limits.append((player.name, method, limit))
        return inner(method, args, limit)

    return Seat(player.name, call, trusted=False, player=player)


def test_inform_interleaves_as_and_with_per_player() -> None:
    log: list[Any] = []
    seats = [trusted_seat(n, Recording(n, log)) for n in "ABC"]
    run_game(seats, rows=4, columns=4, fish=2)
    assert log[:6] == [("A", "playing-as", Color.RED), ("A", "playing-with", [Color.WHITE, Color.BROWN]),
                       ("B", "playing-as", Color.WHITE), ("B", "playing-with", [Color.RED, Color.BROWN]),
                       ("C", "playing-as", Color.BROWN), ("C", "playing-with", [Color.RED, Color.WHITE])]
    setups = [entry[0] for entry in log if entry[1] == "setup"]
    assert setups == list("ABC") * 3


@pytest.mark.parametrize("seed", range(12))
def test_same_game_as_the_pure_game_loop(seed: int) -> None:
    players = 2 + seed % 3
    state = GameState.create(5, 5, players, rng=random.Random(seed))
    pure = play_strategies(state.copy(), {c: GreedyStrategy() for c in COLORS[:players]})
    seats = [trusted_seat(c.value, StrategyPlayer(GreedyStrategy(), c.value)) for c in COLORS[:players]]
    result = run_game(seats, state)
    assert result.state == pure.state
    assert result.ranking == [[c.value for c in g] for g in pure.ranking]


@pytest.mark.parametrize("seed", range(8))
def test_action_lists_replay_to_the_current_state(seed: int) -> None:
    log: list[Any] = []
    players = [Recording(n, log) for n in "ABCD"[: 2 + seed % 3]]
    run_game([trusted_seat(p.name, p) for p in players], rows=5, columns=5, rng=random.Random(seed))
    assert sum(p.checked for p in players) > 0
    first = [entry for entry in log if entry[1] == "take-turn"][: len(players) + 1]
    assert all(entry[2] == [] for entry in first)   # first round and the first player's second turn


def test_skipped_player_is_not_called_and_skip_is_reported() -> None:
    # red places on three one-tile islands in row 0; white and brown roam the right side
    board = Board.from_rows([[1, 1, 1, 3, 3, 3], [0, 0, 0, 3, 3, 3], [0, 0, 0, 3, 3, 3], [3, 3, 3, 3, 3, 3]])
    log: list[Any] = []

    class Islander(Recording):
        def initial(self, state: GameState) -> Any:
            return next(p for p in [(0, 0), (0, 1), (0, 2)] if state.can_place(p))

    seats = [trusted_seat("A", Islander("A", log)), trusted_seat("B", Recording("B", log)),
             trusted_seat("C", Recording("C", log))]
    state = GameState(board, [Player(c) for c in COLORS[:3]])
    result = run_game(seats, state)
    assert not result.misbehaved_seats
    assert not [e for e in log if e[0] == "A" and e[1] == "take-turn"]
    told = [e[2] for e in log if e[1] == "take-turn"]
    assert any(SKIP in actions for actions in told)
    assert result.state.player(Color.RED).score == 0


def test_ready_time_for_the_first_round_only() -> None:
    limits: list[Any] = []
    seats = [limit_recorder(StrategyPlayer(GreedyStrategy(), n), limits) for n in "AB"]
    run_game(seats, rows=5, columns=5, fish=2, context=MatchContext(limits=Limits(call=0.5, ready=7.0)))
    turns = [lim for (_n, m, lim) in limits if m == "take_turn"]
    assert turns[:2] == [7.0, 7.0] and set(turns[2:]) == {0.5}
    assert {lim for (_n, m, lim) in limits if m != "take_turn"} == {0.5}


def test_removal_in_the_first_round_prolongs_it_and_later_ones_do_not_restart_it() -> None:
    limits: list[Any] = []
    log: list[Any] = []
    players = [Recording("A", log, cheat_on_turn=1), Recording("B", log), Recording("C", log)]
    run_game([limit_recorder(p, limits) for p in players], rows=5, columns=5, fish=2, context=MatchContext(limits=replace(LIMITS, ready=7.0)))
    turns = [(n, lim) for (n, m, lim) in limits if m == "take_turn"]
    assert turns[:3] == [("A", 7.0), ("B", 7.0), ("C", 7.0)] and turns[3][1] == 0.6

    limits.clear()
    players = [Recording("A", log, cheat_on_turn=2), Recording("B", log), Recording("C", log)]
    run_game([limit_recorder(p, limits) for p in players], rows=5, columns=5, fish=2, context=MatchContext(limits=replace(LIMITS, ready=7.0)))
    turns = [(n, lim) for (n, m, lim) in limits if m == "take_turn"]
    assert [lim for _n, lim in turns[:3]] == [7.0] * 3 and all(lim == 0.6 for _n, lim in turns[3:])
    assert ("A", 0.6) in turns   # its second turn, on which it cheats


def test_ready_time_lets_a_slow_first_move_through() -> None:
    import time

    class Slow(StrategyPlayer):
        def take_turn(self, state: GameState, actions: list[Any]) -> Any:
            time.sleep(0.3)
            return super().take_turn(state, actions)

    seats = [guarded_seat("slow", Slow(GreedyStrategy(), "slow")), trusted_seat("fast", StrategyPlayer())]
    result = run_game(seats, rows=5, columns=5, fish=2, context=MatchContext(limits=Limits(call=0.1, ready=2.0)))
    assert result.misbehaved == ["slow"]
    assert result.failures[0].method == "take-turn" and "time limit of 0.1" in result.failures[0].reason
    assert result.turns > 2   # its first move was accepted


def test_removed_penguins_vanish_tiles_stay_and_removal_order() -> None:
    seats = [guarded_seat("as", BaddiePlayer("bad-playing-as", "as")),
             guarded_seat("init", BaddiePlayer("bad-init-choice", "init")),
             guarded_seat("turn", BaddiePlayer("bad-turn-choice", "turn")),
             trusted_seat("good", StrategyPlayer())]
    result = run_game(seats, rows=5, columns=5, fish=3)
    assert result.misbehaved == ["turn", "init", "as"]
    assert result.winners == ["good"]
    assert result.state.colors() == [Color.BLACK]
    assert [f.method for f in result.failures] == ["playing-as", "setup", "take-turn"]


def test_everybody_removed_means_no_winners() -> None:
    seats = [guarded_seat(n, BaddiePlayer("bad-turn-choice", n)) for n in "AB"]
    result = run_game(seats, rows=4, columns=4, fish=1)
    assert result.ranking_seats == [] and set(result.misbehaved) == {"A", "B"}


def test_hanging_player_is_removed_after_its_limit() -> None:
    seats = [guarded_seat("hang", BaddiePlayer("bad-init-time", "hang", hang=hang)),
             trusted_seat("ok", StrategyPlayer())]
    result = run_game(seats, rows=3, columns=3, fish=1, context=MatchContext(limits=replace(LIMITS, call=0.2)))
    assert result.to_json() == [["ok"], ["hang"]]


def test_untrusted_players_get_their_own_copy() -> None:
    class Vandal(StrategyPlayer):
        def initial(self, state: GameState) -> Any:
            spot = super().initial(state)
            state.players.clear()
            state.board.remove_tile(spot)
            return spot

        def take_turn(self, state: GameState, actions: list[Any]) -> Any:
            move = super().take_turn(state, actions)
            state.players[1].places.clear()
            return move

    seats = [guarded_seat("vandal", Vandal(GreedyStrategy(), "vandal")), trusted_seat("ok", StrategyPlayer())]
    state = GameState.create(4, 4, 2, fish=2)
    reference = play_strategies(state.copy(), {Color.RED: GreedyStrategy(), Color.WHITE: GreedyStrategy()})
    result = run_game(seats, state)
    assert result.state == reference.state and not result.misbehaved_seats


class Watcher:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        what = event.get("event")
        if what == "placement-over":
            self.events.append(("placed", sum(len(p.places) for p in event.subject.players)))
        elif what == "moved":
            self.events.append(("turn", Color(event.get("color")), [tuple(map(tuple, event.get("move"))), event.subject]))
        elif what == "removed" and event.get("turn") is not None:
            self.events.append(("turn", Color(event.get("color")), event.get("message")))


class Broken:
    def __call__(self, event: Any) -> None:
        raise RuntimeError("observer bug")


def test_observers_see_turns_and_messages_and_a_broken_one_is_dropped() -> None:
    watcher = Watcher()
    seats = [trusted_seat("A", StrategyPlayer()), guarded_seat("B", BaddiePlayer("bad-turn-choice", "B")),
             guarded_seat("C", BaddiePlayer("bad-playing-with", "C"))]
    result = run_game(seats, rows=4, columns=4, fish=2, context=MatchContext(observers=[Broken(), watcher]))
    assert watcher.events[0] == ("placed", 2 * 4)   # two players left after inform: 4 penguins each
    turn_events = [e for e in watcher.events if e[0] == "turn"]
    assert turn_events[0][1] == Color.RED and isinstance(turn_events[0][2], list)
    move, after = turn_events[0][2]
    assert isinstance(after, GameState) and after.players[-1].places[0] == move[1]
    assert turn_events[1][1] == Color.WHITE and turn_events[1][2].startswith("white attempted to cheat")
    assert len(turn_events) == result.turns
    assert result.to_json() == [["A"], ["B", "C"]]


def test_maximin_game_through_the_referee_matches_xref_model() -> None:

    names = [("zed", 1), ("amy", 2)]
    seats = [trusted_seat(n, StrategyPlayer(MaximinStrategy(d), n)) for n, d in names]
    result = run_game(seats, GameState.create(3, 4, 2, fish=2), context=MatchContext(limits=Limits()))
    assert sorted(result.winners) == play_local_game(3, 4, 2, names) == ["amy", "zed"]


def test_querying_player_gets_a_desk_in_process() -> None:
    asker = QueryingPlayer("asker")
    seats = [guarded_seat("asker", asker), trusted_seat("plain", StrategyPlayer())]
    result = run_game(seats, rows=5, columns=5, fish=2)
    assert asker.desk is not None and asker.asked > 0 and not result.misbehaved_seats
    phases = {seen[0] for seen in asker.seen}
    assert phases == {"playing"} and all(seen[1] == Color.RED for seen in asker.seen)
    assert asker.desk.phase() == "over" and asker.desk.game_over() and asker.desk.current_player() is None
    assert asker.desk.tournament_info() is None
    # the desk hands out copies
    asker.desk.state().players.clear()
    assert asker.desk.state().players


def test_querying_player_sees_the_tournament() -> None:
    askers = [QueryingPlayer(f"Q{i}") for i in range(5)]
    result = run_fish_tournament([guarded_seat(a.name, a) for a in askers], fish=2)
    assert not result.failures
    infos = [seen[3] for a in askers for seen in a.seen]
    assert infos and all(info["round"] >= 1 for info in infos)
    assert infos[0]["games"] == [["Q0", "Q1", "Q2"], ["Q3", "Q4"]]


def test_actions_since_last_turn_examples() -> None:
    m1, m2, m3 = ((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 2), (1, 2))
    assert actions_since_last_turn([m1, m2], 2) == []
    assert actions_since_last_turn([m1, m2, m3], 2) == [m3]
    assert actions_since_last_turn([m1, SKIP, m2, m3], 3) == [m2, m3]


def test_duplicate_names_are_told_apart_by_seat() -> None:
    """Names need not be distinct (spec 7): the result says which seat misbehaved and won."""
    seats = [guarded_seat("twin", BaddiePlayer("bad-turn-choice", "twin")), trusted_seat("twin", StrategyPlayer()),
             trusted_seat("solo", StrategyPlayer())]
    result = run_game(seats, rows=5, columns=5, fish=3)
    assert result.misbehaved_seats == [0] and result.misbehaved == ["twin"]
    assert result.ejections[0].seat == 0 and 0 not in result.seat_scores
    assert set(result.seat_scores) == {1, 2} and set(result.winner_seats) <= {1, 2}
    assert sorted(result.colors.values()) == [0, 1, 2]
