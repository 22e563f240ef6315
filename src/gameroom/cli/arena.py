"""``gameroom arena``: serve an arena, and administer it from the shell.

    gameroom arena --config arena.toml                     serve (until SIGTERM / Ctrl-C)
    gameroom arena admin NAME --config arena.toml          make NAME an administrator (its
                                                           password, for a new account, from
                                                           GAMEROOM_ARENA_PASSWORD or stdin)
    gameroom arena invite COMPETITION [--count N]          print N invite codes
    gameroom arena import FILE.csv --competition C         accounts from a CSV, made participants
    gameroom arena signout NAME                            end every session of an account (also
                                                           POST /api/accounts/signout, staff only)
    gameroom arena recompute [--write]                     rebuild the standings from the games;
                                                           exit 1 when they differ
    gameroom arena final COMPETITION [--format F] [--top N] [--games G] [--wait S] [--json]
                                                           freeze, wait for the games in flight,
                                                           play the final from the frozen table
                                                           and print its result
    gameroom arena freeze COMPETITION [--thaw]             freeze a competition (or thaw it)
    gameroom arena export COMPETITION                      the standings as CSV, for grading
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from gameroom.cli.common import UsageError

if TYPE_CHECKING:
    from gameroom.arena.config import ArenaConfig, Competition

__all__ = ["add_command", "run", "PASSWORD_VARIABLE"]

PASSWORD_VARIABLE = "GAMEROOM_ARENA_PASSWORD"


def add_command(commands: argparse._SubParsersAction) -> None:
    arena = commands.add_parser("arena", help="a season-long bot competition on its own server",
                                description="Without a sub-command: serve the arena of --config until SIGTERM "
                                            "or Ctrl-C. With one: administer it (the arena may be running).")
    arena.add_argument("--config", type=Path, default=Path("arena.toml"), help="the arena's file (default arena.toml)")
    actions = arena.add_subparsers(dest="arena_command", required=False)

    def action(name: str, text: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=text)
        parser.add_argument("--config", type=Path, default=argparse.SUPPRESS, help="the arena's file")
        return parser

    admin = action("admin", "make an account an administrator (made when new)")
    admin.add_argument("name", help="the account's username")
    invite = action("invite", "print invite codes of a competition")
    invite.add_argument("competition")
    invite.add_argument("--count", type=int, default=1, help="how many codes (default 1)")
    imported = action("import", "make the accounts of a CSV file (username,password) participants")
    imported.add_argument("file", type=Path)
    imported.add_argument("--competition", required=True)
    signout = action("signout", "end every session of an account (sign it out everywhere)")
    signout.add_argument("name", help="the account's username")
    recompute = action("recompute", "rebuild the standings from the stored games and report differences")
    recompute.add_argument("--write", action="store_true", help="store the rebuilt standings where they differ")
    final = action("final", "freeze a competition and play its final tournament")
    final.add_argument("competition")
    final.add_argument("--format", default="round-robin", choices=["round-robin", "knock-out"])
    final.add_argument("--top", type=int, default=8, help="bots of the standings that play (default 8)")
    final.add_argument("--games", type=int, default=2, help="games per table or match (default 2)")
    final.add_argument("--wait", type=float, default=300.0,
                       help="seconds to wait for the running arena to write its games in flight (default 300)")
    final.add_argument("--json", action="store_true", help="print the result as JSON")
    frozen = action("freeze", "freeze a competition: no more ladder games or uploads (the finals' table)")
    frozen.add_argument("competition")
    frozen.add_argument("--thaw", action="store_true", help="thaw it instead: the ladder goes on")
    export = action("export", "print a competition's standings as CSV (the frozen table when frozen)")
    export.add_argument("competition")


def _password() -> str | None:
    if os.environ.get(PASSWORD_VARIABLE):
        return os.environ[PASSWORD_VARIABLE]
    if sys.stdin is None or sys.stdin.isatty():
        import getpass

        try:
            return getpass.getpass("password for a new account (Enter if it exists): ") or None
        except EOFError:
            return None
    line = sys.stdin.readline().rstrip("\r\n")
    return line or None


def run(args: argparse.Namespace) -> int:
    from gameroom.arena.config import ArenaConfigError, read_config
    from gameroom.arena.remote import HallError
    from gameroom.arena.service import ServiceError

    try:
        config = read_config(args.config)
    except ArenaConfigError as exc:
        raise UsageError(str(exc)) from None
    try:
        return _run(args, config)
    except (ServiceError, HallError) as exc:
        raise UsageError(str(exc)) from None


def _competition(config: ArenaConfig, name: str) -> Competition:
    chosen = config.competition(name)
    if chosen is None:
        raise UsageError(f"no competition {name!r} in {config.path}")
    return chosen


def _run(args: argparse.Namespace, config: object) -> int:
    from gameroom.arena import service
    from gameroom.arena.config import ArenaConfig

    assert isinstance(config, ArenaConfig)
    command = args.arena_command
    if command is None:
        return service.serve(config)
    if command == "admin":
        service.make_admin(config, args.name, _password())
        print(f"{args.name} is an administrator of the arena")
        return 0
    if command == "invite":
        from gameroom.arena.tables import make_invites

        if config.competition(args.competition) is None:
            raise UsageError(f"no competition {args.competition!r} in {config.path}")
        if not 1 <= args.count <= 10_000:
            raise UsageError("--count must lie in 1..10000")
        for code in make_invites(service.open_arena_database(config), args.competition, args.count):
            print(code)
        return 0
    if command == "signout":
        ended = service.sign_out(config, args.name)
        print(f"{args.name}: {ended} session{'s' * (ended != 1)} ended")
        return 0
    if command == "import":
        count = service.import_accounts(config, service.read_text(args.file), args.competition, str(args.file))
        print(f"{count} accounts are participants of {args.competition}")
        return 0
    if command == "recompute":
        differences = service.recompute_all(config, args.write)
        for competition, lines in differences.items():
            print(f"{competition}: " + ("the standings are exactly the stored games'" if not lines else
                                        f"{len(lines)} difference{'s' * (len(lines) != 1)}"
                                        + (" (rewritten)" if args.write else "")))
            for line in lines:
                print(f"  {line}")
        return 1 if any(differences.values()) and not args.write else 0
    if command == "final":
        from gameroom.arena.final import describe, play_final
        from gameroom.arena.errors import ArenaError
        from gameroom.arena.ladder import Arena

        chosen = _competition(config, args.competition)
        if args.top < 2 or args.games < 1 or not args.wait > 0:
            raise UsageError("--top must be at least 2, --games at least 1 and --wait a positive number of seconds")
        arena = Arena(config, service.open_arena_database(config), serving=False)
        try:
            result = play_final(arena, chosen, args.format, args.top, args.games, args.wait)
        except ArenaError as exc:
            print(f"gameroom: error: {exc}", file=sys.stderr)
            return 1   # the final was not played
        finally:
            arena.stop(0)
        print(json.dumps(result, indent=2) if args.json else "\n".join(describe(result)))
        return 0
    if command == "freeze":
        from gameroom.arena.season import freeze, thaw

        chosen = _competition(config, args.competition)
        engine = service.open_arena_database(config)
        if args.thaw:
            print(f"{chosen.name} is thawed: the ladder goes on" if thaw(engine, chosen.name)
                  else f"{chosen.name} was not frozen")
        else:
            print(f"{chosen.name} is frozen: the running arena writes its games in flight, then the frozen table"
                  if freeze(engine, chosen.name, "staff") else f"{chosen.name} was frozen already")
        return 0
    if command == "export":
        from gameroom.arena.ladder import Arena
        from gameroom.arena.staff import standings_csv

        chosen = _competition(config, args.competition)
        arena = Arena(config, service.open_arena_database(config), serving=False)
        try:
            sys.stdout.write(standings_csv(arena, chosen))
        finally:
            arena.stop(0)
        return 0
    raise UsageError(f"unknown arena command {command!r}")
