"""What a person is told of a game of Bazaar (``gameroom play bazaar``, the web room): one
line per event of the game as it happens (turns numbered; a purchase's line ends with the
scores, bank and cards), the referee's own message of each step as its picture's caption,
and why the spec's reference players usually end a game at 0 to 0. Pure: lines are
returned, the command line prints them."""

from __future__ import annotations

import random
from typing import Any, Sequence

from gameroom.core.narration import Narrator
from gameroom.games.bazaar.referee import Step
from gameroom.games.bazaar.state import scratch_state

__all__ = ["NOBODY_SCORED", "BazaarNarrator", "narrator"]

NOBODY_SCORED = ("note: nobody scored. The spec's reference player (bazaar.md 9.2) answers 'no exchange' whenever "
                 "no exchange helps it buy, which burns a card every turn until none are left; "
                 "--strategy patient plays to win")


class BazaarNarrator(Narrator):
    """The referee's steps as lines; ``explain_zero`` adds :data:`NOBODY_SCORED` when a
    game of reference players ends with every score 0. The last picture is the referee's
    own (its end step), so no extra one is drawn."""

    def __init__(self, opening: str, explain_zero: bool) -> None:
        super().__init__([opening])
        self.turn = 0
        self.explain_zero = explain_zero

    def narrate(self, event: Any) -> list[str]:
        step: Step | None = event.detail
        if event.kind != "state" or step is None:
            return []
        if step.kind == "first-action":
            self.turn += 1
        prefix = f"turn {self.turn:3}: " if step.kind in ("first-action", "purchase") else ""
        line = f"{prefix}{step.message}"
        if step.kind == "purchase" and not step.kicked:
            scores = ", ".join(f"{name} {score}" for name, score in step.scores.items())
            g = step.game
            line += f"  [{scores}; bank {len(g.bank)}, cards {len(g.visibles)}+{len(g.hidden)}]"
        return [line]

    def closing(self, outcome: Any) -> list[str]:
        return [NOBODY_SCORED] if self.explain_zero and not any(outcome.scores.values()) else []

    def final_caption(self, outcome: Any) -> None:
        return None


def narrator(seed: int, names: Sequence[str]) -> BazaarNarrator:
    """The narrator of a game the descriptor's ``play`` deals from ``seed``."""
    state = scratch_state(random.Random(seed), list(names))
    return BazaarNarrator(f"Bazaar: {', '.join(names)}; seed {seed}; {len(state.equations)} equations, "
                          f"{len(state.bank)} pebbles in the bank", explain_zero=False)
