"""Fish configuration files as frozen dataclasses with defaults, decoders and encoders (spec 8).

* :class:`ScriptConfig` -- the reference scripts' options (8.1), read from a JSON object
  (``--file``) or from ``key = value`` command-line words (:func:`parse_script_words`).
  Unknown keys are ignored, present keys are range-checked, ``columns`` is accepted as an
  alias of ``cols``. Examples: ``fixtures/fish/configs``.
* :class:`ServerConfig` -- gameroom's server configuration (8.2). Every key is optional;
  an unknown key is an error (it is most likely a typo). ``observe`` logs the
  tournament's rounds, winners and end on standard error.

Spec 8.2 also recommends shapes for a client, a referee and observers; no gameroom program
reads them (``gameroom clients fish`` takes its options on the command line and refuses
standard input), so they are not decoded here: a key nobody reads would be silently ignored.

Decoders raise :class:`gameroom.core.wire.WireError` with the path of the bad value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from typing import Any, Sequence

from gameroom.core.wire import WireError, describe, expect_bool, expect_str
from gameroom.games.fish.protocol import (DEFAULT_PORT, NAME_TIMEOUT, READY_TIME, SERVER_BOARD, SIGNUP_MAX_PLAYERS,
                                          SIGNUP_MIN_PLAYERS, SIGNUP_PERIODS, SIGNUP_WAIT, START_TIMEOUT,
                                          TIME_PER_CALL_SERVER)


def _number(value: Any, where: str, low: float, high: float, integral: bool = True) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WireError(f"expected a number, got {describe(value)}", where)
    if integral:
        if isinstance(value, float) and not value.is_integer():
            raise WireError(f"expected an integer, got {describe(value)}", where)
        value = int(value)
    if not low <= value <= high:
        raise WireError(f"expected a number within {low}..{high}, got {describe(value)}", where)
    return value


def _fish(value: Any, where: str) -> int | None:
    if value is None or value is False:
        return None
    return _number(value, where, 1, 5)


def _check_keys(obj: Any, allowed: Sequence[str], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise WireError(f"expected an object, got {describe(obj)}", where)
    extra = sorted(set(obj) - set(allowed))
    if extra:
        raise WireError("unexpected key(s) " + ", ".join(extra)
                        + "; allowed: " + ", ".join(allowed), where)
    return obj


def _json_key(name: str) -> str:
    return name.replace("_", "-")


def _encode(config: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(config):
        value = getattr(config, f.name)
        out[_json_key(f.name)] = list(value) if isinstance(value, tuple) else value
    return out


# -- 8.1 reference script configuration ----------------------------------------------------


@dataclass(frozen=True)
class ScriptConfig:
    """Options of the reference scripts (spec 8.1) with their code defaults."""

    players: int | tuple[str, ...] = 2
    time_per_turn: int = 10
    rows: int = 6
    cols: int = 6
    fish: int | None = None
    obs: bool = False
    port: int = 45678
    server_wait: int = 30
    server_tries: int = 3
    t_players: int = 5


_SCRIPT_RANGES: dict[str, tuple[int, int]] = {
    "time-per-turn": (1, 60), "rows": (2, 9), "cols": (2, 9), "port": (10000, 65000),
    "server-wait": (10, 30), "server-tries": (1, 10), "t-players": (5, 100),
}


def decode_script_config(value: Any, where: str = "$") -> ScriptConfig:
    """A script configuration object. Missing keys get defaults, unknown keys are ignored.

    A Boolean is accepted for every numeric option as the reference does; ``false`` (and
    ``true``) then mean "the default", except for ``fish`` where ``false`` means random.
    """
    if not isinstance(value, dict):
        raise WireError(f"expected an object, got {describe(value)}", where)
    obj = dict(value)
    if "cols" not in obj and "columns" in obj:
        obj["cols"] = obj["columns"]
    default = ScriptConfig()
    kw: dict[str, Any] = {}
    if "players" in obj:
        p = obj["players"]
        at = f"{where}.players"
        if isinstance(p, list):
            kw["players"] = tuple(expect_str(s, f"{at}[{i}]") for i, s in enumerate(p))
        elif not isinstance(p, bool):
            kw["players"] = _number(p, at, 2, 100)
    for key, (low, high) in _SCRIPT_RANGES.items():
        if key in obj and not isinstance(obj[key], bool):
            kw[key.replace("-", "_")] = _number(obj[key], f"{where}.{key}", low, high)
    if "fish" in obj and obj["fish"] is not True:
        kw["fish"] = _fish(obj["fish"], f"{where}.fish")
    if "obs" in obj:
        kw["obs"] = expect_bool(obj["obs"], f"{where}.obs")
    return ScriptConfig(**{**{f.name: getattr(default, f.name) for f in fields(default)}, **kw})


def encode_script_config(config: ScriptConfig) -> dict[str, Any]:
    """A script configuration as a JSON object (``fish`` random as ``false``)."""
    out = _encode(config)
    if config.fish is None:
        out["fish"] = False
    return out


_WORD = re.compile(r"\s*([A-Za-z][A-Za-z-]*)\s*=\s*(\S+)")


def parse_script_words(words: Sequence[str]) -> dict[str, Any]:
    """``key = value`` pairs from command-line words (spaces around ``=`` optional), each
    value read as JSON when it parses (``5``, ``false``) and as a string otherwise."""
    text = " ".join(words)
    out: dict[str, Any] = {}
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _WORD.match(text, pos)
        if m is None:
            raise WireError(f"expected key = value, got {text[pos:].strip()[:40]!r}", "$")
        raw = m.group(2)
        try:
            out[m.group(1)] = json.loads(raw)
        except (ValueError, RecursionError):   # not JSON (or absurdly nested): a string
            out[m.group(1)] = raw
        pos = m.end()
    return out


# -- 8.2 gameroom configuration ------------------------------------------------------------


@dataclass(frozen=True)
class ServerConfig:
    """The Fish server (spec 8.2); defaults are the behaviour of spec 7.1."""

    port: int = DEFAULT_PORT
    server_wait: float = SIGNUP_WAIT
    server_tries: int = SIGNUP_PERIODS
    min_players: int = SIGNUP_MIN_PLAYERS
    max_players: int = SIGNUP_MAX_PLAYERS
    name_timeout: float = NAME_TIMEOUT
    time_per_turn: float = TIME_PER_CALL_SERVER
    ready_time: float = READY_TIME
    start_timeout: float = START_TIMEOUT
    rows: int = SERVER_BOARD[0]
    cols: int = SERVER_BOARD[1]
    fish: int | None = SERVER_BOARD[2]
    house_players: int = 0
    observe: bool = False
    """Log the tournament's rounds, each round's winners and the end (standard error)."""


def decode_server_config(value: Any, where: str = "$") -> ServerConfig:
    """A server configuration object; every key optional, unknown keys rejected."""
    obj = _check_keys(value, [_json_key(f.name) for f in fields(ServerConfig)], where)
    kw: dict[str, Any] = {}
    ints = {"port": (0, 65535), "server-tries": (1, 100), "min-players": (1, 1000),
            "max-players": (1, 1000), "rows": (1, 25), "cols": (1, 25), "house-players": (0, 100)}
    reals = ("server-wait", "name-timeout", "time-per-turn", "ready-time", "start-timeout")
    for key, (low, high) in ints.items():
        if key in obj:
            kw[key.replace("-", "_")] = _number(obj[key], f"{where}.{key}", low, high)
    for key in reals:
        if key in obj:
            kw[key.replace("-", "_")] = _number(obj[key], f"{where}.{key}", 0, 3600, integral=False)
    if "fish" in obj:
        kw["fish"] = _fish(obj["fish"], f"{where}.fish")
    if "observe" in obj:
        kw["observe"] = expect_bool(obj["observe"], f"{where}.observe")
    config = ServerConfig(**kw)
    if config.min_players > config.max_players:
        raise WireError(f"min-players {config.min_players} exceeds max-players "
                        f"{config.max_players}", where)
    return config


def encode_server_config(config: ServerConfig) -> dict[str, Any]:
    """A server configuration as a JSON object."""
    return _encode(config)
