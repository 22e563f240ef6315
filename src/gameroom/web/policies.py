"""Trained agents the operator offers as bots for the web room's seats (``gameroom web
--policy GAME:NAME=module:callable``).

Only these can sit at a seat: a request names a policy by its ``NAME``, never a module,
so no web request can make the room import anything. Each is a league ``policy`` bot
(``league.bots.Bot``): it is checked once when the room starts, by loading it in a child
process (a bad one stops the start with one line), and in every match it plays in an
isolated seat of its own — a child process with the bots' resource limits, killed when a
call fails — through ``rl.policy_player``, the encoding built for the match's number of
seats (the web room plays each game at its descriptor's defaults, the encoding's
defaults too). A policy's process is started on the match's thread, never on the room's
event loop, and ended with the match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gameroom.core.game import GameDescriptor
from gameroom.core.match import Seat
from gameroom.league.bots import Bot, BotError
from gameroom.rl import POLICY_NAME, POLICY_TARGET

__all__ = ["PolicyError", "WebPolicies", "parse_web_policy"]

RESERVED = ("human",)


class PolicyError(ValueError):
    """A bad ``--policy`` of the web room (the message says which and why)."""


def parse_web_policy(text: str) -> tuple[str, str, str]:
    """``GAME:NAME=module:callable`` -> (game, name, target)."""
    left, equals, target = text.partition("=")
    game, colon, name = left.partition(":")
    if not equals or not colon or not game or not POLICY_TARGET.match(target):
        raise PolicyError(f"--policy must be GAME:NAME=module:callable, got {text!r}")
    if not POLICY_NAME.match(name) or name in RESERVED:
        raise PolicyError(f"--policy {text}: {name!r} is not a bot name (a letter, then letters, digits, _ or -, "
                          "at most 32; not 'human')")
    return game, name, target


@dataclass
class WebPolicies:
    """The room's policies: per game, each bot name's league ``policy`` bot."""

    bots: dict[str, dict[str, Bot]] = field(default_factory=dict)

    @classmethod
    def configure(cls, values: list[str], games: dict[str, GameDescriptor[Any, Any]]) -> WebPolicies:
        """The policies of ``--policy`` values, each checked (its game has a learning
        encoding and no built-in player of that name; its callable loads in a child)."""
        policies = cls()
        for text in values:
            game_name, name, target = parse_web_policy(text)
            game = games.get(game_name)
            if game is None:
                raise PolicyError(f"--policy {text}: no game {game_name!r}; the games are {', '.join(games)}")
            if game.learning is None:
                raise PolicyError(f"--policy {text}: {game_name} has no learning encoding for a policy")
            if name in game.strategies or name in policies.bots.get(game_name, {}):
                raise PolicyError(f"--policy {text}: {game_name} already has a bot named {name!r}")
            bot = Bot(name, "policy", target)
            try:
                bot.check(game)
            except BotError as exc:
                raise PolicyError(f"--policy {text}: {str(exc).split(': ', 1)[-1]}") from None
            policies.bots.setdefault(game_name, {})[name] = bot
        return policies

    def names(self, game: str) -> list[str]:
        """The policies offered for ``game``'s seats, in the order they were configured."""
        return list(self.bots.get(game, {}))

    def target(self, game: str, name: str) -> str:
        """The ``module:callable`` of policy ``name`` of ``game``."""
        return str(self.bots[game][name].value)

    def seat(self, game: GameDescriptor[Any, Any], name: str, seat_name: str, players: int) -> Seat:
        """A new isolated seat of policy ``name`` (its process starts now: call this off
        the event loop) for a match of ``players`` seats."""
        configured = self.bots[game.name][name]
        bot = Bot(configured.name, "policy", configured.value, options={"players": players})
        return bot.local_seat(game, seat_name, 0)
