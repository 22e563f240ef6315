"""The arena's errors are in gameroom's one hierarchy (``core.errors``), and stay
``ValueError`` where callers catch them as such."""

import pytest

from gameroom.arena.config import ArenaConfigError
from gameroom.arena.errors import ArenaError
from gameroom.arena.service import ServiceError
from gameroom.arena.uploads import UploadError
from gameroom.core.errors import ConfigurationError, GameroomError


@pytest.mark.parametrize("error", [ArenaConfigError("arena.toml: x"), ArenaError(409, "taken"),
                                   UploadError("bot.zip: no manifest")])
def test_an_arena_error_about_a_bad_value_is_a_gameroom_value_error(error):
    assert isinstance(error, GameroomError) and isinstance(error, ValueError)


def test_a_bad_arena_file_is_a_configuration_error_and_a_refused_service_a_gameroom_error():
    assert isinstance(ArenaConfigError("arena.toml: x"), ConfigurationError)
    assert isinstance(ServiceError("no database"), GameroomError)
    assert ArenaError(409, "taken").status == 409 and str(ArenaError(409, "taken")) == "taken"
