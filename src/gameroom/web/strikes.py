"""Slowing down an address whose requests keep being refused.

Every refusal the room gives an address — a cross-origin post, a body too large or too
deep, a quota reached, a failed log-in, a bad websocket message — is a *strike*; strikes
fade (halved every ``half_life`` seconds). Past ``free`` strikes, each request of that
address waits ``step`` seconds per strike beyond them (at most ``most``) before the room
looks at it. Refusing is cheap but not free: a client that sends refusals in a tight loop
kept the room's one interpreter busy parsing them, and the honest matches beside it ran
at half speed. An honest user, whose requests are refused now and then, never waits; an
address sending bad requests without pause is served a few a second.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["Strikes"]


class Strikes:
    """Fading refusals per address and the wait they earn (see the module's docstring)."""

    def __init__(self, free: float = 10, step: float = 0.05, most: float = 2.0, half_life: float = 10.0,
                 addresses: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self.free, self.step, self.most, self.half_life = free, step, most, half_life
        self.addresses, self.clock = addresses, clock
        self._strikes: OrderedDict[str, tuple[float, float]] = OrderedDict()   # address -> (strikes, as of)

    def _now(self, address: str, now: float) -> float:
        strikes, at = self._strikes.get(address, (0.0, now))
        return float(strikes * 0.5 ** (max(0.0, now - at) / self.half_life))

    def add(self, address: str, count: float = 1) -> None:
        now = self.clock()
        self._strikes[address] = (self._now(address, now) + count, now)
        self._strikes.move_to_end(address)
        while len(self._strikes) > self.addresses:
            self._strikes.popitem(last=False)

    def wait(self, address: str) -> float:
        """Seconds a request of ``address`` waits before it is served."""
        if address not in self._strikes:
            return 0.0
        over = self._now(address, self.clock()) - self.free
        return 0.0 if over <= 0 else min(self.most, over * self.step)
