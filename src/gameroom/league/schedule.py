"""Who plays game ``i`` of a league, deterministically from the league's seed.

* Game ``i``'s seed is derived from the league seed and ``i`` alone, so a resumed league
  (or the same league on another backend) deals exactly the same games.
* Small fields (at most :data:`ROUND_ROBIN_MAX` tables of the chosen size) play a round
  robin: every table in turn, the seating rotated each time round.
* Larger fields play random tables during the warm-up, then rating-aware tables: a random
  bot meets opponents drawn from those closest to its rating. The ratings used for the
  games of block ``b`` are those after every game of the earlier blocks (the runner waits
  for a block to finish), so pairing never depends on which worker finished first.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from typing import Callable, Sequence

__all__ = ["game_seed", "Schedule", "ROUND_ROBIN_MAX", "BLOCK"]

ROUND_ROBIN_MAX = 60
BLOCK = 50


def game_seed(league_seed: int, index: int) -> int:
    """Game ``index``'s seed (fits a signed 32-bit column)."""
    digest = hashlib.sha256(f"gameroom-league:{league_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class Schedule:
    """The tables of one league: ``bots`` are names, ``players`` the table size."""

    def __init__(self, bots: Sequence[str], players: int, seed: int, warmup: int | None = None) -> None:
        if not 2 <= players <= len(bots):
            raise ValueError(f"a table of {players} needs at least {players} bots, the league has {len(bots)}")
        self.bots = list(bots)
        self.players = players
        self.seed = seed
        self.combinations = list(itertools.combinations(self.bots, players))
        self.round_robin = len(self.combinations) <= ROUND_ROBIN_MAX
        self.warmup = 4 * len(self.bots) if warmup is None else warmup

    @property
    def needs_ratings(self) -> bool:
        return not self.round_robin

    def table(self, index: int, rating: Callable[[str], float] | None = None) -> list[str]:
        """The bots of game ``index`` in turn order; ``rating`` (bot -> mu) as of the end of
        the block before, used once the warm-up is over."""
        if self.round_robin:
            table = list(self.combinations[index % len(self.combinations)])
            turn = (index // len(self.combinations)) % self.players
            return table[turn:] + table[:turn]
        rng = random.Random(game_seed(self.seed, index) ^ 0x5EA7)
        if index < self.warmup or rating is None:
            table = rng.sample(self.bots, self.players)
        else:
            anchor = rng.choice(self.bots)
            others = sorted((b for b in self.bots if b != anchor), key=lambda b: (abs(rating(b) - rating(anchor)), b))
            near = others[:max(2 * (self.players - 1), self.players - 1)]
            table = [anchor, *rng.sample(near, self.players - 1)]
        rng.shuffle(table)
        return table
