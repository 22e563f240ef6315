"""Evolution rules (evolution.md 2, 3): the deck, attackability (3.7 table), feeding with
foraging and cooperation (3.6 worked example), the attack sequence (A.2), pre-feeding,
starvation and extinction cards, scoring and ranking (3.9)."""

from __future__ import annotations

from gameroom.games.evolution.pieces import CARDS, Species, sorted_deck
from gameroom.games.evolution.rules import PlayerState, Table, attackable, ranking, score


def sp(pop=1, body=0, food=0, traits=(), fat=0) -> Species:
    return Species(food, body, pop, list(traits), fat)


PLAIN = sp(pop=4, body=3, traits=["carnivore"])


def test_deck_has_122_distinct_cards_in_card_order() -> None:
    assert len(CARDS) == len(set(CARDS)) == 122
    deck = sorted_deck()
    assert deck[:2] == [(-3, "ambush"), (-2, "ambush")]
    assert deck[14:16] == [(-8, "carnivore"), (-7, "carnivore")]
    assert deck[-1] == (3, "warning-call")
    assert sum(1 for c in deck if c[1] == "carnivore") == 17


def test_attackability_examples_of_the_spec() -> None:
    assert attackable(sp(pop=4, body=1, food=3), PLAIN, None, None)
    assert not attackable(sp(pop=1, food=1, traits=["burrowing"]), PLAIN, None, None)
    assert attackable(sp(pop=4, food=3, traits=["burrowing"]), PLAIN, None, None)
    assert not attackable(sp(traits=["climbing"]), PLAIN, None, None)
    assert attackable(sp(traits=["climbing"]), sp(pop=4, body=3, traits=["carnivore", "climbing"]), None, None)
    assert not attackable(sp(body=2, traits=["hard-shell"]), PLAIN, None, None)
    assert attackable(sp(body=2, traits=["hard-shell"]), sp(body=7, traits=["carnivore"]), None, None)
    assert attackable(sp(body=2, traits=["hard-shell"]),
                      sp(pop=4, body=3, traits=["carnivore", "pack-hunting"]), None, None)
    assert not attackable(sp(body=2, traits=["hard-shell", "pack-hunting"]), PLAIN, None, None)
    warning = sp(traits=["warning-call"])
    assert not attackable(sp(), PLAIN, warning, None)
    assert not attackable(sp(), PLAIN, None, warning)
    assert attackable(sp(), sp(pop=4, body=3, traits=["carnivore", "ambush"]), None, warning)
    # a defender's own warning call does not protect it
    assert attackable(warning, PLAIN, None, None)


def test_hard_shell_boundary_and_herding_with_pack_hunting() -> None:
    shell = sp(body=2, traits=["hard-shell"])
    assert not attackable(shell, sp(body=6, traits=["carnivore"]), None, None)   # 6 <= 2 + 4
    assert attackable(shell, sp(body=7, traits=["carnivore"]), None, None)
    # hard-shell on the attacker: +4 and no pack-hunting bonus
    assert attackable(shell, sp(pop=1, body=3, traits=["carnivore", "hard-shell"]), None, None)
    herd = sp(pop=3, body=0, traits=["herding"])
    assert not attackable(herd, sp(pop=3, body=5, traits=["carnivore"]), None, None)
    assert attackable(herd, sp(pop=3, body=1, traits=["carnivore", "pack-hunting"]), None, None)
    assert not attackable(sp(pop=3, body=1, traits=["herding", "pack-hunting"]),
                          sp(pop=3, body=1, traits=["carnivore", "pack-hunting"]), None, None)


def test_foraging_and_cooperation_worked_example() -> None:
    a = sp(pop=5, traits=["foraging", "cooperation"])
    b = sp(pop=5, traits=["foraging", "cooperation"])
    c = sp(pop=3, traits=["long-neck"])
    player = PlayerState(1, [a, b, c])
    table = Table([player], hole=12)
    table.feed_species(player.boards, 0)
    assert (a.food, b.food, c.food, table.hole) == (2, 4, 3, 3)


