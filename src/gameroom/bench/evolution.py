"""Evolution benchmarks: complete games through the dealer on ``core.match`` between silly
players on trusted seats (direct calls, as the reference's in-process ``xmain`` runs), on
the sorted deck and on seeded shuffled decks; games and turns per second, and peak memory.

The Racket reference plays the sorted-deck silly games of ``xmain`` at about 11.6, 19.9 and
12.3 games/s for 3, 5 and 8 players.
"""

from __future__ import annotations

import resource
import time
import tracemalloc

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import trusted_seat
from gameroom.games.evolution.pieces import shuffled_deck, sorted_deck
from gameroom.games.evolution.referee import run_game
from gameroom.games.evolution.players import SillyPlayer

REFERENCE_GAMES_PER_SECOND = {3: 11.6, 5: 19.9, 8: 12.3}


def play_games(games: int, players: int, shuffled: bool, seed: int = 0) -> tuple[float, float]:
    """Play `games` games of silly players: (games/s, turns/s)."""
    turns = 0
    start = time.perf_counter()
    for g in range(games):
        seats = [trusted_seat(str(i), SillyPlayer()) for i in range(players)]
        deck = shuffled_deck(seed + g) if shuffled else sorted_deck()
        turns += run_game(seats, deck, MatchContext(limits=Limits())).turns
    elapsed = time.perf_counter() - start
    return games / elapsed, turns / elapsed


def run(games: int) -> None:
    play_games(20, 3, False)   # warm-up
    for players in (3, 5, 8):
        reference = REFERENCE_GAMES_PER_SECOND[players]
        rate, turns = play_games(games * 5, players, False)
        print(f"Evolution silly x{players}, sorted deck: {rate:.0f} games/s, {turns:.0f} turns/s; "
              f"reference {reference} games/s, {rate / reference:.0f}x", flush=True)
        rate, turns = play_games(games * 5, players, True)
        print(f"Evolution silly x{players}, shuffled decks: {rate:.0f} games/s, {turns:.0f} turns/s", flush=True)
    tracemalloc.start()
    play_games(5, 8, True)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Evolution peak traced memory of 5 games of 8 players {peak / 1e6:.2f} MB, "
          f"process peak RSS {rss:.0f} MB", flush=True)
