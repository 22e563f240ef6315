"""The lobby server's configuration (eriantys.md 8.1, timing constants 7.8), read from a
JSON object with a clear error (``WireError`` with a JSON path) for every bad key.

The ``policy`` selects the defaults of the timing constants: ``lobby`` (people may take
their time and retry) or ``referee`` (automated matches: 10 s to log in and to act, the
first invalid event ejects). A key given explicitly always wins over the policy default.

Beside the spec's keys, ours bound what one client may cost (0 disables a limit, as in
7.8): ``maxOutboxBytes`` (replies queued for a connection before the server stops reading
its requests), ``maxConnectionsPerAddress``, ``maxRoomsPerAddress``,
``failedJoinsPerMinute`` (per connection) and ``failedJoinsPerMinutePerAddress``,
``maxSpectatorsPerRoom``; ``maxConnections`` (in all, kept under the file-handle limit),
``maxUnloggedPerAddress`` (connections of one address that have not logged in yet; off
with ``maxConnectionsPerAddress`` 0) and
``loginWithinSeconds`` (a connection not logged in by then is closed, whatever the
policy: the spec's lobby policy has no login time-out, so silent connections stayed for
good); ``caseSensitiveUsernames`` (false: ``Alice`` and ``alice`` are
one user); ``relayAddresses``, the addresses of relays (the web room) whose every
connection is its own user's, so each counts on its own against the quotas per address;
``relaySecret``, the secret the lobby shares with the web room (at least 16 characters):
the web room logs its people in with their account's credential made from it, and a
name an account logged in with is the account's (``server.lobby_identity``); and
``callTimeoutSeconds`` and ``personTimeoutSeconds``, which replace the game's limit of one
call to a program's seat and of one decision of a person's seat (absent: the game's; 0: no
limit); ``state``, where the lobby journals its rooms and games to resume them after a
restart (``server.journal``: a SQLite file, or a database URL; absent: nothing is kept).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, fields, replace
from typing import Any

from gameroom.core.wire import WireError, describe, expect_bool, expect_int, expect_list, expect_str
from gameroom.server.lobby_identity import MIN_RELAY_SECRET
from gameroom.server.lobby_limits import address_key

__all__ = ["LobbyConfig", "decode_lobby_config", "with_overrides", "DEFAULT_PORT"]

DEFAULT_PORT = 9999


@dataclass(frozen=True)
class LobbyConfig:
    host: str = "127.0.0.1"   # 8.1: loopback unless told otherwise
    port: int = DEFAULT_PORT
    debug: bool = False
    log_file: str = "Server.txt"
    policy: str = "lobby"
    seed: int | None = None
    login_timeout: float = 0.0
    turn_timeout: float = 0.0
    max_nacks_per_turn: int = 0
    resilience: bool = False
    reconnect_grace: float = 120.0
    solo_timeout: float = 60.0
    ping_interval: float = 0.0
    ping_timeout: float = 30.0
    write_timeout: float = 10.0
    max_message_bytes: int = 65536
    max_rooms: int = 1000
    # Ours (see the module's docstring). 256 KiB holds three listings of 1,000 rooms.
    max_outbox_bytes: int = 262144
    max_connections_per_address: int = 256
    max_connections: int = 10_000
    max_unlogged_per_address: int = 128
    login_within: float = 30.0
    max_rooms_per_address: int = 100
    failed_joins_per_minute: int = 20
    failed_joins_per_minute_per_address: int = 60
    max_spectators_per_room: int = 64
    case_sensitive_usernames: bool = False
    relay_addresses: frozenset[str] = frozenset()   # quota keys (lobby_limits.address_key)
    relay_secret: str | None = field(default=None, repr=False)   # shared with the web room: its accounts' credentials
    state: str | None = None    # the journal (server.journal): a SQLite file or a database URL; None: in memory
    call_timeout: float | None = None     # None: the game's limit of one call
    person_timeout: float | None = None   # None: the game's person limit
    test_hooks: Any = None        # the game's decoded hooks, or None
    room_ids: list[int] = field(default_factory=list)   # testHooks.roomIds

    @property
    def referee(self) -> bool:
        return self.policy == "referee"

    def seat_limit(self, person: bool, person_limit: float | None, limit: float | None) -> float | None:
        """A seat's limit for a call the referee gives ``limit``: the configured one, else
        for a person's seat the game's ``person_limit`` (never less than the call's)."""
        if person:
            if self.person_timeout is not None:
                return self.person_timeout or None
            return person_limit if person_limit is None or limit is None else max(limit, person_limit)
        if self.call_timeout is not None:
            return self.call_timeout or None
        return limit


# JSON key -> (field, kind); kinds: str, bool, int, nat, seconds
_KEYS: dict[str, tuple[str, str]] = {
    "host": ("host", "str"), "port": ("port", "port"), "debug": ("debug", "bool"), "logFile": ("log_file", "str"),
    "loginTimeoutSeconds": ("login_timeout", "seconds"), "turnTimeoutSeconds": ("turn_timeout", "seconds"),
    "maxNacksPerTurn": ("max_nacks_per_turn", "nat"), "resilience": ("resilience", "bool"),
    "reconnectGraceSeconds": ("reconnect_grace", "seconds"), "soloTimeoutSeconds": ("solo_timeout", "seconds"),
    "pingIntervalSeconds": ("ping_interval", "seconds"), "pingTimeoutSeconds": ("ping_timeout", "seconds"),
    "writeTimeoutSeconds": ("write_timeout", "seconds"), "maxMessageBytes": ("max_message_bytes", "size"),
    "maxRooms": ("max_rooms", "nat"),
    "maxOutboxBytes": ("max_outbox_bytes", "nat"), "maxConnectionsPerAddress": ("max_connections_per_address", "nat"),
    "maxRoomsPerAddress": ("max_rooms_per_address", "nat"), "maxConnections": ("max_connections", "nat"),
    "maxUnloggedPerAddress": ("max_unlogged_per_address", "nat"), "loginWithinSeconds": ("login_within", "seconds"), "failedJoinsPerMinute": ("failed_joins_per_minute", "nat"),
    "failedJoinsPerMinutePerAddress": ("failed_joins_per_minute_per_address", "nat"),
    "caseSensitiveUsernames": ("case_sensitive_usernames", "bool"),
    "maxSpectatorsPerRoom": ("max_spectators_per_room", "nat"),
    "callTimeoutSeconds": ("call_timeout", "seconds"), "state": ("state", "str"), "personTimeoutSeconds": ("person_timeout", "seconds"),
}
_REFEREE_DEFAULTS = {"login_timeout": 10.0, "turn_timeout": 10.0}


def _value(value: Any, kind: str, where: str) -> Any:
    if kind == "str":
        return expect_str(value, where)
    if kind == "bool":
        return expect_bool(value, where)
    if kind == "port":
        return expect_int(value, where, 1, 65535)
    if kind == "nat":
        return expect_int(value, where, 0)
    if kind == "size":
        return expect_int(value, where, 64)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise WireError(f"expected a number of seconds >= 0, got {describe(value)}", where)
    return float(value)


def _relay(value: Any, where: str) -> str:
    text = expect_str(value, where)
    try:
        ipaddress.ip_address(text)
    except ValueError:
        raise WireError(f"expected an IP address, got {describe(text)}", where) from None
    return address_key((text, 0))


def decode_lobby_config(value: Any, decode_hooks: Any = None) -> LobbyConfig:
    """A configuration from its JSON object; ``decode_hooks(value, where)`` reads the
    game's ``testHooks`` (their ``roomIds`` belong to the lobby)."""
    if not isinstance(value, dict):
        raise WireError(f"expected an object, got {describe(value)}", "$")
    known = set(_KEYS) | {"policy", "seed", "testHooks", "relayAddresses", "relaySecret"}
    unknown = sorted(set(value) - known)
    if unknown:
        raise WireError(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})", "$")
    policy = value.get("policy", "lobby")
    if policy not in ("lobby", "referee"):
        raise WireError(f"expected \"lobby\" or \"referee\", got {describe(policy)}", "$.policy")
    settings: dict[str, Any] = {"policy": policy}
    if policy == "referee":
        settings.update(_REFEREE_DEFAULTS)
    for key, (name, kind) in _KEYS.items():
        if key in value:
            settings[name] = _value(value[key], kind, f"$.{key}")
    relays = value.get("relayAddresses")
    if relays is not None:
        settings["relay_addresses"] = frozenset(_relay(address, f"$.relayAddresses[{k}]")
                                                for k, address in enumerate(expect_list(relays, "$.relayAddresses")))
    secret = value.get("relaySecret")
    if secret is not None:
        text = expect_str(secret, "$.relaySecret")
        if len(text) < MIN_RELAY_SECRET:
            raise WireError(f"expected a secret of at least {MIN_RELAY_SECRET} characters, got {len(text)}",
                            "$.relaySecret")
        settings["relay_secret"] = text
    seed = value.get("seed")
    settings["seed"] = None if seed is None else expect_int(seed, "$.seed")
    hooks = value.get("testHooks")
    if hooks is not None:
        if not isinstance(hooks, dict):
            raise WireError(f"expected an object, got {describe(hooks)}", "$.testHooks")
        ids = hooks.get("roomIds")
        if ids is not None:
            settings["room_ids"] = [expect_int(i, f"$.testHooks.roomIds[{k}]", 1000, 9998)
                                    for k, i in enumerate(expect_list(ids, "$.testHooks.roomIds"))]
        if decode_hooks is not None:
            settings["test_hooks"] = decode_hooks(hooks, "$.testHooks")
    if settings["policy"] == "referee":
        settings["resilience"] = False   # 8.1: ignored in the referee policy
    return LobbyConfig(**settings)


def with_overrides(config: LobbyConfig, **changes: Any) -> LobbyConfig:
    """The configuration with the command line's flags (None = not given) applied."""
    known = {f.name for f in fields(LobbyConfig)}
    return replace(config, **{k: v for k, v in changes.items() if v is not None and k in known})
