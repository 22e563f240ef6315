"""Q's configuration files (spec 8): server, referee, referee-state (bonuses) and client.

Every configuration object must have exactly its listed keys; values are checked for
their JSON type and range, and errors name the offending path. The dataclass defaults
are the spec's defaults (used when no configuration is given at all).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from gameroom.core.wire import (WireError, describe, expect_bool, expect_int, expect_natural,
                                expect_object, expect_str)
from gameroom.games.q.actors import ActorSpec, decode_actors, encode_actors
from gameroom.games.q.codec import decode_state, encode_state
from gameroom.games.q.qmap import QMap
from gameroom.games.q.state import RefereeState
from gameroom.games.q.pieces import Color, Shape, Tile, full_set

DEFAULT_PORT = 45678
DEFAULT_HOST = "127.0.0.1"
DEFAULT_Q_BONUS = 6
DEFAULT_FINISH_BONUS = 6
DEFAULT_PER_TURN = 6
PORT_MAX = 65535

_SERVER_KEYS = ("port", "server-tries", "server-wait", "wait-for-signup", "quiet", "ref-spec")
_REFEREE_KEYS = ("state0", "quiet", "config-s", "per-turn", "observe")
_STATE_CONFIG_KEYS = ("qbo", "fbo")
_CLIENT_KEYS = ("port", "host", "wait", "quiet", "players")


def default_state0(seed: int | random.Random = 0) -> RefereeState:
    """The state used when none is configured (3.2): a red star at (0, 0), no player
    records, the complete set shuffled (with `seed`, or the given generator) as the pile."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    tiles = full_set()
    rng.shuffle(tiles)
    return RefereeState(QMap({(0, 0): Tile(Shape.star, Color.red)}), [], deque(tiles))


@dataclass(frozen=True)
class RefereeStateConfig:
    """The bonuses (8.3): Q bonus `qbo`, finish bonus `fbo`."""

    qbo: int = DEFAULT_Q_BONUS
    fbo: int = DEFAULT_FINISH_BONUS


@dataclass(frozen=True)
class RefereeConfig:
    """The referee configuration (8.2). The referee must copy `state0` before playing."""

    state0: RefereeState = field(default_factory=default_state0)
    quiet: bool = True
    config_s: RefereeStateConfig = field(default_factory=RefereeStateConfig)
    per_turn: float = DEFAULT_PER_TURN
    observe: bool = False


@dataclass(frozen=True)
class ServerConfig:
    """The server configuration (8.1).

    When only ``ref-spec`` is invalid the server still signs players up and then prints
    ``[[],[]]``; such a configuration is decoded with `ref_spec` None and the reason in
    `ref_spec_error`.
    """

    port: int = DEFAULT_PORT
    server_tries: int = 2
    server_wait: float = 20
    wait_for_signup: float = 2
    quiet: bool = True
    ref_spec: RefereeConfig | None = field(default_factory=RefereeConfig)
    ref_spec_error: str | None = None


@dataclass(frozen=True)
class ClientConfig:
    """The client configuration (8.4); `wait` is read but the client always waits 2 s."""

    port: int = DEFAULT_PORT
    host: str = DEFAULT_HOST
    wait: float = 2
    quiet: bool = True
    players: tuple[ActorSpec, ...] = ()


def _positive_number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise WireError(f"expected a positive number, got {describe(value)}", where)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _port(value: Any, where: str) -> int:
    return expect_int(value, where, 0, PORT_MAX)


# -- decoders ----------------------------------------------------------------------------------

def decode_state_config(value: Any, where: str = "$") -> RefereeStateConfig:
    """``config-s`` -> RefereeStateConfig."""
    obj = expect_object(value, _STATE_CONFIG_KEYS, where)
    return RefereeStateConfig(qbo=expect_natural(obj["qbo"], f"{where}.qbo"),
                              fbo=expect_natural(obj["fbo"], f"{where}.fbo"))


