"""Evolution's configuration (spec 8.2): server, client, referee and observer settings
whose defaults are the reference's behaviour. A configuration is one JSON object with the
optional sections ``server``, ``client``, ``referee`` and ``observer``; every field is
optional, an unknown section or field is an error (most likely a typo).

The referee's ``deck`` is ``"sorted"``, an explicit list of the 122 cards, or
``{"shuffle": seed}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from gameroom.core.wire import WireError, describe, expect_bool, expect_str
from gameroom.games.evolution.pieces import (CALL_TIME_LIMIT, CARD_SET, EXTINCTION_CARDS, MAX_PLAYERS,
                                             MIN_PLAYERS, Card, shuffled_deck, sorted_deck)
from gameroom.games.evolution.players import FAT_REQUESTS
from gameroom.games.evolution.codec import decode_cards

__all__ = ["ServerConfig", "ClientConfig", "RefereeConfig", "ObserverConfig", "Config", "decode_config",
           "DEFAULT_PORT"]

DEFAULT_PORT = 45678


@dataclass(frozen=True)
class ServerConfig:
    port: int = DEFAULT_PORT
    min_players: int = MIN_PLAYERS
    max_players: int = MAX_PLAYERS
    signup_first_byte_s: float = 5.0
    signup_complete_s: float = 5.0
    extra_player_wait_s: float = 10.0
    count_failed_late_signups: bool = True
    keep_alive: bool = False
    backlog: int = 30


@dataclass(frozen=True)
class ClientConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    name: str = "good guy"
    connect_retries: int = 3
    retry_wait_s: float = 2.0


@dataclass(frozen=True)
class RefereeConfig:
    call_timeout_s: float = CALL_TIME_LIMIT
    deck: Any = "sorted"
    extinction_cards: int = EXTINCTION_CARDS
    silly_fat_request: str = "min"

    def cards(self) -> list[Card]:
        """The deck to deal from, in dealing order."""
        if self.deck == "sorted":
            return sorted_deck()
        if isinstance(self.deck, dict):
            return shuffled_deck(self.deck["shuffle"])
        return list(self.deck)


@dataclass(frozen=True)
class ObserverConfig:
    enabled: bool = False


@dataclass(frozen=True)
class Config:
    server: ServerConfig = field(default_factory=ServerConfig)
    client: ClientConfig = field(default_factory=ClientConfig)
    referee: RefereeConfig = field(default_factory=RefereeConfig)
    observer: ObserverConfig = field(default_factory=ObserverConfig)


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise WireError(f"expected an object, got {describe(value)}", where)
    return value


def _number(value: Any, where: str, integral: bool, low: float, high: float) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integral and type(value) is not int):
        raise WireError(f"expected {'an integer' if integral else 'a number'}, got {describe(value)}", where)
    if not low <= value <= high:
        raise WireError(f"expected a number within {low:g}..{high:g}, got {describe(value)}", where)
    return value


def _deck(value: Any, where: str) -> Any:
    if value == "sorted":
        return value
    if isinstance(value, dict):
        if set(value) != {"shuffle"} or type(value["shuffle"]) is not int:
            raise WireError(f'expected {{"shuffle": seed}}, got {describe(value)}', where)
        return dict(value)
    cards = decode_cards(value, where)
    if len(cards) != len(CARD_SET) or set(cards) != CARD_SET:
        raise WireError("an explicit deck must hold all 122 cards, each once", where)
    return cards


_LIMITS = {"port": (1, 65535), "min_players": (MIN_PLAYERS, MAX_PLAYERS), "max_players": (MIN_PLAYERS, MAX_PLAYERS),
           "backlog": (1, 1000), "connect_retries": (0, 100), "extinction_cards": (0, 122)}


def _section(cls: type, value: Any, where: str) -> Any:
    obj = _object(value, where)
    known = {f.name.replace("_", "-"): f for f in fields(cls)} | {f.name: f for f in fields(cls)}
    out: dict[str, Any] = {}
    for key, item in obj.items():
        f = known.get(key)
        if f is None:
            raise WireError(f"unexpected key {key!r}; allowed: {', '.join(f.name for f in fields(cls))}", where)
        at = f"{where}.{key}"
        default = f.default
        if f.name == "deck":
            out[f.name] = _deck(item, at)
        elif f.name == "silly_fat_request":
            if item not in FAT_REQUESTS:
                raise WireError(f"expected one of {', '.join(FAT_REQUESTS)}, got {describe(item)}", at)
            out[f.name] = item
        elif isinstance(default, bool):
            out[f.name] = expect_bool(item, at)
        elif isinstance(default, int):
            out[f.name] = _number(item, at, True, *_LIMITS.get(f.name, (0, 10**6)))
        elif isinstance(default, float):
            out[f.name] = float(_number(item, at, False, 0, 3600))
        else:
            out[f.name] = expect_str(item, at)
    return replace(cls(), **out)


def decode_config(value: Any, where: str = "$") -> Config:
    """A configuration object (every section and field optional)."""
    obj = _object(value, where)
    sections = {f.name: f for f in fields(Config)}
    out = {}
    for key, item in obj.items():
        if key not in sections:
            raise WireError(f"unexpected key {key!r}; allowed: {', '.join(sections)}", where)
        out[key] = _section(type(getattr(Config(), key)), item, f"{where}.{key}")
    config = Config(**out)
    if config.server.min_players > config.server.max_players:
        raise WireError(f"min_players {config.server.min_players} exceeds max_players {config.server.max_players}",
                        f"{where}.server")
    return config
