"""``arena.toml``: what one arena serves, where it keeps things and what it allows.

Top-level keys (defaults in brackets; relative paths are relative to the file):

    listen = "127.0.0.1:8100"     where the pages listen; beyond this machine needs public
    public = false                 allow a non-loopback listen address
    proxy = ""                     reverse proxies whose X-Forwarded-For is believed: addresses or
                                   networks, comma-separated or a list (uvicorn's
                                   forwarded_allow_ips; none by default), so quotas per
                                   address count the clients behind them
    database = "sqlite:///arena.db"  the results database (SQLite file, or PostgreSQL URL)
    data = "arena-data"            uploads and builds
    workers = 2                    games played at once (ray: the slots of the local instance
                                   started when no cluster is named)
    backend = "local"              local (a process pool) or ray [ray when ray_address is set]
    ray_address = ""               the Ray cluster to join, HOST:PORT of its head (or "auto");
                                   none: RAY_ADDRESS, else a local Ray instance. On a cluster
                                   the games in flight are the nodes' gameroom_games slots
    secret_file = ""               the session secret (else GAMEROOM_WEB_SECRET, else one per run)
    remote = ""                    HOST:PORT where remote bots connect with their tokens (none: no remote bots)

    qualification_workers [half the workers, at least 1]: workers qualification games may
                   hold while ladder games wait

    [uploads]   max_bytes [1048576], max_files [200], max_unpacked_bytes [16777216],
                build_seconds [60]; an archive's max_entries [1000] (every header:
                directories and metadata records too), max_depth [16], max_path [200]
                characters, max_ratio [200] (decompressed bytes per uploaded byte); per
                student: per_day [20] versions in 24 hours, versions_kept [5] on disk
    [bots]      cpu_seconds [60], memory_mb [1024], processes [16], file_mb [16]: each bot's limits
    [sandbox]   the league's sandbox table (mode, network, read, tmp_mb, nice)
    [limits]    what one client may cost the arena (``web.limits.RoomLimits``' defaults):
                max_connections [1024] (kept under the file-handle limit),
                connections_per_address [256], unfinished_per_address [32] (connections
                still sending a request's head or a remote bot's sign-up), head_seconds [10]
                (a request's head; a remote bot's sign-up), body_seconds [120],
                shutdown_seconds [20] (SIGTERM: open requests and pages, then games in
                flight), requests_per_address [64], sockets_per_address [32] and
                sockets_per_user [16] (live pages), signups_per_address [20] (an hour),
                login_failures [10] (wrong passwords for one account from one address
                before it waits, doubling), failure_window [300], allow_origins [none]
    [retention] replays_per_bot ["all"]: a number N keeps each bot's N latest ladder and
                qualification replays (a game's replay goes when none of its bots keeps
                it); results, ratings and finals are always kept

    [[competitions]]  name, game, players [the game's minimum], seed [0],
                      qualification [4] (games against built-in players a new version must
                      play without being ejected), builtins [the game's strategies],
                      call_seconds [the game's own]: the time limit of each call to a bot,
                      options [none: the game's own deal]: a table of the game's own
                      options by name, as its lobby rooms take them (``gameroom lobby``'s
                      flags without the dashes: Q's q-bonus, Fish's rows/columns/fish,
                      Eriantys's expert), played in every ladder, qualification and final
                      game and kept in each game's replay,
                      games_per_hour [0: unbounded]: ladder games started an hour, evenly,
                      bot_games_per_hour [0: unbounded]: ladder games one bot may start an hour
                      freeze_at [none]: a date and time with its offset (TOML's
                      2025-06-01T18:00:00+02:00, or the same as a string) at which the
                      running arena freezes the competition by itself (``arena.season``)
    [[languages]]     name, suffixes, build [none], run: argv templates with {main} (the
                      bot's main file), {dir} (its directory), and at run time {port},
                      {game}, {name}. Python, JavaScript (Node) and command are defined
                      unless the file defines a language of the same name.

Every bad key or value is an :class:`ArenaConfigError` naming the file, the key and the
problem (the command line exits 2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from gameroom.core.errors import ConfigurationError
from gameroom.core.options import OptionError, table_options
from gameroom.sandbox.policy import ResourceLimits, SandboxPolicy
from gameroom.core.textfile import FileProblem, read_toml

__all__ = ["ArenaConfig", "ArenaConfigError", "Competition", "Language", "UploadLimits", "read_config",
           "DEFAULT_LANGUAGES", "NAME"]

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,23}$")
"""Competition, bot and language names: lower-case letters, digits and ``-``, 1-24 long
(they appear in URLs and as seat names)."""


RAY_ADDRESS = re.compile(r"^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$")
"""A Ray cluster's head as ``ray_address`` names it: HOST:PORT (an IPv6 host in brackets)."""


