"""``gameroom web``: the web room on uvicorn (the ``web`` extra). What cannot be served
(a bad ``--lobby`` or limit, a host beyond this machine without ``--public``, a port
taken, a database out of reach, a bad secret) is a :class:`ServeError` with one line
saying why; the command line reports it (and names a missing extra itself).

The room listens on this machine only unless ``--public`` says otherwise. Its sessions are
signed with the secret of ``GAMEROOM_WEB_SECRET`` or ``--secret-file`` (a secret on the
command line would show in every process listing); without one a secret is made for this
run and said so (sessions end when the room stops); ``--secret`` is taken too, with a
note that it shows. Accounts live in the results database
with ``--db``, else in memory (said on start). uvicorn itself is held to the room's limits
(:func:`serve_app`, which the arena serves its pages with too): the largest websocket
message, no per-message compression (it would cost every socket a compressor and every
frame a compression per spectator), the connections at once — kept under the process's
file-handle limit, raised to its hard limit first — and per address, the time a request's
head and body may take (``web.admitted``), the proxies whose forwarded addresses are
believed, and the grace a SIGTERM gives open requests and pages before they are cut.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gameroom.web.limits import RoomLimits

if TYPE_CHECKING:
    from gameroom.server.admission import TrustedProxies
    from gameroom.web.policies import WebPolicies
    from gameroom.web.results import Results

__all__ = ["SECRET_VARIABLE", "ServeError", "listening_socket", "serve_app", "serve_web", "session_secret",
           "this_machine_only", "trusted_proxies"]


class ServeError(Exception):
    """The room cannot start (the message is the one line the command prints)."""


SECRET_VARIABLE = "GAMEROOM_WEB_SECRET"
MIN_SECRET = 16


def serve_web(host: str, port: int, lobby: str | None = None, db: str | None = None,
              limits: RoomLimits = RoomLimits(), secret_file: Path | None = None, proxy: str | None = None,
              secret: str | None = None, policies: list[str] | None = None, lobby_secret: str | None = None) -> int:
    """Serve the lobby and match pages until interrupted; ``lobby`` (``HOST:PORT``) names
    a lobby server whose rooms of every game the lobby page lists and browsers play in, ``db`` the URL of a results
    database whose games and leaderboards the results pages show (and which keeps the
    accounts and the finished matches); ``proxy`` the address of a reverse proxy whose
    ``X-Forwarded-For`` names the clients; ``policies`` the ``GAME:NAME=module:callable``
    trained agents offered as bots (``web.policies``), each checked before the room opens."""
    import uvicorn  # noqa: F401 -- a missing extra is named by cli.main, before anything starts

    from gameroom.web.accounts import MemoryAccounts, Passwords
    from gameroom.web.app import create_app
    from gameroom.web.book import MatchBook
    from gameroom.web.guard import is_loopback
    from gameroom.web.lobby import LobbyRooms
    from gameroom.web.memory import limit_arenas
    from gameroom.web.room import Room

    try:
        limits.check()
    except ValueError as exc:
        raise ServeError(str(exc)) from None
    proxies = trusted_proxies(proxy, "--proxy")
    if not limits.public and not this_machine_only(host, is_loopback):
        raise ServeError(f"--host {host} would serve beyond this machine: add --public to listen on a network "
                         "(the room then takes requests addressed to any host)")
    rooms = None
    if lobby is not None:
        lobby_host, colon, lobby_port = lobby.rpartition(":")
        if not colon or not lobby_host or not lobby_port.isdigit() or not 1 <= int(lobby_port) <= 65535:
            raise ServeError(f"--lobby must be HOST:PORT, got {lobby!r}")
        rooms = LobbyRooms(lobby_host, int(lobby_port), secret=lobby_secret)
    secret, secret_note = session_secret(secret_file, secret)
    offered = _policies(policies or [])
    results = None if db is None else _results(db)
    resumed = None
    if results is None:
        room = Room(MatchBook(limits), MemoryAccounts(limits.max_accounts), Passwords(), secret, policies=offered)
    else:
        from gameroom.games import registry
        from gameroom.web.account_rows import DatabaseAccounts
        from gameroom.web.archive import MatchArchive
        from gameroom.web.public import database_folder

        book = MatchBook(limits, MatchArchive(results.engine), journal=_journal(results.url))
        room = Room(book, DatabaseAccounts(results.engine, results.url),
                    Passwords(), secret, policies=offered,
                    private=tuple(f for f in (database_folder(results.url),) if f))
        resumed = book.resume(registry.games(), offered)   # before it listens: the matches as they stood
    try:   # bind first, so a taken port or a bad address is one error line
        sock = listening_socket(host, port)
    except OSError as exc:
        raise ServeError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    app = create_app(lobby=rooms, results=results, room=room)
    limit_arenas()
    shown = f"[{host}]" if ":" in host else host
    print(f"gameroom web: serving on http://{shown}:{port}/"
          + (f" (results database {results.url})" if results is not None else ""), flush=True)
    print(f"gameroom web: accounts are kept {room.accounts.where}", file=sys.stderr, flush=True)
    if secret_note:
        print(f"gameroom web: {secret_note}", file=sys.stderr, flush=True)
    if resumed:
        print(f"gameroom web: resumed {resumed} match(es) from the journal", file=sys.stderr, flush=True)
    serve_app(app, sock, limits, proxies,
              lambda line: print(f"gameroom web: {line}", file=sys.stderr, flush=True))
    return 0


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (connections wait from now on, before
    the server's loop runs); OSError when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    return sock


def trusted_proxies(text: str | None, key: str) -> "TrustedProxies":
    """The reverse proxies of ``text`` (addresses or networks, comma-separated); a bad one
    is a ServeError naming ``key``."""
    from gameroom.server.admission import TrustedProxies

    try:
        return TrustedProxies(text or "")
    except ValueError as exc:
        raise ServeError(f"{key}: {exc}") from None


def serve_app(app: Any, sock: socket.socket, limits: RoomLimits, proxies: "TrustedProxies",
              say: Callable[[str], None], uvicorn_logging: bool = True, elsewhere: int = 0) -> None:
    """Serve ``app`` on ``sock`` with uvicorn held to ``limits`` (see the module's
    docstring) until SIGTERM or SIGINT; ``say`` is told the connection caps once;
    ``uvicorn_logging=False`` leaves the logging as the caller set it up; ``elsewhere``
    connections of the same process (another port's) come off the total."""
    import uvicorn

    from gameroom.server.admission import Admission, connection_cap, file_limit
    from gameroom.web.admitted import admitted_protocols

    files = file_limit()
    total = max(1, connection_cap(limits.max_connections, files) - elsewhere)
    admission = Admission(total, min(limits.connections_per_address, max(1, total - 1)),
                          limits.unfinished_per_address, proxies, limits.key)
    http, ws = admitted_protocols(admission, limits.head_seconds, limits.body_seconds)
    say(f"at most {total} connections at once (file-handle limit {files}), "
        f"{admission.bounds.per_address} from one address of which {admission.bounds.unfinished_per_address} "
        f"unfinished; a request's head within {limits.head_seconds:g} s"
        + (f"; forwarded addresses believed from {proxies.text}" if proxies else ""))
    options: dict[str, Any] = {} if uvicorn_logging else {"log_config": None}
    config = uvicorn.Config(app, http=http, ws=ws, log_level="warning", lifespan="on",
                            ws_max_size=limits.max_message, ws_per_message_deflate=False,
                            proxy_headers=bool(proxies), forwarded_allow_ips=proxies.text or "",
                            timeout_graceful_shutdown=limits.shutdown_seconds,   # type: ignore[arg-type]
                            **options)
    uvicorn.Server(config).run(sockets=[sock])


def this_machine_only(host: str, is_loopback: object) -> bool:
    """Whether every address ``host`` names is a loopback address."""
    if is_loopback(host):   # type: ignore[operator]
        return True
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False   # binding will say what is wrong with it
    return bool(addresses) and all(is_loopback(address) for address in addresses)   # type: ignore[operator]


def session_secret(secret_file: Path | None, given: str | None = None) -> tuple[str, str | None]:
    """The session secret and, when it was made for this run (or shows in the process
    list), the note saying so."""
    if given is not None:
        if len(given.strip()) < MIN_SECRET:
            raise ServeError(f"the session secret of --secret is {len(given.strip())} characters; it needs at least "
                             f"{MIN_SECRET}")
        return given.strip(), (f"--secret shows in every process listing of this machine; {SECRET_VARIABLE} or "
                               "--secret-file keep it out of sight")
    if secret_file is not None:
        try:
            secret = secret_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeError) as exc:
            raise ServeError(f"cannot read --secret-file {secret_file}: {getattr(exc, 'strerror', None) or exc}") \
                from None
        source = f"--secret-file {secret_file}"
    elif os.environ.get(SECRET_VARIABLE):
        secret, source = os.environ[SECRET_VARIABLE].strip(), SECRET_VARIABLE
    else:
        import secrets

        return secrets.token_urlsafe(32), (f"sessions are signed with a secret made for this run: log-ins end "
                                           f"when the room stops (set {SECRET_VARIABLE} or --secret-file to keep "
                                           "them)")
    if len(secret) < MIN_SECRET:
        raise ServeError(f"the session secret of {source} is {len(secret)} characters; it needs at least {MIN_SECRET}")
    return secret, None


