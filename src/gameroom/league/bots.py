"""Who plays in a league: bot entries and how each becomes a seat at a table.

A bot is one of four kinds (a TOML table ``[[bots]]`` with ``name`` and one of them):

* ``builtin = "dag"`` — a built-in strategy (trusted seat) or misbehaving player (guarded
  seat) of the game, from its registry descriptor;
* ``python = "module:Class"`` — a factory on the path called as ``Class(name, seed)``, the
  same signature as the descriptor's player factories; it is not trusted, so it runs in a
  process of its own, in the league's sandbox, with the bot's resource limits
  (``core.isolation``), killed at its time limit or when a call fails;
* ``command = ["prog", "arg", ...]`` — a program in any language that connects to a local
  port and speaks the game's TCP protocol, like any remote client (``league.programs``);
* ``policy = "module:callable"`` — a trained agent: a callable from an observation dict to
  an action index, played through the game's learning encoding (``gameroom.rl``'s
  ``policy_player``, with the encoding's ``options = {...}`` if any) in an isolated seat
  like a ``python`` bot. Needs the ``rl`` extra.

``python``, ``policy`` and ``command`` bots take resource limits (``cpu_seconds``,
``memory_mb``, ``processes``, ``file_mb``) and run in the sandbox the file's optional
``[sandbox]`` table describes (``mode``, ``network``, ``read``, ``tmp_mb``, ``nice``:
``core.sandbox.SandboxPolicy``). None of their code runs in the league's process: a
``python`` or ``policy`` entry is checked by loading it in a sandboxed child.

Game-agnostic: everything about a game comes from its descriptor.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from gameroom.core.errors import GameroomError
from gameroom.core.game import GameDescriptor
from gameroom.core.match import Seat, guarded_seat, isolated_seat, trusted_seat
from gameroom.core.sandbox import MODES, ResourceLimits, SandboxPolicy
from gameroom.core.textfile import FileProblem, read_toml

__all__ = ["Bot", "BotError", "read_bots", "read_bots_file", "parse_bots", "parse_sandbox", "load_factory",
           "check_loadable"]

logger = logging.getLogger(__name__)

KINDS = ("builtin", "python", "command", "policy")
LIMITS = ("cpu_seconds", "memory_mb", "processes", "file_mb")


class BotError(GameroomError, ValueError):
    """A bad bots file or bot entry (the message says which entry and what is wrong)."""


@dataclass(frozen=True)
class Bot:
    """One league entrant. ``value`` is the strategy name, ``module:Class`` or the argv."""

    name: str
    kind: str
    value: Any
    limits: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    options: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """A policy bot's encoding options (``gameroom.rl``)."""
    read: tuple[str, ...] = field(default=(), compare=False, hash=False)
    """A command bot's own files: host directories its sandbox may read besides the
    paths its argv names (an uploaded bot's build directory, ``gameroom.arena``)."""

    @property
    def spec(self) -> dict[str, Any]:
        """The JSON form stored in the results database and replays."""
        return {"name": self.name, self.kind: self.value, **self.limits,
                **({"options": dict(self.options)} if self.options else {}),
                **({"read": list(self.read)} if self.read else {})}

    def check(self, game: GameDescriptor, sandbox: SandboxPolicy | None = None) -> None:
        """Raise BotError when this bot cannot play ``game``. A ``python`` or ``policy``
        bot is loaded to see that it can be, in a child process (in ``sandbox``, a resolved
        policy, when given), never here: its module's top level is untrusted code."""
        if self.kind == "builtin" and self.value not in game.strategies and self.value not in game.misbehaviours:
            raise BotError(f"bot {self.name!r}: {game.name} has no built-in player {self.value!r}; choose from "
                           f"{', '.join([*game.strategies, *game.misbehaviours])}")
        if self.kind == "policy" and game.learning is None:
            raise BotError(f"bot {self.name!r}: {game.name} has no learning encoding for a policy")
        if self.kind in ("python", "policy"):
            check_loadable(self.value, self.name, ResourceLimits.of(self.limits), sandbox, self.kind)
        if self.kind == "command" and sandbox is not None and sandbox.mode == "bwrap" and os.geteuid() == 0:
            from gameroom.core.bwrap import unreachable

            problem = unreachable(self.value, os.getcwd(), (*sandbox.read, *self.read))
            if problem is not None:   # said once, before the first game: every start would fail with it
                logger.warning(f"bot {self.name!r} runs as a user of its own, and {problem}: it cannot start "
                               "unless every user can read its files (chmod -R o+rX)")

    def local_seat(self, game: GameDescriptor, seat_name: str, seed: int, sandbox: SandboxPolicy | None = None) -> Seat:
        """A seat for a built-in or Python bot (programs are seated by ``league.programs``);
        a Python bot's player runs in the ``sandbox`` (a resolved policy) when given."""
        if self.kind == "builtin":
            if self.value in game.strategies:
                return trusted_seat(seat_name, game.strategies[self.value](seat_name, seed))
            return guarded_seat(seat_name, game.misbehaviours[self.value](seat_name, seed))
        if self.kind == "python":
            # Not a built-in, so not trusted: its own sandboxed process, resource-limited,
            # killed when a call fails (core.isolation); the factory is loaded there, not here.
            return isolated_seat(seat_name, functools.partial(make_python_bot, self.value, self.name, seat_name, seed),
                                 ResourceLimits.of(self.limits), sandbox, module_paths(self.value))
        if self.kind == "policy":
            # A trained agent is untrusted code too: the same isolated seat, in the same sandbox.
            return isolated_seat(seat_name, functools.partial(make_policy_bot, game.name, self.value, dict(self.options),
                                                              self.name, seat_name), ResourceLimits.of(self.limits),
                                 sandbox, module_paths(self.value))
        raise ValueError(f"bot {self.name!r} is a program; seat it through league.programs")


