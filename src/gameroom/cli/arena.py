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
    gameroom arena final COMPETITION [--format F] [--top N] [--games G]
                                                           freeze and play the final tournament
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from gameroom.cli.common import UsageError

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
    from gameroom.arena.service import ServiceError

    try:
        config = read_config(args.config)
    except ArenaConfigError as exc:
        raise UsageError(str(exc)) from None
    try:
        return _run(args, config)
    except ServiceError as exc:
        raise UsageError(str(exc)) from None


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
        from gameroom.arena.final import play_final
        from gameroom.arena.ladder import Arena, ArenaError

        chosen = config.competition(args.competition)
        if chosen is None:
            raise UsageError(f"no competition {args.competition!r} in {config.path}")
        if args.top < 2 or args.games < 1:
            raise UsageError("--top must be at least 2 and --games at least 1")
        arena = Arena(config, service.open_arena_database(config), serving=False)
        try:
            result = play_final(arena, chosen, args.format, args.top, args.games)
        except ArenaError as exc:
            raise UsageError(str(exc)) from None
        finally:
            arena.stop(0)
        print(json.dumps(result, indent=2))
        return 0
    raise UsageError(f"unknown arena command {command!r}")
