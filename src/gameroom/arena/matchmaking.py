"""The ladder's matchmaking rule (pure: no clock, no global randomness).

For game ``index`` of a competition, from each playing bot's games (finished and in
progress), its rating (the openskill ordinal, mu - 3 sigma) and how often each two bots
have met:

1. the *anchor* is the bot with the fewest games; ties are broken at random;
2. its *window* is the nearer half of the other bots by rating (at least
   ``2 x (players - 1)`` of them, all of them in a small field);
3. its opponents are the bots of the window with the lowest *cost*: the games they have
   played with the anchor plus the games they have played beyond the anchor's count;
   ties broken at random;
4. the seats are shuffled (no bot keeps the first move).

Every random choice uses ``random.Random`` seeded from the competition's seed and the
game's index (``league.schedule.game_seed``), so the pairing of a game is reproducible
from what the ladder knew when it scheduled it. Least-played first keeps every bot's
game count close to the others'; the window keeps games between bots of similar
strength, so they are informative; the cost spreads each bot's games over the half of
the field nearest to it, in turn, rather than the nearest one or two forever (which the
rule before, the ``2 x (players - 1)`` nearest at random, made of a season), and its
second term keeps the bots in the middle of the ratings, which are in every window, from
playing more than the others.

Measured over a simulated season (``tests/arena/test_intake.py``: twelve bots of fixed
ratings, 1,200 two-player games): the rule before made some bots play two opponents only,
the nearest two taking all of their games; this one has every bot play six opponents or
more at least ten times each, its two most frequent opponents under 40% of its games, and
every bot's game count within 8% of the others'.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

from gameroom.league.schedule import game_seed

__all__ = ["pair", "meeting"]


def meeting(first: str, second: str) -> tuple[str, str]:
    """The key of two bots' meetings (either order)."""
    return (first, second) if first <= second else (second, first)


def pair(bots: Mapping[str, tuple[int, float]], players: int, seed: int, index: int,
         met: Mapping[tuple[str, str], int] | None = None) -> list[str] | None:
    """The bots of game ``index`` in seat order; ``bots`` maps each playing bot to
    (games, rating), ``met`` each two bots (:func:`meeting`) to their games together.
    None when fewer bots than ``players`` can play."""
    if len(bots) < players:
        return None
    met = met or {}
    rng = random.Random(game_seed(seed, index) ^ 0xA7E4A)
    names = sorted(bots)
    fewest = min(bots[name][0] for name in names)
    anchor = rng.choice([name for name in names if bots[name][0] == fewest])
    rating = bots[anchor][1]
    others = sorted((name for name in names if name != anchor), key=lambda n: (abs(bots[n][1] - rating), n))
    window = others[:max(2 * (players - 1), math.ceil(len(others) / 2))]
    ties = {name: rng.random() for name in window}
    chosen = sorted(window, key=lambda n: (met.get(meeting(anchor, n), 0) + bots[n][0] - fewest, ties[n]))
    chosen = chosen[:players - 1]
    table = [anchor, *chosen]
    rng.shuffle(table)
    return table
