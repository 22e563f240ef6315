"""Goofspiel for agents (``core.learning``): one sub-action per bid, ``bid K`` for each
card; the observation is the prize up, the round, the seat's own hand, the prizes still
face down (as a set: their order is nobody's to know) and every seat's prize points, all
scaled to 0..1. Everything comes from the seat's own calls (``bid``'s prize and hand,
``reveal``'s bids)."""

from __future__ import annotations

from typing import Any, Sequence

from gameroom.core.learning import Learning, LearningTable, Option, integer, rank_rewards
from gameroom.core.match import Seat
from gameroom.core.record import MatchResult
from goofspiel_game.game import CARDS, STRATEGIES, deal, play, round_winner, text


class _Bid:
    """One bid: the observation, the cards held (as indices), the chosen card."""

    def __init__(self, observation: list[float], hand: Sequence[int]) -> None:
        self._observation, self._hand, self._card = observation, list(hand), 0

    def observation(self) -> list[float]:
        return self._observation

    def legal(self) -> list[int]:
        return [card - 1 for card in self._hand]

    def choose(self, action: int) -> bool:
        self._card = action + 1
        return True

    def answer(self) -> int:
        return self._card

    def refuse(self, action: int) -> int:
        return action + 1   # a card it does not hold: the referee refuses it


class _Coder:
    def __init__(self, cards: int, players: int) -> None:
        self.cards, self.players = cards, players
        self.points = [0] * players
        self.left = set(range(1, cards + 1))
        self.prize = 0

    def turn(self, method: str, args: tuple[Any, ...]) -> _Bid | None:
        if method == "bid":
            prize, hand = args
            if len(hand) == self.cards:   # a new game's first bid
                self.points, self.left = [0] * self.players, set(range(1, self.cards + 1))
            self.prize = prize
            total = self.cards * (self.cards + 1) / 2
            observation = [prize / self.cards, (self.cards - len(hand)) / self.cards,
                           *(float(card in hand) for card in range(1, self.cards + 1)),
                           *(float(card in self.left and card != prize) for card in range(1, self.cards + 1)),
                           *(p / total for p in self.points)]
            return _Bid(observation, hand)
        if method == "reveal":
            (bids,) = args
            taker = round_winner(bids)
            if taker is not None and taker < self.players:
                self.points[taker] += self.prize
            self.left.discard(self.prize)
        return None


def make(players: int, cards: int) -> LearningTable:
    size = 2 + 2 * cards + players

    def play_table(seed: int, seats: Sequence[Seat], observers: Sequence[Any]) -> MatchResult:
        from gameroom.core.context import MatchContext

        return play(seed, seats, MatchContext(observers=observers), cards=cards)

    return LearningTable(
        game="goofspiel", options={"players": players, "cards": cards}, players=players,
        actions=[f"bid {card}" for card in range(1, cards + 1)], shape=(size,), low=[0.0] * size, high=[1.0] * size,
        play=play_table, coder=lambda: _Coder(cards, players),
        rewards=lambda result, names: rank_rewards(len(names), result.ranking_seats, result.misbehaved_seats),
        text=text, deal=lambda seed, names: deal(seed, names, cards), strategies=STRATEGIES)


LEARNING = Learning(options={"players": Option(2, integer(2, 4, "players"), "players at the table"),
                             "cards": Option(CARDS, integer(3, CARDS, "cards"), "cards in every hand")},
                    make=make, doc="Goofspiel: bid a card of your hand for each prize, all at once.")
