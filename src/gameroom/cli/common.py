"""Plumbing every game's commands share: reading JSON from stdin, exiting with one clear
error line, running the server and the clients, running a harness."""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, NoReturn, Sequence

from gameroom.core.hosting import ClientSpec, ServerPlan  # data only: no asyncio
from gameroom.core.wire import PlainText, WireError

__all__ = ["UsageError", "GameCommands", "read_stdin_values", "parse_json_values", "fail",
           "print_json", "print_value", "serve", "run_client_specs", "run_harness", "stderr_log",
           "clients", "answer_like_reference_server", "add_bonus_client_arguments", "print_outcome",
           "add_standard_play_arguments", "add_generic_play_arguments", "play_generic", "example_configuration", "winners_caption"]


class UsageError(Exception):
    """A bad command line or configuration: reported as one line, exit status 2."""


def fail(message: str, status: int = 2) -> NoReturn:
    print(f"gameroom: error: {message}", file=sys.stderr)
    raise SystemExit(status)


_LOG_LOCK = threading.Lock()


def stderr_log(text: str) -> None:
    """One line on standard error, written whole: referees on several threads log at once,
    and ``print`` writes the text and its newline separately, so two ejection lines could
    run together (``...bytesfza dropped out on setup``) and a reader of the log miss one
    (the fuzz benchmark's "offenders not ejected", issue 17 finding 9)."""
    with _LOG_LOCK:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


def parse_json_values(text: str, source: str = "standard input") -> list[Any]:
    """Every JSON value of ``text`` (white space between values, any layout)."""
    from gameroom.remote.jsonstream import ValueTooDeep, check_depth

    try:
        check_depth(text)
    except ValueTooDeep as exc:
        raise UsageError(f"{source} is not a sequence of JSON values: {exc}") from None
    decoder = json.JSONDecoder()
    values: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return values
        try:
            value, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{source} is not a sequence of JSON values: {exc.msg} "
                             f"at line {exc.lineno} column {exc.colno}") from None
        except ValueError as exc:   # an integer of more than 4300 digits
            raise UsageError(f"{source} holds an unreadable JSON value: {exc}") from None
        values.append(value)


def read_stdin_values() -> list[Any]:
    """Every JSON value on standard input; none when it is a terminal (nothing was piped)."""
    if sys.stdin is None or sys.stdin.isatty():
        return []
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"standard input is not UTF-8: {exc}") from None
    return parse_json_values(text)


def example_configuration(game: str, name: str = "server.json") -> str:
    """Where the example configuration ``name`` of ``game`` is installed (package data)."""
    from importlib.resources import files

    return str(files(f"gameroom.games.{game}") / "configs" / name)


def print_json(value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False)
    try:
        print(text, flush=True)
    except UnicodeEncodeError:
        # A lone surrogate ("\ud800" in a player's name) has no UTF-8 form: escape it.
        print(json.dumps(value), flush=True)


def print_value(value: Any) -> None:
    """A result as JSON, or as it is when it is ``PlainText`` (e.g. result lines)."""
    if isinstance(value, PlainText):
        print(value, flush=True)
    else:
        print_json(value)


@dataclass
class GameCommands:
    """What one game plugs into the command line."""

    name: str
    harnesses: Callable[[], dict[str, Callable[[list[Any]], list[Any]]]]
    play: Callable[[Any], int]
    add_play_arguments: Callable[[Any], None]
    server_plan: Callable[[list[Any], Any], ServerPlan] | None = None
    server_config_error: Callable[[Exception], None] | None = None
    client_specs: Callable[[list[Any], Any], tuple[list[ClientSpec], str]] | None = None
    add_client_arguments: Callable[[Any], None] = field(default=lambda _p: None)
    tournament: Callable[[Any], int] | None = None
    add_tournament_arguments: Callable[[Any], None] = field(default=lambda _p: None)
    clients_done: str = "all done"   # printed once every client has finished
    render: Callable[[Any, str], str] | None = None   # a state as an SVG picture, for --show

    @classmethod
    def from_descriptor(cls, game: Any) -> "GameCommands":
        """A game's commands from its registry descriptor: the generic ``play`` (built-in
        players, the result printed from the outcome), its harnesses, picture, server and
        client plans; a command module named by the descriptor (``commands``) may replace
        any field with a function of that name (``play``, ``server_plan``, ...)."""
        import dataclasses
        import importlib

        found: dict[str, Any] = {"harnesses": lambda: dict(game.harnesses()), "render": game.render,
                                 "play": lambda args: play_generic(game, args),
                                 "add_play_arguments": lambda parser: add_generic_play_arguments(game, parser),
                                 "server_plan": game.server_plan, "client_specs": game.client_specs}
        if game.lobby is not None:   # a lobby-hosted game also has the lobby's scenario harness
            from functools import partial

            from gameroom.server.xscenario import xscenario

            found["harnesses"] = lambda: {**game.harnesses(), "xscenario": partial(xscenario, game.lobby)}
        if game.commands is not None:
            module = importlib.import_module(game.commands)
            found.update({f.name: getattr(module, f.name) for f in dataclasses.fields(cls)
                          if f.name != "name" and hasattr(module, f.name)})
        return cls(name=game.name, **found)


