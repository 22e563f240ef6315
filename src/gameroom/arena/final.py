"""The end of a season: freeze a competition and play its final tournament.

Freezing stops its ladder (games in flight are still written) and its uploads. The final
takes the ``top`` bots of the frozen standings (their playing versions, best rating
first) and plays either

* ``round-robin``: every table of ``players`` of them (every pair, in a two-player game)
  ``games`` times with the seats rotated; a bot scores 1 per win and the table is
  ordered by score, then by ladder rating; or
* ``knock-out`` (two-player games): a bracket seeded from the standings (1 meets the
  last, 2 the last but one, ...; a bye for the best when the field is odd); each match is
  ``games`` games with the seats alternating, won by the most wins, a tie by the better
  ladder rating.

Every game is stored (labelled ``arena:{competition}:final``) without changing ratings,
with a seed derived from the competition's; the result is kept in the competition's state.
Played by ``gameroom arena final`` (a process of its own), the final has the uploaded bots:
remote bots play only over their connections to the running arena, and the result names
those left out.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from gameroom.arena.config import Competition
from gameroom.arena.ladder import Arena, ArenaError
from gameroom.arena.tables import set_state
from gameroom.league.db import record_game
from gameroom.league.schedule import game_seed
from gameroom.league.table import TableTask

__all__ = ["FORMATS", "play_final"]

FORMATS = ("round-robin", "knock-out")


def play_final(arena: Arena, competition: Competition, form: str, top: int, games: int) -> dict[str, Any]:
    """Freeze ``competition`` and play its final; the result (also stored)."""
    if form not in FORMATS:
        raise ArenaError(400, f"the final is one of {', '.join(FORMATS)}, not {form!r}")
    if form == "knock-out" and competition.players != 2:
        raise ArenaError(400, "a knock-out final needs a two-player competition; choose round-robin")
    set_state(arena.engine, competition.name, frozen=True)
    arena.frozen[competition.name] = True
    book = arena.books[competition.name]
    every = arena.playing.get(competition.name, {})
    # a remote bot is seated only where its connection waits (the running arena): a final
    # played by a command of its own has its uploaded bots only, and says so
    specs = {bot: spec for bot, spec in every.items() if arena.hall is not None or not spec.get("remote")}
    left_out = sorted(set(every) - set(specs))
    field = sorted(specs, key=lambda bot: (-book.of(competition.game, bot).ordinal, bot))[:top]
    if len(field) < competition.players:
        raise ArenaError(409, f"{competition.name} has {len(field)} playing bots; a final needs at least "
                              f"{competition.players}")
    counter = itertools.count()

    def play(tables: Sequence[Sequence[str]]) -> list[tuple[list[str], list[str]]]:
        """Play the tables on the pool; each table's seats and winners."""
        futures = []
        for table in tables:
            number = next(counter)
            task = TableTask(competition.game, number, game_seed(competition.seed ^ 0xF1A1, number),
                             tuple(specs[bot] for bot in table), (("arena", competition.name), ("final", form)),
                             arena.sandbox, competition.call_seconds, competition.options)
            futures.append(arena.submit(task))
        out = []
        for future in futures:
            outcome = future.result()
            record = outcome.record
            record_game(arena.engine, record, tournament=f"arena:{competition.name}:final",
                        bots={seat["name"]: seat["bot"] for seat in record.config["seats"]}, replay=outcome.replay)
            assert record.result is not None
            out.append((list(record.seats), list(record.result.winners)))
        return out

    rating = {bot: round(book.of(competition.game, bot).ordinal, 3) for bot in field}
    if form == "round-robin":
        tables = []
        for group in itertools.combinations(field, competition.players):
            for turn in range(games):
                shift = turn % len(group)
                tables.append(list(group[shift:] + group[:shift]))
        score = dict.fromkeys(field, 0)
        for _, winners in play(tables):
            for bot in winners:
                score[bot] += 1
        order = sorted(field, key=lambda bot: (-score[bot], -rating[bot], bot))
        result: dict[str, Any] = {"format": form, "games": len(tables),
                                  "table": [{"place": at, "bot": bot, "wins": score[bot], "rating": rating[bot]}
                                            for at, bot in enumerate(order, 1)]}
    else:
        rounds = []
        alive = list(field)
        total = 0
        while len(alive) > 1:
            byes = [alive.pop(0)] if len(alive) % 2 else []
            pairs = [(alive[i], alive[-1 - i]) for i in range(len(alive) // 2)]
            tables = [[a, b] if turn % 2 == 0 else [b, a] for a, b in pairs for turn in range(games)]
            played = play(tables)
            total += len(played)
            matches, winners_next = [], []
            for at, (a, b) in enumerate(pairs):
                wins = {a: 0, b: 0}
                for _, winners in played[at * games:(at + 1) * games]:
                    for bot in winners:
                        if bot in wins:
                            wins[bot] += 1
                winner = max((a, b), key=lambda bot: (wins[bot], rating[bot]))
                matches.append({"bots": [a, b], "wins": [wins[a], wins[b]], "winner": winner})
                winners_next.append(winner)
            rounds.append({"matches": matches, "byes": byes})
            alive = byes + winners_next
        result = {"format": form, "games": total, "rounds": rounds, "champion": alive[0]}
    if left_out:
        result["remote_bots_left_out"] = left_out
    set_state(arena.engine, competition.name, final=result)
    arena.bump()
    return result
