"""JSON codecs for every Bazaar value of the wire format (spec §6), plus the remote calls
and the reference server's interpretation of replies (§6.2, §6.3).

Decoders take the JSON value (as :func:`json.loads` returns it) and a path for messages,
and raise :class:`gameroom.core.wire.WireError` naming the place and the problem, e.g.
``$.players[0].wallet[3]: expected one of 'red', ...``. Objects must have exactly the keys
of the spec; the one exception is the older Player format without ``cards`` (milestone
fixtures), accepted unless ``cards_required`` is set. Encoders write object keys in
alphabetical order, as the reference does.

Shape checks here; rule checks elsewhere: an equations *table* is validated
(:func:`decode_equations`), an *exchange* list only shape-checked (:func:`decode_exchanges`)
because its legality is the referee's business.
"""

from __future__ import annotations

from typing import Any, Sequence

from gameroom.core.wire import (
    WireError, describe, expect_bool, expect_choice, expect_list, expect_natural, expect_object,
    expect_str,
)
from gameroom.games.bazaar.actors import decode_policy, encode_policy
from gameroom.games.bazaar.pieces import (
    CARD_SIZE, CARDS_IN_GAME, COLOURS, MAX_PLAYERS, MAX_VISIBLE, PEBBLES_IN_GAME, Bag, Card,
    Equation, Pebble, equations_problem,
)
from gameroom.games.bazaar.rules import WANT_PEBBLE, Bonus, FirstAction
from gameroom.games.bazaar.state import GameState, PlayerRecord, TurnState, game_problems

__all__ = [
    "encode_pebble", "decode_pebble", "encode_pebbles", "decode_pebbles",
    "encode_equation", "decode_equation", "encode_equations", "decode_equations",
    "encode_exchanges", "decode_exchanges", "encode_card", "decode_card", "encode_cards",
    "decode_cards", "encode_player", "decode_player", "encode_turn_state", "decode_turn_state",
    "encode_game", "decode_game", "encode_referee_state", "decode_referee_state", "encode_policy", "decode_policy", "encode_bonus",
    "decode_bonus", "encode_result", "decode_result", "encode_first_action",
    "decode_first_action", "read_first_action_reply", "encode_purchase", "read_purchase_reply",
]

"""The reply to ``setup`` and ``win``."""

_COLOUR_NAMES = [p.colour for p in COLOURS]
_BY_NAME = {p.colour: p for p in COLOURS}

# --- pebbles, equations, cards -------------------------------------------------------------


def encode_pebble(pebble: Pebble) -> str:
    return pebble.colour


def decode_pebble(value: Any, where: str = "$") -> Pebble:
    """A Pebble: one of the five colour names."""
    return _BY_NAME[expect_choice(value, _COLOUR_NAMES, where)]


def encode_pebbles(bag: Bag) -> list[str]:
    """*Pebbles, in the bag's list order."""
    return [p.colour for p in bag]


def decode_pebbles(value: Any, where: str = "$", max_len: int | None = PEBBLES_IN_GAME) -> Bag:
    """*Pebbles (at most 100 unless ``max_len`` says otherwise), order kept."""
    items = expect_list(value, where, 0, max_len)
    by_name = _BY_NAME
    pebbles = []
    for i, v in enumerate(items):
        p = by_name.get(v) if isinstance(v, str) else None
        pebbles.append(p if p is not None else decode_pebble(v, f"{where}[{i}]"))
    return Bag(pebbles)


def encode_equation(eq: Equation) -> list[list[str]]:
    return [encode_pebbles(eq.left), encode_pebbles(eq.right)]


def decode_equation(value: Any, where: str = "$") -> Equation:
    """A 1Equation's shape: ``[*Pebbles, *Pebbles]`` (no rule checks)."""
    left, right = expect_list(value, where, 2, 2)
    return Equation(decode_pebbles(left, f"{where}[0]"), decode_pebbles(right, f"{where}[1]"))


def encode_equations(equations: Sequence[Equation]) -> list[Any]:
    return [encode_equation(e) for e in equations]


def decode_equations(value: Any, where: str = "$") -> tuple[Equation, ...]:
    """An equations table: at most 10 equations, sides of 1 to 4 pebbles sharing no colour,
    no two equal and none the flip of another (multiset semantics, §11 item 6)."""
    items = expect_list(value, where)
    equations = []
    for i, v in enumerate(items):
        eq = decode_equation(v, f"{where}[{i}]")
        problem = eq.problem()
        if problem:
            raise WireError(f"invalid equation: {problem}", f"{where}[{i}]")
        equations.append(eq)
    problem = equations_problem(equations)
    if problem:
        raise WireError(f"invalid equations table: {problem}", where)
    return tuple(equations)


