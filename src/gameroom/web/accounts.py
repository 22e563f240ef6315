"""Accounts of the people who play in the web room: names, passwords and where they are kept.

A name is compared by its *key*: NFKC-normalised, case-folded and normalised again, so
``Alice``, ``ALICE`` and ``ａｌｉｃｅ`` (full-width) are one account. A name is 1 to 32
letters, digits, ``_``, ``-`` or ``.``, starting with a letter or digit. A password
(8 to 256 characters) is kept only as its argon2id hash (argon2-cffi), with OWASP's
parameters (19 MiB, 2 passes, 1 lane): each hash costs a few tens of milliseconds and
19 MiB while it runs, so :class:`Passwords` runs at most two at a time, off the event loop,
and refuses new work beyond a short queue rather than letting sign-up floods take the
memory. Each account has a random *stamp* that its sessions carry: a session of an
account that no longer exists does not open a later account of the same name.

Accounts live in memory (:class:`MemoryAccounts`, capped; gone when the room stops) or in
the results database (``web.account_rows.DatabaseAccounts`` with ``--db``).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
import unicodedata
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Account", "AccountError", "AccountStore", "Busy", "MemoryAccounts", "Passwords", "Throttle",
           "account_key", "checked_name", "checked_password", "new_stamp"]

MAX_NAME = 32
MIN_PASSWORD = 8
MAX_PASSWORD = 256
NAME_MARKS = "_-."


class AccountError(ValueError):
    """A sign-up or log-in that cannot go on: the HTTP status and the message saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Busy(Exception):
    """Too many passwords are being hashed: try again shortly."""


@dataclass(frozen=True)
class Account:
    """One account: its name as written (NFKC), its key (unique), its sessions' stamp."""

    name: str
    key: str
    stamp: str


def account_key(name: str) -> str:
    """The form two names are compared in: NFKC, case-folded, NFKC again."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def checked_name(name: Any) -> tuple[str, str]:
    """The name as kept (NFKC) and its key; :class:`AccountError` (400) saying what is wrong."""
    if not isinstance(name, str):
        raise AccountError(400, "username: expected a string")
    shown = unicodedata.normalize("NFKC", name)
    if not 1 <= len(shown) <= MAX_NAME:
        raise AccountError(400, f"username: 1 to {MAX_NAME} characters, got {len(shown)}")
    bad = next((c for c in shown if not (c.isalnum() or c in NAME_MARKS)), None)
    if bad is not None:
        raise AccountError(400, f"username: letters, digits, '_', '-' and '.' only, not {bad!r}")
    if not shown[0].isalnum():
        raise AccountError(400, "username: must start with a letter or a digit")
    return shown, account_key(shown)


def checked_password(password: Any) -> str:
    if not isinstance(password, str):
        raise AccountError(400, "password: expected a string")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(400, f"password: {MIN_PASSWORD} to {MAX_PASSWORD} characters, got {len(password)}")
    return password


def new_stamp() -> str:
    return secrets.token_urlsafe(16)


class AccountStore(Protocol):
    """Where accounts are kept; ``where`` says so on start; ``slow`` stores (a database)
    are asked on a worker thread, off the event loop."""

    where: str
    slow: bool

    def add(self, account: Account, password_hash: str) -> None:
        """Keep a new account; :class:`AccountError` 409 when its key is taken (507 when full)."""

    def find(self, key: str) -> tuple[Account, str] | None:
        """The account with that key and its password hash."""


class MemoryAccounts:
    """Accounts in this process's memory, at most ``limit`` of them."""

    where = "in memory (they are gone when the room stops; gameroom web --db URL keeps them)"
    slow = False

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._accounts: dict[str, tuple[Account, str]] = {}
        self._lock = threading.Lock()

    def add(self, account: Account, password_hash: str) -> None:
        with self._lock:
            if account.key in self._accounts:
                raise AccountError(409, f"username {account.name!r} is taken")
            if len(self._accounts) >= self.limit:
                raise AccountError(507, f"the room holds {self.limit} accounts, its most (--max-accounts)")
            self._accounts[account.key] = (account, password_hash)

    def find(self, key: str) -> tuple[Account, str] | None:
        return self._accounts.get(key)


class Passwords:
    """argon2id hashing on worker threads, ``workers`` at once and ``queue`` waiting."""

    def __init__(self, workers: int = 2, queue: int = 16) -> None:
        from argon2 import PasswordHasher

        # OWASP's recommendation for argon2id: 19 MiB, 2 iterations, 1 degree of parallelism
        self.hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
        self.workers, self.queue = workers, queue
        self._slots: asyncio.Semaphore | None = None
        self._waiting = 0
        self._dummy: str | None = None

    async def _run(self, work: Callable[[], Any]) -> Any:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers)
        if self._waiting >= self.workers + self.queue:
            raise Busy("too many sign-ups and log-ins at once: try again in a moment")
        self._waiting += 1
        try:
            async with self._slots:
                return await asyncio.to_thread(work)
        finally:
            self._waiting -= 1

    async def hash(self, password: str) -> str:
        return await self._run(lambda: self.hasher.hash(password))

    async def verify(self, password_hash: str | None, password: str) -> bool:
        """Whether ``password`` is the one hashed; with no hash (no such account) a hash
        is checked all the same, so the answer takes as long either way."""
        from argon2.exceptions import InvalidHashError, VerificationError

        if password_hash is None:
            if self._dummy is None:
                self._dummy = await self.hash(secrets.token_urlsafe(16))
            dummy = self._dummy
            await self._run(lambda: _verifies(self.hasher, dummy, password, (VerificationError, InvalidHashError)))
            return False
        return await self._run(lambda: _verifies(self.hasher, password_hash, password,
                                                 (VerificationError, InvalidHashError)))


def _verifies(hasher: Any, password_hash: str, password: str, failures: tuple[type[Exception], ...]) -> bool:
    try:
        return bool(hasher.verify(password_hash, password))
    except failures:
        return False


class Throttle:
    """At most ``limit`` events per key within ``window`` seconds (failed log-ins per
    address and per account, sign-ups per address); at most ``keys`` keys remembered."""

    def __init__(self, limit: int, window: float, keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.keys, self.clock = limit, window, keys, clock
        self._events: OrderedDict[str, deque[float]] = OrderedDict()   # least recently counted first

    def _recent(self, key: str, now: float) -> deque[float] | None:
        events = self._events.get(key)
        while events and now - events[0] >= self.window:
            events.popleft()
        if events is not None and not events:
            del self._events[key]
            return None
        return events

    def allows(self, key: str) -> bool:
        events = self._recent(key, self.clock())
        return events is None or len(events) < self.limit

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may go on (0: now)."""
        now = self.clock()
        events = self._recent(key, now)
        if events is None or len(events) < self.limit:
            return 0.0
        return max(0.0, self.window - (now - events[0]))

    def count(self, key: str) -> None:
        now = self.clock()
        events = self._recent(key, now)
        if events is None:
            if len(self._events) >= self.keys:   # forget the key counted least recently
                self._events.popitem(last=False)
            events = self._events[key] = deque()
        self._events.move_to_end(key)
        events.append(now)
        while len(events) > self.limit:
            events.popleft()
