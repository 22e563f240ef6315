"""What Evolution's benchmark measures beyond the generic figures (``python -m
gameroom.bench evolution``): complete games through the dealer between silly players on
trusted seats (direct calls, as the reference's in-process ``xmain`` runs) for 3, 5 and 8
players, on the reference's sorted deck — beside the Racket reference's 11.6, 19.9 and
12.3 games/s — and on seeded shuffled decks, with the turns they take and the peak
traced memory of a game of 8.

Pure: these prepare and do the work; the benchmark times it.
"""

from __future__ import annotations

from typing import Callable, Mapping

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import trusted_seat
from gameroom.core.workload import Workload
from gameroom.games.evolution.pieces import shuffled_deck, sorted_deck
from gameroom.games.evolution.players import SillyPlayer
from gameroom.games.evolution.referee import run_game

__all__ = ["REFERENCE_GAMES_PER_SECOND", "WORKLOADS"]

REFERENCE_GAMES_PER_SECOND = {3: 11.6, 5: 19.9, 8: 12.3}


def _games(players: int, shuffled: bool) -> Callable[[int], Callable[[], Mapping[str, float]]]:
    def prepare(games: int) -> Callable[[], Mapping[str, float]]:
        def work() -> Mapping[str, float]:
            turns = 0
            for g in range(games):
                seats = [trusted_seat(str(i), SillyPlayer()) for i in range(players)]
                deck = shuffled_deck(g) if shuffled else sorted_deck()
                turns += run_game(seats, deck, context=MatchContext(limits=Limits())).turns
            return {"turns": turns}

        return work

    return prepare


WORKLOADS = tuple(
    Workload(f"Evolution silly x{players}, {'shuffled decks' if shuffled else 'sorted deck'}",
             _games(players, shuffled), size=lambda games: games * 5,
             reference=None if shuffled else REFERENCE_GAMES_PER_SECOND[players],
             memory=players == 8 and shuffled, memory_size=5)
    for players in (3, 5, 8) for shuffled in (False, True))
