"""Bazaar's configurations and program inputs (spec §7.5, §8, §10.1), as frozen values with
JSON codecs.

* :class:`ServerConfig` - keys ``port``, ``server-tries``, ``server-wait``,
  ``wait-for-signup``, ``quiet``; :class:`ClientConfig` - ``port``, ``host``, ``wait``,
  ``quiet``, ``actor*``. A configuration file may leave keys out (they take the defaults)
  but may not add unknown ones.
* :class:`ServerInput` - what the ``xserver`` program reads: ``[Bonus]`` or nothing (a
  game from scratch), or ``Equations, Game[, Bonus]``.
* :class:`ClientsInput` - what ``xclients`` reads: ``*Actors`` then an optional list of
  Special clients.
* The timing and size constants of §7.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from gameroom.core.wire import (
    WireError, describe, expect_bool, expect_int, expect_object, expect_str,
)
from gameroom.games.bazaar.actors import (
    ActorSpec, Special, decode_actors, decode_specials, encode_actors, encode_specials,
)
from gameroom.games.bazaar.codec import (
    decode_bonus, decode_equations, decode_game, encode_bonus, encode_equations, encode_game,
)
from gameroom.games.bazaar.pieces import Equation
from gameroom.games.bazaar.rules import Bonus
from gameroom.games.bazaar.state import GameState

# --- constants (§7.5) ----------------------------------------------------------------------

DEFAULT_PORT = 45678
PORT_RANGE = (10000, 60000)
DEFAULT_HOST = "127.0.0.1"
SERVER_TRIES = 2
"""Sign-up windows."""
SERVER_WAIT = 20.0
"""Seconds per sign-up window."""
WAIT_FOR_SIGNUP = 2.0
"""Seconds to the first byte of a name, and again to its end."""
PER_CALL_SECONDS = 4.0
"""The server's limit on every call to a player."""
MIN_PLAYERS = 2
MAX_PLAYERS = 6
LISTEN_BACKLOG = 30
CLIENT_LAUNCH_PAUSE = 2.0
"""Seconds between launching consecutive clients (makes sign-up order = actor order)."""
CLIENT_CONNECT_TRIES = 10
CLIENT_CONNECT_PAUSE = 1.0
CLIENT_READ_LIMIT = 1000.0
"""Seconds a client waits for the next call (effectively unlimited)."""
CLIENT_PADDING = 5000
"""Spaces the reference client puts before every message it sends."""
CLIENT_CHUNK_PAUSE = 0.005
"""Pause between the chunks (``max(len // 100, 10)`` bytes) of a client's message."""
BONUS_PADDING = 4095
"""Spaces before an ``illTT`` client's truncated reply."""
NO_GAME_RESULT: list[list[str]] = [[], []]
"""What the server prints when no game runs or the referee refuses."""


def _number(value: Any, where: str, low: float, high: float, low_ok: bool = False) -> float:
    """A JSON number below ``high`` and above ``low`` (or equal to it when ``low_ok``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WireError(f"expected a number, got {describe(value)}", where)
    if not (low < value < high or (low_ok and value == low)):
        bounds = f"{'[' if low_ok else '('}{low}, {high})"
        raise WireError(f"expected a number in {bounds}, got {value}", where)
    return value


def _options(value: Any, keys: Sequence[str], where: str) -> dict[str, Any]:
    """An object whose keys are some of ``keys``."""
    present = [k for k in keys if isinstance(value, dict) and k in value]
    return expect_object(value, present, where)


# --- server and client configurations (§8) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """The sign-up server's options (§8.1)."""

    port: int = DEFAULT_PORT
    server_tries: int = SERVER_TRIES
    server_wait: float = SERVER_WAIT
    wait_for_signup: float = WAIT_FOR_SIGNUP
    quiet: bool = True


def decode_server_config(value: Any, where: str = "$") -> ServerConfig:
    """A server configuration: port 10000..60000, fewer than 10 windows of less than 30 s,
    less than 10 s for a name; missing keys take the defaults."""
    obj = _options(value, ("port", "server-tries", "server-wait", "wait-for-signup", "quiet"), where)
    d = ServerConfig()
    return ServerConfig(
        port=expect_int(obj["port"], f"{where}.port", *PORT_RANGE) if "port" in obj else d.port,
        server_tries=(expect_int(obj["server-tries"], f"{where}.server-tries", 1, 9)
                      if "server-tries" in obj else d.server_tries),
        server_wait=(_number(obj["server-wait"], f"{where}.server-wait", 0, 30)
                     if "server-wait" in obj else d.server_wait),
        wait_for_signup=(_number(obj["wait-for-signup"], f"{where}.wait-for-signup", 0, 10)
                         if "wait-for-signup" in obj else d.wait_for_signup),
        quiet=expect_bool(obj["quiet"], f"{where}.quiet") if "quiet" in obj else d.quiet,
    )


def encode_server_config(config: ServerConfig) -> dict[str, Any]:
    return {"port": config.port, "quiet": config.quiet, "server-tries": config.server_tries,
            "server-wait": config.server_wait, "wait-for-signup": config.wait_for_signup}


