"""Bazaar's game states: the referee's full knowledge and the active player's view.

* :class:`PlayerRecord` - what the referee knows about one player: wallet, score, the cards
  it owns (bought, or listed in the initial state) and the name of the player bound to it.
* :class:`GameState` - bank, visible cards, hidden pile, player records in turn order (the
  first is active) and the equations table. Values are immutable; the rules
  (:mod:`gameroom.games.bazaar.rules`) return new states.
* :class:`TurnState` - what the active player sees (§3.1, §6.1): bank, visible cards, its
  own record and the *scores* of the others in turn order after it - never their wallets.

Also here: the validity conditions of a given state (§3.2) and the scratch set-up.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence

from gameroom.games.bazaar.pieces import (
    ALL_CARDS, CARDS_IN_GAME, COLOURS, EMPTY_BAG, MAX_EQUATIONS, MAX_PLAYERS, MAX_VISIBLE,
    PEBBLES_IN_GAME, Bag, Card, Equation,
)


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """One player as the referee knows it. ``name`` labels the player object bound to the
    record; it is never on the wire and does not take part in equality."""

    wallet: Bag = EMPTY_BAG
    score: int = 0
    cards: tuple[Card, ...] = ()
    name: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class GameState:
    """The referee's state. ``hidden[0]`` is the top of the pile (revealed next),
    ``hidden[-1]`` the bottom (burned next). ``players[0]`` is the active player."""

    bank: Bag
    visibles: tuple[Card, ...] = ()
    hidden: tuple[Card, ...] = ()
    players: tuple[PlayerRecord, ...] = ()
    equations: tuple[Equation, ...] = ()

    @property
    def active(self) -> PlayerRecord:
        """The active player's record (``IndexError`` when no players remain)."""
        return self.players[0]

    def names(self) -> tuple[str, ...]:
        """The names bound to the records, in turn order."""
        return tuple(p.name for p in self.players)


@dataclass(frozen=True, slots=True)
class TurnState:
    """What the active player is shown: ``visibles`` is the TurnState's ``cards`` on the
    wire; ``scores`` are the other players' scores in turn order after the active one."""

    bank: Bag
    visibles: tuple[Card, ...]
    active: PlayerRecord
    scores: tuple[int, ...] = ()

    @property
    def wallet(self) -> Bag:
        return self.active.wallet


def turn_state(state: GameState) -> TurnState:
    """The active player's view of ``state`` (there must be an active player)."""
    active, *others = state.players
    return TurnState(state.bank, state.visibles, active, tuple(p.score for p in others))


def bind_names(state: GameState, names: Sequence[str]) -> GameState:
    """``state`` with the i-th record labelled by the i-th name (the i-th player object)."""
    if len(names) != len(state.players):
        raise ValueError(f"{len(names)} names for {len(state.players)} player records")
    players = tuple(PlayerRecord(p.wallet, p.score, p.cards, n) for p, n in zip(state.players, names))
    return GameState(state.bank, state.visibles, state.hidden, players, state.equations)


# --- validity of a given state (§3.2) ------------------------------------------------------


def game_problems(state: GameState) -> list[str]:
    """The §3.2 validity conditions a given state breaks (empty when valid)."""
    problems = []
    if len(state.visibles) > MAX_VISIBLE:
        problems.append(f"{len(state.visibles)} visible cards; at most {MAX_VISIBLE} allowed")
    if len(state.hidden) > CARDS_IN_GAME:
        problems.append(f"{len(state.hidden)} hidden cards; at most {CARDS_IN_GAME} allowed")
    if len(state.visibles) < MAX_VISIBLE and state.hidden:
        problems.append("fewer than 4 visible cards but the hidden pile is not empty")
    if len(state.visibles) + len(state.hidden) > CARDS_IN_GAME:
        problems.append(f"more than {CARDS_IN_GAME} cards in the game")
    pebbles = len(state.bank) + sum(len(p.wallet) for p in state.players)
    if pebbles > PEBBLES_IN_GAME:
        problems.append(f"{pebbles} pebbles in bank and wallets; at most {PEBBLES_IN_GAME} allowed")
    if len(state.players) > MAX_PLAYERS:
        problems.append(f"{len(state.players)} players; at most {MAX_PLAYERS} allowed")
    if len(state.equations) > MAX_EQUATIONS:
        problems.append(f"{len(state.equations)} equations; at most {MAX_EQUATIONS} allowed")
    return problems


# --- scratch set-up (§3.2) -----------------------------------------------------------------


def random_equations(rng: random.Random, count: int = MAX_EQUATIONS) -> tuple[Equation, ...]:
    """``count`` random equations as the reference draws them: both sides of one random
    size in 1..3, redrawn until they share no colour; duplicates (and flips) rejected."""
    chosen: list[Equation] = []
    seen: set[Equation] = set()
    while len(chosen) < count:
        size = rng.randint(1, 3)
        while True:
            left = Bag(rng.choice(COLOURS) for _ in range(size))
            right = Bag(rng.choice(COLOURS) for _ in range(size))
            if not left.colours() & right.colours():
                break
        eq = Equation(left, right)
        if eq in seen or eq.flipped() in seen:
            continue
        seen.add(eq)
        chosen.append(eq)
    return tuple(chosen)


def scratch_bank(rng: random.Random | None = None) -> Bag:
    """The initial bank: 20 pebbles of each colour, or - when ``rng`` is given - the
    reference's quirk of 100 pebbles of uniformly random colours (§11 item 4)."""
    if rng is None:
        return Bag(p for p in COLOURS for _ in range(PEBBLES_IN_GAME // len(COLOURS)))
    return Bag(rng.choice(COLOURS) for _ in range(PEBBLES_IN_GAME))


def scratch_state(rng: random.Random, names: Sequence[str], *, random_bank: bool = False) -> GameState:
    """A game from scratch: 10 random equations, ALL-CARDS (first 4 visible), the bank of
    :func:`scratch_bank`, and one empty-handed record per name."""
    equations = random_equations(rng)
    bank = scratch_bank(rng if random_bank else None)
    players = tuple(PlayerRecord(name=n) for n in names)
    return GameState(bank, ALL_CARDS[:MAX_VISIBLE], ALL_CARDS[MAX_VISIBLE:], players, equations)


__all__ = [
    "PlayerRecord", "GameState", "TurnState", "turn_state", "bind_names", "game_problems",
    "random_equations", "scratch_bank", "scratch_state",
]