def test_horned_victim_kills_the_attacker_without_food() -> None:
    p1 = PlayerState(1, [sp(pop=1, body=3, traits=["carnivore"]), sp(pop=1, body=3, food=1)])
    p2 = PlayerState(2, [sp(traits=["horns"])])
    p3 = PlayerState(3, [])
    table = Table([p1, p2, p3], hole=1, deck=[(-3, "ambush"), (-2, "ambush")])
    others = table.others(p1)
    assert table.possibilities(p1, others) == [(0, 0, 0)]
    table.apply_choice(p1, others, (0, 0, 0))
    assert p1.boards == [sp(pop=1, body=3, food=1)] and p1.cards == []
    assert p2.boards == [] and p2.cards == [(-3, "ambush"), (-2, "ambush")]
    assert table.hole == 1 and table.deck == []


def test_scavengers_eat_after_every_surviving_attack_in_turn_order() -> None:
    hunter = PlayerState(1, [sp(pop=2, body=4, traits=["carnivore", "scavenger"])])
    victim = PlayerState(2, [sp(pop=3), sp(pop=2, traits=["scavenger"])])
    third = PlayerState(3, [sp(pop=1, traits=["scavenger"])])
    table = Table([victim, third, hunter], hole=10)
    table.attack(hunter, 0, victim, 0)
    # the attacker eats, then scavenges (its own scavenger first), then the others after it
    assert hunter.boards[0].food == 2
    assert victim.boards[0].population == 2 and victim.boards[1].food == 1
    assert third.boards[0].food == 1
    assert table.hole == 6


def test_possibility_order_and_limit() -> None:
    me = PlayerState(1, [sp(pop=2, traits=["carnivore"]), sp(pop=2), sp(pop=1, food=1, body=3, traits=["fat-tissue"], fat=1)])
    other = PlayerState(2, [sp(), sp()])
    table = Table([me, other], hole=5)
    assert table.possibilities(me, [other]) == [1, (2, 2), (0, 0, 1), (0, 0, 0)]
    assert table.possibilities(me, [other], 2) == [1, (2, 2)]
    assert table.matches(me, [other], (2, 1)) and not table.matches(me, [other], (2, 3))
    assert not table.matches(me, [other], (0, 1, 0))   # own board: k = len(others)
    assert not table.matches(me, [other], 0)           # a carnivore is no vegetarian
    assert not table.matches(me, [other], False)


def test_pre_feeding_order_fertile_long_neck_fat() -> None:
    s = sp(pop=2, body=3, traits=["fertile", "long-neck", "fat-tissue"], fat=3)
    player = PlayerState(1, [s])
    table = Table([player], hole=1)
    table.pre_feeding()
    assert (s.population, s.food, s.fat, table.hole) == (3, 3, 1, 0)


def test_starvation_hands_out_extinction_cards_in_front_of_the_hand() -> None:
    player = PlayerState(1, [sp(pop=3, food=0), sp(pop=3, food=2)], cards=[(0, "horns")])
    table = Table([player], deck=[(1, "ambush"), (2, "ambush"), (3, "ambush")])
    table.starve()
    assert player.boards == [sp(pop=2, food=2)]
    assert player.cards == [(1, "ambush"), (2, "ambush"), (0, "horns")]
    table.fill_bags()
    assert player.bag == 2 and player.boards[0].food == 0


def test_score_and_ranking_reverse_final_order_then_stable() -> None:
    a = PlayerState("a", [sp(traits=["horns"])], bag=5)     # 7
    b = PlayerState("b", [sp()], bag=6)                      # 7
    c = PlayerState("c", [], bag=5)                          # 5
    assert score(a) == 7
    assert ranking([a, b, c]) == [(1, "b", 7), (2, "a", 7), (3, "c", 5)]