def decode_referee_config(value: Any, where: str = "$",
                             require_names: bool = True) -> RefereeConfig:
    """``ref-spec`` -> RefereeConfig (state0 records need names unless told otherwise)."""
    obj = expect_object(value, _REFEREE_KEYS, where)
    return RefereeConfig(
        state0=decode_state(obj["state0"], f"{where}.state0", require_names),
        quiet=expect_bool(obj["quiet"], f"{where}.quiet"),
        config_s=decode_state_config(obj["config-s"], f"{where}.config-s"),
        per_turn=_positive_number(obj["per-turn"], f"{where}.per-turn"),
        observe=expect_bool(obj["observe"], f"{where}.observe"),
    )


def decode_server_config(value: Any, where: str = "$",
                            strict_ref_spec: bool = False) -> ServerConfig:
    """Server configuration -> ServerConfig.

    An invalid ``ref-spec`` raises only if `strict_ref_spec`; otherwise it is recorded in
    ``ref_spec_error`` (8.1: the server still signs players up, then prints ``[[],[]]``).
    """
    obj = expect_object(value, _SERVER_KEYS, where)
    port = _port(obj["port"], f"{where}.port")
    tries = expect_natural(obj["server-tries"], f"{where}.server-tries")
    wait = expect_natural(obj["server-wait"], f"{where}.server-wait")
    signup = expect_natural(obj["wait-for-signup"], f"{where}.wait-for-signup")
    quiet = expect_bool(obj["quiet"], f"{where}.quiet")
    ref_spec: RefereeConfig | None = None
    error: str | None = None
    try:
        ref_spec = decode_referee_config(obj["ref-spec"], f"{where}.ref-spec")
    except WireError as exc:
        if strict_ref_spec:
            raise
        error = str(exc)
    return ServerConfig(port, tries, wait, signup, quiet, ref_spec, error)


def decode_client_config(value: Any, where: str = "$", lax_names: bool = False) -> ClientConfig:
    """Client configuration -> ClientConfig; all actor forms are allowed; `lax_names`
    lets any string through as a player name (the bonus client, 10.9)."""
    obj = expect_object(value, _CLIENT_KEYS, where)
    return ClientConfig(
        port=_port(obj["port"], f"{where}.port"),
        host=expect_str(obj["host"], f"{where}.host"),
        wait=expect_natural(obj["wait"], f"{where}.wait"),
        quiet=expect_bool(obj["quiet"], f"{where}.quiet"),
        players=tuple(decode_actors(obj["players"], lax_names=lax_names,
                                       where=f"{where}.players")),
    )


# -- encoders ------------------------------------------------------------------------------------

def encode_state_config(config: RefereeStateConfig) -> dict[str, Any]:
    """RefereeStateConfig -> ``config-s``."""
    return {"qbo": config.qbo, "fbo": config.fbo}


def encode_referee_config(config: RefereeConfig) -> dict[str, Any]:
    """RefereeConfig -> ``ref-spec``."""
    return {"state0": encode_state(config.state0), "quiet": config.quiet,
            "config-s": encode_state_config(config.config_s), "per-turn": config.per_turn,
            "observe": config.observe}


def encode_server_config(config: ServerConfig) -> dict[str, Any]:
    """ServerConfig -> server configuration (a missing ref-spec becomes the default one)."""
    ref_spec = config.ref_spec if config.ref_spec is not None else RefereeConfig()
    return {"port": config.port, "server-tries": config.server_tries,
            "server-wait": config.server_wait, "wait-for-signup": config.wait_for_signup,
            "quiet": config.quiet, "ref-spec": encode_referee_config(ref_spec)}


def encode_client_config(config: ClientConfig) -> dict[str, Any]:
    """ClientConfig -> client configuration."""
    return {"port": config.port, "host": config.host, "wait": config.wait,
            "quiet": config.quiet, "players": encode_actors(config.players)}


__all__ = [
    "DEFAULT_PORT", "default_state0", "RefereeStateConfig", "RefereeConfig", "ServerConfig",
    "ClientConfig", "decode_state_config", "decode_referee_config",
    "decode_server_config", "decode_client_config", "encode_state_config",
    "encode_referee_config", "encode_server_config", "encode_client_config",
]