class ArenaConfigError(ConfigurationError):
    """A bad arena.toml (the message names the file, the key and what is wrong)."""


@dataclass(frozen=True)
class Language:
    name: str
    suffixes: tuple[str, ...]
    run: tuple[str, ...]
    build: tuple[str, ...] = ()


DEFAULT_LANGUAGES = (
    Language("python", (".py",), ("python3", "{main}", "{port}"),
             ("python3", "-I", "-c", "import ast, sys; ast.parse(open(sys.argv[1], 'rb').read(), sys.argv[1])",
              "{main}")),
    Language("javascript", (".js", ".mjs", ".cjs"), ("node", "{main}", "{port}"), ("node", "--check", "{main}")),
    Language("command", (), ("{main}", "{port}")),
)


@dataclass(frozen=True)
class UploadLimits:
    max_bytes: int = 1024 * 1024
    max_files: int = 200
    max_unpacked_bytes: int = 16 * 1024 * 1024
    build_seconds: int = 60
    # -- the intake's bounds: what an archive may hold, what one student may keep --------
    max_entries: int = 1000
    """Headers of an archive of every kind: files, directories, long-name and pax records."""
    max_depth: int = 16
    """Directories a member's path may go down."""
    max_path: int = 200
    """Characters of a member's path."""
    max_ratio: int = 200
    """Decompressed bytes per byte uploaded (checked beyond the first MiB)."""
    per_day: int = 20
    """Versions (uploads and remote bots) one student may add in 24 hours."""
    versions_kept: int = 5
    """A student's newest versions whose files stay on disk (failed ones' are deleted)."""


@dataclass(frozen=True)
class Competition:
    name: str
    game: str
    players: int
    seed: int = 0
    qualification: int = 4
    builtins: tuple[str, ...] = ()
    call_seconds: float | None = None
    options: tuple[tuple[str, Any], ...] = ()
    """The game's own options, typed by key (``core.options.table_options``); none: the
    game's ``play`` as it deals."""
    games_per_hour: int = 0
    """Ladder games started an hour, spread evenly (0: as fast as the workers go)."""
    bot_games_per_hour: int = 0
    """Ladder games one bot may start an hour (0: no budget)."""
    freeze_at: datetime | None = None
    """When the running arena freezes the competition by itself (aware); None: only by
    hand (``gameroom arena freeze`` / ``final``, the administrator's page)."""


@dataclass(frozen=True)
class ArenaConfig:
    path: Path
    host: str = "127.0.0.1"
    port: int = 8100
    public: bool = False
    proxy: str | None = None
    database: str = "sqlite:///arena.db"
    data: Path = Path("arena-data")
    workers: int = 2
    backend: str = "local"
    ray_address: str | None = None
    """The Ray cluster the ``ray`` backend joins (None: ``RAY_ADDRESS``, else a local instance)."""
    secret_file: Path | None = None
    remote: tuple[str, int] | None = None
    qualification_workers: int = 1
    """Workers qualification games may hold while ladder games wait."""
    uploads: UploadLimits = UploadLimits()
    limits: ResourceLimits = ResourceLimits(cpu_seconds=60, memory_mb=1024, processes=16, file_mb=16)
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    competitions: tuple[Competition, ...] = ()
    languages: tuple[Language, ...] = DEFAULT_LANGUAGES
    network: tuple[tuple[str, Any], ...] = ()
    """The ``[limits]`` table's figures by ``web.limits.RoomLimits`` field (the defaults are
    the room's)."""
    replays_per_bot: int | None = None
    """``[retention] replays_per_bot``: the replays each bot keeps; None: all."""

    def competition(self, name: str) -> Competition | None:
        return next((c for c in self.competitions if c.name == name), None)

    def language(self, name: str) -> Language | None:
        return next((lang for lang in self.languages if lang.name == name), None)


