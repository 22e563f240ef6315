"""What ``gameroom play eriantys`` tells a person: the game's broadcasts as sentences, one
per line (rounds, assistant cards, students, professors, towers, Mother Nature, character
cards, ejections), and at the end the towers left and who holds each professor. Pure:
lines are returned, the command line prints them."""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.narration import Narrator
from gameroom.games.eriantys.pieces import CARD_NAMES

__all__ = ["EriantysNarrator"]


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


class EriantysNarrator(Narrator):
    """The match's message events (the broadcasts) as sentences; ``teams`` is the tower
    colour of each holder index."""

    def __init__(self, opening: str, names: list[str], teams: list[str]) -> None:
        super().__init__([opening])
        self.names = names
        self.teams = teams
        self.round = 0

    def narrate(self, event: Any) -> list[str]:
        if event.kind != "message":
            return []
        m = event.data["message"]
        if m["type"] == "CHANGE_PHASE" and m["gamePhase"] == "PLANNING_PHASE":
            self.round += 1
            return [f"-- round {self.round} --"]
        sentence = _SENTENCES.get(m["type"]) or (_IN_PLAY.get(m["type"]) if self.round else None)
        return [sentence(m, self.names, self.teams)] if sentence is not None else []

    def closing(self, outcome: Any) -> list[str]:
        snap = outcome.extra["snapshot"]
        return ["towers left: " + ", ".join(f"{team} {left}" for team, left in snap["towers"].items())
                + "; professors: " + ", ".join(f"{self.names[o]}" if o is not None else "-"
                                               for o in snap["professors"].values())]
