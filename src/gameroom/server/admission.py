"""What one address may hold of a listening server: the admission of every server of the
platform (the web room and the arena's pages on uvicorn, the arena's remote-bot port, the
lobby, a game's sign-up).

Each accepted connection takes a :class:`Place` from the server's :class:`Admission`
before anything is read from it, and gives it back when it closes. Three bounds:

* ``total``: connections open at once. It is kept under the process's file-handle limit
  (:func:`file_limit` raises the soft ``RLIMIT_NOFILE`` to the hard one and leaves room for
  the process's own files), so a crowd is refused one connection at a time instead of
  the server failing to accept anything ("Too many open files");
* ``per_address``: connections one address may hold open;
* ``unfinished_per_address``: connections of one address that have not yet completed
  what a client sends first (an HTTP request's head, a remote bot's sign-up, a lobby
  LOGIN), a smaller number. Slow and silent connections are what costs a server without
  costing the client anything, so one address may hold only a few of them; the servers
  also close each one after its own time-out (``head_seconds`` and the like).

Addresses are counted by ``lobby_limits.address_key`` (an IPv6 client by its /64). The
addresses of trusted reverse proxies (:class:`TrustedProxies`) are not counted per
address: every client behind a proxy arrives from it, and the web room counts the
forwarded client address at the request level instead. A refusal is a sentence naming
the configuration key that sets the bound, in the words of the server's configuration
(``--connections-per-address``, or arena.toml's ``[limits] connections_per_address``).
"""

from __future__ import annotations

import ipaddress
import resource
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gameroom.server.lobby_limits import address_key

__all__ = ["Admission", "Place", "TrustedProxies", "file_limit", "connection_cap", "FILE_RESERVE"]

FILE_RESERVE = 128
"""File handles kept for the process's own use (its database, logs, pipes, programs) below
the limit, at least; a tenth of the limit when that is more."""


def file_limit() -> int:
    """Raise the soft limit of open files to the hard limit (where it is lower) and return
    the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20) if soft != resource.RLIM_INFINITY else 1 << 20
    if soft == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass   # kept as it was: the cap below follows it
    return soft


def connection_cap(wanted: int, limit: int | None = None) -> int:
    """The connections a server may hold at once: ``wanted``, kept under the file-handle
    ``limit`` (this process's, raised first, when not given) less the reserve."""
    limit = file_limit() if limit is None else limit
    return max(1, min(wanted, limit - max(FILE_RESERVE, limit // 10)))


class TrustedProxies:
    """The addresses (or networks) of reverse proxies whose forwarded client address is
    believed: written as uvicorn's ``forwarded_allow_ips``, a comma-separated list;
    empty: none (the default)."""

    def __init__(self, text: str | Iterable[str] = "") -> None:
        parts = [p.strip() for p in (text.split(",") if isinstance(text, str) else text) if p.strip()]
        self.text = ",".join(parts)
        self.networks = []
        for part in parts:
            try:
                self.networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"{part[:60]!r} is not an IP address or network") from None

    def __bool__(self) -> bool:
        return bool(self.networks)

    def __contains__(self, host: object) -> bool:
        try:
            address = ipaddress.ip_address(str(host).split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address.version == net.version and address in net for net in self.networks)


class Place:
    """One admitted connection: its address's key and whether it is still *unfinished*
    (has not completed what a client sends first; the server clears and sets it)."""

    __slots__ = ("key", "unfinished", "counted", "given_back")

    def __init__(self, key: str, counted: bool) -> None:
        self.key = key
        self.unfinished = True
        self.counted = counted   # False: a trusted proxy's, not counted per address
        self.given_back = False


@dataclass(frozen=True)
class Bounds:
    total: int
    per_address: int
    unfinished_per_address: int


class Admission:
    """The open connections of one server, counted in all and per address (see the
    module's docstring). Used from the server's event loop only: no lock."""

    def __init__(self, total: int, per_address: int, unfinished_per_address: int,
                 trusted: TrustedProxies | None = None, key_name: Callable[[str], str] = lambda k: k) -> None:
        self.bounds = Bounds(total, per_address, unfinished_per_address)
        self.trusted = trusted if trusted is not None else TrustedProxies()
        self.key_name = key_name
        self.open = 0
        self.refused = 0
        self.by_address: dict[str, set[Place]] = {}

    def enter(self, peer: object) -> Place | str:
        """A place for a connection from ``peer`` (a ``peername``), or why there is none."""
        bounds = self.bounds
        host = peer[0] if isinstance(peer, tuple) and peer else peer
        key = address_key(peer)
        if self.open >= bounds.total:
            self.refused += 1
            return (f"the server has {self.open} connections open, its most ({self.key_name('max_connections')}); "
                    "try again in a moment")
        counted = host not in self.trusted
        if counted:
            places = self.by_address.get(key, ())
            if len(places) >= bounds.per_address:
                self.refused += 1
                return (f"{len(places)} connections are open from your address, the most one address may "
                        f"({self.key_name('connections_per_address')})")
            unfinished = sum(1 for place in places if place.unfinished)
            if unfinished >= bounds.unfinished_per_address:
                self.refused += 1
                return (f"{unfinished} connections from your address have not sent their first request yet, the "
                        f"most one address may ({self.key_name('unfinished_per_address')})")
        place = Place(key, counted)
        self.open += 1
        if counted:
            self.by_address.setdefault(key, set()).add(place)
        return place

    def leave(self, place: Place | None) -> None:
        """Give a place back (once; None and a place given back already are ignored)."""
        if place is None or place.given_back:
            return
        place.given_back = True
        self.open -= 1
        if place.counted:
            places = self.by_address.get(place.key)
            if places is not None:
                places.discard(place)
                if not places:
                    del self.by_address[place.key]

    def holding(self, peer: object) -> int:
        """Connections open from ``peer``'s address."""
        return len(self.by_address.get(address_key(peer), ()))
