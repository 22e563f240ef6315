"""Sign-up, log-in and log-out of the web room's people, as pages and JSON endpoints.

    GET  /signup, /login       the pages (a form each; ``?next=/path`` to go back after)
    POST /api/signup           {"username", "password"} -> 201 {"username"}, logged in
    POST /api/login            {"username", "password"} -> 200 {"username"}; 401 when wrong
    POST /api/logout           -> 200 {"username": null}
    GET  /api/me               {"username": name or null}

A session is a signed cookie (Starlette's ``SessionMiddleware``: HttpOnly, SameSite=Lax)
holding the account's key and stamp, nothing else. Failed log-ins are throttled per
address and per account (``--login-failures`` within ``--failure-window`` seconds, then
429 with ``Retry-After``), sign-ups per address (``--signups-per-address`` an hour).
"""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from gameroom.web.accounts import Account, AccountError, Busy, checked_name, checked_password, new_stamp
from gameroom.web.guard import BadBody, read_json
from gameroom.web.room import SESSION_KEY, Room, address_of

__all__ = ["login_routes"]


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _fields(body: object) -> tuple[object, object]:
    if not isinstance(body, dict) or set(body) - {"username", "password"}:
        raise AccountError(400, "the body must be a JSON object with username and password only")
    return body.get("username"), body.get("password")


def _log_in(request: Request, account: Account) -> None:
    request.session.clear()
    request.session[SESSION_KEY] = {"key": account.key, "stamp": account.stamp}


def login_routes(room: Room, static: object) -> list[Route]:
    """The routes above over ``room``; the pages are files of the ``static`` folder."""

    async def account_page(_: Request) -> Response:   # one page for both: its script reads the path
        return FileResponse(f"{static}/account.html")

    async def signup(request: Request) -> Response:
        address = address_of(request)
        try:
            name, password = _fields(await read_json(request, room.limits.max_body))
            shown, key = checked_name(name)
            checked_password(password)
            if not room.signups.allows(address):
                wait = room.signups.wait(address)
                return _error(429, f"{room.limits.signups_per_address} accounts were made from your address this "
                                   f"hour, the most one address may (--signups-per-address); try again in "
                                   f"{math.ceil(wait)} s", {"retry-after": str(math.ceil(wait))})
            found = await room.find_account(key)
            if found is not None:
                raise AccountError(409, f"username {shown!r} is taken")
            password_hash = await room.passwords.hash(str(password))
            account = Account(shown, key, new_stamp())
            await room.add_account(account, password_hash)
        except BadBody as exc:
            return _error(exc.status, str(exc))
        except AccountError as exc:
            return _error(exc.status, str(exc))
        except Busy as exc:
            return _error(503, str(exc), {"retry-after": "2"})
        room.signups.count(address)
        _log_in(request, account)
        return JSONResponse({"username": account.name}, status_code=201)

    async def login(request: Request) -> Response:
        address = address_of(request)
        name: object = None
        try:
            name, password = _fields(await read_json(request, room.limits.max_body))
            if not isinstance(name, str) or not isinstance(password, str) or len(password) > 1024:
                raise AccountError(400, "username and password: expected strings")
            _, key = checked_name(name)
        except BadBody as exc:
            return _error(exc.status, str(exc))
        except AccountError as exc:
            if exc.status == 400 and isinstance(name, str):   # no such name can exist: a failure all the same
                room.failures.count(f"address {address}")
                return _error(401, "wrong username or password")
            return _error(exc.status, str(exc))
        for throttled in (f"address {address}", f"account {key}"):
            wait = room.failures.wait(throttled)
            if wait > 0:
                return _error(429, f"too many failed log-ins ({throttled.split()[0]}); "
                                   f"try again in {math.ceil(wait)} s", {"retry-after": str(math.ceil(wait))})
        try:
            found = await room.find_account(key)
            right = await room.passwords.verify(None if found is None else found[1], password)
        except Busy as exc:
            return _error(503, str(exc), {"retry-after": "2"})
        if found is None or not right:
            room.failures.count(f"address {address}")
            room.failures.count(f"account {key}")
            return _error(401, "wrong username or password")
        _log_in(request, found[0])
        return JSONResponse({"username": found[0].name})

    async def logout(request: Request) -> Response:
        request.session.clear()
        return JSONResponse({"username": None})

    async def me(request: Request) -> Response:
        account = await room.signed_in(request)
        return JSONResponse({"username": account.name if account is not None else None})

    return [
        Route("/signup", account_page),
        Route("/login", account_page),
        Route("/api/signup", signup, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/me", me),
    ]