def module_paths(target: str) -> tuple[str, ...]:
    """Where the module of a ``python`` or ``policy`` bot (``module:attribute``) is found,
    for its sandbox (``core.bwrap.import_paths``: found, never imported, here)."""
    from gameroom.core.bwrap import import_paths

    return tuple(import_paths([target.partition(":")[0]]))


def make_python_bot(target: str, bot: str, seat_name: str, seed: int) -> Any:
    """The player of a ``python`` bot (called inside its isolated process)."""
    return load_factory(target, bot)(seat_name, seed)


def make_policy_bot(game: str, target: str, options: dict[str, Any], bot: str, seat_name: str) -> Any:
    """The player of a ``policy`` bot (called inside its isolated process)."""
    from gameroom.rl import policy_player

    return policy_player(game, load_factory(target, bot), name=seat_name, **options)


class _Loaded:
    """What a checked factory's child holds: nothing to play, the load was the point."""


def _load_only(target: str, bot: str) -> _Loaded:
    load_factory(target, bot)
    return _Loaded()


def check_loadable(target: str, bot: str, limits: ResourceLimits, sandbox: SandboxPolicy | None,
                   kind: str = "python") -> None:
    """BotError unless ``target`` (``module:attribute``) loads, tried in a child process
    with the bot's limits (in ``sandbox`` when given); the error says what went wrong
    (``cannot import``, ``has no``, ``is not callable``, or how the child ended: a module
    that calls ``sys.exit`` as it is imported ends only its child)."""
    from gameroom.core.isolation import IsolatedCaller

    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise BotError(f"bot {bot!r}: {kind} must be 'module:{'Class' if kind == 'python' else 'callable'}', "
                       f"got {target!r}")
    caller = IsolatedCaller(functools.partial(_load_only, target, bot), start_limit=60.0, limits=limits,
                            sandbox=sandbox, read=module_paths(target))
    failure = caller.start_failure
    caller.close()
    if failure is not None:
        detail = failure.split("BotError: ", 1)
        raise BotError(detail[1] if len(detail) == 2 else f"bot {bot!r}: {target!r} could not be loaded: {failure}")


