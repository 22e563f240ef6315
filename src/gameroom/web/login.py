"""Sign-up, log-in and log-out of the web room's people, as pages and JSON endpoints.

    GET  /signup, /login       the pages (a form each; ``?next=/path`` to go back after)
    POST /api/signup           {"username", "password"} -> 201 {"username"}, logged in
    POST /api/login            {"username", "password"} -> 200 {"username"}; 401 when wrong
    POST /api/logout           {"everywhere": bool}? -> 200 {"username": null, "ended": N}: this
                               session ends on the server (every session of the account with
                               "everywhere")
    POST /api/password         {"password", "new_password"} -> 200: every other session ends
    POST /api/accounts/signout {"username"} -> 200 {"ended": N}: staff only (the arena's
                               administrators): every session of that account ends
    GET  /api/me               {"username": name or null}

A session is kept on the server (``web.accounts``: log-out, a new password and "sign out
everywhere" end it for good); its cookie (Starlette's ``SessionMiddleware``: signed,
HttpOnly, SameSite=Lax) names it. A name that looks like an existing account's (UTS #39
skeletons) is refused like a taken one (409). Failed log-ins are counted per (account,
address) with back-off (``login_failures`` free within ``failure_window`` seconds, then
waits doubling from 4 s; 429 with ``Retry-After``) — never per account alone, so nobody
locks an owner out from elsewhere — and per address over every account (ten times as
many); sign-ups per address (``signups_per_address`` an hour). Refusals name the key that
sets each figure where the room was configured (``--signups-per-address``, or arena.toml).

The endpoints are module-level (the room is ``app.state.room``); their bodies are schema
types (``web.bodies``) that refuse a field they do not know: a misspelt field is an error,
never silently ignored.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, ClassVar

from msgspec import Meta
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from gameroom.web.accounts import Account, AccountError, Busy, account_key, checked_name, checked_password, new_stamp
from gameroom.web.bodies import Answer, Body, answer, read_body, refusal
from gameroom.web.guard import BadBody
from gameroom.web.room import address_of, room_of

__all__ = ["LOGIN_ROUTES", "Credentials", "LogOut", "NewPassword", "SessionsEnded", "SignOut", "SignedIn"]

ACCOUNT_PAGE = Path(__file__).parent / "static" / "account.html"
SMALL_BODY = 1024
"""Bytes of the bodies that carry no password (log-out, sign-out) read at most."""


class Credentials(Body, forbid_unknown_fields=True):
    """``POST /api/signup`` and ``POST /api/login`` (the rules of a name and a password are
    ``web.accounts``'s, checked after the shape)."""

    SHAPE: ClassVar[str] = '{"username": "...", "password": "..."} (those two fields only)'
    username: str
    password: str


class LogOut(Body, forbid_unknown_fields=True):
    """``POST /api/logout``'s body, when there is one."""

    SHAPE: ClassVar[str] = '{"everywhere": true or false}, or no body'
    everywhere: bool = False


class NewPassword(Body, forbid_unknown_fields=True):
    """``POST /api/password``."""

    SHAPE: ClassVar[str] = '{"password": the current one, "new_password": ...}'
    password: str
    new_password: str


class SignOut(Body):
    """``POST /api/accounts/signout`` (staff)."""

    SHAPE: ClassVar[str] = '{"username": the account\'s name}'
    username: Annotated[str, Meta(min_length=1, max_length=200)]


class SignedIn(Answer):
    """Who is logged in on this session (null: nobody)."""

    username: str | None


class SessionsEnded(Answer):
    """A log-out, a new password or an administrator's sign-out: the account's name and
    how many of its sessions ended."""

    username: str | None
    ended: int


def _refusal(exc: BadBody | AccountError | Busy) -> Response:
    """The answer to a body, account or password-hashing refusal."""
    if isinstance(exc, Busy):
        return refusal(503, str(exc), {"retry-after": "2"})
    return refusal(exc.status, str(exc))


def _wait(status: int, message: str, wait: float) -> Response:
    return refusal(status, f"{message}; try again in {math.ceil(wait)} s", {"retry-after": str(math.ceil(wait))})


async def account_page(_: Request) -> Response:   # one page for both: its script reads the path
    return FileResponse(ACCOUNT_PAGE)


async def signup(request: Request) -> Response:
    room = room_of(request)
    address = address_of(request)
    limits = room.limits
    try:
        body = await read_body(request, Credentials, limits.max_body, limits.key("max_body"))
        shown, key = checked_name(body.username)
        checked_password(body.password)
        if not room.signups.allows(address):
            return _wait(429, f"{limits.signups_per_address} accounts were made from your address this hour, "
                              f"the most one address may ({limits.key('signups_per_address')})",
                         room.signups.wait(address))
        found = await room.find_account(key)
        if found is not None:
            raise AccountError(409, f"username {shown!r} is taken")
        password_hash = await room.passwords.hash(body.password)
        account = Account(shown, key, new_stamp())
        await room.add_account(account, password_hash)   # the database decides a race (409)
    except (BadBody, AccountError, Busy) as exc:
        return _refusal(exc)
    room.signups.count(address)
    await room.log_in(request, account)
    return answer(SignedIn(username=account.name), 201)


async def login(request: Request) -> Response:
    room = room_of(request)
    address = address_of(request)
    limits = room.limits
    try:
        body = await read_body(request, Credentials, limits.max_body, limits.key("max_body"))
    except BadBody as exc:
        return refusal(exc.status, str(exc))
    password = body.password
    try:
        if len(password) > 1024:
            raise AccountError(400, "password: longer than any password")
        _, key = checked_name(body.username)
    except AccountError:   # no such name or password can exist: a failure all the same
        room.failures.count(address)
        return refusal(401, "wrong username or password")
    pair = f"{key} from {address}"
    wait = room.failures.wait(address)
    if wait > 0:
        return _wait(429, f"too many failed log-ins from your address "
                          f"({limits.key('login_failures')}, {limits.key('failure_window')})", wait)
    wait = room.lockout.wait(pair)
    if wait > 0:
        return _wait(429, f"too many failed log-ins of this account from your address "
                          f"({limits.key('login_failures')})", wait)
    try:
        found = await room.find_account(key)
        right = await room.passwords.verify(None if found is None else found[1], password)
    except Busy as exc:
        return _refusal(exc)
    if found is None or not right:
        room.failures.count(address)
        room.lockout.failed(pair)
        return refusal(401, "wrong username or password")
    room.lockout.succeeded(pair)
    await room.log_in(request, found[0])
    return answer(SignedIn(username=found[0].name))


async def logout(request: Request) -> Response:
    room = room_of(request)
    everywhere = False
    if int(request.headers.get("content-length") or 0) > 0:
        try:
            everywhere = (await read_body(request, LogOut, SMALL_BODY)).everywhere
        except BadBody as exc:
            return _refusal(exc)
    ended = await room.log_out(request, everywhere)
    return answer(SessionsEnded(username=None, ended=ended))


async def password(request: Request) -> Response:
    room = room_of(request)
    account = await room.signed_in(request)
    if account is None:
        return refusal(401, "log in first")
    try:
        body = await read_body(request, NewPassword, room.limits.max_body, room.limits.key("max_body"))
        new = checked_password(body.new_password)
        pair = f"{account.key} from {address_of(request)}"
        wait = room.lockout.wait(pair)
        if wait > 0:
            return _wait(429, "too many wrong passwords for this account from your address", wait)
        found = await room.find_account(account.key)
        if found is None or not await room.passwords.verify(found[1], body.password):
            room.lockout.failed(pair)
            return refusal(403, "the current password is wrong")
        new_hash = await room.passwords.hash(new)
    except (BadBody, AccountError, Busy) as exc:
        return _refusal(exc)
    changed = Account(account.name, account.key, new_stamp())
    await room.ask(room.accounts.set_password, account.key, new_hash, changed.stamp)
    ended = await room.ask(room.accounts.close_sessions, account.key)
    await room.log_in(request, changed)
    return answer(SessionsEnded(username=account.name, ended=ended))


async def sign_out_account(request: Request) -> Response:
    room = room_of(request)
    if not await room.is_staff(request.scope):
        return refusal(403, "staff only: log in as an administrator")
    try:
        name = (await read_body(request, SignOut, SMALL_BODY)).username
    except BadBody as exc:
        return _refusal(exc)
    key = account_key(name)
    if await room.find_account(key) is None:
        return refusal(404, f"no account {name[:40]!r}")
    ended = await room.ask(room.accounts.close_sessions, key)
    return answer(SessionsEnded(username=name, ended=ended))


async def me(request: Request) -> Response:
    account = await room_of(request).signed_in(request)
    return answer(SignedIn(username=account.name if account is not None else None))


LOGIN_ROUTES: list[BaseRoute] = [
    Route("/signup", account_page),
    Route("/login", account_page),
    Route("/api/signup", signup, methods=["POST"]),
    Route("/api/login", login, methods=["POST"]),
    Route("/api/logout", logout, methods=["POST"]),
    Route("/api/password", password, methods=["POST"]),
    Route("/api/accounts/signout", sign_out_account, methods=["POST"]),
    Route("/api/me", me),
]
