"""``gameroom connect GAME`` in a room played by calls (docs/lobby.md): a person's seat at
a terminal, for any game that offers a person moves.

What the person sees: the game's narration of every move as the referee reports its
states (the lines ``gameroom play`` prints; a state's caption where a game tells nothing), the seat's view of the game (the game's ``text_view``, else its JSON) when a
decision is asked, and the legal moves of that decision, numbered, with the time left.
What the person types: a move's number (or ``play N``), ``reply JSON`` for an answer of
one's own (held to the same checks), ``moves`` and ``view`` to see them again, ``hint``
for the move the game's first built-in strategy would make (a player of that strategy
follows every call of the seat). Everything else is the lobby's (``cli.terminal``).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, Callable

from gameroom.core.game import GameDescriptor
from gameroom.core.protocol import Method

__all__ = ["CallTable", "CALL_HELP", "view_text"]

logger = logging.getLogger(__name__)

CALL_HELP = """the game (when asked for a decision):
  N | play N              the N-th move of the list
  reply JSON              an answer of your own, as JSON (refused if it is not one of the moves)
  moves                   the moves again;  view: the game as you see it;  hint: a move to consider"""

_MOVES_SHOWN = 60   # a longer list is cut (the rest: moves all)


def view_text(game: GameDescriptor, view: Any) -> str:
    """A view as lines: the game's own text, else its JSON, one key a line."""
    if game.text_view is not None:
        try:
            return game.text_view(view)
        except (TypeError, ValueError, KeyError, IndexError) as exc:   # a view the game's text cannot draw
            return f"(the view cannot be drawn: {exc}) " + json.dumps(view, ensure_ascii=False)
    if isinstance(view, dict):
        return "\n".join(f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in view.items())
    return json.dumps(view, ensure_ascii=False)


class CallTable:
    """One person's seat in a room played by calls: what the terminal shows and sends.
    ``say(text, style)`` prints a line, ``request(message, what)`` sends a request."""

    def __init__(self, game: GameDescriptor, name: str, say: Callable[[str, str], None],
                 request: Callable[[dict[str, Any], str], None]) -> None:
        self.game, self.name, self.say, self.request = game, name, say, request
        self.call: dict[str, Any] | None = None     # the CALL waiting for our reply
        self.spec: Method | None = None
        self.view: Any = None
        self.hinter: Any = None
        self.hint: Any = None
        self.deadline: float | None = None

    # -- what the room says -----------------------------------------------------------------

    def started(self) -> None:
        strategy = next(iter(self.game.strategies))
        self.hinter = self.game.strategies[strategy](self.name, 0)
        self.call, self.view = None, None

    def state(self, m: dict[str, Any]) -> None:
        """A state: the game's narration of what happened (else the state's caption)."""
        self.view = m.get("state")
        self.tell(m.get("narration") or ([m["caption"]] if m.get("caption") else []))

    def tell(self, lines: Any) -> None:
        for line in lines if isinstance(lines, list) else []:
            self.say(f"  {line}", "fg:ansicyan")

    def called(self, m: dict[str, Any]) -> None:
        spec = self.game.protocol.by_wire.get(m.get("method"))   # type: ignore[arg-type]
        if spec is None:
            self.say(f"the lobby called {m.get('method')!r}, which {self.game.name} does not have", "fg:ansired")
            return
        try:
            args = spec.decode_args(m.get("args"), "$.args")
            answer = getattr(self.hinter, spec.name)(*args) if self.hinter is not None else None
        except Exception as exc:   # the hint's player failed: no hint, the game goes on
            logger.debug("the hint for %s failed", spec.wire, exc_info=True)
            self.say(f"(no hint: {type(exc).__name__}: {exc})", "fg:ansiyellow")
            answer = None
        if m.get("oneWay"):
            return
        self.call, self.spec = m, spec
        self.hint = None if answer is None else spec.result.encode(answer)
        self.deadline = None if m.get("limit") is None else time.monotonic() + m["limit"]
        self.show_view()
        self.show_moves()

    def refused(self, text: str) -> None:
        self.say(f"refused: {text}" + ("; try again" if self.call is not None else ""), "fg:ansired bold")

    def taken(self) -> None:
        self.call = None

    def over(self, m: dict[str, Any]) -> None:
        self.call, self.hinter = None, None
        self.tell(m.get("narration"))

    # -- what the person sees -----------------------------------------------------------------

    def show_view(self) -> None:
        if self.view is not None:
            self.say(view_text(self.game, self.view), "")

    def show_moves(self, every: bool = False) -> None:
        call = self.call
        if call is None:
            self.say("no decision is asked of you now", "")
            return
        left = "" if self.deadline is None else f", {max(0, self.deadline - time.monotonic()):.0f} s left"
        moves = call.get("moves") or []
        self.say(f"your turn: {call['method']}{left}" + ("" if moves else " (no list: reply JSON)"), "bold")
        for number, move in enumerate(moves if every else moves[:_MOVES_SHOWN], 1):
            self.say(f"  {number:3d}. {move['label']}", "")
        if len(moves) > _MOVES_SHOWN and not every:
            self.say(f"  ... {len(moves) - _MOVES_SHOWN} more: moves all", "")

    # -- what the person types -----------------------------------------------------------------

    COMMANDS = frozenset({"play", "reply", "moves", "view", "hint"})

    def command(self, words: list[str], line: str) -> None:
        """A game command (a number, or one of :attr:`COMMANDS`); ValueError says why not."""
        name = words[0].lower()
        if name == "view":
            if self.view is None:
                raise ValueError("nothing to see yet")
            self.show_view()
            return
        if name == "moves":
            self.show_moves(every=words[1:] == ["all"])
            return
        call = self.call
        if call is None:
            raise ValueError("it is not your turn")
        if name == "hint":
            if self.hint is None:
                raise ValueError("no hint for this decision")
            moves = call.get("moves") or []
            offered = [n for n, m in enumerate(moves, 1) if m["action"] == self.hint]
            if offered or not moves:
                self.say("hint: " + (f"{offered[0]}: {moves[offered[0] - 1]['label']}" if offered
                                     else "reply " + json.dumps(self.hint)), "fg:ansigreen")
            else:   # the strategy's answer is not one of the moves offered: the first of them
                self.say(f"hint: 1: {moves[0]['label']}", "fg:ansigreen")
            return
        if name == "reply":
            text = line.strip()[len(words[0]):].strip()
            try:
                answer = json.loads(text)
            except ValueError as exc:
                raise ValueError(f"reply takes a JSON value: {exc}") from None
        else:
            number = words[1] if name == "play" and len(words) == 2 else words[0]
            moves = call.get("moves") or []
            if not number.isdigit() or not 1 <= int(number) <= len(moves):
                raise ValueError(f"choose a move by its number, 1..{len(moves)}" if moves
                                 else "no list of moves: reply JSON")
            answer = moves[int(number) - 1]["action"]
        self.request({"type": "REPLY", "call": call["call"], "result": answer}, line)
