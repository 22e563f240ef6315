"""The reference player's strategy (spec §9.2-§9.6), reproduced choice for choice.

* :func:`useful_equations` / :func:`wants_pebble` - pebble or exchanges (§9.2);
* :func:`buy_cards` - the best maximal purchase from the visible cards (§9.4);
* :func:`trade_then_purchase` - the best sequence of at most 4 exchanges followed by a
  purchase (§9.3), with the reference's collector and tie-breakers;
* the orders of §9.5 (``bag<`` etc. live in :mod:`pieces`; ``cards<``, ``trades<`` here).

Performance. The reference enumerates every feasible exchange sequence of length 1..4 and
runs the purchase search after each one. The outcome depends only on three things: the
best score over all those nodes, the shortest depth reaching it, and the nodes of that
depth reaching it (in search order, for the tie-breakers). So the search here works level
by level on packed pebble counts (a wallet determines the bank: exchanges conserve
wallet + bank), memoises the useful equations and the purchase decision per distinct
wallet, and only then walks the few paths of the winning depth that reach the best score,
rebuilding their wallets as lists for the list-sensitive tie-breaking step (§9.4 c). The
result is the reference's, at a small fraction of its work.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable, Iterable, Sequence, TypeVar

from gameroom.games.bazaar.pieces import (
    GUARD, Bag, Card, Equation, bag_key, bag_less, card_less, covers, eq_key, eq_less, letters_of_key, points,
)

SEARCH_DEPTH = 4
"""``SearchDepth``: the longest exchange sequence the strategy considers."""

T = TypeVar("T")


class Policy(Enum):
    """How the strategy scores a purchase (§9.6)."""

    PURCHASE_POINTS = "purchase-points"
    """Total points of the cards bought."""
    PURCHASE_SIZE = "purchase-size"
    """Number of cards bought."""


class StrategyError(RuntimeError):
    """The reference strategy's internal error: its purchase tie-breaker found no unique
    choice (only possible with the inconsistent ``card<`` of §11 item 5). The player's
    call fails, so the referee kicks it."""


@dataclass(frozen=True, slots=True)
class Purchase:
    """Cards to buy in order, the points they earn and the wallet left afterwards.
    Equality (§9.3): same cards, multiset-equal final wallets."""

    cards: tuple[Card, ...]
    points: int
    wallet: Bag

    def score(self, policy: Policy) -> int:
        """The purchase's value under ``policy``."""
        return self.points if policy is Policy.PURCHASE_POINTS else len(self.cards)


@dataclass(frozen=True, slots=True)
class Plan:
    """An *exchange* of §9.3: trades (directed equations) then a purchase."""

    trades: tuple[Equation, ...]
    purchase: Purchase


# --- orders on sequences (§9.5) ------------------------------------------------------------


def seq_less(less: Callable[[T, T], bool], xs: Sequence[T], ys: Sequence[T]) -> bool:
    """``seq<``: at the first position where ``less`` holds -> true; equal elements ->
    continue; otherwise (or when a list runs out) -> false."""
    for x, y in zip(xs, ys):
        if less(x, y):
            return True
        if x != y:
            return False
    return False


def cards_less(xs: Sequence[Card], ys: Sequence[Card]) -> bool:
    """``cards<``: fewer cards, or ``seq<`` with ``card<``."""
    return len(xs) < len(ys) or seq_less(card_less, xs, ys)


def trades_less(xs: Sequence[Equation], ys: Sequence[Equation]) -> bool:
    """``trades<``: fewer trades, or ``seq<`` with ``eq<``."""
    return len(xs) < len(ys) or seq_less(eq_less, xs, ys)