def add_generic_play_arguments(game: Any, parser: Any) -> None:
    """``--players``, ``--seed``, ``--observe`` and ``--strategies`` from the descriptor."""
    add_standard_play_arguments(parser, (game.min_players, game.max_players), game.min_players, "seed of the deal")
    parser.add_argument("--strategies", default=next(iter(game.strategies)),
                        help=f"comma-separated strategies assigned in turn, from {', '.join(game.strategies)}")


def play_generic(game: Any, args: Any) -> int:
    """``gameroom play GAME`` for a game without its own: built-in players on trusted seats,
    the outcome printed, pictures of every state with ``--observe``."""
    if not game.min_players <= args.players <= game.max_players:
        raise UsageError(f"--players must lie in {game.min_players}..{game.max_players}, got {args.players}")
    strategies = args.strategies.split(",")
    unknown = [s for s in strategies if s not in game.strategies]
    if unknown:
        raise UsageError(f"unknown strategy {unknown[0]!r}; choose from {', '.join(game.strategies)}")
    seats = game.seats([strategies[i % len(strategies)] for i in range(args.players)], args.seed)
    observers = []
    if args.observe is not None:
        from gameroom.cli.observers import PictureObserver

        observers.append(PictureObserver(args.observe, game.render))
    print(f"{game.name}: {', '.join(s.name for s in seats)}; seed {args.seed}")
    outcome = game.play(args.seed, seats, observers=observers, log=stderr_log)
    if observers:
        observers[0].final(winners_caption(outcome))
    print_outcome(outcome, observers[0] if observers else None, args.observe)
    return 0


SHOW_DIRECTORY = "Tmp"   # where --show puts the pictures, as the reference observer does


def run_harness(game: GameCommands, name: str, flags: Sequence[str] = ()) -> int:
    """Run harness ``name`` on the JSON values of stdin. ``--show`` attaches an observer that
    writes a picture of every state into Tmp/ (for harnesses that run whole games)."""
    import inspect

    table = game.harnesses()
    if name not in table:
        raise UsageError(f"unknown harness {name!r} for {game.name}; choose from {', '.join(sorted(table))}")
    harness = table[name]
    # --show for harnesses that run games; --log for those that take a ``log`` flag (Eriantys xgame)
    known = ["--show"] + (["--log"] if "log" in inspect.signature(harness).parameters else [])
    unknown = [flag for flag in flags if flag not in known]
    if unknown:
        raise UsageError(f"unknown harness flag {unknown[0]!r} (known: {', '.join(known)})")
    extra: dict[str, Any] = {"log": True} if "--log" in flags else {}
    pictures = None
    if "--show" in flags:
        if game.render is None or "observers" not in inspect.signature(harness).parameters:
            raise UsageError(f"{game.name} {name} has nothing to show: it runs no game")
        from pathlib import Path

        from gameroom.cli.observers import PictureObserver

        pictures = PictureObserver(Path(SHOW_DIRECTORY), game.render)
        extra["observers"] = [pictures]
    values = read_stdin_values()
    try:
        outputs = harness(values, **extra)
        if pictures is not None:
            stderr_log(f"pictures of {pictures.count} states in {SHOW_DIRECTORY}/")
    except WireError as exc:
        raise UsageError(f"bad {name} input: {exc}") from None
    for value in outputs:
        print_value(value)
    return 0


def serve(game: GameCommands, args: Any, plan_hook: Callable[[list[Any], ServerPlan], ServerPlan] | None = None) -> int:
    """``gameroom serve GAME``; ``plan_hook(values, plan)`` may wrap the plan made from the
    configuration (``--replay`` records how to run each game again)."""
    if game.server_plan is None:
        raise UsageError(f"{game.name} has no server")
    values = read_stdin_values()
    try:
        plan = game.server_plan(values, args)
    except (WireError, UsageError) as exc:
        if game.server_config_error is not None:
            game.server_config_error(exc)
        raise UsageError(f"bad server configuration: {exc}") from None
    if plan_hook is not None:
        plan = plan_hook(values, plan)

    from gameroom.remote import aio
    from gameroom.server.host import host_listening

    log = stderr_log if not getattr(args, "quiet", False) else (lambda _t: None)
    while True:   # one game, or one after another with the plan's keep-alive
        try:
            hosted = aio.run(host_listening(plan, args.port, args.host, log=log, say_why=False))
        except OSError as exc:
            raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
        print_value(hosted.result)   # the spec's no-game output too, when it defines one
        if not hosted.played:
            # said even when --quiet: a server that played nothing must not look like one that did
            stderr_log(f"gameroom: no game was played: {hosted.why}")
        if not plan.keep_alive:
            return 0 if hosted.played else 1


