"""The commands every game gets from its descriptor, written once: ``play``, ``tournament``,
``serve``, ``clients`` and ``harness``.

Each reads the game's hosting (``core.hosting.Hosting``): the typed options parsed from
the command line, the JSON read on standard input, then the game's plan, and does what
the game may not — printing its narrator's lines, writing pictures, running the server
and the clients, opening a results database.
"""

from __future__ import annotations

import argparse
import json
import inspect
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from gameroom.cli.arguments import typed_options
from gameroom.cli.common import (
    UsageError,
    fail,
    print_json,
    print_outcome,
    print_value,
    read_stdin_values,
    stderr_log,
)
from gameroom.cli.observers import PictureObserver
from gameroom.core import console
from gameroom.core.game import GameDescriptor
from gameroom.core.hosting import NO_REPLY, ClientSpec, Hosting, ServerPlan
from gameroom.core.narration import Story
from gameroom.core.options import ConfigurationError, OptionError
from gameroom.core.wire import WireError

__all__ = [
    "RoundPrinter",
    "clients",
    "example_configuration",
    "harness",
    "harnesses",
    "play",
    "run_client_specs",
    "serve",
    "server_options",
    "tournament",
]

DEFAULT_HOST = "127.0.0.1"   # where --policy clients go without --host (they read no configuration)
SHOW_DIRECTORY = "Tmp"   # where harness --show puts the pictures, as the reference observer does


def example_configuration(hosting: Hosting) -> str | None:
    """Where the game's first example configuration is installed (package data), if any."""
    if hosting.configs is None or not hosting.examples:
        return None
    from importlib.resources import files

    return str(files(hosting.configs) / "configs" / hosting.examples[0])


def _out(lines: Sequence[str]) -> None:
    for line in lines:
        print(line, flush=True)


def play(game: GameDescriptor, args: argparse.Namespace) -> int:
    """``gameroom play GAME``: the game's local match with its narrator's lines printed
    as they come, a picture of every state with ``--observe DIR``, and the generic end."""
    hosting = game.local_play
    options = typed_options(hosting.options, args)
    try:
        match = hosting.match(options)
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    story = Story(match.narrator, game.render)
    pictures = PictureObserver(args.observe, story.draw) if args.observe is not None else None

    def tell(event: Any) -> None:
        told = story.tell(event)
        _out(told.lines)
        if pictures is not None and told.drawn:
            pictures.state(told.state, told.caption)

    _out(story.opening())
    console.show_lines("gameroom.core.match")   # who was ejected, and why
    outcome = match.run([tell])
    ending = story.end(outcome)
    _out(ending.lines)
    if pictures is not None and ending.caption is not None:
        pictures.state(ending.state, ending.caption)
    print_outcome(outcome, pictures, args.observe, match.dropped if match.summary else None)
    return 0


class RoundPrinter:
    """A tournament observer that prints each round's games and winners as they happen."""

    def __init__(self) -> None:
        self.round = 0

    def show_next_round(self, games: list[list[str]]) -> None:
        self.round += 1
        print(f"round {self.round}: " + "  |  ".join(", ".join(game) for game in games), flush=True)

    def show_winners(self, winners: list[list[str]]) -> None:
        print("  winners: " + "  |  ".join(", ".join(w) or "none" for w in winners), flush=True)


def tournament(game: GameDescriptor, args: argparse.Namespace) -> int:
    """``gameroom tournament GAME``: the game's local tournament, rounds printed as they go;
    with ``--db URL`` every game is written to a results database."""
    hosting = game.hosting.tournament
    if hosting is None:
        raise UsageError(f"{game.name} has no tournament mode")
    options = typed_options(hosting.options, args)
    try:
        plan = hosting.plan(options)
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    _out(plan.opening)
    writer = None
    if getattr(args, "db", None) is not None:
        from gameroom.cli.league import database
        from gameroom.league.recording import GameWriter

        label = args.tournament_name or f"{game.name}-tournament-seed{options.get('seed')}-{len(plan.seats)}"
        writer = GameWriter(database(args.db), game.name, label, dict(plan.bots), dict(plan.config))
    result = plan.run([RoundPrinter()], writer.observers if writer is not None else (lambda _seats: ()))
    if writer is not None:
        print(f"{writer.written} games written to the database as tournament {writer.label}")
    winners, failures = result.names()
    print(f"tournament {'winner' if len(winners) == 1 else 'winners'}: {', '.join(winners) or 'none'}")
    print(f"failed or cheated: {', '.join(failures) or 'none'}")
    print_json(result.counts())
    return 0