@dataclass(frozen=True, slots=True)
class ClientConfig:
    """The client program's options (§8.2): where to connect and which actors to run."""

    port: int = DEFAULT_PORT
    host: str = DEFAULT_HOST
    wait: float = CLIENT_LAUNCH_PAUSE
    quiet: bool = True
    actors: tuple[ActorSpec, ...] = ()


def decode_client_config(value: Any, where: str = "$", *, lax_names: bool = False) -> ClientConfig:
    """A client configuration; ``actor*`` holds *Actors (any names with ``lax_names``)."""
    obj = _options(value, ("port", "host", "wait", "quiet", "actor*"), where)
    d = ClientConfig()
    return ClientConfig(
        port=expect_int(obj["port"], f"{where}.port", *PORT_RANGE) if "port" in obj else d.port,
        host=expect_str(obj["host"], f"{where}.host") if "host" in obj else d.host,
        wait=_number(obj["wait"], f"{where}.wait", 0, 60, low_ok=True) if "wait" in obj else d.wait,
        quiet=expect_bool(obj["quiet"], f"{where}.quiet") if "quiet" in obj else d.quiet,
        actors=(decode_actors(obj["actor*"], f"{where}.actor*", lax_names=lax_names)
                if "actor*" in obj else d.actors),
    )


def encode_client_config(config: ClientConfig) -> dict[str, Any]:
    return {"actor*": encode_actors(config.actors), "host": config.host, "port": config.port,
            "quiet": config.quiet, "wait": config.wait}


# --- program inputs (§8.1, §10.1) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerInput:
    """What the referee is handed: a given game (equations and state) or, when both are
    ``None``, a game from scratch; and the optional bonus."""

    equations: tuple[Equation, ...] | None = None
    game: GameState | None = None
    bonus: Bonus | None = None

    @property
    def from_scratch(self) -> bool:
        return self.game is None


def decode_server_input(values: Sequence[Any]) -> ServerInput:
    """The server program's stdin values: ``[]`` or ``[Bonus]`` (scratch game), or
    ``[Equations, Game]`` / ``[Equations, Game, Bonus]``. The Game is checked against the
    §3.2 validity conditions, as the reference's server does; its equations are attached."""
    if len(values) <= 1 and all(isinstance(v, str) for v in values):
        return ServerInput(bonus=decode_bonus(values[0], "$[0]") if values else None)
    if len(values) not in (2, 3):
        raise WireError(f"expected Equations, Game and an optional Bonus, got {len(values)} values", "$")
    equations = decode_equations(values[0], "$[0]")
    game = decode_game(values[1], "$[1]", equations=equations, validate=True)
    bonus = decode_bonus(values[2], "$[2]") if len(values) == 3 else None
    return ServerInput(equations, game, bonus)


def encode_server_input(spec: ServerInput) -> list[Any]:
    out: list[Any] = []
    if spec.game is not None:
        out += [encode_equations(spec.equations or spec.game.equations), encode_game(spec.game)]
    if spec.bonus is not None:
        out.append(encode_bonus(spec.bonus))
    return out


@dataclass(frozen=True, slots=True)
class ClientsInput:
    """The client program's stdin: the actors to launch, then the Special clients."""

    actors: tuple[ActorSpec, ...] = ()
    specials: tuple[Special, ...] = ()


def decode_clients_input(values: Sequence[Any], *, lax_names: bool = False) -> ClientsInput:
    """``*Actors`` and an optional list of Specials (end of input = none)."""
    if len(values) not in (1, 2):
        raise WireError(f"expected *Actors and an optional Special list, got {len(values)} values", "$")
    actors = decode_actors(values[0], "$[0]", lax_names=lax_names)
    specials = decode_specials(values[1], "$[1]") if len(values) == 2 else ()
    return ClientsInput(actors, specials)


def encode_clients_input(spec: ClientsInput) -> list[Any]:
    return [encode_actors(spec.actors), encode_specials(spec.specials)]


__all__ = [
    "DEFAULT_PORT", "PORT_RANGE", "DEFAULT_HOST", "SERVER_TRIES", "SERVER_WAIT",
    "WAIT_FOR_SIGNUP", "PER_CALL_SECONDS", "MIN_PLAYERS", "MAX_PLAYERS", "LISTEN_BACKLOG",
    "CLIENT_LAUNCH_PAUSE", "CLIENT_CONNECT_TRIES", "CLIENT_CONNECT_PAUSE", "CLIENT_READ_LIMIT",
    "CLIENT_PADDING", "CLIENT_CHUNK_PAUSE", "BONUS_PADDING", "NO_GAME_RESULT", "ServerConfig",
    "decode_server_config", "encode_server_config", "ClientConfig", "decode_client_config",
    "encode_client_config", "ServerInput", "decode_server_input", "encode_server_input",
    "ClientsInput", "decode_clients_input", "encode_clients_input",
]