def encode_exchanges(exchanges: Sequence[Equation]) -> list[Any]:
    return [encode_equation(e) for e in exchanges]


def decode_exchanges(value: Any, where: str = "$") -> tuple[Equation, ...]:
    """*Exchanges: any number of directed equations, shape-checked only."""
    items = expect_list(value, where)
    return tuple(decode_equation(v, f"{where}[{i}]") for i, v in enumerate(items))


def encode_card(card: Card) -> dict[str, Any]:
    return {"face?": card.face, "pebbles": encode_pebbles(card.pebbles)}


def decode_card(value: Any, where: str = "$") -> Card:
    """A Card: ``{"pebbles": [5 pebbles], "face?": bool}``."""
    obj = expect_object(value, ("pebbles", "face?"), where)
    pebbles = decode_pebbles(obj["pebbles"], f"{where}.pebbles")
    if len(pebbles) != CARD_SIZE:
        raise WireError(f"a card shows exactly {CARD_SIZE} pebbles, got {len(pebbles)}", f"{where}.pebbles")
    return Card(pebbles, expect_bool(obj["face?"], f"{where}.face?"))


def encode_cards(cards: Sequence[Card]) -> list[dict[str, Any]]:
    return [encode_card(c) for c in cards]


def decode_cards(value: Any, where: str = "$", max_len: int | None = CARDS_IN_GAME) -> tuple[Card, ...]:
    """*Cards (at most 20 unless ``max_len`` says otherwise)."""
    items = expect_list(value, where, 0, max_len)
    return tuple(decode_card(v, f"{where}[{i}]") for i, v in enumerate(items))


# --- players and states --------------------------------------------------------------------


def _keys(value: Any, required: Sequence[str], optional: Sequence[str], where: str) -> dict[str, Any]:
    """An object with all ``required`` keys, maybe some ``optional`` ones, nothing else."""
    present = [k for k in optional if isinstance(value, dict) and k in value]
    return expect_object(value, [*required, *present], where)


def encode_player(player: PlayerRecord, with_cards: bool = True) -> dict[str, Any]:
    """A Player; ``with_cards=False`` writes the older format without ``cards``."""
    out: dict[str, Any] = {}
    if with_cards:
        out["cards"] = encode_cards(player.cards)
    out["score"] = player.score
    out["wallet"] = encode_pebbles(player.wallet)
    return out


def decode_player(value: Any, where: str = "$", cards_required: bool = False) -> PlayerRecord:
    """A Player ``{"wallet", "score", "cards"}``; a missing ``cards`` means none unless
    ``cards_required``. Any natural score is accepted (§11 item 14)."""
    obj = _keys(value, ("wallet", "score", "cards") if cards_required else ("wallet", "score"),
                () if cards_required else ("cards",), where)
    wallet = decode_pebbles(obj["wallet"], f"{where}.wallet")
    score = expect_natural(obj["score"], f"{where}.score")
    cards = decode_cards(obj["cards"], f"{where}.cards") if "cards" in obj else ()
    return PlayerRecord(wallet, score, cards)


def encode_turn_state(turn: TurnState, with_cards: bool = True) -> dict[str, Any]:
    """A TurnState; ``with_cards=False`` writes ``active`` in the older Player format."""
    return {"active": encode_player(turn.active, with_cards), "bank": encode_pebbles(turn.bank),
            "cards": encode_cards(turn.visibles), "scores": list(turn.scores)}


def decode_turn_state(value: Any, where: str = "$", cards_required: bool = False) -> TurnState:
    """A TurnState ``{"bank", "cards" (visible, at most 4), "active", "scores"}``.
    ``cards_required`` demands ``active.cards`` as the reference client does (§6.4)."""
    obj = expect_object(value, ("bank", "cards", "active", "scores"), where)
    bank = decode_pebbles(obj["bank"], f"{where}.bank")
    visibles = decode_cards(obj["cards"], f"{where}.cards", MAX_VISIBLE)
    active = decode_player(obj["active"], f"{where}.active", cards_required)
    scores = expect_list(obj["scores"], f"{where}.scores", 0, MAX_PLAYERS - 1)
    return TurnState(bank, visibles, active,
                     tuple(expect_natural(s, f"{where}.scores[{i}]") for i, s in enumerate(scores)))


