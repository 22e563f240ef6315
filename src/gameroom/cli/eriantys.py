"""The ``gameroom`` commands for Eriantys: play (an in-process match with an account of
the game and optional pictures) and the xgame harness (its ``--log`` flag prints every
broadcast). The lobby server is a later issue."""

from __future__ import annotations

import argparse
import random
from typing import Any

from gameroom.cli.common import UsageError, add_standard_play_arguments, print_json, stderr_log
from gameroom.cli.observers import PictureObserver
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.games.eriantys.config import DECISION_TIMEOUT
from gameroom.games.eriantys.pieces import CARD_NAMES
from gameroom.games.eriantys.players import PLAYER_KINDS, EriantysPlayer, parse_strategy
from gameroom.games.eriantys.referee import run_match
from gameroom.games.eriantys.strategies import STRATEGIES

NAMES = ["Ann", "Ben", "Cyd", "Dot"]


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    add_standard_play_arguments(parser, (2, 4), 2, "seed of the game's generator")
    parser.add_argument("--expert", action="store_true", help="expert mode: coins and three character cards")
    parser.add_argument("--strategies", default="greedy,first-legal",
                        help="comma-separated players assigned in turn, from " + ", ".join(PLAYER_KINDS)
                             + " (default greedy,first-legal)")


def _where(location: str, names: list[str]) -> str:
    kind, _, index = location.partition(":")
    if kind == "ENTRANCE":
        return f"{names[int(index)]}'s entrance"
    if kind == "DININGROOM":
        return f"{names[int(index)]}'s dining room"
    return {"ISLAND": "island", "CLOUD": "cloud", "CARD": "card", "PLAYER": "supply"}.get(kind, kind.lower()) + (
        f" {index}" if index else "")


class Account:
    """An observer that prints the broadcasts as sentences, one per line."""

    def __init__(self, names: list[str], teams: list[str]) -> None:
        self.names = names
        self.teams = teams   # tower colour of each holder index
        self.round = 0

    def message(self, m: dict[str, Any]) -> None:
        line = self.describe(m)
        if line:
            print(line)

    def describe(self, m: dict[str, Any]) -> str | None:
        kind, names = m["type"], self.names
        if kind == "CHANGE_PHASE" and m["gamePhase"] == "PLANNING_PHASE":
            self.round += 1
            return f"-- round {self.round} --"
        if kind == "PLAY_ASSISTANT_CARD":
            return f"{names[m['player']]} plays assistant {m['assistantCard']}"
        if kind == "MOVE_STUDENT":
            return f"  {m['color'].lower()} student: {_where(m['from'], names)} -> {_where(m['to'], names)}"
        if kind == "SET_PROFESSOR_TO":
            return f"  {names[m['player']]} takes the {m['color'].lower()} professor"
        if kind == "ADD_COIN" and self.round:
            return f"  {names[m['player']]} earns a coin"
        if kind == "MOVE_TOWERS":
            holder = m["from"] if m["from"].startswith("PLAYER") else m["to"]
            team = self.teams[int(holder.split(":")[1])]
            verb = "builds" if m["from"].startswith("PLAYER") else "loses"
            return f"  {team} {verb} {m['amount']} tower(s) on {_where(m['to'] if verb == 'builds' else m['from'], names)}"
        if kind == "MERGE_ISLANDS":
            return f"  islands {m['firstIslandIndex']} and {m['secondIslandIndex']} merge"
        if kind == "MOVE_MOTHER_NATURE":
            return f"  Mother Nature moves to island {m['position']}"
        if kind == "NO_ENTRY":
            return f"  a no-entry tile is {'put on' if m['add'] else 'taken from'} island {m['islandIndex']}"
        if kind == "ACTIVATE_CHARACTER_CARD":
            return f"  {names[m['player']]} uses the {CARD_NAMES[m['characterCardIndex']]}"
        if kind == "REMOVE_COIN":
            return f"  {names[m['player']]} pays {m['amount']} coin(s)"
        if kind == "CHANGE_TURN" and self.round:
            return f"{names[m['playingPlayer']]}'s turn"
        if kind == "PLAYER_DISCONNECT":
            return f"{m['username']} is ejected ({m['reason']})"
        if kind == "END_GAME":
            return f"game over: {', '.join(m['winners']) or 'nobody'} {'wins' if len(m['winners']) == 1 else 'win'}"
        return None


def play(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 4:
        raise UsageError(f"--players must lie in 2..4, got {args.players}")
    kinds = args.strategies.split(",")
    for kind in kinds:
        try:
            parse_strategy(kind)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    names = NAMES[: args.players]
    seats = []
    for i, name in enumerate(names):
        kind = kinds[i % len(kinds)]
        player = EriantysPlayer(name, kind, random.Random(args.seed * 131 + i))
        seats.append(trusted_seat(name, player) if kind in STRATEGIES else guarded_seat(name, player))
    teams = ["BLACK", "WHITE", "GREY"]
    account = Account(names, teams)
    observers: list[Any] = [account]
    pictures = None
    if args.observe is not None:
        from gameroom.games.eriantys.render import render_svg

        pictures = PictureObserver(args.observe, render_svg)
        observers.append(pictures)
    print(f"Eriantys, {'expert' if args.expert else 'simple'} mode, seed {args.seed}: "
          + ", ".join(f"{s.name} ({teams[i if args.players == 3 else i % 2]}, {kinds[i % len(kinds)]})"
                      for i, s in enumerate(seats)))
    outcome = run_match(seats, args.expert, args.seed, time_limit=DECISION_TIMEOUT, observers=observers,
                        log=stderr_log)
    state = outcome.extra["state"]
    print("towers left: " + ", ".join(f"{teams[t]} {state.supply[t]}" for t in range(state.c.teams))
          + "; professors: " + ", ".join(f"{names[o]}" if o is not None else "-" for o in state.professors))
    print(f"{'winner' if len(outcome.winners) == 1 else 'winners'}: {', '.join(outcome.winners) or 'none'}")
    if outcome.misbehaved:
        print(f"ejected: {', '.join(outcome.misbehaved)}")
    if pictures is not None:
        print(f"pictures: {pictures.count} SVG files in {args.observe}")
    print_json(outcome.to_json())
    return 0


def render(state: Any, caption: str) -> str:
    from gameroom.games.eriantys.render import render_svg

    return render_svg(state, caption)
