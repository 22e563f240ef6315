"""The legal answers a person is offered are legal: for every game people can play, a seat
that picks an offered answer at random (seeded) at every decision plays whole games
against built-in players in process, through the referee like any player, and is never
ejected; every decision offers at least one answer. The seat's time limit is generous: the
point is the legality of the offers, and a loaded machine once took more than Evolution's
1 s to pick one (issue 17, finding 9)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from gameroom.core.context import MatchContext
from gameroom.core.match import guarded_seat
from gameroom.core.protocol import VOID
from gameroom.games import registry

PLAYABLE = [name for name, game in registry.games().items() if game.playable_by_people]
GENEROUS = 120.0   # seconds per call: never reached by a seat that answers


class RandomPerson:
    """Every protocol method; a decision picks one of the offered answers at random and
    decodes it as the web room's person does."""

    def __init__(self, game: Any, seed: int) -> None:
        self._game, self._rng = game, random.Random(seed)
        self._moves = game.person_moves()
        self._specs = {m.name: m for m in game.protocol.methods}
        self.decisions = 0

    def __getattr__(self, method: str) -> Any:
        spec = self.__dict__.get("_specs", {}).get(method)
        if spec is None:
            raise AttributeError(method)

        def call(*args: Any) -> Any:
            offered = self._moves(spec.name, args)
            if offered is None or spec.result is VOID:
                return None
            assert offered, f"{spec.wire} offers nothing"
            self.decisions += 1
            return spec.result.decode(self._rng.choice(offered)[1])

        return call


def test_every_game_can_be_played_by_people() -> None:
    assert PLAYABLE == registry.names()


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", PLAYABLE)
def test_a_person_choosing_at_random_among_the_offers_is_never_ejected(name: str, seed: int) -> None:
    game = registry.game(name)
    count = game.min_players
    names = [f"P{i + 1}" for i in range(count)]
    seats = game.seats([next(iter(game.strategies))] * count, seed, names)
    person = RandomPerson(game, seed)
    seats[0] = guarded_seat("P1", person)
    result = game.play(seed, seats, MatchContext(limits=replace(game.limits, call=GENEROUS)))
    assert "P1" not in {e.name for e in result.ejections}, result.ejections
    assert person.decisions > 1