def encode_game(state: GameState, with_cards: bool = True) -> dict[str, Any]:
    """A Game (the equations are not part of it)."""
    return {"bank": encode_pebbles(state.bank), "cards": encode_cards(state.hidden),
            "players": [encode_player(p, with_cards) for p in state.players],
            "visibles": encode_cards(state.visibles)}


def decode_game(value: Any, where: str = "$", *, equations: Sequence[Equation] = (),
                validate: bool = False, cards_required: bool = False) -> GameState:
    """A Game ``{"bank", "visibles" (at most 4), "cards" (hidden pile, at most 20),
    "players" (at most 6)}``, with ``equations`` attached. ``validate`` adds the §3.2
    conditions the reference's server checks (some milestone fixtures break them)."""
    obj = expect_object(value, ("bank", "visibles", "cards", "players"), where)
    bank = decode_pebbles(obj["bank"], f"{where}.bank")
    visibles = decode_cards(obj["visibles"], f"{where}.visibles", MAX_VISIBLE)
    hidden = decode_cards(obj["cards"], f"{where}.cards")
    items = expect_list(obj["players"], f"{where}.players", 0, MAX_PLAYERS)
    players = tuple(decode_player(v, f"{where}.players[{i}]", cards_required) for i, v in enumerate(items))
    state = GameState(bank, visibles, hidden, players, tuple(equations))
    if validate:
        problems = game_problems(state)
        if problems:
            raise WireError("invalid game state: " + "; ".join(problems), where)
    return state


def encode_referee_state(state: GameState) -> Any:
    """A referee state as JSON: the equations and the Game."""
    return {"equations": encode_equations(state.equations), "game": encode_game(state)}


def decode_referee_state(value: Any, where: str = "$") -> GameState:
    obj = expect_object(value, ("equations", "game"), where)
    return decode_game(obj["game"], f"{where}.game", equations=decode_equations(obj["equations"], f"{where}.equations"))


def encode_bonus(bonus: Bonus) -> str:
    return bonus.value


def decode_bonus(value: Any, where: str = "$") -> Bonus:
    """A Bonus: ``"RWB"`` or ``"SEY"``."""
    return Bonus(expect_choice(value, [b.value for b in Bonus], where))


def encode_result(winners: Sequence[str], drop_outs: Sequence[str]) -> list[list[str]]:
    """A Result ``[[winners...], [drop-outs...]]``, each sorted."""
    return [sorted(winners), sorted(drop_outs)]


def decode_result(value: Any, where: str = "$") -> tuple[list[str], list[str]]:
    winners, drop_outs = expect_list(value, where, 2, 2)
    return ([expect_str(n, f"{where}[0][{i}]") for i, n in enumerate(expect_list(winners, f"{where}[0]"))],
            [expect_str(n, f"{where}[1][{i}]") for i, n in enumerate(expect_list(drop_outs, f"{where}[1]"))])


# --- replies ---------------------------------------------------------------------------------


def encode_first_action(action: FirstAction) -> Any:
    """``false`` for a pebble request, else the list of exchanges."""
    return False if action is WANT_PEBBLE else encode_exchanges(action)


def decode_first_action(value: Any, where: str = "$") -> FirstAction:
    """A strict reading of a first action: ``false`` or *Exchanges."""
    if value is False:
        return WANT_PEBBLE
    if not isinstance(value, list):
        raise WireError(f"expected false or a list of exchanges, got {describe(value)}", where)
    return decode_exchanges(value, where)


def read_first_action_reply(value: Any) -> FirstAction | None:
    """How the reference server reads a reply to ``request-pebble-or-trades`` (§6.3):
    ``false`` -> pebble request; an array of 2-arrays of pebble arrays -> exchanges; a
    non-empty array of valid cards -> ``None`` (a failure: the player is kicked); anything
    else -> pebble request (reference quirk, §11 item 2). A reply that is not JSON at all
    counts as "anything else": pass ``None`` for it."""
    if value is False or not isinstance(value, list):
        return WANT_PEBBLE
    try:
        return decode_exchanges(value)
    except WireError:
        pass
    try:
        decode_cards(value, max_len=None)
        return None
    except WireError:
        return WANT_PEBBLE


def encode_purchase(cards: Sequence[Card]) -> list[dict[str, Any]]:
    return encode_cards(cards)


def read_purchase_reply(value: Any, where: str = "$") -> tuple[Card, ...]:
    """How the reference server reads a reply to ``request-cards``: an array of valid
    cards (possibly empty); anything else raises :class:`WireError` (a failure)."""
    return decode_cards(value, where, max_len=None)


