"""The scheduling of an arena's games (:class:`Scheduler`): the scheduling thread's loop,
which keeps the pool's games in flight (``Pool.in_flight``: on a cluster a batch for each
slot and another waiting, those picked at once given together), hands each finished game
to ``arena.outcomes`` and puts a failed qualification game back in its queue; and the
choice of the next game: qualification games round-robin between owners within their
share of the workers (``qualification_workers``), in turn with ladder games picked by
``arena.matchmaking`` at each competition's pace (``arena.fairness.Pacer``). A game with
a remote bot is played on a thread of this process, over the bot's connection
(``arena.remote``); every other on the pool.
"""

from __future__ import annotations

import collections
import concurrent.futures
import logging
import time
from typing import Any

from sqlalchemy.orm import Session

from gameroom.arena.config import Competition
from gameroom.arena.ladder_state import ArenaState, Running
from gameroom.arena.matchmaking import meeting, pair
from gameroom.arena.outcomes import Outcomes
from gameroom.arena.tables import EntryRow, VersionRow, state_of
from gameroom.core.match import Seat
from gameroom.league.programs import failed_caller
from gameroom.league.schedule import game_seed
from gameroom.league.table import TableOutcome, TableTask, play_table

__all__ = ["Scheduler"]

log = logging.getLogger("gameroom.arena")


