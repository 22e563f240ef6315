"""Hypothesis generators of Bazaar values (pebbles, bags, equations tables, cards,
players, game states, turn states, actors)."""

from __future__ import annotations

from hypothesis import strategies as st

from gameroom.games.bazaar.actors import ActorSpec, Cheat, Method
from gameroom.games.bazaar.pieces import Bag, Card, Equation, Pebble
from gameroom.games.bazaar.state import GameState, PlayerRecord, TurnState
from gameroom.games.bazaar.strategies import Policy

pebbles = st.sampled_from(list(Pebble))


def bags(min_size: int = 0, max_size: int = 12) -> st.SearchStrategy[Bag]:
    return st.lists(pebbles, min_size=min_size, max_size=max_size).map(Bag)


@st.composite
def equations(draw: st.DrawFn) -> Equation:
    """A valid table equation: sides of 1-4 pebbles sharing no colour."""
    colours = draw(st.lists(pebbles, min_size=2, max_size=5, unique=True))
    cut = draw(st.integers(1, len(colours) - 1))
    left = draw(st.lists(st.sampled_from(colours[:cut]), min_size=1, max_size=4))
    right = draw(st.lists(st.sampled_from(colours[cut:]), min_size=1, max_size=4))
    return Equation(Bag(left), Bag(right))


def _undirected(eq: Equation) -> frozenset[tuple[int, int]]:
    return frozenset({(eq.left.counts_key, eq.right.counts_key), (eq.right.counts_key, eq.left.counts_key)})


def tables(max_size: int = 10) -> st.SearchStrategy[tuple[Equation, ...]]:
    """A valid equations table."""
    return st.lists(equations(), max_size=max_size, unique_by=_undirected).map(tuple)


cards = st.builds(Card, bags(5, 5), st.booleans())


def players(max_wallet: int = 12) -> st.SearchStrategy[PlayerRecord]:
    return st.builds(PlayerRecord, bags(0, max_wallet), st.integers(0, 40),
                     st.lists(cards, max_size=3).map(tuple))


@st.composite
def game_states(draw: st.DrawFn, min_players: int = 0) -> GameState:
    visibles = tuple(draw(st.lists(cards, max_size=4)))
    hidden = tuple(draw(st.lists(cards, max_size=6))) if len(visibles) == 4 else ()
    return GameState(draw(bags(0, 30)), visibles, hidden,
                     tuple(draw(st.lists(players(), min_size=min_players, max_size=6))),
                     draw(tables(6)))


turn_states = st.builds(TurnState, bags(0, 30), st.lists(cards, max_size=4).map(tuple), players(),
                        st.lists(st.integers(0, 40), max_size=5).map(tuple))

names = st.text(alphabet="abcXYZ019", min_size=1, max_size=20)
policies = st.sampled_from(list(Policy))
actors = st.one_of(
    st.builds(ActorSpec, names, policies),
    st.builds(ActorSpec, names, policies, st.sampled_from(list(Method))),
    st.builds(ActorSpec, names, policies, st.sampled_from(list(Method)), st.integers(1, 7)),
    st.builds(lambda n, p, c: ActorSpec(n, p, cheat=c), names, policies, st.sampled_from(list(Cheat))),
)


@st.composite
def market(draw: st.DrawFn, max_equations: int = 3) -> tuple:
    """(table, visible cards, wallet, bank) over a palette of 2-3 colours, so that
    exchanges and purchases are likely and ties (equal or face/plain twin cards) occur."""
    palette = draw(st.lists(pebbles, min_size=2, max_size=3, unique=True))

    @st.composite
    def equation(draw2: st.DrawFn) -> Equation:
        cut = draw2(st.integers(1, len(palette) - 1))
        left = draw2(st.lists(st.sampled_from(palette[:cut]), min_size=1, max_size=3))
        right = draw2(st.lists(st.sampled_from(palette[cut:]), min_size=1, max_size=3))
        return Equation(Bag(left), Bag(right)) if draw2(st.booleans()) else Equation(Bag(right), Bag(left))

    table = tuple(draw(st.lists(equation(), max_size=max_equations, unique_by=_undirected)))
    base = draw(st.lists(st.builds(Card, st.lists(st.sampled_from(palette), min_size=5, max_size=5).map(Bag),
                                   st.booleans()), min_size=1, max_size=4))
    visibles = [draw(st.sampled_from([c, Card(c.pebbles, not c.face), Card(Bag(reversed(c.pebbles.items)), c.face)]))
                if draw(st.booleans()) else c for c in base]
    wallet = Bag(draw(st.lists(st.sampled_from(palette), min_size=2, max_size=8)))
    bank = Bag(draw(st.lists(st.sampled_from(palette), min_size=3, max_size=14)))
    return table, tuple(visibles), wallet, bank
