"""The ``gameroom`` commands for Eriantys: play (an in-process match with an account of
the game and optional pictures) and the xgame harness (its ``--log`` flag prints every
broadcast). The lobby's commands (serve, clients, connect) are the lobby's own,
in ``cli/lobby.py``."""

from __future__ import annotations

import argparse
import random
from typing import Any, Callable

from gameroom.cli.common import UsageError, add_standard_play_arguments, print_outcome, stderr_log, winners_caption
from gameroom.cli.observers import PictureObserver
from gameroom.core.context import MatchContext
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.games.eriantys.descriptor import GAME
from gameroom.games.eriantys.pieces import CARD_NAMES
from gameroom.games.eriantys.players import PLAYER_KINDS, EriantysPlayer, parse_strategy
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


def _towers(m: dict[str, Any], names: list[str], teams: list[str]) -> str:
    built = m["from"].startswith("PLAYER")
    holder, island = (m["from"], m["to"]) if built else (m["to"], m["from"])
    team = teams[int(holder.split(":")[1])]
    return f"  {team} {'builds' if built else 'loses'} {m['amount']} tower(s) on {_where(island, names)}"


# One sentence per kind of broadcast: (message, names, teams) -> text.
_SENTENCES: dict[str, Callable[[dict[str, Any], list[str], list[str]], str]] = {
    "PLAY_ASSISTANT_CARD": lambda m, n, t: f"{n[m['player']]} plays assistant {m['assistantCard']}",
    "MOVE_STUDENT": lambda m, n, t: f"  {m['color'].lower()} student: {_where(m['from'], n)} -> {_where(m['to'], n)}",
    "SET_PROFESSOR_TO": lambda m, n, t: f"  {n[m['player']]} takes the {m['color'].lower()} professor",
    "MOVE_TOWERS": _towers,
    "MERGE_ISLANDS": lambda m, n, t: f"  islands {m['firstIslandIndex']} and {m['secondIslandIndex']} merge",
    "MOVE_MOTHER_NATURE": lambda m, n, t: f"  Mother Nature moves to island {m['position']}",
    "NO_ENTRY": lambda m, n, t: f"  a no-entry tile is {'put on' if m['add'] else 'taken from'} island {m['islandIndex']}",
    "ACTIVATE_CHARACTER_CARD": lambda m, n, t: f"  {n[m['player']]} uses the {CARD_NAMES[m['characterCardIndex']]}",
    "REMOVE_COIN": lambda m, n, t: f"  {n[m['player']]} pays {m['amount']} coin(s)",
    "PLAYER_DISCONNECT": lambda m, n, t: f"{m['username']} is ejected ({m['reason']})",
    "END_GAME": lambda m, n, t: f"game over: {', '.join(m['winners']) or 'nobody'} "
                                f"{'wins' if len(m['winners']) == 1 else 'win'}",
}
# Only told once the game is under way (the setup's coins and first turn are not news).
_IN_PLAY: dict[str, Callable[[dict[str, Any], list[str], list[str]], str]] = {
    "ADD_COIN": lambda m, n, t: f"  {n[m['player']]} earns a coin",
    "CHANGE_TURN": lambda m, n, t: f"{n[m['playingPlayer']]}'s turn",
}


class Account:
    """An observer that prints the broadcasts as sentences, one per line."""

    def __init__(self, names: list[str], teams: list[str]) -> None:
        self.names = names
        self.teams = teams   # tower colour of each holder index
        self.round = 0

    def __call__(self, event: Any) -> None:
        if event.kind == "message":
            self.message(event.data["message"])

    def message(self, m: dict[str, Any]) -> None:
        if m["type"] == "CHANGE_PHASE" and m["gamePhase"] == "PLANNING_PHASE":
            self.round += 1
            print(f"-- round {self.round} --")
            return
        sentence = _SENTENCES.get(m["type"]) or (_IN_PLAY.get(m["type"]) if self.round else None)
        if sentence is not None:
            print(sentence(m, self.names, self.teams))


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
        pictures = PictureObserver(args.observe, GAME.render)
        observers.append(pictures)
    print(f"Eriantys, {'expert' if args.expert else 'simple'} mode, seed {args.seed}: "
          + ", ".join(f"{s.name} ({teams[i if args.players == 3 else i % 2]}, {kinds[i % len(kinds)]})"
                      for i, s in enumerate(seats)))
    outcome = GAME.play(args.seed, seats, MatchContext(observers=observers, log=stderr_log), expert=args.expert)
    snap = outcome.extra["snapshot"]
    print("towers left: " + ", ".join(f"{team} {left}" for team, left in snap["towers"].items())
          + "; professors: " + ", ".join(f"{names[o]}" if o is not None else "-" for o in snap["professors"].values()))
    if pictures is not None:
        pictures.final(winners_caption(outcome))
    print_outcome(outcome, pictures, args.observe)
    return 0