def racket_sort(items: Sequence[T], less: Callable[[T, T], bool]) -> list[T]:
    """Racket's ``sort``, step for step, so that even an inconsistent ``less`` (the
    ``card<`` of §11 item 5) orders a list as the reference does: input already in order
    is returned as is; 2 and 3 elements are special cases; longer lists have their halves
    sorted (insertion sort below 16 elements, else recursively) and merged, an element of
    the second half going first only when it is strictly less."""
    xs = list(items)
    n = len(xs)
    if n < 2 or all(not less(xs[i + 1], xs[i]) for i in range(n - 1)):
        return xs
    if n == 2:
        return [xs[1], xs[0]]
    if n == 3:
        a, b, c = xs
        if less(b, a):
            if less(c, b):
                return [c, b, a]
            return [b, c, a] if less(c, a) else [b, a, c]
        return [c, a, b] if less(c, a) else [a, c, b]
    half = n // 2
    return _merge(_copying_sort(xs[:half], less), _copying_sort(xs[half:], less), less)


def _copying_sort(xs: list[T], less: Callable[[T, T], bool]) -> list[T]:
    n = len(xs)
    if n == 1:
        return xs[:]
    if n == 2:
        return [xs[1], xs[0]] if less(xs[1], xs[0]) else xs[:]
    if n < 16:
        out: list[T] = []
        for x in xs:
            j = len(out)
            while j > 0 and less(x, out[j - 1]):
                j -= 1
            out.insert(j, x)
        return out
    half = n // 2
    return _merge(_copying_sort(xs[:half], less), _copying_sort(xs[half:], less), less)


def _merge(first: list[T], second: list[T], less: Callable[[T, T], bool]) -> list[T]:
    out: list[T] = []
    i = j = 0
    while i < len(first) and j < len(second):
        if less(second[j], first[i]):
            out.append(second[j])
            j += 1
        else:
            out.append(first[i])
            i += 1
    out.extend(first[i:])
    out.extend(second[j:])
    return out


# --- pebble or exchanges (§9.2) ------------------------------------------------------------


def _candidates(equations: Iterable[Equation]) -> list[Equation]:
    eqs = list(equations)
    return eqs + [e.flipped() for e in eqs]


def useful_equations(equations: Iterable[Equation], wallet: Bag, bank: Bag) -> list[Equation]:
    """The table equations and flips (table order, then flipped table order) whose left
    side the wallet covers and whose right side the bank covers - in *reverse* order."""
    w, b = wallet.counts_key, bank.counts_key
    kept = [c for c in _candidates(equations)
            if covers(w, c.left.counts_key) and covers(b, c.right.counts_key)]
    kept.reverse()
    return kept


def wants_pebble(equations: Iterable[Equation], wallet: Bag, bank: Bag) -> bool:
    """Does the reference player ask for a pebble? Iff the bank is non-empty and no
    equation is useful."""
    return bool(bank) and not useful_equations(equations, wallet, bank)


# --- purchases (§9.4) ----------------------------------------------------------------------

# A purchase decision on packed counts: (score, card indices into the visible row,
# points, final wallet counts key).
_Decision = tuple[int, tuple[int, ...], int, int]


