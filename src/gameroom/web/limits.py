"""What one web room allows: caps on matches and connections, per-user and per-address
quotas, the body and message limits, the origins that may change anything, and whether
it may listen beyond this machine. Every figure is a ``gameroom web`` option (the README
lists them with these defaults); nothing here imports the web extra, so the command line
can declare the options without it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RoomLimits"]


@dataclass(frozen=True)
class RoomLimits:
    """The bounds of one web room (defaults: safe for a room on a small machine).

    A match is *live* while it waits for its people or runs; live matches hold a thread and
    their frames, so their number is capped overall (``max_live``) and per owner (a logged-in
    user, and the address every request comes from). Finished matches stay in memory
    ``finished_grace`` seconds and at most ``keep_finished`` at once (then the owner with
    the most kept loses its oldest first); a match whose people do not all sit down within
    ``join_within`` seconds is cancelled. ``person_limit`` is a person's time for one
    decision in a match that asks none (None: the game's ``person_limit``)."""

    max_live: int = 32
    matches_per_user: int = 4
    matches_per_address: int = 8
    keep_finished: int = 100
    finished_grace: float = 300.0
    join_within: float = 600.0
    max_sockets: int = 512
    sockets_per_user: int = 16
    sockets_per_address: int = 32
    max_connections: int = 1024
    connections_per_address: int = 256
    unfinished_per_address: int = 32
    head_seconds: float = 10.0
    body_seconds: float = 120.0
    shutdown_seconds: float = 20.0
    requests_per_address: int = 64
    max_body: int = 64 * 1024
    max_message: int = 64 * 1024
    allow_origins: tuple[str, ...] = ()
    public: bool = False
    max_accounts: int = 10_000
    signups_per_address: int = 20
    login_failures: int = 10
    failure_window: float = 300.0
    person_limit: float | None = None
    configured_in: str = ""
    """Where these figures are set, as refusals name them: "" for ``gameroom web``'s options
    (``--signups-per-address``), else a file's table (the arena's ``arena.toml [limits]``)."""
    names: tuple[tuple[str, str], ...] = ()
    """How figures set elsewhere than ``configured_in`` are named (field, words)."""

    def key(self, name: str) -> str:
        """How the figure ``name`` (a field) is set, as an error message names it."""
        named = dict(self.names).get(name)
        if named is not None:
            return named
        if self.configured_in:
            return f"{name} in {self.configured_in}"
        if name == "allow_origins":
            return "gameroom web --allow-origin ORIGIN"
        return f"--{name.replace('_', '-')}"

    def check(self) -> None:
        """Raise ``ValueError`` naming the first figure out of range (by :meth:`key`)."""
        for name in ("max_live", "matches_per_user", "matches_per_address", "max_sockets", "sockets_per_user",
                     "sockets_per_address", "max_connections", "connections_per_address", "unfinished_per_address",
                     "requests_per_address", "max_accounts", "signups_per_address", "login_failures"):
            if getattr(self, name) < 1:
                raise ValueError(f"{self.key(name)} must be at least 1, got {getattr(self, name)}")
        if self.connections_per_address >= self.max_connections:
            raise ValueError(f"{self.key('connections_per_address')} must be less than "
                             f"{self.key('max_connections')} ({self.max_connections}): one address must not take "
                             "every connection")
        if self.unfinished_per_address > self.connections_per_address:
            raise ValueError(f"{self.key('unfinished_per_address')} must be at most "
                             f"{self.key('connections_per_address')} ({self.connections_per_address})")
        for name in ("head_seconds", "body_seconds", "shutdown_seconds"):
            if not 0.1 <= getattr(self, name) <= 3600:
                raise ValueError(f"{self.key(name)} must be seconds in 0.1..3600, got {getattr(self, name)}")
        if self.keep_finished < 0:
            raise ValueError(f"keep-finished must be at least 0, got {self.keep_finished}")
        for name in ("finished_grace", "join_within", "failure_window"):
            if not 0 <= getattr(self, name) <= 30 * 24 * 3600:
                raise ValueError(f"{name.replace('_', '-')} must be seconds in 0..2592000, got {getattr(self, name)}")
        if self.person_limit is not None and not 0 < self.person_limit <= 3600:
            raise ValueError(f"{self.key('person_limit')} must be seconds in (0, 3600], got {self.person_limit}")
        for name in ("max_body", "max_message"):
            if not 1024 <= getattr(self, name) <= 64 * 1024 * 1024:
                raise ValueError(f"{name.replace('_', '-')} must be bytes in 1024..67108864, got {getattr(self, name)}")