TOP = {"listen", "public", "proxy", "database", "data", "workers", "backend", "secret_file", "remote", "uploads",
       "bots", "sandbox", "competitions", "languages", "limits", "qualification_workers", "ray_address",
       "retention"}


class _Where:
    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, key: str, problem: str) -> ArenaConfigError:
        return ArenaConfigError(f"{self.path}: {key}: {problem}")

    def positive(self, table: dict[str, Any], key: str, default: int, where: str, high: int = 10 ** 12) -> int:
        value = table.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= high:
            raise self.error(f"{where}{key}", f"must be a whole number in 1..{high}, got {value!r}")
        return value

    def string(self, table: dict[str, Any], key: str, default: str, where: str = "") -> str:
        value = table.get(key, default)
        if not isinstance(value, str):
            raise self.error(f"{where}{key}", f"must be a string, got {value!r}")
        return value

    def argv(self, value: Any, key: str, empty: bool = False) -> tuple[str, ...]:
        if not isinstance(value, list) or (not value and not empty) \
                or not all(isinstance(part, str) and part for part in value):
            raise self.error(key, "must be a list of non-empty strings (an argv template)")
        return tuple(value)


def read_config(path: Path) -> ArenaConfig:
    """The arena configuration of ``path``; ArenaConfigError says what is wrong and where."""
    try:
        table = read_toml(path)
    except FileProblem as exc:
        raise ArenaConfigError(str(exc)) from None
    return parse_config(table, path)


