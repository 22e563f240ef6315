"""What ``gameroom play evolution`` tells a person: who was removed (by player id) and
why, as it happens, then the number of turns and the spec's result lines (3.9). Pure:
lines are returned, the command line prints them."""

from __future__ import annotations

from typing import Any

from gameroom.core.narration import Narrator
from gameroom.core.record import STATE
from gameroom.games.evolution.harness import result_lines

__all__ = ["EvolutionNarrator"]


class EvolutionNarrator(Narrator):
    """Removals as they happen; the turns and result lines at the end (they replace the
    generic summary). The referee's last snapshot already names the winners, so no extra
    picture is drawn."""

    def narrate(self, event: Any) -> list[str]:
        if event.kind == STATE and event.get("event") == "removed":
            return [f"removed: {event.get('player')}: {event.get('reason')}"]
        return []

    def closing(self, outcome: Any) -> list[str]:
        return [f"{outcome.turns} turn(s)", "\n".join(result_lines(outcome.results))]

    def final_caption(self, outcome: Any) -> None:
        return None
