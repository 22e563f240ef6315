"""The parts of one web room that its pages, endpoints and websockets share: the match
book, the accounts and their passwords, the limits, the operator's policies offered as
bots, the open sockets counted per address
and per account, the throttles of log-ins and sign-ups, and the strikes of addresses
whose requests were refused. :meth:`Room.signed_in` is the
account a request's session cookie proves (Starlette's ``SessionMiddleware`` signs it)."""

from __future__ import annotations

import asyncio
import functools
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.requests import HTTPConnection

from gameroom.web.accounts import Account, AccountStore, Lockout, MemoryAccounts, Passwords, Throttle, session_digest
from gameroom.web.book import MatchBook
from gameroom.web.limits import RoomLimits
from gameroom.web.matches import Owner
from gameroom.web.policies import WebPolicies
from gameroom.web.public import Scrubber, server_roots
from gameroom.web.strikes import Strikes

_T = TypeVar("_T")

__all__ = ["SESSION_KEY", "Room", "SocketCounts", "address_of", "room_of"]

SESSION_KEY = "account"
"""The session cookie's entry: {"key": the account's key, "stamp": its stamp, "session": the
token of the session the store keeps}."""
ADDRESS_FAILURES = 10
"""Failed log-ins an address may make within the failure window, as a multiple of
``login_failures`` (what one address tries against many accounts; a lab behind one
address makes typos too)."""


class SocketCounts:
    """Open websockets, at most ``max_sockets`` in all and the quotas per address and per
    account (the event loop's alone: no lock)."""

    def __init__(self, limits: RoomLimits) -> None:
        self.limits = limits
        self.total = 0
        self.by_address: Counter[str] = Counter()
        self.by_user: Counter[str] = Counter()

    def take(self, address: str, user: str | None) -> str | None:
        """Count one more socket; the reason it may not open instead."""
        limits = self.limits
        if self.total >= limits.max_sockets:
            return (f"the room has {self.total} connections open, its most ({limits.key('max_sockets')}); "
                    "try again later")
        if self.by_address[address] >= limits.sockets_per_address:
            return (f"{limits.sockets_per_address} connections are open from your address, the most one address "
                    f"may ({limits.key('sockets_per_address')}); close a page first")
        if user is not None and self.by_user[user] >= limits.sockets_per_user:
            return (f"{limits.sockets_per_user} connections are open for your account, the most one account may "
                    f"({limits.key('sockets_per_user')}); close a page first")
        self.total += 1
        self.by_address[address] += 1
        if user is not None:
            self.by_user[user] += 1
        return None

    def give(self, address: str, user: str | None) -> None:
        self.total -= 1
        for counts, key in ((self.by_address, address), (self.by_user, user)):
            if key is not None:
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]


@dataclass
class Room:
    """One web room's shared parts (see the module's docstring)."""

    book: MatchBook
    accounts: AccountStore = field(default_factory=MemoryAccounts)
    passwords: Passwords = field(default_factory=Passwords)
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    strikes: Strikes = field(default_factory=Strikes)
    policies: WebPolicies = field(default_factory=WebPolicies)
    """The trained agents the operator offers for seats (``gameroom web --policy``)."""
    private: tuple[str, ...] = ()
    """Folders of this server beside the usual ones (``web.public.server_roots``: the
    database's, the arena's data) that no public answer may show."""
    staff: Callable[[Account], bool] | None = None
    """Whether an account is staff, who see answers with the server's paths (the arena's
    administrators; asked on a worker thread); None: nobody is."""
    failures: Throttle = field(init=False)
    lockout: Lockout = field(init=False)
    signups: Throttle = field(init=False)
    sockets: SocketCounts = field(init=False)

    def __post_init__(self) -> None:
        limits = self.limits
        self.failures = Throttle(limits.login_failures * ADDRESS_FAILURES, limits.failure_window)
        self.lockout = Lockout(limits.login_failures, limits.failure_window)
        self.signups = Throttle(limits.signups_per_address, 3600.0)
        self.sockets = SocketCounts(limits)

    @property
    def limits(self) -> RoomLimits:
        return self.book.limits

    async def find_account(self, key: str) -> tuple[Account, str] | None:
        """The account with that key and its password hash (a database is asked off the loop)."""
        if self.accounts.slow:
            return await asyncio.to_thread(self.accounts.find, key)
        return self.accounts.find(key)

    async def add_account(self, account: Account, password_hash: str) -> None:
        await self.ask(self.accounts.add, account, password_hash)

    async def ask(self, call: Callable[..., _T], *args: Any) -> _T:
        """``call(*args)`` of the account store (a database is asked off the loop)."""
        if self.accounts.slow:
            return await asyncio.to_thread(call, *args)
        return call(*args)

    async def log_in(self, connection: HTTPConnection, account: Account) -> None:
        """Open a session of ``account`` on the server and name it in the request's cookie."""
        token = secrets.token_urlsafe(32)
        await self.ask(self.accounts.open_session, account.key, session_digest(token), time.time())
        session: Any = connection.scope["session"]
        session.clear()
        session[SESSION_KEY] = {"key": account.key, "stamp": account.stamp, "session": token}

    def session_token(self, connection: HTTPConnection) -> str | None:
        entry = (connection.scope.get("session") or {}).get(SESSION_KEY)
        token = entry.get("session") if isinstance(entry, dict) else None
        return token if isinstance(token, str) and len(token) <= 100 else None

    async def log_out(self, connection: HTTPConnection, everywhere: bool = False) -> int:
        """End the request's session on the server (every session of its account with
        ``everywhere``) and clear its cookie; how many sessions ended."""
        account = await self.signed_in(connection)
        token = self.session_token(connection)
        ended = 0
        if account is not None and everywhere:
            ended = await self.ask(self.accounts.close_sessions, account.key)
        elif token is not None:
            await self.ask(self.accounts.close_session, session_digest(token))
            ended = 1 if account is not None else 0
        connection.scope["session"].clear()
        return ended

    async def signed_in(self, connection: HTTPConnection) -> Account | None:
        """The account whose open session the request's cookie names (the session kept on
        the server, unexpired, and the account's stamp still the cookie's)."""
        session: Any = connection.scope.get("session") or {}
        entry = session.get(SESSION_KEY)
        token = self.session_token(connection)
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str) \
                or not isinstance(entry.get("stamp"), str) or token is None:
            return None
        found = await self.ask(self.accounts.session, session_digest(token), time.time())
        if found is None or found[0].key != entry["key"] \
                or not secrets.compare_digest(found[0].stamp.encode(), entry["stamp"].encode()):
            return None
        account: Account = found[0]
        return account

    @functools.cached_property
    def scrubber(self) -> Scrubber:
        """What hides this server's folders from public answers (``web.public``)."""
        return Scrubber(server_roots(*self.private))

    async def is_staff(self, scope: Any) -> bool:
        """Whether the request of ``scope`` is signed in to a staff account."""
        if self.staff is None:
            return False
        account = await self.signed_in(HTTPConnection(scope))
        return account is not None and await asyncio.to_thread(self.staff, account)

    async def owner(self, connection: HTTPConnection) -> tuple[Owner, Account | None]:
        """Who is asking: their address and, when logged in, their account."""
        account = await self.signed_in(connection)
        return Owner(address_of(connection), account.key if account is not None else None), account


def address_of(connection: HTTPConnection) -> str:
    return connection.client.host if connection.client is not None else "unknown"


def room_of(connection: HTTPConnection) -> Room:
    """The web room whose application took ``connection`` (``app.state.room``): module-level
    endpoints find it there."""
    room: Room = connection.app.state.room
    return room
