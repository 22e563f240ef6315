"""What a person is told of a game of Eriantys (``gameroom play eriantys``, the web room,
``gameroom connect``): the game's broadcasts as sentences, one per line (rounds, assistant
cards, students, professors, towers, Mother Nature, character cards, ejections); the
picture after each move captioned with who moved and what it did (the move's sentences);
at the end the towers left and who holds each professor. Pure: lines are returned, the
command line prints them."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from gameroom.core.narration import Narrator
from gameroom.core.record import STATE
from gameroom.games.eriantys.pieces import CARD_NAMES

__all__ = ["EriantysNarrator", "TEAMS", "narrator", "sentence"]

TEAMS = ["BLACK", "WHITE", "GREY"]
"""The tower colour of each holder index."""


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


def sentence(m: dict[str, Any], names: list[str], teams: list[str], in_play: bool = True) -> str | None:
    """One broadcast as a sentence (indented when it is part of a move), or None for one
    that is no news (a phase change, the set-up's coins before play)."""
    said = _SENTENCES.get(m.get("type", "")) or (_IN_PLAY.get(m.get("type", "")) if in_play else None)
    try:
        return said(m, names, teams) if said is not None else None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return None   # a broadcast of a shape we do not know: not told rather than crash


class EriantysNarrator(Narrator):
    """The match's message events (the broadcasts) as sentences; ``teams`` is the tower
    colour of each holder index. A state event after a move is captioned with the mover
    (its ``player`` note) and the sentences said since the previous state."""

    def __init__(self, opening: str, names: list[str], teams: list[str]) -> None:
        super().__init__([opening])
        self.names = names
        self.teams = teams
        self.round = 0
        self.since: list[str] = []

    def narrate(self, event: Any) -> list[str]:
        if event.kind == STATE:
            return []
        if event.kind != "message":
            return []
        m = event.data["message"]
        if m["type"] == "CHANGE_PHASE" and m["gamePhase"] == "PLANNING_PHASE":
            self.round += 1
            return [f"-- round {self.round} --"]
        said = sentence(m, self.names, self.teams, self.round > 0)
        if said is None:
            return []
        self.since.append(said.strip())
        return [said]

    def caption(self, event: Any) -> str | None:
        said, self.since = self.since, []
        if event.get("caption") == "setup" or not said:
            return "the game is set up" if event.get("caption") == "setup" else event.get("caption")
        who = event.get("player")
        return (f"{who}: " if who is not None and not said[0].startswith(who) else "") + "; ".join(said)

    def closing(self, outcome: Any) -> list[str]:
        snap = outcome.extra["snapshot"]
        return ["towers left: " + ", ".join(f"{team} {left}" for team, left in snap["towers"].items())
                + "; professors: " + ", ".join(f"{self.names[o]}" if o is not None else "-"
                                               for o in snap["professors"].values())]


def narrator(seed: int, names: Sequence[str]) -> EriantysNarrator:
    """The narrator of a game the descriptor's ``play`` deals from ``seed``."""
    teams = [TEAMS[i if len(names) == 3 else i % 2] for i in range(len(names))]
    return EriantysNarrator(f"Eriantys, seed {seed}: " + ", ".join(f"{n} ({t})" for n, t in zip(names, teams)),
                            list(names), TEAMS)
