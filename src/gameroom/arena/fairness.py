"""Who goes next: students' work taken in turn, and the ladder's pace.

* :class:`FairQueue`: items by key (a student), taken round-robin between the keys and
  in order within one key. The builds and the qualification games of new versions wait
  in one each, so a student who uploads twelve versions waits behind the others' one,
  not in front of them.
* :class:`Pacer`: a competition's ladder pace (``games_per_hour``: games started an
  hour, one every ``3600 / games_per_hour`` seconds rather than in bursts) and each
  bot's budget (``bot_games_per_hour``: ladder games it may start in any hour). Its
  clock is injected (the monotonic clock by default).
"""

from __future__ import annotations

import collections
import time
from typing import Callable, Generic, Hashable, Iterable, Iterator, TypeVar

__all__ = ["FairQueue", "Pacer", "HOUR"]

T = TypeVar("T")
HOUR = 3600.0


class FairQueue(Generic[T]):
    """Items taken round-robin between keys, first in first out within one key (not
    thread-safe: its owner holds a lock)."""

    def __init__(self) -> None:
        self._queues: collections.OrderedDict[Hashable, collections.deque[T]] = collections.OrderedDict()

    def put(self, key: Hashable, item: T) -> None:
        self._queues.setdefault(key, collections.deque()).append(item)

    def extend(self, key: Hashable, items: Iterable[T]) -> None:
        for item in items:
            self.put(key, item)

    def take(self, ready: Callable[[T], bool] = lambda _item: True) -> T | None:
        """The next item that is ``ready``: the first ready one of the key whose turn it
        is (a key that has none ready keeps its turn for later); that key then goes last."""
        for key in list(self._queues):
            queue = self._queues[key]
            for at, item in enumerate(queue):
                if ready(item):
                    del queue[at]
                    if queue:
                        self._queues.move_to_end(key)
                    else:
                        del self._queues[key]
                    return item
        return None

    def remove(self, unwanted: Callable[[T], bool]) -> int:
        """Drop every item ``unwanted`` says; how many were dropped."""
        dropped = 0
        for key in list(self._queues):
            kept = collections.deque(item for item in self._queues[key] if not unwanted(item))
            dropped += len(self._queues[key]) - len(kept)
            if kept:
                self._queues[key] = kept
            else:
                del self._queues[key]
        return dropped

    def __len__(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    def __iter__(self) -> Iterator[T]:
        return iter([item for queue in self._queues.values() for item in queue])


class Pacer:
    """One competition's ladder pace and its bots' hourly budgets (0: no bound)."""

    def __init__(self, games_per_hour: int = 0, bot_games_per_hour: int = 0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = HOUR / games_per_hour if games_per_hour else 0.0
        self.budget = bot_games_per_hour
        self.clock = clock
        self.next_at = float("-inf")
        self.starts: dict[str, collections.deque[float]] = {}

    def due(self) -> bool:
        """Whether the competition may start a ladder game now."""
        return not self.interval or self.clock() >= self.next_at

    def allowed(self, bot: str) -> bool:
        """Whether ``bot`` has ladder games left in the last hour's budget."""
        if not self.budget:
            return True
        starts = self.starts.get(bot)
        if starts is None:
            return True
        horizon = self.clock() - HOUR
        while starts and starts[0] <= horizon:
            starts.popleft()
        return len(starts) < self.budget

    def started(self, bots: Iterable[str]) -> None:
        """A ladder game of ``bots`` has started now."""
        moment = self.clock()
        if self.interval:
            self.next_at = moment + self.interval
        if self.budget:
            for bot in bots:
                self.starts.setdefault(bot, collections.deque()).append(moment)