def run_client_specs(specs: Sequence[ClientSpec], host: str, port: int, quiet: bool,
                     done: str = "all done") -> int:
    """Run the clients to their end and print ``done`` (the spec's last line); 0 only when
    every client that plays fair got its result (the game's final call, or the end of a
    game that has none): a server that dies before or during the game fails the command
    with one line on standard error and status 1. When no client reached a server at all,
    nothing is printed."""
    from gameroom.remote import aio
    from gameroom.server.clients import CANNOT_CONNECT, run_clients

    log = (lambda _t: None) if quiet else stderr_log
    sessions = aio.run(run_clients(specs, host, port, log))
    missed = [s.ended for s in sessions if s.ended.startswith(CANNOT_CONNECT)]
    if sessions and len(missed) == len(sessions):
        fail(f"no client could reach a server at {host}:{port} ({missed[0]})", status=1)
    if missed:
        stderr_log(f"gameroom: {len(missed)} of {len(sessions)} clients could not reach the server at {host}:{port}")
    fair = [(spec, session) for spec, session in zip(specs, sessions) if spec.wants_result]
    unfinished = [(spec, session) for spec, session in fair if not session.got_result]
    print(done, flush=True)   # the spec's line once every client is done, whatever they got
    if unfinished:
        spec, session = unfinished[0]
        name = spec.name if isinstance(spec.name, str) else json.dumps(spec.name)[:40]
        before = "" if any(s.calls for _spec, s in fair) else "; the server ended before any game started"
        fail(f"{len(unfinished)} of {len(fair)} clients got no result from the server at {host}:{port} "
             f"({name}: {session.ended or 'no session'}, after {len(session.calls)} calls){before}", status=1)
    return 0


def clients(game: GameCommands, args: Any) -> int:
    """``gameroom clients GAME``: the game's client specs from stdin, run to the end."""
    if game.client_specs is None:
        raise UsageError(f"{game.name} has no clients")
    try:
        specs, host = game.client_specs(read_stdin_values(), args)
    except WireError as exc:
        raise UsageError(f"bad client configuration: {exc}") from None
    run_client_specs(specs, args.host or host, args.port, quiet=getattr(args, "quiet", True), done=game.clients_done)
    return 0


def answer_like_reference_server(_exc: Exception) -> None:
    """The reference servers' answer to a bad configuration, for drivers that read stdout."""
    print(json.dumps("xserver: things went wrong"), flush=True)


def add_bonus_client_arguments(parser: Any) -> None:
    """``--bonus`` (the robustness clients) and ``--reference-framing``."""
    parser.add_argument("--bonus", action="store_true",
                        help="the robustness clients: lax names, broken-JSON players, special clients")
    parser.add_argument("--reference-framing", action="store_true",
                        help="pad every message with 5000 spaces and trickle it, as the reference client does")


def winners_caption(outcome: Any) -> str:
    """The caption of a game's last picture: who won, with the final scores."""
    scores = ", ".join(f"{n} {s}" for n, s in outcome.scores.items())
    label = "winner" if len(outcome.winners) == 1 else "winners"
    return f"game over: {label} {', '.join(outcome.winners) or 'none'}" + (f" ({scores})" if scores else "")


def print_outcome(outcome: Any, pictures: Any = None, directory: Any = None, dropped: str = "ejected") -> None:
    """The end of a ``play`` account: final scores, the winner(s), who dropped out, how many
    pictures were written, and the result as JSON on the last line."""
    scores = outcome.scores
    print("final scores: " + (", ".join(f"{n} {s}" for n, s in scores.items()) or "none"))
    label = "winner" if len(outcome.winners) == 1 else "winners"
    print(f"{label}: {', '.join(outcome.winners) or 'none'}")
    if outcome.misbehaved:
        print(f"{dropped}: {', '.join(outcome.misbehaved)}")
    if pictures is not None:
        print(f"pictures: {pictures.count} SVG files in {directory}")
    print_json(outcome.to_json())


def add_standard_play_arguments(parser: Any, players: tuple[int, int], default: int, seed_help: str) -> None:
    """``--players N`` (within ``players``), ``--seed S`` and ``--observe DIR``."""
    from pathlib import Path

    low, high = players
    parser.add_argument("--players", type=int, default=default,
                        help=f"number of players, {low}..{high} (default {default})")
    parser.add_argument("--seed", type=int, default=1, help=f"{seed_help} (default 1)")
    parser.add_argument("--observe", type=Path, metavar="DIR", help="write an SVG picture of every state into DIR")
