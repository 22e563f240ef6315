"""A ``python = "module:Class"`` bot for the league tests: any class taking (name, seed)."""

from gameroom.games.q.players import StrategyPlayer


class CarefulBot(StrategyPlayer):
    """Q's ldasg strategy under its own name."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name, "ldasg")