class _Shop:
    """``buy_cards`` for one row of visible cards, memoised per wallet: :meth:`score` is
    the best score alone (cheap), :meth:`decide` the full decision with tie-breaking."""

    def __init__(self, visibles: Sequence[Card], policy: Policy) -> None:
        self.visibles = tuple(visibles)
        self.keys = [c.pebbles.counts_key for c in self.visibles]
        self.faces = [c.face for c in self.visibles]
        # content id: the index of the first card equal to this one
        self.cid = [next(j for j in range(i + 1) if self.visibles[j] == self.visibles[i])
                    for i in range(len(self.visibles))]
        self.by_points = policy is Policy.PURCHASE_POINTS
        self.scores: dict[int, int] = {}
        self.memo: dict[int, _Decision] = {}
        # card< is a consistent order on this row unless a face card is bag<-smaller than a
        # plain one (§11 item 5); only then can the strict tie-breaker fail, and since the
        # reference runs it at every node of the exchange search, so must we
        self.consistent = not any(f.face and not p.face and bag_less(f.pebbles, p.pebbles)
                                  for f in self.visibles for p in self.visibles)

    def _affordable(self, vis: tuple[int, ...], w: int) -> list[int]:
        """The cards of ``vis`` that ``w`` covers, first of each content only (a later
        equal card leads to purchases equal to earlier ones, which the collector drops)."""
        keys, cid = self.keys, self.cid
        g = w | GUARD
        out = []
        seen = 0
        for i in vis:
            if (g - keys[i]) & GUARD == GUARD and not seen >> cid[i] & 1:
                seen |= 1 << cid[i]
                out.append(i)
        return out

    def _without(self, vis: tuple[int, ...], i: int) -> tuple[int, ...]:
        """``vis`` with the first card equal to card ``i`` removed."""
        cid = self.cid
        c = cid[i]
        for pos, j in enumerate(vis):
            if cid[j] == c:
                return vis[:pos] + vis[pos + 1:]
        return vis

    def score(self, wallet: int, size: int) -> int:
        """The best purchase score for ``wallet`` (of ``size`` pebbles)."""
        found = self.scores.get(wallet)
        if found is None:
            if self.consistent:
                found = self._best_score(tuple(range(len(self.keys))), wallet, size, 0, 0)
            else:
                found = self.decide(wallet, size)[0]  # may raise StrategyError, as the reference
            self.scores[wallet] = found
        return found

    def _best_score(self, vis: tuple[int, ...], w: int, n: int, pts: int, count: int) -> int:
        affordable = self._affordable(vis, w)
        if not affordable:
            return pts if self.by_points else count
        keys, faces = self.keys, self.faces
        return max(self._best_score(self._without(vis, i), w - keys[i], n - 5,
                                    pts + points(faces[i], n - 5), count + 1)
                   for i in affordable)

    def decide(self, wallet: int, size: int) -> _Decision:
        found = self.memo.get(wallet)
        if found is None:
            found = self.memo[wallet] = self._search(wallet, size)
        return found

    def _search(self, wallet: int, size: int) -> _Decision:
        keys, faces, cid = self.keys, self.faces, self.cid
        by_points = self.by_points
        # the collector: initial candidate (no cards), then maximal sequences in order
        best = 0
        collection: list[tuple[tuple[int, ...], int, int]] = [((), 0, wallet)]
        seen: set[tuple[tuple[int, ...], int]] = {((), wallet)}

        def explore(vis: tuple[int, ...], w: int, n: int, path: tuple[int, ...], pts: int) -> None:
            nonlocal best, collection, seen
            affordable = self._affordable(vis, w)
            if not affordable:
                score = pts if by_points else len(path)
                if score > best:
                    best = score
                    collection = [(path, pts, w)]
                    seen = {(tuple(cid[i] for i in path), w)}
                elif score == best:
                    key = (tuple(cid[i] for i in path), w)
                    if key not in seen:
                        seen.add(key)
                        collection.insert(0, (path, pts, w))
                return
            for i in affordable:
                n2 = n - 5
                explore(self._without(vis, i), w - keys[i], n2, path + (i,), pts + points(faces[i], n2))

        explore(tuple(range(len(keys))), wallet, size, (), 0)
        if len(collection) == 1:
            path, pts, w = collection[0]
        else:
            path, pts, w = self._tie_break(collection, size)
        return (pts if by_points else len(path)), path, pts, w

    def _tie_break(self, cands: list[tuple[tuple[int, ...], int, int]], size: int
                   ) -> tuple[tuple[int, ...], int, int]:
        # a. most points
        top = max(c[1] for c in cands)
        cands = [c for c in cands if c[1] == top]
        # b. largest final wallet (all come from one wallet: fewest cards)
        most = max(size - 5 * len(c[0]) for c in cands)
        cands = [c for c in cands if size - 5 * len(c[0]) == most]
        # c. bag< on final wallets; final lists derive from one list by removal, so list
        #    identity is multiset equality here
        cands.sort(key=lambda c: letters_of_key(c[2]))
        if any(c[2] != cands[0][2] for c in cands):
            nxt = next(c for c in cands if c[2] != cands[0][2])
            if not letters_of_key(cands[0][2]) < letters_of_key(nxt[2]):
                raise StrategyError("purchase tie-breaker: final wallets not strictly ordered")
        cands = [c for c in cands if c[2] == cands[0][2]]
        # d. cards< on card sequences
        visibles, cid = self.visibles, self.cid

        def less(a: tuple[tuple[int, ...], int, int], b: tuple[tuple[int, ...], int, int]) -> bool:
            return cards_less([visibles[i] for i in a[0]], [visibles[i] for i in b[0]])

        cands = racket_sort(cands, less)
        first = tuple(cid[i] for i in cands[0][0])
        k = 1
        while k < len(cands) and tuple(cid[i] for i in cands[k][0]) == first:
            k += 1
        if k < len(cands) and not less(cands[0], cands[k]):
            raise StrategyError("purchase tie-breaker: card sequences not strictly ordered")
        if k != 1:
            raise StrategyError("purchase tie-breaker: no unique purchase")
        return cands[0]

    def purchase(self, decision: _Decision, wallet: Bag) -> Purchase:
        """The Purchase of a decision made for ``wallet`` (its final wallet as a list)."""
        _, path, pts, _ = decision
        cards = tuple(self.visibles[i] for i in path)
        final = wallet
        for card in cards:
            final = final - card.pebbles
        return Purchase(cards, pts, final)


