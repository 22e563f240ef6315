"""In every registered game, a guarded player that spins, sleeps past its limit or raises
is ejected with its reason and the game goes on to its result; what it would have
answered after its limit never reaches the game (issue 19). The referee runs on the main
thread (the interval timer) and on another thread (a worker per seat)."""

import threading
import time

import pytest

from gameroom.core.context import MatchContext
from gameroom.core.match import guarded_seat
from gameroom.core.record import FailureKind
from gameroom.games import registry

GAMES = registry.games()
LIMIT = 0.5
MISBEHAVE_ON = 3   # the player's third call, whatever it is


class Misbehaving:
    """A built-in player that behaves until its ``MISBEHAVE_ON``-th call."""

    def __init__(self, player, how, seconds):
        self._player, self._how, self._calls, self._seconds = player, how, 0, seconds
        self.after_limit = []

    def __getattr__(self, method):
        work = getattr(self._player, method)

        def call(*args):
            self._calls += 1
            if self._calls == MISBEHAVE_ON:
                if self._how == "raise":
                    raise RuntimeError("misbehaving on purpose")
                if self._how == "sleep":
                    time.sleep(self._seconds)
                else:
                    end = time.monotonic() + self._seconds
                    while time.monotonic() < end:
                        pass
                self.after_limit.append(method)   # reached only if never cut off
            return work(*args)

        return call


def play(game, how, thread):
    strategy = next(iter(game.strategies))
    players = max(game.min_players, 2)
    seats = game.seats([strategy] * players, seed=5)
    # A worker thread cannot stop a spinning player (it only stops waiting for it, see
    # core.calls): there the spin ends by itself a while after the limit.
    bad = Misbehaving(game.strategies[strategy](seats[0].name, 5), how, 3 if thread else 120)
    seats[0] = guarded_seat(seats[0].name, bad)
    context = MatchContext(limits=game.limits.with_call(LIMIT))
    if not thread:
        return bad, game.play(5, seats, context=context)
    box = {}
    referee = threading.Thread(target=lambda: box.update(result=game.play(5, seats, context=context)))
    referee.start()
    referee.join()
    return bad, box["result"]


@pytest.mark.parametrize("thread", [False, True], ids=["main-thread", "referee-thread"])
@pytest.mark.parametrize("how", ["spin", "sleep", "raise"])
@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_misbehaving_guarded_player_is_ejected_with_its_reason(name, how, thread):
    bad, result = play(GAMES[name], how, thread)
    assert result.misbehaved_seats[:1] == [0]
    ejection = result.ejections[0]
    if how == "raise":
        assert ejection.kind is FailureKind.EXCEPTION and "misbehaving on purpose" in ejection.reason
    else:
        assert ejection.kind is FailureKind.TIMEOUT and f"time limit of {LIMIT:g} s" in ejection.reason
    if not thread:
        assert bad.after_limit == []   # cut off: its late answer was never made
    assert 0 not in result.winner_seats
