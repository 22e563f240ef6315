"""The arena's refusals: :class:`ArenaError`, with the HTTP status its endpoints answer."""

from __future__ import annotations

from gameroom.core.errors import GameroomError

__all__ = ["ArenaError"]


class ArenaError(GameroomError, ValueError):
    """A request the arena refuses (``status`` is the HTTP status, the message says why)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
