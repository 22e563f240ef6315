"""The request bodies the arena's endpoints take and the answers they make, each declared
once as a schema type (``web.bodies``: msgspec validates a body and names the field that is
wrong, and encodes an answer)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from msgspec import Meta

from gameroom.arena.staff import MAX_REASON
from gameroom.web.bodies import Answer, Body

__all__ = ["MAX_INVITES", "Disable", "Freeze", "Invites", "Join", "Joined", "MadeInvites", "Pause", "Remote",
           "RemoteBot"]

MAX_INVITES = 500
"""Invite codes one request makes at most."""


class Join(Body):
    """``POST /api/arena/join``: an invite code."""

    SHAPE: ClassVar[str] = '{"code": "your invite code"}'
    code: Annotated[str, Meta(min_length=1, max_length=100)]


class Remote(Body):
    """``POST /api/arena/{competition}/remote``: the remote bot's name (its rule is the
    arena's, checked with the other bots' names)."""

    SHAPE: ClassVar[str] = '{"name": "your bot\'s name"}'
    name: Annotated[str, Meta(max_length=200)]


class Pause(Body):
    """``POST /api/arena/admin/pause``."""

    SHAPE: ClassVar[str] = '{"paused": true or false}'
    paused: bool


class Invites(Body):
    """``POST /api/arena/admin/invites``: codes for a competition (checked against the
    arena's configuration by the endpoint)."""

    SHAPE: ClassVar[str] = f'{{"competition": "its name", "count": 1..{MAX_INVITES}}}'
    competition: Annotated[str, Meta(max_length=200)]
    count: Annotated[int, Meta(ge=1, le=MAX_INVITES)] = 1


class Disable(Body):
    """``POST /api/arena/admin/bots/{name}``: why staff disable the bot, or null to enable it."""

    SHAPE: ClassVar[str] = f'{{"disabled": "why (at most {MAX_REASON} characters)"}} or {{"disabled": null}}'
    disabled: Annotated[str, Meta(max_length=MAX_REASON)] | None


class Freeze(Body):
    """``POST /api/arena/admin/{competition}/freeze``."""

    SHAPE: ClassVar[str] = '{"frozen": true or false}'
    frozen: bool


class Joined(Answer):
    """The competition an invite code joined."""

    competition: str


class MadeInvites(Answer):
    """New invite codes of a competition."""

    competition: str
    codes: list[str]


class RemoteBot(Answer):
    """A remote bot registered: its version, its secret token, and where and how it connects."""

    bot: str
    version: int
    token: str
    host: str
    port: int
    command: str
