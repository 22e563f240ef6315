"""Where the arena's games are played (:class:`Pool`): a process pool of spawned workers
that die with the arena (``league.runner.watch_parent``), or the nodes of a Ray cluster
(``league.cluster``), fed in batches there.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
from typing import Any, Callable, cast

from gameroom.arena.errors import ArenaError
from gameroom.league.table import TableOutcome, TableTask, play_table

__all__ = ["Pool"]


def _start_worker(parent: int, setup: Callable[..., None] | None, setup_args: tuple[Any, ...]) -> None:
    from gameroom.league.runner import watch_parent

    watch_parent(parent)
    if setup is not None:
        setup(*setup_args)


class Pool:
    """Games played elsewhere: a process pool, or the nodes of a Ray cluster
    (``league.cluster``: joined at ``address``, else ``RAY_ADDRESS``, else a local Ray
    instance of ``workers`` slots); ``submit`` gives a future."""

    def __init__(self, backend: str, workers: int, setup: Callable[..., None] | None = None,
                 setup_args: tuple[Any, ...] = (), address: str | None = None) -> None:
        """``setup(*setup_args)``: run in each local worker as it starts (a picklable
        function). The Ray backend joins its cluster here: ArenaError (503) says why it
        cannot (a node of another version, no cluster at the address)."""
        self.backend, self.workers = backend, workers
        self.setup, self.setup_args = setup, setup_args
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self.cluster: Any = None
        if backend == "ray":
            from gameroom.arena.interpreters import play_here
            from gameroom.league.cluster import ClusterError, RayCluster

            try:   # each node resolves the languages' programs itself (play_here)
                self.cluster = RayCluster(address, workers, play=play_here, need_capacity=False)
            except ClusterError as exc:
                raise ArenaError(503, str(exc)) from None

    def submit(self, task: TableTask) -> concurrent.futures.Future[TableOutcome]:
        if self.cluster is not None:
            return cast("concurrent.futures.Future[TableOutcome]", self.cluster.submit(task))
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                initargs=(os.getpid(), self.setup, self.setup_args))
        return self._executor.submit(play_table, task)

    def in_flight(self) -> int:
        """Games to keep given: the workers; on a cluster, its slots and the games that wait
        for them, to be played in batches (``league.cluster.RayCluster.in_flight``)."""
        return self.cluster.in_flight() if self.cluster is not None else self.workers

    def together(self) -> contextlib.AbstractContextManager[None]:
        """Games submitted within go to a cluster together, as batches (nothing for a
        process pool, whose workers take a game each)."""
        return self.cluster.together() if self.cluster is not None else contextlib.nullcontext()

    def nodes(self) -> list[dict[str, Any]]:
        """The cluster's nodes (``league.cluster.RayCluster.nodes``); none for a process pool."""
        return self.cluster.nodes() if self.cluster is not None else []

    def reset(self) -> None:
        """After a worker died: a fresh pool for what comes next."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
