"""Running a recorded session again: a served game or a local tournament, rebuilt from
its replay header through the game's descriptor, for ``league.replay.verify_session``.

A session header holds the mode (``serve`` or ``tournament``), the typed options of the
command (older replays hold every raw command-line option instead: the game's declared
options are picked out of them by name, raw text converted), and for a served game the
JSON values of its configuration and the seats in the order the plan received them.
The plan is built again from these — the server's plan (or its defaults when there was
no configuration) or the tournament's — and run with every call answered from the
file; nothing is printed and no file is written. Game-agnostic.
"""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.errors import GameroomError
from gameroom.core.match import Seat, observe_every_match
from gameroom.core.options import option_values
from gameroom.games import registry

__all__ = ["SessionError", "rerun_session"]


class SessionError(GameroomError, ValueError):
    """The session cannot be run again (its game or mode is unknown, or has no such plan)."""


def _quiet(_text: str) -> None:
    """The plans' log lines are not wanted when a session runs again."""


def rerun_session(session: dict[str, Any], game_name: str) -> Callable[[Callable[[Any], Any]], None]:
    """``rerun(factory)`` for :func:`gameroom.league.replay.verify_session`: the session
    run again with ``factory`` given every match it makes."""
    game = registry.game(game_name)
    given = session.get("options")
    recorded: dict[str, Any] = given if isinstance(given, dict) else {}

    def unanswered(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        raise RuntimeError(f"{method} was called before the replay's answers were in place")

    def run(factory: Callable[[Any], Any]) -> None:
        stop = observe_every_match(factory)
        try:
            mode = session.get("mode")
            if mode == "serve":
                server = game.hosting.server
                if server is None:
                    raise SessionError(f"{game_name} has no server")
                options = {**option_values(server.options, recorded), "seed": recorded.get("seed")}
                values = session.get("values") or []
                configuration = server.configure(values, options) if values else None
                server.plan(configuration, options, _quiet).play([Seat(s["name"], unanswered, trusted=bool(s.get("trusted")))
                           for s in session.get("order", [])])
            elif mode == "tournament":
                tournament = game.hosting.tournament
                if tournament is None:
                    raise SessionError(f"{game_name} has no tournament mode")
                tournament.plan(option_values(tournament.options, recorded)).run([], lambda _seats: (), _quiet)
            else:
                raise SessionError(f"unknown session mode {mode!r}")
        finally:
            stop()

    return run
