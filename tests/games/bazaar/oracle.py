"""A literal, slow transcription of the reference strategy (spec §9.2-§9.4): the full
depth-first exchange search with a purchase search at every node, the collector exactly
as described, and the tie-breakers on real lists. Property tests compare the optimised
strategy with it."""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any, Callable, Sequence

from gameroom.games.bazaar.pieces import Bag, Card, Equation, bag_less, points
from gameroom.games.bazaar.strategies import (
    Plan, Policy, Purchase, StrategyError, cards_less, racket_sort, trades_less,
)


def useful(equations: Sequence[Equation], wallet: Bag, bank: Bag) -> list[Equation]:
    candidates = list(equations) + [e.flipped() for e in equations]
    return [c for c in candidates if wallet.covers(c.left) and bank.covers(c.right)][::-1]


class Collector:
    def __init__(self, first: Any, score: Callable[[Any], int]) -> None:
        self.score = score
        self.best = score(first)
        self.items = [first]

    def add(self, item: Any) -> None:
        s = self.score(item)
        if s > self.best:
            self.best, self.items = s, [item]
        elif s == self.best and not any(x == item for x in self.items):
            self.items.insert(0, item)


def _cmp(less: Callable[[Any, Any], bool]) -> Callable[[Any, Any], int]:
    return lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0)


def purchase_tie_break(items: list[Any], get: Callable[[Any], Purchase], strict: bool) -> list[Any]:
    top = max(get(x).points for x in items)
    items = [x for x in items if get(x).points == top]
    most = max(len(get(x).wallet) for x in items)
    items = [x for x in items if len(get(x).wallet) == most]
    items = sorted(items, key=cmp_to_key(_cmp(lambda a, b: bag_less(get(a).wallet, get(b).wallet))))
    run = 1
    while run < len(items) and get(items[run]).wallet.same_list(get(items[0]).wallet):
        run += 1
    if strict and run < len(items) and not bag_less(get(items[0]).wallet, get(items[run]).wallet):
        raise StrategyError("c")
    items = items[:run]
    items = racket_sort(items, lambda a, b: cards_less(get(a).cards, get(b).cards))
    run = 1
    while run < len(items) and get(items[run]).cards == get(items[0]).cards:
        run += 1
    if strict and run < len(items) and not cards_less(get(items[0]).cards, get(items[run]).cards):
        raise StrategyError("d")
    items = items[:run]
    if strict and len(items) != 1:
        raise StrategyError("not unique")
    return items


def buy_cards(visibles: Sequence[Card], wallet: Bag, policy: Policy) -> Purchase:
    collector = Collector(Purchase((), 0, wallet), lambda p: p.score(policy))

    def explore(vis: list[Card], w: Bag, path: list[Card], pts: int) -> None:
        affordable = [c for c in vis if w.covers(c.pebbles)]
        if not affordable:
            collector.add(Purchase(tuple(path), pts, w))
            return
        for c in affordable:
            w2 = w - c.pebbles
            rest = list(vis)
            rest.remove(c)  # the first card equal to c
            explore(rest, w2, path + [c], pts + points(c.face, len(w2)))

    explore(list(visibles), wallet, [], 0)
    if len(collector.items) == 1:
        return collector.items[0]  # type: ignore[no-any-return]
    return purchase_tie_break(collector.items, lambda p: p, strict=True)[0]  # type: ignore[no-any-return]


def trade_then_purchase(equations: Sequence[Equation], visibles: Sequence[Card], wallet: Bag,
                        bank: Bag, policy: Policy) -> Plan:
    collector = Collector(Plan((), buy_cards(visibles, wallet, policy)),
                          lambda e: e.purchase.score(policy))

    def dfs(fuel: int, w: Bag, b: Bag, path: list[Equation]) -> None:
        rules = useful(equations, w, b)
        if not rules or fuel == 0:
            return
        for r in rules:
            w2, b2 = (w - r.left) + r.right, (b - r.right) + r.left
            collector.add(Plan(tuple(path + [r]), buy_cards(visibles, w2, policy)))
            dfs(fuel - 1, w2, b2, path + [r])

    dfs(4, wallet, bank, [])
    items = collector.items
    if len(items) == 1:
        return items[0]  # type: ignore[no-any-return]
    fewest = min(len(e.trades) for e in items)
    items = [e for e in items if len(e.trades) == fewest]
    items = purchase_tie_break(items, lambda e: e.purchase, strict=False)
    items = sorted(items, key=cmp_to_key(_cmp(lambda a, b: trades_less(a.trades, b.trades))))
    return items[0]  # type: ignore[no-any-return]
