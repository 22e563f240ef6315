"""What one client may cost the lobby: quotas per address (connections, of them those not
logged in yet, rooms), the throttle on failed room joins, and the key that makes usernames
unique regardless of case.

A username is one connection and a client is in at most one room (eriantys.md 7.2, 7.3),
so a user's own quotas are fixed at one by the protocol; what a hostile host can multiply
is connections, each with its own name. Those are counted per address: an IPv4 address,
or an IPv6 /64 (the block one subscriber is usually given, so that stepping through its
addresses does not reset the count).
"""

from __future__ import annotations

import functools
import ipaddress
import unicodedata
from dataclasses import dataclass
from typing import Any

__all__ = ["AddressBook", "AddressUse", "JoinThrottle", "address_key", "username_key"]


def address_key(peer: Any) -> str:
    """The quota key of a peer address (``peername``): IPv4 as is, IPv6 by its /64,
    an IPv4-mapped IPv6 address as its IPv4 address; anything else (a Unix socket) as text."""
    return _host_key(str(peer[0] if isinstance(peer, tuple) and peer else peer))


@functools.lru_cache(maxsize=4096)
def _host_key(host: str) -> str:
    # remembered: a crowd reconnecting from a few addresses is keyed at every connection
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def username_key(name: str) -> str:
    """Two names with the same key are the same user: NFKC, case-folded, NFKC again (the
    Unicode "NFKC_Casefold" identity, so ``Alice``, ``ALICE`` and ``Ａｌｉｃｅ`` are one)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


class JoinThrottle:
    """Failed joins allowed per minute, with that many at once (a generic cell rate
    algorithm): each failure pushes ``ahead`` by 60/rate seconds, and an attempt waits
    while ``ahead`` is more than a minute less one interval away. Attempts that waited
    together and all failed push it further, so the rate holds on average."""

    def __init__(self, per_minute: int) -> None:
        self.interval = 60.0 / per_minute if per_minute > 0 else 0.0
        self.burst = 60.0
        self.ahead = 0.0     # the theoretical time of the next allowed failure

    def wait(self, now: float) -> float:
        """Seconds an attempt must wait before it is looked at (0: at once)."""
        if not self.interval:
            return 0.0
        return max(0.0, self.ahead - (self.burst - self.interval) - now)

    def failed(self, now: float) -> None:
        if self.interval:
            self.ahead = max(self.ahead, now) + self.interval

    def idle(self, now: float) -> bool:
        return self.ahead <= now


@dataclass
class AddressUse:
    """What one address holds now."""
    connections: int = 0
    unlogged: int = 0     # of its connections, those that have not logged in yet
    rooms: int = 0
    joins: JoinThrottle | None = None


class AddressBook:
    """Per-address counts; an entry lives while the address holds something or its join
    throttle still remembers failures (so hanging up does not wipe the penalty)."""

    def __init__(self, max_connections: int, max_rooms: int, failed_joins_per_minute: int,
                 max_unlogged: int = 0) -> None:
        self.max_connections = max_connections
        self.max_unlogged = max_unlogged
        self.max_rooms = max_rooms
        self.failed_joins_per_minute = failed_joins_per_minute
        self.uses: dict[str, AddressUse] = {}
        self._sweep_at = 256

    def use(self, key: str) -> AddressUse:
        use = self.uses.get(key)
        if use is None:
            use = self.uses[key] = AddressUse(joins=JoinThrottle(self.failed_joins_per_minute))
        return use

    def over(self, key: str) -> str | None:
        """The quota a new connection from ``key`` would be over: ``connections``,
        ``unlogged`` (connections that have not logged in yet), or None."""
        use = self.uses.get(key)
        if use is None:
            return None
        if self.max_connections and use.connections >= self.max_connections:
            return "connections"
        if self.max_unlogged and use.unlogged >= self.max_unlogged:
            return "unlogged"
        return None

    def connect(self, key: str) -> bool:
        """Count a new connection from ``key`` (not logged in yet); False (nothing counted)
        when over a quota (:meth:`over` says which)."""
        if self.over(key) is not None:
            return False
        use = self.use(key)
        use.connections += 1
        use.unlogged += 1
        return True

    def logged_in(self, key: str) -> None:
        """One of ``key``'s connections logged in: no longer counted as unlogged."""
        use = self.uses.get(key)
        if use is not None:
            use.unlogged -= 1

    def disconnect(self, key: str, now: float, unlogged: bool = False) -> None:
        use = self.uses.get(key)
        if use is not None:
            use.connections -= 1
            use.unlogged -= unlogged
            self.prune(key, now)

    def may_create_room(self, key: str) -> bool:
        return not self.max_rooms or self.use(key).rooms < self.max_rooms

    def room_created(self, key: str) -> None:
        self.use(key).rooms += 1

    def room_closed(self, key: str, now: float) -> None:
        use = self.uses.get(key)
        if use is not None:
            use.rooms -= 1
            self.prune(key, now)

    def prune(self, key: str, now: float) -> None:
        """Forget ``key`` when it holds nothing; and when the book has doubled since the
        last sweep, forget every such entry (addresses whose penalty has run out)."""
        use = self.uses.get(key)
        if use is not None and self._idle(use, now):
            del self.uses[key]
        if len(self.uses) >= self._sweep_at:
            for other in [k for k, u in self.uses.items() if self._idle(u, now)]:
                del self.uses[other]
            self._sweep_at = max(256, 2 * len(self.uses))

    @staticmethod
    def _idle(use: AddressUse, now: float) -> bool:
        return use.connections <= 0 and use.rooms <= 0 and (use.joins is None or use.joins.idle(now))