class Scheduler:
    """What an arena plays next, and its scheduling thread (see the module)."""

    def __init__(self, state: ArenaState, outcomes: Outcomes) -> None:
        self.state, self.outcomes = state, outcomes

    def run(self) -> None:
        """The scheduling thread: keep the games in flight until stopped, then let those
        in flight finish and be written (30 s at most)."""
        last_state = 0.0
        drain_until: float | None = None
        while True:
            if self.state.stopping.is_set():
                if drain_until is None:
                    drain_until = time.monotonic() + 30.0
                if not self.state.running or time.monotonic() > drain_until:
                    self.state.season.stopped()
                    return
            elif time.monotonic() - last_state > 1.0:
                last_state = time.monotonic()
                self._follow_stored_state()
                self.state.season.tick(self.state)
            if not self.state.stopping.is_set():
                self._fill()
            if not self.state.running:
                time.sleep(0.05)
                continue
            done, _ = concurrent.futures.wait(list(self.state.running), timeout=0.25,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                self._finished(future)

    def _follow_stored_state(self) -> None:
        """A freeze or pause by another process (the CLI): as stored."""
        paused, frozen = self.state.paused, self.state.frozen
        for competition in self.state.config.competitions:
            name = competition.name
            stored = state_of(self.state.engine, name)
            if (stored.paused, stored.frozen) != (paused[name], frozen[name]):
                paused[name], frozen[name] = stored.paused, stored.frozen
                self.state.bump()

    def _finished(self, future: concurrent.futures.Future[Any]) -> None:
        """A game that came back: written; a failed one is not (a failed qualification
        game is played again)."""
        with self.state.lock:
            running = self.state.running.pop(future)
        try:
            outcome = future.result()
        except Exception as exc:   # a worker died (or Ray failed): the game is not written
            self.state.metrics.failed_games += 1
            # the traceback says where (a worker's bug, a lost process, Ray), as "error"
            log.error("game failed", exc_info=True,
                      extra={"fields": {"competition": running.competition, "index": running.index}})
            if isinstance(exc, concurrent.futures.process.BrokenProcessPool):
                self.state.pool.reset()
            if running.kind == "qualify" and running.version is not None:
                with self.state.lock:
                    owner = self.state.owners.get(running.version)
                    if owner is not None:
                        self.state.qualifying.put(owner, (running.version, -1))
            return
        try:
            self.outcomes.write(running, outcome)
        except Exception:
            log.exception("cannot write a game", extra={"fields": {"competition": running.competition,
                                                                   "index": running.index}})

    def _fill(self) -> None:
        with self.state.pool.together():   # on a cluster, the games picked now go as batches
            while len(self.state.running) < self.state.pool.in_flight():
                task = self.next_task()
                if task is None:
                    return
                running, table = task
                future = self.submit(table)
                with self.state.lock:
                    self.state.running[future] = running
                self.state.bump()

    def submit(self, table: TableTask) -> concurrent.futures.Future[TableOutcome]:
        """Play a game: on the pool, or here when a remote bot plays in it."""
        remote = [spec["name"] for spec in table.bots if spec.get("remote")]
        return self._play_here(table, remote) if remote else self.state.pool.submit(table)

    def _play_here(self, table: TableTask, remote: list[str]) -> concurrent.futures.Future[TableOutcome]:
        """Play a game with remote bots on a thread of this process, over their connections."""
        from gameroom.games import registry

        assert self.state.hall is not None
        protocol = registry.game(table.game).protocol
        given = {}
        for bot in remote:
            connection = self.state.hall.take(bot)
            if connection is None:   # gone since it was paired: its seat fails at its first call
                given[bot] = Seat(bot, failed_caller("the remote bot hung up before its game began"))
            else:
                given[bot] = self.state.hall.seat(protocol, connection, bot)
        return self.state.local.submit(play_table, table, given)

    def _remote_ready(self, bot: str, spec: dict[str, Any]) -> bool:
        """A remote bot can be seated when its connection waits and it plays no game now."""
        if not spec.get("remote"):
            return True
        return self.state.hall is not None and bot in self.state.hall.ready() \
            and not any(bot in r.bots for r in self.state.running.values())

    def next_task(self) -> tuple[Running, TableTask] | None:
        """The next game: qualification and ladder games in turn while both wait, the
        qualification games holding at most ``qualification_workers`` workers then; when
        no competition's ladder can play (too few bots, paused, frozen), qualification
        may take every worker."""
        with self.state.lock:
            qualifying = sum(1 for r in self.state.running.values() if r.kind == "qualify")
            within_share = qualifying < self.state.config.qualification_workers
            if within_share and self.state.last_started == "ladder":
                task = self._next_qualification()
                if task is not None:
                    self.state.last_started = "qualify"
                    return task
            task, waiting = self._next_ladder()
            if task is not None:
                self.state.last_started = "ladder"
                return task
            if within_share or not waiting:
                task = self._next_qualification()
                if task is not None:
                    self.state.last_started = "qualify"
                    return task
        return None

    def _next_qualification(self) -> tuple[Running, TableTask] | None:
        """The next qualification game that can start, round-robin between owners (a
        remote bot's waits for its connection; a version gone meanwhile is dropped)."""
        tasks: dict[tuple[int, int], tuple[Running, TableTask] | None] = {}

        def ready(item: tuple[int, int]) -> bool:
            if item not in tasks:
                tasks[item] = self._qualification_task(*item) if item[0] in self.state.qualified else None
            task = tasks[item]
            if task is None:
                return True   # taken, then dropped below
            candidate = task[0].bots[0]
            spec = next(b for b in task[1].bots if b.get("name") == candidate)
            return self._remote_ready(candidate, spec)

        while (item := self.state.qualifying.take(ready)) is not None:
            if tasks[item] is not None:
                return tasks[item]
        return None

    def _next_ladder(self) -> tuple[tuple[Running, TableTask] | None, bool]:
        """The next ladder game, and whether some competition's ladder could play (it may
        be waiting for its pace)."""
        state = self.state
        waiting = False
        order = sorted(state.config.competitions, key=lambda c: state.metrics.games[c.name]
                       + sum(1 for r in state.running.values() if r.competition == c.name))
        for competition in order:
            if state.paused.get(competition.name) or state.frozen.get(competition.name):
                continue
            if len(state.playing.get(competition.name, {})) >= competition.players:
                waiting = True
            task = self.ladder_task(competition)
            if task is not None:
                return task, True
        return None, waiting

    def ladder_task(self, competition: Competition) -> tuple[Running, TableTask] | None:
        """The competition's next ladder game, when its pace allows one and matchmaking
        finds a table among the bots free to play (its index taken, its meetings counted)."""
        state = self.state
        pacer = state.pacers[competition.name]
        if not pacer.due():
            return None
        specs = {bot: spec for bot, spec in state.playing.get(competition.name, {}).items()
                 if self._remote_ready(bot, spec) and pacer.allowed(bot)}
        book = state.books[competition.name]
        in_flight = collections.Counter(bot for r in state.running.values() for bot in r.bots)
        bots = {bot: (book.of(competition.game, bot).games + in_flight[bot], book.of(competition.game, bot).ordinal)
                for bot in specs}
        index = state.next_index[competition.name]
        met = state.met.setdefault(competition.name, collections.Counter())
        table = pair(bots, competition.players, competition.seed, index, met)
        if table is None:
            return None
        state.next_index[competition.name] = index + 1
        pacer.started(table)
        met.update(meeting(a, b) for at, a in enumerate(table) for b in table[at + 1:])
        task = TableTask(competition.game, index, game_seed(competition.seed, index),
                         tuple(specs[bot] for bot in table), (("arena", competition.name),), state.sandbox,
                         competition.call_seconds, competition.options)
        return Running("ladder", competition.name, index, table, time.monotonic()), task

    def _qualification_task(self, version_id: int, number: int) -> tuple[Running, TableTask] | None:
        with Session(self.state.engine) as session:
            version = session.get(VersionRow, version_id)
            entry = session.get(EntryRow, version.entry_id) if version is not None else None
        if version is None or entry is None or version.spec is None:
            return None
        competition = self.state.config.competition(entry.competition)
        if competition is None:
            return None
        if number < 0:   # played again after a worker failed
            number = competition.qualification + self.state.metrics.failed_games
        opponents = [{"name": f"house-{strategy}-{at + 1}", "builtin": strategy}
                     for at, strategy in enumerate((competition.builtins * competition.players)
                                                   [number % len(competition.builtins):]
                                                   [:competition.players - 1])]
        seats = [self.state.runnable(version.spec), *opponents]   # its interpreter resolved, as the ladder's
        turn = number % len(seats)
        seats = seats[turn:] + seats[:turn]
        seed = game_seed(competition.seed ^ 0x51A1, version_id * 1000 + number)
        task = TableTask(competition.game, number, seed, tuple(seats),
                         (("arena", competition.name), ("qualify", version.bot)), self.state.sandbox,
                         competition.call_seconds, competition.options)
        return Running("qualify", competition.name, None, [version.bot], time.monotonic(), version_id), task
