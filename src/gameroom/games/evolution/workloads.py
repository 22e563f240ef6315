"""What Evolution's benchmark measures beyond the generic figures (``python -m
gameroom.bench evolution``): complete games through the dealer between silly players on
trusted seats (direct calls, as the reference's in-process ``xmain`` runs) for 3, 5 and 8
players, on the reference's sorted deck — beside the Racket reference's figures
(``bench/references.toml``) — and on seeded shuffled decks, with the turns they take and the peak
traced memory of a game of 8.

Pure: these prepare and do the work; the benchmark times it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, trusted_seat
from gameroom.core.workload import Lineup, Workload
from gameroom.games.evolution.pieces import shuffled_deck, sorted_deck
from gameroom.games.evolution.players import SillyPlayer
from gameroom.games.evolution.referee import run_game

__all__ = ["LINEUPS", "WORKLOADS"]



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
             reference=None if shuffled else f"evolution-{players}-silly-sorted",
             memory=players == 8 and shuffled, memory_size=5)
    for players in (3, 5, 8) for shuffled in (False, True))


def _sorted_deck_game(_seed: int, seats: list[Seat], context: MatchContext) -> Any:
    """The reference's in-process game: every seat on the sorted deck."""
    return run_game(seats, sorted_deck(), context)


LINEUPS = (Lineup("Evolution, 8 silly, sorted deck", ("silly",) * 8, key="evolution-8-silly-sorted",
                  play=_sorted_deck_game),)
"""The work of the reference's in-process figure (issue 19's table)."""
