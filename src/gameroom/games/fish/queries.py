"""The design memo's query API (spec Appendix A), as optional extensions of the protocol.

The six reference calls are push-only: the referee sends the state with every request. A
player that wants to *ask* instead may use a :class:`QueryDesk`:

* ``phase()`` -> ``"placing"`` | ``"playing"`` | ``"over"``;
* ``state()`` -> the current state (a copy), ``current_player()`` -> its active color;
* ``legal_moves(state=None)`` / ``is_legal(move, state=None)`` for the current or a given state;
* ``game_over()``;
* ``tournament_info()`` -> ``{"round", "players", "games", "winners"}`` or None outside a
  tournament.

In process, the referee offers a desk to every local player that asks for one by having a
``use_queries(desk)`` method (called once per game, before ``playing-as``). Over the wire, a
client may send a query object *while it is answering a call* and reads the answer before it
sends its reply:

    client -> {"query": "legal-moves"}            server -> {"answer": [[[0,0],[2,0]], ...]}
    client -> {"query": "legal-moves", "state": State}
    client -> {"query": "legal?", "move": Move}    server -> {"answer": true}
    client -> {"query": "nonsense"}               server -> {"error": "unknown query ..."}

A query is a JSON object, so it can never be mistaken for a reply to one of the six calls
(``"void"``, a Position or a Move are a string and arrays); the requests and replies of the
six calls are unchanged, so reference clients and servers still interoperate. Queries count
against the time limit of the call in progress. Inside queries, a State's players may use
the memo's key names ``fish`` (for ``score``) and ``penguins`` (for ``places``).

Pure: :class:`GameView` is what the referee publishes, :class:`TournamentView` is a
tournament observer that tracks the rounds, :func:`answer_query` answers one wire query,
:class:`WireQueries` is the client-side desk over any ``ask`` function, and
:func:`offer_queries` hands the referee's seats their desks.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from gameroom.core.calls import CallFailed
from gameroom.core.match import Seat
from gameroom.core.wire import WireError, describe
from gameroom.games.fish.state import Color, GameState, Move
from gameroom.games.fish.codec import decode_move, decode_state, encode_move, encode_state

__all__ = ["PHASES", "GameView", "TournamentView", "QueryDesk", "answer_query", "WireQueries", "offer_queries",
           "QUERY_NAMES", "MAX_QUERIES_PER_CALL"]

PHASES = ("placing", "playing", "over")
QUERY_NAMES = ("phase", "state", "current-player", "legal-moves", "legal?", "game-over",
               "tournament-info")
MAX_QUERIES_PER_CALL = 1000
"""A client that asks more often within one call is treated as sending an invalid reply."""


class TournamentView:
    """A tournament observer that remembers the rounds, for ``tournament_info``."""

    def __init__(self) -> None:
        self.round = 0
        self.games: list[list[str]] = []
        self.winners: list[list[str]] = []
        self.over = False

    def show(self, _started: bool) -> None:
        self.round = 0

    def show_next_round(self, games: list[list[str]]) -> None:
        self.round += 1
        self.games = [list(g) for g in games]
        self.winners = []

    def show_winners(self, winners: list[list[str]]) -> None:
        self.winners = [list(w) for w in winners]

    def show_end(self, _winners: list[str], _failures: list[str]) -> None:
        self.over = True

    def info(self) -> dict[str, Any]:
        """Round number, players of this round, its games and (once known) its winners."""
        return {"round": self.round, "players": [n for g in self.games for n in g],
                "games": [list(g) for g in self.games], "winners": [list(w) for w in self.winners]}


class GameView:
    """What the referee publishes about its game: the phase and a snapshot of the state."""

    def __init__(self, state: GameState, tournament: TournamentView | None = None) -> None:
        self.phase = "placing"
        self.snapshot = state.copy()
        self.tournament = tournament

    def publish(self, phase: str, state: GameState) -> None:
        self.phase = phase
        self.snapshot = state.copy()


class QueryDesk:
    """The read-only queries a player may put to its referee (every answer is a copy)."""

    def __init__(self, view: GameView) -> None:
        self._view = view

    def phase(self) -> str:
        return self._view.phase

    def state(self) -> GameState:
        return self._view.snapshot.copy()

    def current_player(self) -> Color | None:
        players = self._view.snapshot.players
        return players[0].color if players and self._view.phase != "over" else None

    def legal_moves(self, state: GameState | None = None) -> list[Move]:
        """The active player's moves in canonical order, in `state` or the current state."""
        return (self._view.snapshot if state is None else state).legal_moves()

    def is_legal(self, move: Move, state: GameState | None = None) -> bool:
        return move in self.legal_moves(state)

    def game_over(self) -> bool:
        return self._view.phase == "over"

    def tournament_info(self) -> dict[str, Any] | None:
        tournament = self._view.tournament
        return None if tournament is None else tournament.info()


