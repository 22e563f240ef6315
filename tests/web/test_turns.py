"""The turnstile that shares the processor between the owners of the web room's matches:
with a clock of our own, whoever used the least lately gets the next turn, a turn is
kept while nobody waits, and use fades with its half-life. The order is checked, never
a duration."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from gameroom.web.turns import Turnstile


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def waiting_for(turns: Turnstile, count: int) -> None:
    deadline = time.monotonic() + 60
    while len(turns._waiting) < count:
        assert time.monotonic() < deadline, "the threads never queued"
        time.sleep(0.001)


def queued(turns: Turnstile, owners: Sequence[str], order: list[str]) -> list[threading.Thread]:
    """A match's thread per owner, started in this order, each waiting for its turn before
    the next starts: it takes a turn, notes its owner in ``order`` and gives it back."""
    def match(owner: str) -> None:
        turns.take(owner)
        order.append(owner)
        turns.give(owner)

    threads = []
    for owner in owners:
        thread = threading.Thread(target=match, args=(owner,))
        thread.start()
        threads.append(thread)
        waiting_for(turns, len(threads))
    return threads


def joined(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive(), "a match never got its turn"


def test_the_owner_who_used_the_least_goes_first_whatever_the_order_of_arrival() -> None:
    clock = Clock()
    turns = Turnstile(half_life=30, clock=clock)
    turns.take("flood")
    clock.now += 20          # the flood computed for 20 s
    order: list[str] = []
    threads = queued(turns, ("flood", "flood", "honest"), order)   # the honest one arrives last
    turns.give("flood")
    joined(threads)
    assert order == ["honest", "flood", "flood"]


def test_a_turn_is_kept_while_nobody_waits_and_use_fades() -> None:
    clock = Clock()
    turns = Turnstile(half_life=10, clock=clock)
    turns.take("a")
    turns.pause("a")         # nobody waits: still a's, no thread switch
    clock.now = 4.0
    turns.give("a")
    assert turns.usage("a") == 4.0
    clock.now = 14.0
    assert turns.usage("a") == 2.0   # one half-life later
    turns.take("b")          # free: taken at once
    turns.give("b")


def test_pause_hands_the_turn_to_a_waiting_owner_and_takes_it_back() -> None:
    clock = Clock()
    turns = Turnstile(clock=clock)
    turns.take("long")
    clock.now = 5.0
    order: list[str] = []
    threads = queued(turns, ["short"], order)
    turns.pause("long")      # long has used 5 s, short nothing: short runs, then long again
    order.append("long")
    turns.give("long")
    joined(threads)
    assert order == ["short", "long"]


def test_pause_keeps_the_turn_when_the_waiting_owners_used_more() -> None:
    clock = Clock()
    turns = Turnstile(clock=clock)
    turns.take("flood")
    clock.now = 20.0
    turns.give("flood")      # the flood has used 20 s
    turns.take("honest")
    order: list[str] = []
    threads = queued(turns, ["flood"], order)
    clock.now = 21.0
    turns.pause("honest")    # 1 s used against the flood's 20: the honest match goes on
    order.append("honest")
    turns.give("honest")
    joined(threads)
    assert order == ["honest", "flood"]


def test_an_owner_running_many_matches_pays_for_each() -> None:
    clock = Clock()
    turns = Turnstile(clock=clock)
    for owner, used in (("flood", 1.0), ("honest", 3.0)):   # the honest owner even used more
        turns.take(owner)
        clock.now += used
        turns.give(owner)
    for _ in range(4):
        turns.enter("flood")    # ... but the flood runs four matches at once: 4 x 1 s > 3 s
    turns.enter("honest")
    turns.take("flood")
    order: list[str] = []
    threads = queued(turns, ("flood", "honest"), order)
    turns.give("flood")
    joined(threads)
    assert order == ["honest", "flood"]


def test_an_owner_alone_never_breathes_and_breathes_once_another_is_about() -> None:
    clock = Clock()
    turns = Turnstile(clock=clock)
    turns.take("solo")
    clock.now = 1.0
    turns.give("solo")
    assert not turns._in_company("solo")
    turns.take("other")
    clock.now = 2.0
    turns.give("other")
    clock.now = 3.0   # past the answer's 0.1 s: asked again
    assert turns._in_company("solo")
    clock.now = 200.0   # the other one long gone
    assert not turns._in_company("solo")