def buy_cards(visibles: Sequence[Card], wallet: Bag, policy: Policy) -> Purchase:
    """The reference's purchase (§9.4): the best *maximal* sequence of affordable visible
    cards under ``policy``, ties broken by points, final wallet size, ``bag<`` of the final
    wallet, then ``cards<``."""
    shop = _Shop(visibles, policy)
    return shop.purchase(shop.decide(wallet.counts_key, len(wallet)), wallet)


# --- exchanges then purchase (§9.3) --------------------------------------------------------


def _purchase_tie_break(plans: list[Plan]) -> list[Plan]:
    """Steps a-d of §9.4 in "continue" mode, on the plans' purchases (order kept)."""
    top = max(p.purchase.points for p in plans)
    plans = [p for p in plans if p.purchase.points == top]
    most = max(len(p.purchase.wallet) for p in plans)
    plans = [p for p in plans if len(p.purchase.wallet) == most]
    if len(plans) > 1:
        plans = sorted(plans, key=lambda p: bag_key(p.purchase.wallet))
        first = plans[0].purchase.wallet
        k = 1
        while k < len(plans) and plans[k].purchase.wallet.same_list(first):
            k += 1
        plans = plans[:k]
    if len(plans) > 1:
        plans = racket_sort(plans, lambda p, q: cards_less(p.purchase.cards, q.purchase.cards))
        first_cards = plans[0].purchase.cards
        k = 1
        while k < len(plans) and plans[k].purchase.cards == first_cards:
            k += 1
        plans = plans[:k]
    return plans