def load_factory(target: str, bot: str = "?") -> Any:
    """``module:attribute`` -> the attribute (a class or function taking (name, seed))."""
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise BotError(f"bot {bot!r}: python must be 'module:Class', got {target!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BotError(f"bot {bot!r}: cannot import {module_name!r}: {exc}") from None
    found: Any = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise BotError(f"bot {bot!r}: {module_name!r} has no {attribute!r}")
        found = getattr(found, part)
    if not callable(found):
        raise BotError(f"bot {bot!r}: {target!r} is not callable")
    return found


def parse_bots(table: Any, source: str = "bots file") -> list[Bot]:
    """The bots of a parsed TOML document (``[[bots]]`` tables)."""
    entries = table.get("bots") if isinstance(table, dict) else None
    if not isinstance(entries, list) or not entries:
        raise BotError(f"{source}: expected one or more [[bots]] tables")
    bots: list[Bot] = []
    seen: set[str] = set()
    for at, entry in enumerate(entries, 1):
        where = f"{source}: bot #{at}"
        if not isinstance(entry, dict):
            raise BotError(f"{where}: not a table")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 64:
            raise BotError(f"{where}: 'name' must be a non-empty string of at most 64 characters")
        if name in seen:
            raise BotError(f"{where}: the name {name!r} is used twice")
        seen.add(name)
        kinds = [kind for kind in KINDS if kind in entry]
        if len(kinds) != 1:
            raise BotError(f"{where} ({name}): give exactly one of {', '.join(KINDS)}")
        unknown = set(entry) - {"name", *KINDS, *LIMITS, "options", "read"}
        if unknown:
            raise BotError(f"{where} ({name}): unknown key {sorted(unknown)[0]!r}")
        kind = kinds[0]
        value = entry[kind]
        if kind == "command":
            if (not isinstance(value, list) or not value
                    or not all(isinstance(part, str) and part for part in value)):
                raise BotError(f"{where} ({name}): command must be a non-empty list of strings")
            value = list(value)
        elif not isinstance(value, str) or not value:
            raise BotError(f"{where} ({name}): {kind} must be a non-empty string")
        options = entry.get("options", {})
        if "options" in entry and (kind != "policy" or not isinstance(options, dict)):
            raise BotError(f"{where} ({name}): options is a table, for a policy bot only")
        read = entry.get("read", [])
        if "read" in entry and (kind != "command" or not isinstance(read, list)
                                or not all(isinstance(path, str) and path.startswith("/") for path in read)):
            raise BotError(f"{where} ({name}): read is a list of absolute paths, for a command bot only")
        # Resource limits of a python or command bot (core.sandbox.ResourceLimits).
        limits = {key: entry[key] for key in LIMITS if key in entry}
        for key, number in limits.items():
            if not isinstance(number, int) or isinstance(number, bool) or number < 1:
                raise BotError(f"{where} ({name}): {key} must be a positive integer")
        bots.append(Bot(name, kind, value, limits, dict(options), tuple(read)))
    return bots


def parse_sandbox(table: Any, source: str = "bots file") -> SandboxPolicy:
    """The ``[sandbox]`` table of a parsed bots file (the defaults when there is none)."""
    entry = table.get("sandbox") if isinstance(table, dict) else None
    if entry is None:
        return SandboxPolicy()
    where = f"{source}: [sandbox]"
    if not isinstance(entry, dict):
        raise BotError(f"{where} must be a table")
    unknown = set(entry) - {"mode", "network", "read", "tmp_mb", "nice"}
    if unknown:
        raise BotError(f"{where}: unknown key {sorted(unknown)[0]!r}; the keys are mode, network, read, tmp_mb, nice")
    mode = entry.get("mode", "auto")
    if mode not in MODES:
        raise BotError(f"{where}: mode must be one of {', '.join(MODES)}, got {mode!r}")
    network = entry.get("network", False)
    if not isinstance(network, bool):
        raise BotError(f"{where}: network must be true or false")
    read = entry.get("read", [])
    if not isinstance(read, list) or not all(isinstance(path, str) and path for path in read):
        raise BotError(f"{where}: read must be a list of paths")
    tmp_mb = entry.get("tmp_mb", SandboxPolicy.tmp_mb)
    if not isinstance(tmp_mb, int) or isinstance(tmp_mb, bool) or tmp_mb < 1:
        raise BotError(f"{where}: tmp_mb must be a positive integer")
    nice = entry.get("nice", SandboxPolicy.nice)
    if not isinstance(nice, int) or isinstance(nice, bool) or not 0 <= nice <= 19:
        raise BotError(f"{where}: nice must be an integer in 0..19")
    return SandboxPolicy(mode, network, tuple(read), tmp_mb, nice)


def _load(path: Path) -> Any:
    try:
        return read_toml(path, "bots file")
    except FileProblem as exc:
        raise BotError(str(exc)) from None


def read_bots(path: Path) -> list[Bot]:
    """The bots of a TOML file; BotError says what is wrong and where."""
    return parse_bots(_load(path), str(path))


def read_bots_file(path: Path) -> tuple[list[Bot], SandboxPolicy]:
    """The bots of a TOML file and its sandbox policy; BotError says what is wrong and where."""
    table = _load(path)
    unknown = set(table) - {"bots", "sandbox"}
    if unknown:
        raise BotError(f"{path}: unknown table or key {sorted(unknown)[0]!r}; a bots file has [[bots]] and [sandbox]")
    return parse_bots(table, str(path)), parse_sandbox(table, str(path))


def bots_from_specs(specs: Sequence[dict[str, Any]]) -> list[Bot]:
    """Bots back from their stored JSON form (``Bot.spec`` plus limits)."""
    return parse_bots({"bots": [dict(spec) for spec in specs]}, "stored bots")
