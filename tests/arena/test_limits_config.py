"""arena.toml's ``[limits]`` and ``proxy``: what one client may cost the arena, typed and
checked as the web room checks its options, every error naming the file and the key, and
the room's refusals naming arena.toml's keys rather than ``gameroom web`` options."""

from __future__ import annotations

from pathlib import Path

import pytest

from gameroom.arena.config import ArenaConfigError, parse_config
from gameroom.arena.service import arena_limits, remote_admission

COMPETITION = '\n[[competitions]]\nname = "c"\ngame = "q"\n'


def parsed(text: str, tmp_path: Path):   # type: ignore[no-untyped-def]
    import tomllib

    return parse_config(tomllib.loads(text + COMPETITION), tmp_path / "arena.toml")


def test_limits_are_the_rooms_defaults_unless_given_and_refusals_name_arena_keys(tmp_path: Path) -> None:
    limits = arena_limits(parsed("", tmp_path))
    assert limits.connections_per_address == 256 and limits.unfinished_per_address == 32
    assert limits.key("signups_per_address") == "signups_per_address in arena.toml [limits]"
    assert limits.key("max_body") == "uploads.max_bytes in arena.toml" and "gameroom web" not in limits.key("allow_origins")
    config = parsed('proxy = ["127.0.0.1", "10.0.0.0/8"]\n[limits]\nsignups_per_address = 200\nhead_seconds = 2.5\n'
                    'allow_origins = ["https://games.example.org"]\nshutdown_seconds = 7', tmp_path)
    limits = arena_limits(config)
    assert (limits.signups_per_address, limits.head_seconds, limits.shutdown_seconds) == (200, 2.5, 7.0)
    assert limits.allow_origins == ("https://games.example.org",) and config.proxy == "127.0.0.1,10.0.0.0/8"
    remote = remote_admission(limits)
    assert remote.bounds.per_address <= remote.bounds.total // 4 and remote.bounds.unfinished_per_address <= 32


@pytest.mark.parametrize("text, message", [
    ("[limits]\nsignups = 3", "limits.signups: unknown key; the keys are"),
    ("[limits]\nsignups_per_address = 0", "limits.signups_per_address: must be a whole number in 1.."),
    ("[limits]\nhead_seconds = \"ten\"", "limits.head_seconds: must be a number of seconds"),
    ("[limits]\nallow_origins = [\"games.example.org\"]", "limits.allow_origins: must be a list of origins"),
    ("[limits]\nconnections_per_address = 2000", "connections_per_address in arena.toml [limits] must be less "
                                                 "than max_connections in arena.toml [limits] (1024)"),
    ("[limits]\nunfinished_per_address = 300", "unfinished_per_address in arena.toml [limits] must be at most"),
    ('proxy = "10.0.0.1, nonsense"', "proxy: 'nonsense' is not an IP address or network"),
    ("proxy = 3", "proxy: must be addresses or networks"),
])
def test_a_bad_limit_names_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ArenaConfigError) as refused:
        parsed(text, tmp_path)
    assert message in str(refused.value) and str(tmp_path / "arena.toml") in str(refused.value)