def parse_config(table: dict[str, Any], path: Path) -> ArenaConfig:
    """The configuration of a parsed arena.toml (``path`` names it in errors and anchors
    its relative paths)."""
    from gameroom.league.bots import BotError, parse_sandbox

    where = _Where(path)
    base = path.parent
    unknown = sorted(set(table) - TOP)
    if unknown:
        raise where.error(unknown[0], f"unknown key; the keys are {', '.join(sorted(TOP))}")
    host, port = _host_port(where, table)
    public = table.get("public", False)
    if not isinstance(public, bool):
        raise where.error("public", "must be true or false")
    proxy = _proxies(where, table.get("proxy", ""))
    database = where.string(table, "database", "sqlite:///arena.db")
    if database.startswith("sqlite:///") and not database.startswith("sqlite:////"):
        database = f"sqlite:///{(base / database[len('sqlite:///'):]).resolve()}"
    data = (base / where.string(table, "data", "arena-data")).resolve()
    workers = where.positive(table, "workers", 2, "", 256)
    backend, ray_address = _backend(where, table)
    remote = _remote(where, table)
    secret_text = where.string(table, "secret_file", "")
    secret_file = (base / secret_text).resolve() if secret_text else None

    uploads = _uploads(where, table)
    qualification_workers = where.positive(table, "qualification_workers", max(1, workers // 2), "", workers)
    bots_table = _table(where, table, "bots", {"cpu_seconds", "memory_mb", "processes", "file_mb"})
    default_limits = ArenaConfig.limits
    limits = ResourceLimits(*(where.positive(bots_table, key, getattr(default_limits, key), "bots.")
                              for key in ("cpu_seconds", "memory_mb", "processes", "file_mb")))
    try:
        sandbox = parse_sandbox(table, str(path))
    except BotError as exc:
        raise ArenaConfigError(str(exc)) from None
    languages = _languages(where, table)
    return ArenaConfig(path, host, port, public, proxy, database, data, workers, backend, ray_address,
                       secret_file, remote, qualification_workers, uploads, limits, sandbox,
                       _competitions(where, table), languages, _network_limits(where, table),
                       replays_per_bot=_retention(where, table))


def _host_port(where: _Where, table: dict[str, Any]) -> tuple[str, int]:
    """``listen``: where the pages are served."""
    listen = where.string(table, "listen", "127.0.0.1:8100")
    host, colon, port_text = listen.rpartition(":")
    if not colon or not host or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise where.error("listen", f"must be HOST:PORT with a port in 1..65535, got {listen!r}")
    return host.strip("[]"), int(port_text)


def _backend(where: _Where, table: dict[str, Any]) -> tuple[str, str | None]:
    """``backend`` and ``ray_address``: where the games run."""
    ray_address = where.string(table, "ray_address", "").strip() or None
    if ray_address is not None and ray_address != "auto" and not RAY_ADDRESS.match(ray_address):
        raise where.error("ray_address", f"must be HOST:PORT of the Ray cluster's head (or \"auto\"), got {ray_address!r}")
    backend = where.string(table, "backend", "ray" if ray_address else "local")
    if backend not in ("local", "ray"):
        raise where.error("backend", f"must be local or ray, got {backend!r}")
    if ray_address is not None and backend != "ray":
        raise where.error("ray_address", "names a Ray cluster, which the local backend does not use: "
                                         "set backend = \"ray\" or remove it")
    return backend, ray_address


def _remote(where: _Where, table: dict[str, Any]) -> tuple[str, int] | None:
    """``remote``: where remote bots connect (None: no remote bots)."""
    remote_text = where.string(table, "remote", "")
    if not remote_text:
        return None
    remote_host, colon, remote_port = remote_text.rpartition(":")
    if not colon or not remote_host or not remote_port.isdigit() or not 0 <= int(remote_port) <= 65535:
        raise where.error("remote", f"must be HOST:PORT (port 0: any free one), got {remote_text!r}")
    return remote_host.strip("[]"), int(remote_port)


def _languages(where: _Where, table: dict[str, Any]) -> tuple[Language, ...]:
    """The built-in languages, with ``[[languages]]`` added or replacing them by name."""
    languages = {lang.name: lang for lang in DEFAULT_LANGUAGES}
    entries = table.get("languages", [])
    if not isinstance(entries, list):
        raise where.error("languages", "must be an array of tables ([[languages]])")
    for at, entry in enumerate(entries, 1):
        key = f"languages[{at}]"
        if not isinstance(entry, dict):
            raise where.error(key, "must be a table")
        extra = sorted(set(entry) - {"name", "suffixes", "build", "run"})
        if extra:
            raise where.error(f"{key}.{extra[0]}", "unknown key; the keys are name, suffixes, build, run")
        name = entry.get("name")
        if not isinstance(name, str) or not NAME.match(name):
            raise where.error(f"{key}.name", "must be 1-24 lower-case letters, digits or -")
        suffixes = entry.get("suffixes", [])
        if not isinstance(suffixes, list) or not all(isinstance(s, str) and s.startswith(".") for s in suffixes):
            raise where.error(f"{key}.suffixes", "must be a list of file suffixes such as \".py\"")
        if "run" not in entry:
            raise where.error(f"{key}.run", "is missing (the argv that runs a bot, with {main} and {port})")
        run = where.argv(entry["run"], f"{key}.run")
        build = where.argv(entry.get("build", []), f"{key}.build", empty=True)
        languages[name] = Language(name, tuple(suffixes), run, build)
    return tuple(languages.values())


def _competitions(where: _Where, table: dict[str, Any]) -> tuple[Competition, ...]:
    """``[[competitions]]``: at least one, each name once."""
    competitions: list[Competition] = []
    entries = table.get("competitions", [])
    if not isinstance(entries, list) or not entries:
        raise where.error("competitions", "give at least one [[competitions]] table (name, game)")
    for at, entry in enumerate(entries, 1):
        competition = _competition(where, entry, f"competitions[{at}]")
        if any(c.name == competition.name for c in competitions):
            raise where.error(f"competitions[{at}].name", f"{competition.name!r} is used twice")
        competitions.append(competition)
    return tuple(competitions)


def _competition(where: _Where, entry: Any, key: str) -> Competition:
    """One ``[[competitions]]`` table (``key`` names it in errors)."""
    from gameroom.games import registry

    if not isinstance(entry, dict):
        raise where.error(key, "must be a table")
    known = {"name", "game", "players", "seed", "qualification", "builtins", "call_seconds", "options",
             *PACING, *SEASON_KEYS}
    extra = sorted(set(entry) - known)
    if extra:
        raise where.error(f"{key}.{extra[0]}", f"unknown key; the keys are {', '.join(sorted(known))}")
    name = entry.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise where.error(f"{key}.name", "must be 1-24 lower-case letters, digits or -")
    games = registry.names()
    game_name = entry.get("game")
    if game_name not in games:
        raise where.error(f"{key}.game", f"{game_name!r} is not a registered game; choose from {', '.join(games)}")
    game = registry.game(game_name)
    players = entry.get("players", game.min_players)
    if not isinstance(players, int) or isinstance(players, bool) \
            or not game.min_players <= players <= game.max_players:
        raise where.error(f"{key}.players", f"{game_name} takes {game.min_players}..{game.max_players} players, "
                                            f"got {players!r}")
    seed = entry.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 31:
        raise where.error(f"{key}.seed", f"must be a whole number in 0..{2 ** 31 - 1}")
    qualification = entry.get("qualification", 4)
    if not isinstance(qualification, int) or isinstance(qualification, bool) or not 0 <= qualification <= 1000:
        raise where.error(f"{key}.qualification", "must be a whole number of games in 0..1000")
    builtins = entry.get("builtins", list(game.strategies))
    if not isinstance(builtins, list) or not builtins or not all(b in game.strategies for b in builtins):
        raise where.error(f"{key}.builtins", f"must be a non-empty list of {game_name}'s built-in players: "
                                             f"{', '.join(game.strategies)}")
    call_seconds = entry.get("call_seconds")
    if call_seconds is not None and (not isinstance(call_seconds, (int, float)) or isinstance(call_seconds, bool)
                                     or not 0.01 <= call_seconds <= 600):
        raise where.error(f"{key}.call_seconds", f"must be seconds in 0.01..600, got {call_seconds!r}")
    options = _game_options(where, entry, f"{key}.options", game, players)
    return Competition(name, game_name, players, seed, qualification, tuple(builtins),
                       None if call_seconds is None else float(call_seconds), options,
                       **_pacing(where, entry, f"{key}."), **_season_keys(where, entry, key))


# -- [limits]: what one client may cost the arena (connections, accounts, shutdown) ---------

LIMIT_KEYS: dict[str, str] = {
    "max_connections": "count", "connections_per_address": "count", "unfinished_per_address": "count",
    "head_seconds": "seconds", "body_seconds": "seconds", "shutdown_seconds": "seconds",
    "requests_per_address": "count", "sockets_per_address": "count", "sockets_per_user": "count",
    "max_sockets": "count", "signups_per_address": "count", "login_failures": "count",
    "failure_window": "seconds", "allow_origins": "origins",
}
LIMITS_TABLE = "arena.toml [limits]"
"""How errors name where a ``[limits]`` figure is set."""


def _proxies(where: _Where, value: Any) -> str | None:
    from gameroom.server.admission import TrustedProxies

    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = ",".join(value)
    if not isinstance(value, str):
        raise where.error("proxy", f"must be addresses or networks (a string or a list), got {value!r}")
    try:
        return TrustedProxies(value).text or None
    except ValueError as exc:
        raise where.error("proxy", str(exc)) from None


def _network_limits(where: _Where, table: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The ``[limits]`` table, typed, and checked together as the web room checks them."""
    from gameroom.web.limits import RoomLimits

    given = _table(where, table, "limits", set(LIMIT_KEYS))
    values: dict[str, Any] = {}
    for key, value in given.items():
        kind = LIMIT_KEYS[key]
        if kind == "count":
            values[key] = where.positive(given, key, 1, "limits.", 1_000_000)
        elif kind == "seconds":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 30 * 24 * 3600:
                raise where.error(f"limits.{key}", f"must be a number of seconds, got {value!r}")
            values[key] = float(value)
        else:
            if not isinstance(value, list) or not all(isinstance(o, str) and re.match(r"^https?://[^/\s]+$", o)
                                                      for o in value):
                raise where.error(f"limits.{key}", "must be a list of origins such as \"https://games.example.org\"")
            values[key] = tuple(o.rstrip("/") for o in value)
    try:
        RoomLimits(**values, configured_in=LIMITS_TABLE).check()
    except ValueError as exc:
        raise ArenaConfigError(f"{where.path}: {exc}") from None
    return tuple(values.items())


# -- the intake's keys: upload bounds, per-student quotas, pacing -----------------------------

UPLOAD_KEYS = {  # key: its highest value (the default is UploadLimits's)
    "max_bytes": 64 << 20, "max_files": 100_000, "max_unpacked_bytes": 1 << 32, "build_seconds": 3600,
    "max_entries": 1_000_000, "max_depth": 64, "max_path": 1000, "max_ratio": 100_000, "per_day": 100_000,
    "versions_kept": 1000}
PACING = ("games_per_hour", "bot_games_per_hour")


def _uploads(where: _Where, table: dict[str, Any]) -> UploadLimits:
    """The ``[uploads]`` table: every key a whole number from 1 to its highest value."""
    given = _table(where, table, "uploads", set(UPLOAD_KEYS))
    return UploadLimits(**{key: where.positive(given, key, getattr(UploadLimits, key), "uploads.", high)
                           for key, high in UPLOAD_KEYS.items()})


def _pacing(where: _Where, entry: dict[str, Any], prefix: str) -> dict[str, Any]:
    """A competition's ``games_per_hour`` and ``bot_games_per_hour`` (0: no bound)."""
    found: dict[str, Any] = {}
    for key in PACING:
        value = entry.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 10 ** 7:
            raise where.error(f"{prefix}{key}", f"must be a whole number of games in 0..{10 ** 7} (0: no bound), "
                                                f"got {value!r}")
        found[key] = value
    return found


def _retention(where: _Where, table: dict[str, Any]) -> int | None:
    """``[retention] replays_per_bot``: "all" (None) or a number of replays each bot keeps."""
    value = _table(where, table, "retention", {"replays_per_bot"}).get("replays_per_bot", "all")
    if value == "all":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 10 ** 9:
        raise where.error("retention.replays_per_bot", f'must be "all" or a whole number of replays, got {value!r}')
    return value


def _game_options(where: _Where, entry: dict[str, Any], key: str, game: Any, players: int
                  ) -> tuple[tuple[str, Any], ...]:
    """A competition's ``options`` table, typed and checked against what the game declares
    (its room options) and against the number of players (a board too small for them)."""
    given = entry.get("options", {})
    declared = {option.name: option for option in game.room_options}
    if not isinstance(given, dict):
        raise where.error(key, "must be a table of the game's options")
    unknown = sorted(set(given) - set(declared))
    if unknown:
        names = ", ".join(declared) or "none"
        raise where.error(f"{key}.{unknown[0]}", f"{game.name} has no such option; its options are {names}")
    for name, value in given.items():
        try:
            table_options([declared[name]], {name: value})
        except OptionError as exc:
            raise where.error(f"{key}.{name}", str(exc).removeprefix(f"{name}: ")) from None
    if not given:
        return ()
    typed = table_options(list(declared.values()), given)
    try:
        game.check_room(typed, players)
    except OptionError as exc:
        raise where.error(key, f"{exc} (players = {players})") from None
    return tuple(typed.items())


# -- the season's keys of a competition (arena.season, arena.final) -----------------------

SEASON_KEYS = {"freeze_at"}


def _season_keys(where: _Where, entry: dict[str, Any], key: str) -> dict[str, Any]:
    """A competition's season keys: ``freeze_at``, an aware date and time (TOML's offset
    date-time, or the same written as an ISO 8601 string)."""
    value = entry.get("freeze_at")
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise where.error(f"{key}.freeze_at", f"must be a date and time such as 2025-06-01T18:00:00+02:00, "
                                                  f"got {value!r}") from None
    if not isinstance(value, datetime):
        kind = "a date without a time" if isinstance(value, date) else \
            "a time without a date" if isinstance(value, time) else repr(value)
        raise where.error(f"{key}.freeze_at", f"must be a date and time such as 2025-06-01T18:00:00+02:00, "
                                              f"got {kind}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise where.error(f"{key}.freeze_at", f"give its offset from UTC (e.g. {value.isoformat()}+00:00 or Z): "
                                              "the arena's clock may run in another zone")
    return {"freeze_at": value}


def _table(where: _Where, table: dict[str, Any], key: str, keys: set[str]) -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise where.error(key, "must be a table")
    extra = sorted(set(value) - keys)
    if extra:
        raise where.error(f"{key}.{extra[0]}", f"unknown key; the keys are {', '.join(sorted(keys))}")
    return value