def _memo_state(value: Any, where: str) -> GameState:
    """A State, accepting the memo's key names for players inside queries."""
    if isinstance(value, dict) and isinstance(value.get("players"), list):
        renamed = []
        for p in value["players"]:
            if isinstance(p, dict):
                p = dict(p)
                if "fish" in p and "score" not in p:
                    p["score"] = p.pop("fish")
                if "penguins" in p and "places" not in p:
                    p["places"] = p.pop("penguins")
            renamed.append(p)
        value = {**value, "players": renamed}
    return decode_state(value, where)


def answer_query(desk: QueryDesk, message: Any) -> Any:
    """The answer to one wire query, or None when `message` is not a query (so it is the
    player's reply to the call in progress)."""
    if not (isinstance(message, dict) and "query" in message):
        return None
    try:
        name = message["query"]
        extra = set(message) - {"query", "state", "move"}
        if extra:
            raise WireError(f"unexpected key(s) {', '.join(sorted(extra))}")
        state = _memo_state(message["state"], "$.state") if "state" in message else None
        if name == "phase":
            return {"answer": desk.phase()}
        if name == "state":
            return {"answer": encode_state(desk.state())}
        if name == "current-player":
            color = desk.current_player()
            return {"answer": None if color is None else color.value}
        if name == "legal-moves":
            return {"answer": [encode_move(m) for m in desk.legal_moves(state)]}
        if name == "legal?":
            if "move" not in message:
                raise WireError("legal? needs a move")
            return {"answer": desk.is_legal(decode_move(message["move"], "$.move"), state)}
        if name == "game-over":
            return {"answer": desk.game_over()}
        if name == "tournament-info":
            return {"answer": desk.tournament_info()}
        raise WireError(f"unknown query {describe(name)}; expected one of {', '.join(QUERY_NAMES)}")
    except WireError as exc:
        return {"error": str(exc)}


class QueryFailed(Exception):
    """The referee answered a query with an error, or not as a query answer."""


class WireQueries:
    """A desk on the client side: every query is sent with `ask` (which sends a JSON value
    to the referee and returns the value it answers)."""

    def __init__(self, ask: Callable[[Any], Any]) -> None:
        self._ask = ask

    def _query(self, name: str, **fields: Any) -> Any:
        answer = self._ask({"query": name, **fields})
        if isinstance(answer, dict) and set(answer) == {"answer"}:
            return answer["answer"]
        raise QueryFailed(f"{name}: {describe(answer)}")

    def phase(self) -> str:
        return str(self._query("phase"))

    def state(self) -> GameState:
        return decode_state(self._query("state"))

    def current_player(self) -> Color | None:
        color = self._query("current-player")
        return None if color is None else Color(color)

    def legal_moves(self, state: GameState | None = None) -> list[Move]:
        fields = {} if state is None else {"state": encode_state(state)}
        return [decode_move(m) for m in self._query("legal-moves", **fields)]

    def is_legal(self, move: Move, state: GameState | None = None) -> bool:
        fields = {} if state is None else {"state": encode_state(state)}
        return bool(self._query("legal?", move=encode_move(move), **fields))

    def game_over(self) -> bool:
        return bool(self._query("game-over"))

    def tournament_info(self) -> dict[str, Any] | None:
        info = self._query("tournament-info")
        return info if isinstance(info, dict) else None


def offer_queries(seats: Sequence[Seat], view: Callable[[], GameView]) -> GameView | None:
    """Give a query desk to every player that asks for one: local players with a
    ``use_queries`` method get the desk, remote ones (proxies with a ``side`` hook) get
    their wire queries answered. The view is created only if someone asks."""
    made: GameView | None = None
    for seat in seats:
        wants_local = callable(getattr(seat.player, "use_queries", None))
        wants_wire = hasattr(seat.player, "side") and not wants_local
        if not (wants_local or wants_wire) or seat.ejected is not None:
            continue
        made = made or view()
        desk = QueryDesk(made)
        if wants_wire:
            seat.player.side = lambda message, desk=desk: answer_query(desk, message)
        else:
            try:
                seat.caller("use_queries", (desk,), 1.0)
            except CallFailed:
                pass   # an extension: a player that cannot take the desk plays without it
    return made
