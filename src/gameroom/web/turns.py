"""Fair turns on the processor between the owners of the web room's matches.

Every match runs its referee on a thread of one process, so all of them share one
interpreter lock: left alone, an owner with eight bot matches running gets eight times
the processor of an owner with one, and an honest match beside a flood of them runs many
times slower. The :class:`Turnstile` lets one match compute at a time and, whenever others
wait, hands the next turn to the match whose *owner* has the least *weight*: the
processor its matches used lately (the time they held turns, halved every ``half_life``
seconds) times the number of its matches running now — an owner running eight matches at
once pays for each. A match gives its turn back at every event of its game (a state, a
call, an ejection), and while it sleeps between steps or waits for a person, so a turn is
a few milliseconds and an owner who has been computing for a while, or computes many
matches at once, yields to one who just arrived.

Nothing is lost by running one match at a time: the interpreter lock already did. But the
lock also serves the threads that answer requests: behind a match computing, a request
waits up to the interpreter's switch interval (5 ms) at every hand-over, and an honest
match's start, websocket and end are several of them. So a match of an owner running
several at once sleeps :data:`BREATHER` at each event while another owner is about,
letting them in at once: beside
eight flood matches an honest one ran about 1.2-1.6x slower over HTTP, about 0.8-1.0x with
it. The clock is injectable, so the order of turns can be tested without measuring time.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Hashable

__all__ = ["BREATHER", "Turnstile"]

BREATHER = 0.0005
"""Seconds a match of an owner running several lets go of the interpreter at each event,
while another owner has computed within :data:`COMPANY` seconds."""
COMPANY = 60.0


class _Waiter:
    __slots__ = ("owner", "order", "gate")

    def __init__(self, owner: Hashable, order: int) -> None:
        self.owner, self.order = owner, order
        self.gate = threading.Event()


class Turnstile:
    """One turn at a time, the next to the waiting owner with the least recent use."""

    def __init__(self, half_life: float = 30.0, clock: Callable[[], float] = time.monotonic,
                 breather: float = BREATHER) -> None:
        self.half_life = half_life
        self.breather = breather
        self.clock = clock
        self._lock = threading.Lock()
        self._busy = False
        self._since = 0.0                       # when the current turn was taken
        self._waiting: list[_Waiter] = []
        self._usage: dict[Hashable, tuple[float, float]] = {}   # owner -> (seconds used, as of)
        self._running: dict[Hashable, int] = {}                  # owner -> its matches running
        self._order = 0
        self._company: tuple[Hashable, float, bool] = (None, float("-inf"), False)   # owner, as of, answer

    def usage(self, owner: Hashable) -> float:
        """The seconds of turns ``owner`` used, decayed to now."""
        with self._lock:
            return self._decayed(owner, self.clock())

    def _decayed(self, owner: Hashable, now: float) -> float:
        used, at = self._usage.get(owner, (0.0, now))
        return float(used * 0.5 ** (max(0.0, now - at) / self.half_life))

    def _weight(self, owner: Hashable, now: float, extra: float = 0.0) -> float:
        return (self._decayed(owner, now) + extra) * max(1, self._running.get(owner, 0))

    def enter(self, owner: Hashable) -> None:
        """One more match of ``owner`` runs (it weighs the owner's use from now on)."""
        with self._lock:
            self._running[owner] = self._running.get(owner, 0) + 1

    def leave(self, owner: Hashable) -> None:
        """A match of ``owner`` ended."""
        with self._lock:
            left = self._running.get(owner, 0) - 1
            if left > 0:
                self._running[owner] = left
            else:
                self._running.pop(owner, None)

    def take(self, owner: Hashable) -> None:
        """Wait for a turn (at once when nobody holds one)."""
        with self._lock:
            if not self._busy and not self._waiting:
                self._busy, self._since = True, self.clock()
                return
            self._order += 1
            waiter = _Waiter(owner, self._order)
            self._waiting.append(waiter)
        waiter.gate.wait()   # give() passed the turn to this waiter: it is ours now

    def give(self, owner: Hashable) -> None:
        """End the turn ``owner``'s match held, counting its time, and pass it on."""
        with self._lock:
            now = self.clock()
            self._usage[owner] = (self._decayed(owner, now) + max(0.0, now - self._since), now)
            if len(self._usage) > 4 * len(self._waiting) + 256:
                self._forget(now)
            if not self._waiting:
                self._busy = False
                return
            chosen = min(self._waiting, key=lambda w: (self._weight(w.owner, now), w.order))
            self._waiting.remove(chosen)
            self._since = now
        chosen.gate.set()

    def pause(self, owner: Hashable) -> None:
        """Give the turn to a waiting match whose owner weighs less than ``owner`` (this
        turn counted), if any, and wait for the next one; else keep it."""
        if self.breather and self._running.get(owner, 0) > 1 and self._in_company(owner):
            time.sleep(self.breather)   # let the threads serving requests have the interpreter now
        with self._lock:
            if not self._waiting:   # nobody waits: keep it (and its time goes on counting)
                return
            now = self.clock()
            best = min(self._waiting, key=lambda w: (self._weight(w.owner, now), w.order))
            mine = self._weight(owner, now, max(0.0, now - self._since))
            if best.owner == owner or self._weight(best.owner, now) >= mine:
                return
        self.give(owner)
        self.take(owner)

    def _in_company(self, owner: Hashable) -> bool:
        """Whether another owner computed lately (asked again at most every 0.1 s)."""
        now = self.clock()
        asked, at, answer = self._company
        if asked == owner and now - at < 0.1:
            return answer
        with self._lock:
            answer = any(other != owner and now - when < COMPANY for other, (_, when) in self._usage.items())
        self._company = (owner, now, answer)
        return answer

    def _forget(self, now: float) -> None:
        """Drop owners whose use has decayed to nothing (the table stays small)."""
        waiting = {w.owner for w in self._waiting}
        for owner in [o for o in self._usage
                      if o not in waiting and o not in self._running and self._decayed(o, now) < 1e-3]:
            del self._usage[owner]
