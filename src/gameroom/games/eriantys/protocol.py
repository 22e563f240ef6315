"""The in-process Eriantys player interface declared for the core (eriantys.md 5): four
calls, the last one final, and the check that holds a local player's ``act`` reply to an
event object. The lobby speaks the spec's own event protocol; this one serves the
referee, the web room and every generic command."""

from __future__ import annotations

from typing import Any, Protocol

from gameroom.core.protocol import JSON, Method, WireProtocol
from gameroom.core.wire import WireError, describe

__all__ = ["PROTOCOL", "PlayerInterface"]


class PlayerInterface(Protocol):
    """An in-process Eriantys player, as the referee calls it (eriantys.md 5)."""

    def setup(self, seat: int, players: list[str], expert: bool) -> None: ...

    def observe(self, message: dict[str, Any]) -> None: ...

    def act(self, state: dict[str, Any]) -> Any: ...

    def end(self, winners: list[str]) -> None: ...


def _event_object(value: Any) -> Any:
    if not isinstance(value, dict):
        raise WireError(f"expected an event object, got {describe(value)}")
    return value


PROTOCOL = WireProtocol("eriantys", (
    Method("setup", "setup", (JSON, JSON, JSON)),
    Method("observe", "observe", (JSON,)),
    Method("act", "act", (JSON,), JSON, check=_event_object),
    Method("end", "end", (JSON,), final=True),
))
"""``setup(seat, usernames, expert)``, ``observe(message)`` of each broadcast,
``act(snapshot) -> event``, ``end(winners)``."""
