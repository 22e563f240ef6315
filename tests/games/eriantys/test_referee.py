"""The in-process referee (eriantys.md 5, 4.4 referee policy, 7.7) and the built-in and
misbehaving players of §9, seen through what players and observers receive."""

from __future__ import annotations

from typing import Any

import pytest

from gameroom.core.context import MatchContext
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.games.eriantys.harness import BroadcastLog
from gameroom.games.eriantys.players import EriantysPlayer, illegal_event, parse_strategy
from gameroom.core.limits import Limits
from gameroom.games.eriantys.referee import run_game
from gameroom.games.eriantys.strategies import first_legal, greedy
from gameroom.games.eriantys.view import TableView
from tests.games.eriantys.helpers import NAMES, Table, fill, in_action


class Recorder(EriantysPlayer):
    """A first-legal player that keeps everything the referee told it."""

    def __init__(self, name: str, kind: str = "first-legal") -> None:
        super().__init__(name, kind)
        self.calls: list[tuple[str, Any]] = []
        self.seen: list[dict] = []

    def setup(self, seat: int, players: list[str], expert: bool) -> None:
        self.calls.append(("setup", (seat, players, expert)))
        super().setup(seat, players, expert)

    def observe(self, message: dict) -> None:
        self.seen.append(message)

    def act(self, state: dict) -> Any:
        self.calls.append(("act", state["currentPlayer"]))
        return super().act(state)

    def end(self, winners: list[str]) -> None:
        self.calls.append(("end", winners))


def match(kinds: list[str], expert: bool = False, seed: int = 1, limit: float | None = 2.0) -> tuple[Any, Any, Any]:
    players = [Recorder(NAMES[i], kind) for i, kind in enumerate(kinds)]
    seats = [guarded_seat(p.name(), p) if parse_strategy(k)[1] is not None else trusted_seat(p.name(), p)
             for p, k in zip(players, kinds)]
    log = BroadcastLog()
    outcome = run_game(seats, seed, expert=expert, context=MatchContext(limits=Limits(call=limit), observers=[log]))
    return outcome, players, log.messages


@pytest.mark.parametrize("n, expert", [(2, False), (3, True), (4, False), (4, True)])
def test_players_see_exactly_the_broadcasts_and_the_view_follows_the_game(n: int, expert: bool) -> None:
    outcome, players, messages = match(["greedy", "first-legal", "greedy", "first-legal"][:n], expert)
    assert messages[0]["type"] == "START_GAME" and messages[-1] == {"type": "END_GAME", "winners": outcome.winners}
    for seat, player in enumerate(players):
        assert player.seen == messages
        assert player.calls[0] == ("setup", (seat, NAMES[:n], expert))
        assert player.calls[-1] == ("end", outcome.winners)
        assert all(current == seat for kind, current in player.calls if kind == "act")
    view = TableView()
    for message in messages:
        view.apply(message)
    assert view.snapshot() == outcome.extra["snapshot"]
    assert outcome.winners and not outcome.misbehaved


def test_a_seed_replays_a_game_exactly() -> None:
    first = match(["greedy", "random", "first-legal"], True, seed=9)[2]
    assert first == match(["greedy", "random", "first-legal"], True, seed=9)[2]
    assert first != match(["greedy", "random", "first-legal"], True, seed=10)[2]


@pytest.mark.parametrize("kind, reason", [("illegal@3", "EJECTED"), ("crash@4", "EJECTED"),
                                          ("garbage@2", "EJECTED"), ("impostor@5", "EJECTED"),
                                          ("timeout@3", "TIMEOUT")])
def test_a_misbehaving_player_is_ejected_and_the_other_team_wins(kind: str, reason: str) -> None:
    outcome, players, messages = match(["greedy", kind], limit=0.3)
    assert outcome.winners == ["ann"] and outcome.misbehaved == ["ben"]
    assert messages[-2:] == [{"type": "PLAYER_DISCONNECT", "username": "ben", "roomClosed": False, "reason": reason},
                             {"type": "END_GAME", "winners": ["ann"]}]
    assert players[0].calls[-1] == ("end", ["ann"])
    assert "PLAYER_DISCONNECT" not in [m["type"] for m in players[1].seen]   # the others are told
    assert all(kind != "end" for kind, _ in players[1].calls)


def test_outofturn_plays_like_first_legal_in_process() -> None:
    outcome, _, messages = match(["greedy", "outofturn"], seed=3)
    assert not outcome.misbehaved and messages == match(["greedy", "first-legal"], seed=3)[2]


def test_with_four_players_the_whole_team_is_eliminated() -> None:
    outcome, players, messages = match(["greedy", "greedy", "crash@7", "greedy"])
    assert outcome.winners == ["ben", "dot"] and outcome.misbehaved == ["cyd"]
    assert messages[-1] == {"type": "END_GAME", "winners": ["ben", "dot"]}


