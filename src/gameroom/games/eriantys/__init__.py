"""Eriantys: islands, students, professors and towers, 2-4 players, teams with 4, expert
mode with twelve character cards (spec eriantys.md). Event-driven: the server validates
each event, answers ACK/NACK and broadcasts small delta messages in an exact order.

Pure game package (no I/O; may import only the standard library and ``gameroom.core``):

| module | what it is for |
| --- | --- |
| ``pieces`` | colours, phases, event types, constants per player count, character cards |
| ``state`` | the game state, seeded setup with its draw order and test hooks, §6.5 snapshot |
| ``rules`` | ``step(state, seat, event) -> (state, broadcasts, reply)``: every check and sequence |
| ``view`` | a client's view rebuilt from the broadcasts (what remote clients must do) |
| ``strategies`` | canonical candidate order, first-legal, greedy, seeded random |
| ``players`` | in-process players of §5 and the misbehaving players of §9.3 |
| ``config`` | the referee configuration of §8.3 and its test hooks |
| ``protocol`` | the in-process player interface (``setup``, ``observe``, ``act``, ``end``) for the core |
| ``referee`` | in-process matches on the core's referee skeleton under the referee policy |
| ``render`` | SVG picture of a snapshot |
| ``hosting`` | the lobby game (``LOBBY``): how the lobby server plays Eriantys rooms |
| ``harness`` | the xgame harness of §10.2 |
| ``descriptor`` | ``GAME``, what the registry, the command line and the benchmarks use |
"""

from gameroom.games.eriantys.rules import apply_event, check_event, eject, step
from gameroom.games.eriantys.state import GameState, TestHooks, from_snapshot, new_game, snapshot
from gameroom.games.eriantys.view import TableView

__all__ = ["GameState", "TestHooks", "new_game", "snapshot", "from_snapshot", "step", "apply_event",
           "check_event", "eject", "TableView"]
