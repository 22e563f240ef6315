"""Trained agents named on the command line: ``--policy [NAME=]module:callable``.

A policy is a callable from an observation dict to an action index (``gameroom.rl``); it
plays through the game's learning encoding as ``rl.policy_player`` does, the wrapper the
league's ``policy`` bots use. ``gameroom clients GAME --policy ...`` signs such players up
on a server as TCP clients (the operator's own code, run in the command's process);
``gameroom web --policy GAME:NAME=module:callable`` offers one as a bot for the web room's
seats (``web.policies``). A bad argument is one line and exit status 2.
"""

from __future__ import annotations

import argparse
import itertools
import json
from dataclasses import dataclass
from typing import Any, Sequence

from gameroom.cli.common import UsageError
from gameroom.core.game import GameDescriptor
from gameroom.core.hosting import ClientSpec
from gameroom.rl import POLICY_NAME, POLICY_TARGET

__all__ = ["PolicyArgument", "add_client_arguments", "load_policies", "parse_policy", "policy_clients", "policy_options"]


@dataclass(frozen=True)
class PolicyArgument:
    """One ``--policy`` value: the player's name (None: a default) and ``module:callable``."""

    name: str | None
    target: str


def parse_policy(text: str) -> PolicyArgument:
    """``[NAME=]module:callable``; argparse's type (a bad one is argparse's one-line error)."""
    name, equals, target = text.rpartition("=")
    if equals and not POLICY_NAME.match(name):
        raise argparse.ArgumentTypeError(f"{name!r} is not a policy name (a letter, then letters, digits, _ or -, "
                                         "at most 32)")
    if not POLICY_TARGET.match(target):
        raise argparse.ArgumentTypeError(f"expected [NAME=]module:callable, got {text!r}")
    return PolicyArgument(name if equals else None, target)


def policy_options(text: str) -> dict[str, Any]:
    """``--policy-options``: a JSON object of the encoding's options (argparse's type)."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object such as '{{\"rows\": 4}}', got {text!r}")
    return value


def add_client_arguments(parser: argparse.ArgumentParser, lobby: bool = False) -> None:
    """``gameroom clients``'s policy options (``lobby``: of ``clients --lobby``)."""
    parser.add_argument("--policy", type=parse_policy, action="append", default=[], metavar="[NAME=]MODULE:CALLABLE",
                        help=("a trained policy (observation dict -> action index, gameroom.rl) signed up as a client "
                              "in place of the configured ones; repeatable, in sign-up order (needs the rl extra)")
                        if not lobby else
                        ("a trained policy (observation dict -> action index, gameroom.rl) in the last seat of every "
                         "room, the next one in the seat before; repeatable (needs the rl extra)"))
    parser.add_argument("--policy-options", type=policy_options, default={}, metavar="JSON",
                        help="the options the policies were trained with, e.g. '{\"players\": 2, \"rows\": 4}' "
                             "(default: the encoding's defaults" + ("; players: --players)" if lobby else ")"))


def default_names(given: Sequence[str | None]) -> list[str]:
    """Each policy's name: the one given, else the next of ``policy``, ``policya``,
    ``policyb``, ... that no policy was given (letters only, which every game's wire takes
    as a name): two unnamed policies are ``policy`` and ``policya``."""
    letters = "abcdefghijklmnopqrstuvwxyz"

    def suffix(i: int) -> str:
        return "" if i == 0 else suffix((i - 1) // 26) + letters[(i - 1) % 26]

    taken = {name for name in given if name}
    candidates = (f"policy{suffix(i)}" for i in itertools.count())
    out = []
    for name in given:
        if not name:
            name = next(c for c in candidates if c not in taken)
        out.append(name)
    return out


def load_policies(game: GameDescriptor, policies: list[PolicyArgument], options: dict[str, Any]) -> list[Any]:
    """Each policy's callable, loaded here (the operator's own code, in the operator's
    process), once ``options`` are known good for ``game``'s encoding; a policy that
    cannot be loaded, options the encoding refuses or a missing ``rl`` extra are a
    UsageError saying which."""
    from gameroom.league.bots import BotError, load_factory

    try:
        from gameroom import rl

        rl.need_extra()
        rl.table(game.name, **options)   # the options checked once, before anything loads
    except rl.MissingExtra as exc:
        raise UsageError(str(exc)) from None
    except (ValueError, TypeError) as exc:   # OptionError is a ValueError
        raise UsageError(f"--policy-options: {exc}") from None
    loaded = []
    for policy in policies:
        try:
            loaded.append(load_factory(policy.target, policy.name or "policy"))
        except BotError as exc:
            raise UsageError(f"--policy {policy.target}: {str(exc).split(': ', 1)[-1]}") from None
        except Exception as exc:   # noqa: BLE001 - its module's top level failed: the error is the one line said
            raise UsageError(f"--policy {policy.target}: importing it raised {type(exc).__name__}: {exc}") from None
    return loaded


def policy_clients(game: GameDescriptor, policies: list[PolicyArgument], options: dict[str, Any]) -> list[ClientSpec]:
    """One client per policy (``load_policies``), wrapped by ``rl.policy_player``, named
    as given or by :func:`default_names`."""
    from gameroom import rl

    loaded = load_policies(game, policies, options)
    specs = []
    for callable_, name in zip(loaded, default_names([policy.name for policy in policies])):
        specs.append(ClientSpec(name, rl.policy_player(game.name, callable_, name=name, **options), game.protocol))
    return specs
