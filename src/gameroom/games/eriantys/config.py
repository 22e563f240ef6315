"""The in-process referee configuration of eriantys.md 8.3 and its ``testHooks`` (8.1),
decoded with clear errors (``WireError`` with a JSON path)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gameroom.core.wire import WireError, describe, expect_bool, expect_int, expect_list, expect_str
from gameroom.games.eriantys.pieces import COLOR_INDEX, COLORS
from gameroom.games.eriantys.players import parse_strategy
from gameroom.games.eriantys.state import TestHooks

__all__ = ["RefereeConfig", "decode_referee_config", "decode_hooks", "check_username", "DECISION_TIMEOUT"]

DECISION_TIMEOUT = 10.0   # decisionTimeoutSeconds in the referee policy (7.8)


@dataclass
class RefereeConfig:
    players: list[tuple[str, str]]            # (name, strategy) in seat order
    expert: bool = False
    seed: int = 0
    decision_timeout: float | None = DECISION_TIMEOUT   # None: no limit
    hooks: TestHooks = field(default_factory=TestHooks)


def check_username(name: Any, where: str) -> str:
    """§4.5: 1..32 characters, no control characters."""
    name = expect_str(name, where)
    if not 1 <= len(name) <= 32 or any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in name):
        raise WireError(f"invalid username {describe(name)}: 1 to 32 characters, no control characters", where)
    return name


def _object(value: Any, allowed: set[str], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise WireError(f"expected an object, got {describe(value)}", where)
    extra = sorted(set(value) - allowed)
    if extra:
        raise WireError(f"unexpected key(s) {', '.join(extra)}", where)
    return value


def decode_hooks(value: Any, players: int, where: str = "$.testHooks") -> TestHooks:
    if value is None:
        return TestHooks()
    value = _object(value, {"firstPlayer", "characterCards", "draws", "roomIds"}, where)
    hooks = TestHooks()
    if value.get("firstPlayer") is not None:
        hooks.first_player = expect_int(value["firstPlayer"], f"{where}.firstPlayer", 0, players - 1)
    if value.get("characterCards") is not None:
        cards = expect_list(value["characterCards"], f"{where}.characterCards", 3, 3)
        ids = [expect_int(c, f"{where}.characterCards[{i}]", 0, 11) for i, c in enumerate(cards)]
        if len(set(ids)) != 3:
            raise WireError("expected 3 distinct character card ids", f"{where}.characterCards")
        hooks.character_cards = ids
    if value.get("draws") is not None:
        draws = expect_list(value["draws"], f"{where}.draws")
        for i, color in enumerate(draws):
            if color not in COLOR_INDEX:
                raise WireError(f"expected one of {', '.join(COLORS)}, got {describe(color)}", f"{where}.draws[{i}]")
        hooks.draws = [COLOR_INDEX[c] for c in draws]
    return hooks


def decode_referee_config(value: Any) -> RefereeConfig:
    value = _object(value, {"numberOfPlayers", "expert", "players", "seed", "decisionTimeoutSeconds", "testHooks"},
                    "$")
    if "players" not in value:
        raise WireError("missing key players", "$")
    entries = expect_list(value["players"], "$.players", 2, 4)
    players: list[tuple[str, str]] = []
    for i, entry in enumerate(entries):
        where = f"$.players[{i}]"
        entry = _object(entry, {"name", "strategy"}, where)
        if "name" not in entry:
            raise WireError("missing key name", where)
        name = check_username(entry["name"], f"{where}.name")
        if any(name == other for other, _ in players):
            raise WireError(f"username {describe(name)} is already taken", f"{where}.name")
        strategy = expect_str(entry.get("strategy", "first-legal"), f"{where}.strategy")
        try:
            parse_strategy(strategy)
        except ValueError as exc:
            raise WireError(str(exc), f"{where}.strategy") from None
        players.append((name, strategy))
    count = expect_int(value.get("numberOfPlayers", len(players)), "$.numberOfPlayers", 2, 4)
    if count != len(players):
        raise WireError(f"numberOfPlayers is {count} but {len(players)} players are listed", "$.numberOfPlayers")
    expert = expect_bool(value.get("expert", False), "$.expert")
    seed = value.get("seed")
    seed = 0 if seed is None else expect_int(seed, "$.seed")
    timeout = value.get("decisionTimeoutSeconds")
    if timeout is None:
        timeout = DECISION_TIMEOUT
    elif isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0:
        raise WireError(f"expected a number of seconds >= 0, got {describe(timeout)}", "$.decisionTimeoutSeconds")
    limit = float(timeout) if timeout > 0 else None   # 0 disables the limit (7.8)
    return RefereeConfig(players, expert, seed, limit, decode_hooks(value.get("testHooks"), count))