def server_options(game: GameDescriptor, args: argparse.Namespace) -> dict[str, Any]:
    """The server's typed options: the game's own and the generic ``seed`` (from the clock
    when none is given: the game's lines name it where it deals with it)."""
    assert game.hosting.server is not None
    options = typed_options(game.hosting.server.options, args)
    options["seed"] = args.seed if args.seed is not None else int(time.time())
    return options


PlanHook = Callable[[list[Any], dict[str, Any], ServerPlan], ServerPlan]


def serve(game: GameDescriptor, args: argparse.Namespace, plan_hook: PlanHook | None = None) -> int:
    """``gameroom serve GAME``: the game's server plan from the configuration on standard
    input (or its defaults, said on standard error), hosted on ``--port``; the result
    printed. ``plan_hook(values, options, plan)`` may wrap the plan (``--replay``)."""
    hosting = game.hosting.server
    if hosting is None:
        raise UsageError(f"{game.name} has no server")
    options = server_options(game, args)
    values = read_stdin_values()
    try:
        if values:
            configuration = hosting.configure(values, options)
        else:
            configuration = None
            example = example_configuration(game.hosting)
            stderr_log(f"no configuration on standard input: {hosting.defaults(options)}"
                       + (f"; an example configuration: {example}" if example else ""))
        # the game's lines (ejections, observers, warnings), said even when quiet
        console.show_lines("gameroom.core.match")
        console.show_lines("gameroom.games")
        plan = hosting.plan(configuration, options)
    except (WireError, ConfigurationError, OptionError) as exc:
        if hosting.bad_configuration_reply is not NO_REPLY:
            print_json(hosting.bad_configuration_reply)
        raise UsageError(f"bad server configuration: {exc}") from None
    if plan_hook is not None:
        plan = plan_hook(values, options, plan)

    from gameroom.remote import aio
    from gameroom.server.host import host_listening

    console.show_lines("gameroom.server", shown=not args.quiet)
    while True:   # one game, or one after another with the plan's keep-alive
        try:
            hosted = aio.run(host_listening(plan, args.port, args.host, say_why=False))
        except OSError as exc:
            raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
        print_value(hosted.result)   # the spec's no-game output too, when it defines one
        if not hosted.played:
            # said even when quiet: a server that played nothing must not look like one that did
            stderr_log(f"gameroom: no game was played: {hosted.why}")
        if not plan.keep_alive:
            return 0 if hosted.played else 1


def _client_label(spec: ClientSpec) -> str:
    return spec.name if isinstance(spec.name, str) else json.dumps(spec.name)[:40]


