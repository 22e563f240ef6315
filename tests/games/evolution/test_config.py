"""Evolution configuration (evolution.md 8.2): defaults are the reference's, every field
optional, unknown keys and bad values rejected with their path."""

from __future__ import annotations

import pytest

from gameroom.core.wire import WireError
from gameroom.games.evolution.config import Config, decode_config
from gameroom.games.evolution.pieces import sorted_deck


def test_defaults_are_the_references() -> None:
    config = decode_config({})
    assert config == Config()
    assert (config.server.port, config.server.extra_player_wait_s, config.server.count_failed_late_signups) == \
        (45678, 10.0, True)
    assert config.referee.call_timeout_s == 1.0 and config.referee.cards() == sorted_deck()
    assert config.client.name == "good guy"


def test_fields_and_decks() -> None:
    config = decode_config({"server": {"extra-player-wait-s": 0.5, "keep_alive": True},
                            "referee": {"deck": {"shuffle": 7}, "silly_fat_request": "need"}})
    assert config.server.extra_player_wait_s == 0.5 and config.server.keep_alive
    assert sorted(config.referee.cards()) == sorted(sorted_deck()) and config.referee.cards() != sorted_deck()
    explicit = [list(c) for c in reversed(sorted_deck())]
    assert decode_config({"referee": {"deck": explicit}}).referee.cards() == list(reversed(sorted_deck()))


@pytest.mark.parametrize("value, where", [
    ({"sever": {}}, "$"),
    ({"server": {"prot": 1}}, "$.server"),
    ({"server": {"port": 0}}, "$.server.port"),
    ({"server": {"min_players": 6, "max_players": 4}}, "$.server"),
    ({"referee": {"deck": [[0, "ambush"]]}}, "$.referee.deck"),
    ({"referee": {"silly_fat_request": "all"}}, "$.referee.silly_fat_request"),
    ({"observer": {"enabled": 1}}, "$.observer.enabled"),
])
def test_bad_configurations(value: object, where: str) -> None:
    with pytest.raises(WireError) as exc:
        decode_config(value)
    assert exc.value.where == where
