"""The ladder's matchmaking rule (pure: no clock, no global randomness).

For game ``index`` of a competition, from each playing bot's games (finished and in
progress) and rating (the openskill ordinal, mu - 3 sigma):

1. the *anchor* is the bot with the fewest games; ties are broken at random;
2. its opponents are drawn at random from the ``2 x (players - 1)`` other bots whose
   ratings are closest to the anchor's (all of them in a small field);
3. the seats are shuffled (no bot keeps the first move).

Every random choice uses ``random.Random`` seeded from the competition's seed and the
game's index (``league.schedule.game_seed``), so the pairing of a game is reproducible
from what the ladder knew when it scheduled it. Least-played first keeps every bot's
game count within a few of the others'; close ratings make games informative.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from gameroom.league.schedule import game_seed

__all__ = ["pair"]


def pair(bots: Mapping[str, tuple[int, float]], players: int, seed: int, index: int) -> list[str] | None:
    """The bots of game ``index`` in seat order; ``bots`` maps each playing bot to
    (games, rating). None when fewer bots than ``players`` can play."""
    if len(bots) < players:
        return None
    rng = random.Random(game_seed(seed, index) ^ 0xA7E4A)
    names = sorted(bots)
    fewest = min(bots[name][0] for name in names)
    anchor = rng.choice([name for name in names if bots[name][0] == fewest])
    rating = bots[anchor][1]
    others = sorted((name for name in names if name != anchor), key=lambda n: (abs(bots[n][1] - rating), n))
    near = others[:max(2 * (players - 1), players - 1)]
    table = [anchor, *rng.sample(near, players - 1)]
    rng.shuffle(table)
    return table