def test_with_three_players_the_game_goes_on_without_the_ejected_one() -> None:
    outcome, players, messages = match(["greedy", "illegal@12", "first-legal"], seed=4)
    disconnect = messages.index({"type": "PLAYER_DISCONNECT", "username": "ben", "roomClosed": False,
                                 "reason": "EJECTED"})
    later = messages[disconnect + 1:]
    assert later and not any(m.get("player") == 1 or m.get("playingPlayer") == 1 for m in later)
    assert outcome.misbehaved == ["ben"] and outcome.winners and "ben" not in outcome.winners
    assert sum(1 for kind, _ in players[1].calls if kind == "act") == 12


def test_a_player_raising_in_observe_is_ejected() -> None:
    class Deaf(EriantysPlayer):
        def observe(self, message: dict) -> None:
            if message["type"] == "MOVE_MOTHER_NATURE":
                raise RuntimeError("deaf")

    log = BroadcastLog()
    seats = [trusted_seat("ann", EriantysPlayer("ann", "greedy")), trusted_seat("ben", Deaf("ben"))]
    outcome = run_game(seats, 2, context=MatchContext(limits=Limits(), observers=[log]))
    assert outcome.misbehaved == ["ben"] and outcome.winners == ["ann"]
    assert log.messages[-2]["reason"] == "EJECTED" and "deaf" in outcome.failures[0].reason


# -- the built-in players (9.1, 9.2) and the illegal events of 9.3 --------------------------------

def test_first_legal_follows_the_canonical_order() -> None:
    table = Table(2, first=0)
    assert first_legal(table.snap) == {"eventType": "PLAY_ASSISTANT_CARD", "assistantCard": 1}
    table.ok(0, "PLAY_ASSISTANT_CARD", assistantCard=1)
    assert first_legal(table.snap) == {"eventType": "PLAY_ASSISTANT_CARD", "assistantCard": 2}
    table = in_action()
    table.arrange(lambda s: (fill(s, s.entrance[0], "RED RED RED BLUE BLUE BLUE BLUE"),
                             fill(s, s.dining[0], " ".join(["RED"] * 10 + ["BLUE"] * 10))))
    assert first_legal(table.snap) == {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", "color": "RED",
                                       "islandIndex": 0}


def test_greedy_prefers_professors_then_coins_then_any_table() -> None:
    table = in_action(2, True, cards=[1, 4, 6])
    table.arrange(lambda s: (fill(s, s.entrance[0], "GREEN RED RED YELLOW YELLOW BLUE BLUE"),
                             fill(s, s.dining[0], "GREEN RED RED"), fill(s, s.dining[1], "GREEN GREEN YELLOW YELLOW"),
                             s.professors.__setitem__(0, 1), s.professors.__setitem__(1, 0),
                             s.professors.__setitem__(2, 1)))
    # GREEN would tie (no professor), RED -> 3 earns a coin, BLUE takes the free professor
    assert greedy(table.snap)["color"] == "BLUE"
    table.arrange(lambda s: fill(s, s.entrance[0], "GREEN RED RED YELLOW YELLOW"))
    assert greedy(table.snap)["color"] == "RED"


def test_greedy_moves_mother_nature_to_a_conquest_and_takes_the_fullest_cloud() -> None:
    table = in_action(values=(9, 10))
    while table.state.phase == 1:
        table.play(0, first_legal(table.snap))

    def board(s) -> None:
        for i in range(1, 6):
            fill(s, s.islands[i].students, "")
        fill(s, s.islands[4].students, "PINK")
        s.professors[3] = 0
    table.arrange(board)
    assert greedy(table.snap) == {"eventType": "MOVE_MOTHER_NATURE", "amount": 4}
    table.play(0, greedy(table.snap))
    table.arrange(lambda s: (fill(s, s.clouds[0], "RED"), fill(s, s.clouds[1], "RED RED")))
    assert greedy(table.snap) == {"eventType": "CHOOSE_CLOUD", "cloudIndex": 1}


def test_illegal_events_of_9_3_are_refused() -> None:
    table = Table(2, first=0)
    assert illegal_event(table.snap) == {"eventType": "PLAY_ASSISTANT_CARD", "assistantCard": 11}
    table.ok(0, "PLAY_ASSISTANT_CARD", assistantCard=3)
    table.ok(1, "PLAY_ASSISTANT_CARD", assistantCard=4)
    for _ in range(6):
        event = illegal_event(table.snap)
        assert table.send_event(table.state.current, event)[-1]["type"] == "NACK"
        table.play(table.state.current, first_legal(table.snap))
