"""gameroom's one exception hierarchy: every error the platform raises on purpose derives
from :class:`GameroomError`, in five families.

* wire errors (:class:`WireError`): a JSON value without the shape a codec expects; a
  ``ValueError`` too, because callers that parse input catch ``ValueError``;
* call errors (:class:`CallFailed`): a call to a player failed, with its
  :class:`~gameroom.core.record.FailureKind`;
* rule errors (:class:`RuleError`): the rules refuse an action (:class:`IllegalAction`) or
  a game (:class:`GameRefused`); ``ValueError`` too, as the games raised before;
* usage errors (:class:`UsageError`): a bad command line, reported in one line, status 2;
* configuration errors (:class:`ConfigurationError`, :class:`OptionError`): a configuration
  or option value that cannot be used; ``ValueError`` too.

Each class keeps the message it is given byte for byte (specs, fixtures and tests print
them). The modules that defined these classes before re-export them under the old names.
Control flow that is not an error (a cancelled match, a lobby's silence) stays outside.
"""

from __future__ import annotations

from gameroom.core.record import FailureKind

__all__ = ["GameroomError", "WireError", "CallFailed", "RuleError", "IllegalAction", "GameRefused",
           "UsageError", "ConfigurationError", "OptionError"]


class GameroomError(Exception):
    """The base of every error gameroom raises on purpose."""


class WireError(GameroomError, ValueError):
    """A JSON value does not have the shape a codec expects."""

    def __init__(self, message: str, where: str = "$") -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.detail = message


class CallFailed(GameroomError):
    """A call to a player failed: exception, time-out, invalid reply or disconnect."""

    def __init__(self, reason: str, kind: FailureKind = FailureKind.EXCEPTION) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


class RuleError(GameroomError, ValueError):
    """The rules refuse something: an action or a whole game."""


class IllegalAction(RuleError):
    """A player's action breaks a rule in this state; the referee ejects the player."""


class GameRefused(RuleError):
    """The referee does not run this game: the signed-up players do not match what the
    rules or the configured state allow (Bazaar §3.2, q.md 7.4)."""


class UsageError(GameroomError):
    """A bad command line or configuration: reported as one line, exit status 2."""


class ConfigurationError(GameroomError, ValueError):
    """A configuration that cannot be used as a whole (too many JSON values on standard
    input, ...); a value of the wrong shape inside it is a :class:`WireError`."""


class OptionError(ConfigurationError):
    """A bad option value; the message names the option (``--depth must lie in 1..4, got 9``)."""