def run_client_specs(specs: Sequence[ClientSpec], host: str, port: int, quiet: bool,
                     done: str = "all done") -> int:
    """Run the clients to their end and print ``done`` (the spec's last line); 0 only when
    every client that plays fair got its result (the game's final call, or the end of a
    game that has none): a server that dies before or during the game fails the command
    with one line on standard error and status 1. When no client reached a server at all,
    nothing is printed."""
    from gameroom.remote import aio
    from gameroom.server.clients import CANNOT_CONNECT, run_clients

    console.show_lines("gameroom.server.clients", shown=not quiet)
    sessions = aio.run(run_clients(specs, host, port))
    missed = [(spec, s.ended) for spec, s in zip(specs, sessions) if s.ended.startswith(CANNOT_CONNECT)]
    if sessions and len(missed) == len(sessions):
        fail(f"no client could reach a server at {host}:{port} ({missed[0][1]})", status=1)
    if missed:
        spec, why = missed[0]
        stderr_log(f"gameroom: {len(missed)} of {len(sessions)} clients could not reach the server at {host}:{port} "
                   f"({_client_label(spec)}: {why})")
    fair = [(spec, session) for spec, session in zip(specs, sessions) if spec.wants_result]
    unfinished = [(spec, session) for spec, session in fair if not session.got_result]
    print(done, flush=True)   # the spec's line once every client is done, whatever they got
    if unfinished:
        spec, session = unfinished[0]
        name = _client_label(spec)
        before = "" if any(s.calls for _spec, s in fair) else "; the server ended before any game started"
        fail(f"{len(unfinished)} of {len(fair)} clients got no result from the server at {host}:{port} "
             f"({name}: {session.ended or 'no session'}, after {len(session.calls)} calls){before}", status=1)
    return 0


def clients(game: GameDescriptor, args: argparse.Namespace) -> int:
    """``gameroom clients GAME``: the game's client plan from the options and standard
    input, every client run to the end; with ``--policy``, trained agents instead
    (``cli.policies``)."""
    hosting = game.hosting.clients
    if getattr(args, "policy", None):
        # trained agents in place of the configured clients: standard input is not read
        from gameroom.cli.policies import policy_clients

        specs = policy_clients(game, args.policy, args.policy_options)
        run_client_specs(specs, args.host or DEFAULT_HOST, args.port, quiet=False,
                         done=hosting.done if hosting is not None else "all done")
        return 0
    if hosting is None:
        raise UsageError(f"{game.name} has no clients")
    options = typed_options(hosting.options, args)
    values = read_stdin_values()
    try:
        plan = hosting.plan(values, options)
    except WireError as exc:
        raise UsageError(f"bad client configuration: {exc}") from None
    except (ConfigurationError, OptionError) as exc:
        raise UsageError(str(exc)) from None
    run_client_specs(plan.specs, args.host or plan.host, args.port, quiet=plan.quiet, done=hosting.done)
    return 0


def harnesses(game: GameDescriptor) -> dict[str, Callable[..., list[Any]]]:
    """The game's harnesses; a game served by the lobby also has the lobby's scenarios."""
    table = dict(game.harnesses())
    if game.lobby is not None:
        from functools import partial

        from gameroom.server.xscenario import xscenario

        table["xscenario"] = partial(xscenario, game.lobby)
    return table


def harness(game: GameDescriptor, name: str, flags: Sequence[str] = ()) -> int:
    """Run harness ``name`` on the JSON values of stdin. ``--show`` attaches an observer that
    writes a picture of every state into Tmp/ (for harnesses that run whole games)."""
    table = harnesses(game)
    if name not in table:
        raise UsageError(f"unknown harness {name!r} for {game.name}; choose from {', '.join(sorted(table))}")
    run = table[name]
    # --show for harnesses that run games; --log for those that take a ``log`` flag (Eriantys xgame)
    parameters = inspect.signature(run).parameters
    known = ["--show"] + (["--log"] if "log" in parameters else [])
    unknown = [flag for flag in flags if flag not in known]
    if unknown:
        raise UsageError(f"unknown harness flag {unknown[0]!r} (known: {', '.join(known)})")
    extra: dict[str, Any] = {"log": True} if "--log" in flags else {}
    pictures = None
    if "--show" in flags:
        if "observers" not in parameters:
            raise UsageError(f"{game.name} {name} has nothing to show: it runs no game")
        pictures = PictureObserver(Path(SHOW_DIRECTORY), game.render)
        extra["observers"] = [pictures]
    values = read_stdin_values()
    try:
        outputs = run(values, **extra)
        if pictures is not None:
            stderr_log(f"pictures of {pictures.count} states in {SHOW_DIRECTORY}/")
    except WireError as exc:
        raise UsageError(f"bad {name} input: {exc}") from None
    for value in outputs:
        print_value(value)
    return 0
