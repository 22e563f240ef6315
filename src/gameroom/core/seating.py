"""Choosing how to call each local player: trusted built-ins directly, anything that may
misbehave through a timed worker thread."""

from __future__ import annotations

from typing import Any

from gameroom.core.match import Seat, guarded_seat, trusted_seat

__all__ = ["local_seat"]


def local_seat(name: str, player: Any, trusted: bool) -> Seat:
    """A seat for an in-process player; ``trusted`` players skip the thread and the limit."""
    return trusted_seat(name, player) if trusted else guarded_seat(name, player)
