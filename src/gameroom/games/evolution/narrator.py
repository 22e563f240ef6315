"""What a person is told of a game of Evolution (``gameroom play evolution``, the web
room): every step as it happens — a turn beginning, the cards dealt, each player's card
actions, the watering hole before feeding, each feeding, cleanup, each removal (by player
id) and why — one line each, which are also the captions of the pictures drawn at every
step; at the end the spec's result lines (3.9). Pure: lines are returned, the command
line prints them."""

from __future__ import annotations

from typing import Any, Sequence

from gameroom.core.narration import Narrator
from gameroom.core.record import STATE
from gameroom.games.evolution.harness import result_lines

__all__ = ["EvolutionNarrator", "narrator"]


class EvolutionNarrator(Narrator):
    """The referee's captions as lines (a turn's start set apart), removals as they
    happen, the result lines at the end (they replace the generic summary). The referee's
    last snapshot already names the winners, so no extra picture is drawn."""

    def narrate(self, event: Any) -> list[str]:
        if event.kind != STATE:
            return []
        if event.get("event") == "removed":
            return [f"removed: {event.get('player')}: {event.get('reason')}"]
        caption = event.get("caption")
        if event.subject is None or not caption:
            return []
        return [f"-- {caption} --" if event.get("event") == "turn" else str(caption)]

    def caption(self, event: Any) -> str | None:
        return event.get("caption")

    def closing(self, outcome: Any) -> list[str]:
        return ["\n".join(result_lines(outcome.results))]

    def final_caption(self, outcome: Any) -> None:
        return None


def narrator(seed: int, names: Sequence[str]) -> EvolutionNarrator:
    """The narrator of a game the descriptor's ``play`` deals from ``seed`` (player ids
    ``<name>#<i+1>``)."""
    ids = ", ".join(f"{name}#{i + 1}" for i, name in enumerate(names))
    return EvolutionNarrator([f"Evolution: {ids}; deck shuffled by seed {seed}"])