class _Search:
    """One run of ``trade_then_purchase`` on packed counts (see the module docstring)."""

    def __init__(self, equations: Iterable[Equation], visibles: Sequence[Card],
                 wallet: Bag, bank: Bag, policy: Policy) -> None:
        rules = _candidates(equations)
        rules.reverse()  # the order of useful_equations
        self.rules = [(r.left.counts_key, r.right.counts_key, len(r.right) - len(r.left), r)
                      for r in rules]
        self.total = wallet.counts_key + bank.counts_key
        self.wallet = wallet
        self.shop = _Shop(visibles, policy)
        self.useful_memo: dict[int, list[tuple[int, int, int, Equation]]] = {}

    def useful(self, w: int) -> list[tuple[int, int, int, Equation]]:
        found = self.useful_memo.get(w)
        if found is None:
            gw, gb = w | GUARD, (self.total - w) | GUARD
            found = self.useful_memo[w] = [r for r in self.rules
                                           if (gw - r[0]) & GUARD == GUARD and (gb - r[1]) & GUARD == GUARD]
        return found

    def best(self) -> Plan:
        shop, useful = self.shop, self.useful
        w0, n0 = self.wallet.counts_key, len(self.wallet)
        best = shop.score(w0, n0)
        best_depth = 0
        levels: list[dict[int, int]] = [{w0: n0}]
        frontier = levels[0]
        for depth in range(1, SEARCH_DEPTH + 1):
            nxt: dict[int, int] = {}
            for w, n in frontier.items():
                for left, right, dn, _ in useful(w):
                    w2 = w - left + right
                    if w2 not in nxt:
                        nxt[w2] = n + dn
            if not nxt:
                break
            for w2, n2 in nxt.items():
                score = shop.score(w2, n2)
                if score > best:
                    best, best_depth = score, depth
            levels.append(nxt)
            frontier = nxt
        if best_depth == 0:
            return Plan((), shop.purchase(shop.decide(w0, n0), self.wallet))
        return self._tie_break(self._paths(levels, best, best_depth))

    def _paths(self, levels: list[dict[int, int]], best: int, depth: int
               ) -> list[tuple[tuple[Equation, ...], Bag, int]]:
        """The exchange sequences of length ``depth`` whose purchase scores ``best``, in
        search order, with their wallets as lists and their packed wallets."""
        shop, useful = self.shop, self.useful
        good: list[set[int]] = [set() for _ in range(depth + 1)]
        good[depth] = {w for w, n in levels[depth].items() if shop.score(w, n) == best}
        for k in range(depth - 1, -1, -1):
            above = good[k + 1]
            good[k] = {w for w in levels[k]
                       if any(w - left + right in above for left, right, _, _ in useful(w))}
        found: list[tuple[tuple[Equation, ...], Bag, int]] = []

        def walk(k: int, w: int, wallet: Bag, path: tuple[Equation, ...]) -> None:
            if k == depth:
                found.append((path, wallet, w))
                return
            above = good[k + 1]
            for left, right, _, rule in useful(w):
                w2 = w - left + right
                if w2 in above:
                    walk(k + 1, w2, (wallet - rule.left) + rule.right, path + (rule,))

        walk(0, self.wallet.counts_key, self.wallet, ())
        return found

    def _tie_break(self, found: list[tuple[tuple[Equation, ...], Bag, int]]) -> Plan:
        shop = self.shop
        plans: list[Plan] = []
        seen: set[tuple[object, ...]] = set()
        for path, wallet, w in found:  # search order; an equal later exchange is ignored
            decision = shop.decide(w, len(wallet))
            key = (tuple((r.left.counts_key, r.right.counts_key) for r in path),
                   tuple(shop.cid[i] for i in decision[1]), decision[3])
            if key in seen:
                continue
            seen.add(key)
            plans.append(Plan(path, shop.purchase(decision, wallet)))
        plans.reverse()  # the collector puts newer candidates in front
        if len(plans) > 1:
            # 1. fewest trades: all have the same length here; 2. purchase tie-breaker
            plans = _purchase_tie_break(plans)
            # 3. smallest trade sequence under trades< (a consistent order: sort by key)
            plans.sort(key=lambda p: tuple(eq_key(e) for e in p.trades))
        return plans[0]


def trade_then_purchase(equations: Iterable[Equation], visibles: Sequence[Card], wallet: Bag,
                        bank: Bag, policy: Policy) -> Plan:
    """The reference's exchange search (§9.3): the best plan among "no exchange" and every
    feasible sequence of 1 to 4 useful exchanges, each followed by :func:`buy_cards`.
    Ties: fewest trades, then the purchase tie-breaker, then ``trades<``."""
    return _Search(equations, visibles, wallet, bank, policy).best()


__all__ = [
    "SEARCH_DEPTH", "Policy", "StrategyError", "Purchase", "Plan", "seq_less", "cards_less",
    "trades_less", "racket_sort", "useful_equations", "wants_pebble", "buy_cards",
    "trade_then_purchase",
]
