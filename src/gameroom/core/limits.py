"""Time limits as one typed value, with one meaning of "no limit" (``None``).

Every game declares its constants once as a :class:`Limits` in its descriptor; referees,
sign-up rules and configurations read them from there instead of loose numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["Limits", "NO_LIMIT", "UNLIMITED"]

NO_LIMIT = None
"""The one spelling of "no limit" for any of the seconds below."""


@dataclass(frozen=True)
class Limits:
    """Seconds a player (or a connection) is given; ``None`` means no limit.

    ``call``: one call to a player. ``ready``: a call while the player is getting ready
    (Fish's first playing round; None: the call limit applies). ``signup_first_byte`` and
    ``signup_complete``: the first byte of a sign-up message, then the rest of it.
    """

    call: float | None = NO_LIMIT
    ready: float | None = NO_LIMIT
    signup_first_byte: float | None = NO_LIMIT
    signup_complete: float | None = NO_LIMIT

    def __post_init__(self) -> None:
        for name in ("call", "ready", "signup_first_byte", "signup_complete"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"limit {name} must be positive seconds or None (no limit), got {value!r}")

    def with_call(self, seconds: float | None) -> "Limits":
        return replace(self, call=seconds)


UNLIMITED = Limits()
"""No limit anywhere: trusted built-in players in process."""
