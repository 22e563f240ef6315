"""Guarded calls: a player that spins, sleeps past its limit, catches the interruption
once or raises is cut off at its limit with its reason, on the main thread (the interval
timer of ``core.overrun``) and on any other thread (a worker per seat), and nothing it
does after its limit reaches the caller."""

import threading
import time

import pytest

from gameroom.core import overrun
from gameroom.core.calls import CallFailed, GuardedCaller
from gameroom.core.record import FailureKind

LIMIT = 0.2


class Player:
    def __init__(self):
        self.after_limit = []   # what the player did once its call should have ended

    def answer(self, x):
        return x + 1

    def spin(self):
        while True:
            pass

    def spin_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass
        self.after_limit.append("spun")
        return 1

    def sleep(self, seconds):
        time.sleep(seconds)
        self.after_limit.append("woke")
        return 1

    def late_answer(self):
        try:
            time.sleep(30)
        except BaseException:  # noqa: BLE001, S110
            pass
        self.after_limit.append("answered late")
        return 99

    def raises(self):
        raise RuntimeError("boom")

    def own_timeout(self):
        raise TimeoutError("the player's own")


def on_other_thread(fn):
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001
            box["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def timed_out(call, *args):
    with pytest.raises(CallFailed) as failure:
        call(*args)
    assert failure.value.kind is FailureKind.TIMEOUT
    assert f"time limit of {LIMIT:g} s" in failure.value.reason


def test_the_main_thread_uses_the_timer_and_answers_normally():
    assert overrun.available()
    call = GuardedCaller(Player())
    assert [call("answer", (i,), LIMIT) for i in range(1000)] == list(range(1, 1001))
    assert call._worker is None   # no thread was needed


@pytest.mark.parametrize("method", ["spin", "late_answer"])
def test_main_thread_cuts_off_a_player_that_never_lets_go(method):
    # late_answer catches the interruption and returns 99: a time-out all the same, the
    # reply discarded
    timed_out(GuardedCaller(Player()), method, (), LIMIT)
    # the caller is usable again at once, with a fresh limit
    assert GuardedCaller(Player())("answer", (1,), LIMIT) == 2


def test_main_thread_interrupts_a_sleep_and_discards_the_rest():
    player = Player()
    timed_out(GuardedCaller(player), "sleep", (60,), LIMIT)
    assert player.after_limit == []


def test_a_spin_that_ends_after_its_limit_is_still_a_time_out():
    player = Player()
    timed_out(GuardedCaller(player), "spin_for", (60,), LIMIT)
    assert player.after_limit == []


def test_exceptions_keep_their_reason():
    call = GuardedCaller(Player())
    with pytest.raises(CallFailed, match="RuntimeError: boom") as failure:
        call("raises", (), LIMIT)
    assert failure.value.kind is FailureKind.EXCEPTION
    with pytest.raises(CallFailed, match="TimeoutError: the player's own") as failure:
        call("own_timeout", (), LIMIT)
    assert failure.value.kind is FailureKind.EXCEPTION
    with pytest.raises(CallFailed, match="AttributeError"):
        call("missing", (), LIMIT)


def test_no_alarm_is_left_behind():
    """After a guarded call the timer is disarmed: a long wait on the main thread is not
    interrupted later."""
    call = GuardedCaller(Player())
    call("answer", (1,), 0.05)
    time.sleep(0.3)   # an alarm left armed would raise here
    timed_out(GuardedCaller(Player()), "spin", (), LIMIT)
    time.sleep(0.3)


def test_other_threads_use_a_worker_and_stop_waiting_at_the_limit():
    player = Player()
    call = GuardedCaller(player)
    assert on_other_thread(lambda: [call("answer", (i,), LIMIT) for i in range(100)]) == list(range(1, 101))
    assert call._worker is not None
    timed_out(lambda *a: on_other_thread(lambda: call(*a)), "sleep", (2,), LIMIT)
    with pytest.raises(CallFailed, match="RuntimeError: boom"):
        on_other_thread(lambda: GuardedCaller(player)("raises", (), LIMIT))


def test_a_late_answer_on_a_worker_never_reaches_a_later_call():
    player = Player()
    call = GuardedCaller(player)
    timed_out(lambda *a: on_other_thread(lambda: call(*a)), "sleep", (0.5,), LIMIT)
    # the abandoned worker finishes its sleep; the next call gets its own answer
    assert on_other_thread(lambda: call("answer", (5,), 10)) == 6