def _policies(values: list[str]) -> "WebPolicies":
    """The operator's policies, each loaded once in a child process to check it; a bad
    one (or a missing rl extra) is a ServeError."""
    from gameroom.games import registry
    from gameroom.web.policies import PolicyError, WebPolicies

    if values:
        try:
            from gameroom import rl

            rl.need_extra()
        except ImportError as exc:
            raise ServeError(f"--policy: {exc}") from None
    try:
        return WebPolicies.configure(values, registry.games())
    except PolicyError as exc:
        raise ServeError(str(exc)) from None


def _journal(url: str) -> Any:
    """The journal of the room's own matches in its results database (``web.match_journal``);
    one that cannot be opened (or one of a newer gameroom) is a ServeError."""
    from gameroom.server.journal import JournalError, open_journal
    from gameroom.web.match_journal import MatchJournal

    try:
        return MatchJournal(open_journal(url, "web"))
    except JournalError as exc:
        raise ServeError(str(exc)) from None


def _results(url: str) -> "Results":
    """The results database at ``url``, opened (and migrated) as ``gameroom ratings`` opens
    it; a bad URL or an unreachable database is a usage error (one line, exit 2)."""
    from gameroom.league.db import DatabaseError, open_database   # a missing extra is named by cli.main
    from gameroom.web.results import Results

    try:
        return Results(open_database(url), url)
    except DatabaseError as exc:
        raise ServeError(str(exc)) from None
