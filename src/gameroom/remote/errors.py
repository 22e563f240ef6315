"""What can go wrong reading a peer's JSON stream, for the asyncio
(:mod:`gameroom.remote.connection`) and the blocking (:mod:`gameroom.remote.blocking`)
reader alike, which raise the same exceptions with the same texts."""

from __future__ import annotations

__all__ = ["ConnectionClosed", "ReadTimeout"]


class ConnectionClosed(ConnectionError):
    """The peer closed the stream before a complete value arrived."""


class ReadTimeout(TimeoutError):
    """No complete value arrived within the limit."""
