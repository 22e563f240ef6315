"""Games on a Ray cluster: joining it, placing each game on a node, carrying the bots'
files there, and playing a game again elsewhere when its node is lost.

Used by the league's Ray backend (``league.runner``) and the arena's (``arena.pool``);
nothing here names a game.

* **Joining.** :class:`RayCluster` attaches this process to the cluster at the address it
  is given (an ``arena.toml``'s ``ray_address``) or in ``RAY_ADDRESS``; with neither, it
  starts a local Ray instance as before, bound to 127.0.0.1, with ``workers`` game slots.
  Every node that offers game slots is asked once what it runs (:func:`node_facts`:
  gameroom's version and a digest of its code, Ray's and Python's versions, whether it can
  make the sandbox): a node that differs from this process is one line — an error at
  start (:class:`ClusterError`), later a warning, and that node gets no game.
* **Capacity.** A node says how many games it plays at once with the custom resource
  :data:`RESOURCE` (``ray start --resources='{"gameroom_games": 8}'``); every Ray task
  asks for one. :meth:`RayCluster.capacity` is their sum over the nodes that can play,
  which the ladder keeps in flight; each task goes to the node with the fewest tasks in
  flight for its slots (Ray's node affinity), so every node is kept busy and the driver
  knows where each game is.
* **Batches.** A Ray task costs a few milliseconds of CPU (its submission, the node's
  scheduling, its result through Ray), far more than a short game between built-ins, so
  one task plays a *batch* of the games waiting (:meth:`RayCluster.submit_all` gives a
  league's block at once), one after the other in its slot, and returns their outcomes
  together as one pickled ``bytes``. A batch's size shrinks as the queue does (the
  waiting games over the cluster's slots, so the last games are spread over every slot,
  but at least :data:`BATCH_LEAST` while more games wait than free slots) and is
  bounded by :data:`BATCH_MOST` games and by :data:`BATCH_SECONDS` of play
  (the games' time measured on the nodes): a game of seconds goes alone, and a lost node
  costs at most a batch per slot. ``GAMEROOM_RAY_BATCH=N`` in the environment bounds
  every batch by ``N`` games instead, whatever their pace.
* **Feeding the batches.** A caller that gives a game as another ends (the arena's
  ladder) keeps :meth:`RayCluster.in_flight` games given: each slot's batch and, when its
  games go several a task, another batch waiting for the slot (at most :data:`FEED_BATCH`
  games and about :data:`BATCH_SECONDS` of play each, so its matchmaking looks that far
  ahead at most);
  the games it picks at once are given within :meth:`RayCluster.together`, so that they
  wait together and go as batches, not one by one as each is given.
* **No shared disk.** A program bot's own files travel with its game, packed and named
  by their SHA-256 (``league.builds``): put once into Ray's object store, fetched by a
  node the first time one of its games needs them, checked against the digest and
  unpacked into the node's cache; once a node has placed a build, its games no longer
  carry the reference (a node whose cache lost it asks again). Results travel back as
  the task's value. Nothing on a node opens the driver's files or database.
* **The sandbox on each node.** A game whose bots are untrusted and whose sandbox is
  bubblewrap goes only to nodes that can make one; a node that cannot refuses such a game
  (:class:`NodeRefused`) rather than play it in a lesser sandbox. The node is said once in
  the log and shown in :meth:`RayCluster.nodes`.
* **Losing a node.** The games of a batch whose node dies (or that Ray could no longer
  place there) are played again on other nodes from the same tasks — the same seeds and
  bots, so the same games — with one warning line each. The caller's future gets the one
  outcome that arrived: a game is counted once and never lost.

Where a game was played is kept in its result: the record's configuration gets
``"node"`` (stored in ``games.config``), while the replay itself, which depends only on
the seed and the bots, does not say.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import functools
import hashlib
import logging
import os
import pickle
import platform
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, cast

from gameroom.core.errors import GameroomError
from gameroom.league.builds import Build, BuildError, NodeCache, own_paths, pack, place
from gameroom.league.table import TableOutcome, TableTask, play_table

__all__ = ["RayCluster", "ClusterError", "NodeRefused", "RESOURCE", "node_facts", "code_digest", "mismatch",
           "needs_sandbox"]

logger = logging.getLogger(__name__)

RESOURCE = "gameroom_games"
"""The custom Ray resource by which a node says how many games it plays at once."""
PROBE_SECONDS = 120.0
"""How long a node may take to answer what it runs (a new node starts a Python worker)."""
PARK_SECONDS = 300.0
"""How long a game waits for a node that can play it before it fails."""
LOST_LIMIT = 5
"""Nodes a game may lose before its failure is the caller's."""
REFRESH_SECONDS = 1.0
BATCH_MOST = 16
"""The most games one Ray task plays (see the module)."""
BATCH_LEAST = 4
"""The fewest games a Ray task plays while more games wait than the free slots take one
each (and their pace allows it): the last games of a league's block go four by four, not
one by one."""
BATCH_SECONDS = 0.5
"""About the most play one Ray task holds, at the pace such games went so far: a task's
own cost (a few milliseconds) is then at most about 1% of its games' time."""
BATCH_VARIABLE = "GAMEROOM_RAY_BATCH"
"""The environment variable that bounds every batch by its number of games, whatever their
pace (1: every game a task of its own, a lost node costing one game a slot; more: fewer
tasks for long games, but more played again when a node is lost and, in the arena,
matchmaking further ahead)."""
FEED_BATCH = 8
"""The most games of the batch :meth:`RayCluster.in_flight` counts for each slot (and of
the one waiting for it): short games then cost Ray well under a millisecond each, while
the arena's matchmaking looks at most 16 games a slot ahead."""
BUILDS_KEPT = 256
"""Packed builds the driver keeps in the object store (the most recently used): an older
one is packed and put again when its bot plays next."""
UNTRUSTED = ("command", "python", "policy")


class ClusterError(GameroomError):
    """The cluster cannot be joined or cannot play a game (the one line says why)."""


class NodeRefused(GameroomError):
    """A node cannot play a game as asked (no sandbox): it is played elsewhere."""


# -- what a node runs ---------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of gameroom's Python sources as installed here (their paths and bytes): two
    installations of one version number with different code differ."""
    import gameroom

    root = Path(gameroom.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _sandbox_problem() -> str | None:
    from gameroom.sandbox.bwrap import probe

    return probe()


def node_facts(sandbox: bool = True) -> dict[str, Any]:
    """What this process runs: gameroom's version and code digest, Ray's and Python's
    versions, and (``sandbox``) why bubblewrap cannot make a sandbox here (None: it can)."""
    import ray

    import gameroom

    return {"gameroom": gameroom.__version__, "code": code_digest(), "ray": ray.__version__,
            "python": platform.python_version(), "sandbox": _sandbox_problem() if sandbox else None}


def mismatch(node: dict[str, Any], here: dict[str, Any]) -> str | None:
    """What differs between a node's facts and this process's, in words; None: nothing."""
    def runs(facts: dict[str, Any]) -> str:
        return (f"gameroom {facts['gameroom']} (code {str(facts['code'])[:12]}), Ray {facts['ray']}, "
                f"Python {'.'.join(str(facts['python']).split('.')[:2])}")

    same = (node["gameroom"], node["code"], node["ray"]) == (here["gameroom"], here["code"], here["ray"]) \
        and str(node["python"]).split(".")[:2] == str(here["python"]).split(".")[:2]
    return None if same else f"runs {runs(node)}; this process {runs(here)}"


def needs_sandbox(task: TableTask) -> bool:
    """Whether the game's bots need bubblewrap on the node that plays it."""
    return task.sandbox.mode == "bwrap" and any(
        any(kind in spec for kind in UNTRUSTED) and not spec.get("remote") for spec in task.bots)


_cache: NodeCache | None = None


class _Unsent(Exception):   # control flow between a node and the driver, never the caller's
    """A build this node's cache does not hold, whose reference did not come with the game
    (the driver thought the node had placed it): the game goes again, with it."""


def _fetch(refs: dict[str, Any], digest: str) -> bytes:
    import ray

    ref = refs.get(digest)
    if ref is None:
        raise _Unsent(digest)
    data: bytes = ray.get(ref)
    return data


def _portable(exc: Exception, node: str) -> BaseException:
    """A game's failure as the driver can receive it: the exception itself when it can be
    pickled (else a ClusterError saying it), with the node's traceback as a note."""
    import traceback

    if isinstance(exc, _Unsent):
        return exc
    text = "".join(traceback.format_exception(exc)).rstrip()
    sent: BaseException = exc
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:   # noqa: BLE001 -- any failure to pickle: the failure said in words instead
        sent = ClusterError(f"{type(exc).__name__}: {exc}")
    sent.add_note(f"on node {node[:8]}:\n{text}")
    return sent


def _node_batch(play: Callable[[TableTask], TableOutcome], tasks: tuple[TableTask, ...],
                carried: tuple[tuple[tuple[str, str, str | None], ...], ...], refs: dict[str, Any]) -> bytes:
    """On a node: a batch's games played one after the other by ``play``, each with its
    bots' files placed from the cache (fetched once) and the node's id in its record's
    configuration, or the game's own failure; all pickled as one ``bytes`` with the
    seconds they took. NodeRefused when a game needs bubblewrap and this node cannot make
    a sandbox."""
    import ray

    global _cache
    node = ray.get_runtime_context().get_node_id()
    if any(needs_sandbox(task) for task in tasks):
        problem = _sandbox_problem()
        if problem is not None:
            raise NodeRefused(f"node {node[:8]} refuses program bots: {problem}")
    results: list[TableOutcome | BaseException] = []
    started = time.perf_counter()
    for task, carry in zip(tasks, carried):
        try:
            if carry:
                if _cache is None:
                    _cache = NodeCache()
                task = dataclasses.replace(task, places=place(carry, functools.partial(_fetch, refs), _cache))
            outcome = play(task)
            outcome.record.config["node"] = node
            results.append(outcome)
        except Exception as exc:   # noqa: BLE001 -- the game's failure, handed to its caller
            results.append(_portable(exc, node))
    return pickle.dumps((results, time.perf_counter() - started), protocol=pickle.HIGHEST_PROTOCOL)


# -- the driver's view of the nodes ---------------------------------------------------------

@dataclass
class _Node:
    id: str
    address: str
    capacity: int
    state: str = "probing"          # probing, ready, refused (another version), lost
    note: str = ""
    programs: bool = True           # can make the sandbox for program bots
    tasks: int = 0                  # Ray tasks (batches) in flight: at most one a slot
    in_flight: int = 0              # games in those
    games: int = 0
    finished: collections.deque[float] = field(default_factory=lambda: collections.deque(maxlen=10_000))
    probe: Any = None
    placed: set[str] = field(default_factory=set)
    """The builds (digests) a game of this node has had placed: later games do without
    their references (read and written by the dispatching thread alone)."""

    @property
    def short(self) -> str:
        return f"node {self.id[:8]} ({self.address})"

    def per_second(self, window: float = 60.0) -> float:
        horizon = time.monotonic() - window
        return sum(1 for at in self.finished if at >= horizon) / window


@dataclass(eq=False)
class _Game:
    task: TableTask
    outer: concurrent.futures.Future[TableOutcome]
    play: Callable[[TableTask], TableOutcome]
    programs: bool = False          # needs a node that can make the sandbox
    lost: int = 0
    since: float = field(default_factory=time.monotonic)
    """Since when no node that can play it has been ready (or since it was submitted)."""
    why: str = ""


@dataclass(eq=False)
class _Batch:
    node: _Node
    games: list[_Game]
    sent: frozenset[str] = frozenset()   # the builds whose references went with it


def _label(task: TableTask) -> str:
    extra = dict(task.extra)
    if "qualify" in extra:
        return f"qualification game {task.index} of {extra['qualify']}"
    where = extra.get("arena") or extra.get("league")
    return f"game {task.index}" + (f" of {where}" if where else "")


def _settle_future(future: concurrent.futures.Future[TableOutcome], outcome: TableOutcome | None = None,
                   exc: BaseException | None = None) -> None:
    """A caller's future resolved, unless it was already (the cluster left meanwhile)."""
    try:
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(cast(TableOutcome, outcome))
    except concurrent.futures.InvalidStateError:
        pass


class RayCluster:
    """Ray for this process, and the games it plays on the cluster's nodes (see the module).
    ``play``: what a node runs for a game (a function importable on every node, taking and
    returning what ``league.table.play_table`` does)."""

    def __init__(self, address: str | None = None, workers: int = 2,
                 play: Callable[[TableTask], TableOutcome] = play_table, need_capacity: bool = True) -> None:
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.batch = _fixed_batch()   # None: by the games' pace
        if self.address is None or _address_towards(self.address) in ("127.0.0.1", "::1"):
            _loopback_only()
        import ray   # missing: the command says which extra to install

        self.ray = ray
        self.play = play
        self._connect(workers)
        self.here = node_facts(sandbox=False)
        self._lock = threading.Lock()
        self._nodes: dict[str, _Node] = {}
        self._remotes: dict[str, Any] = {}
        self._builds: collections.OrderedDict[str, tuple[tuple[int, int, int], Build, Any]] = \
            collections.OrderedDict()   # by path, the least recently used first
        self._packing = threading.Lock()
        self._queue: list[_Game] = []              # waiting for a slot, the oldest first
        self._arrived: list[tuple[_Batch, concurrent.futures.Future[bytes]]] = []
        self._running: set[_Batch] = set()
        self._pace: dict[tuple[Any, str, bool], float] = {}   # seconds a game, as the nodes measured
        self._last_pace: float | None = None   # of the batch that came back last
        self._held = 0                          # callers within together(): nothing is sent meanwhile
        self._sent = (0, 0)                     # Ray tasks sent so far, and their games
        self._next_look = 0.0
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._game = ray.remote(num_cpus=0, max_retries=0, resources={RESOURCE: 1})(_node_batch)
        self._probe = ray.remote(num_cpus=0, max_retries=0)(node_facts)
        try:
            self._first_look(need_capacity)
        except BaseException:
            ray.shutdown()
            raise
        self._watch = threading.Thread(target=self._working, name="ray-cluster", daemon=True)
        self._watch.start()

    # -- joining ---------------------------------------------------------------------------

    def _connect(self, workers: int) -> None:
        ray = self.ray
        quiet = {"log_to_driver": False, "logging_level": logging.ERROR, "configure_logging": False}
        if ray.is_initialized():
            return
        if self.address:
            try:
                ray.init(address=self.address, _node_ip_address=_address_towards(self.address), **quiet)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                said = " ".join(str(exc).split())
                if "version mismatch" in said.lower():
                    raise ClusterError(f"the Ray cluster at {self.address} runs another Ray or Python than this "
                                       f"process: {said[:400]}") from None
                raise ClusterError(f"cannot join the Ray cluster at {self.address}: {said[:400]}") from None
            return
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")   # a local instance of ours reports to nobody
        # "local": a new instance of ours even where ``ray start`` left a cluster's address
        # in Ray's temporary folder, which a bare ray.init() would join
        ray.init(address="local", num_cpus=workers, resources={RESOURCE: workers}, include_dashboard=False,
                 _node_ip_address="127.0.0.1", **quiet)

    def _first_look(self, need_capacity: bool) -> None:
        """Every node with game slots asked what it runs; a node that differs is an error."""
        self._refresh()
        with self._lock:
            probing = [node for node in self._nodes.values() if node.state == "probing"]
        deadline = time.monotonic() + PROBE_SECONDS
        for node in probing:
            self._answer(node, timeout=max(0.1, deadline - time.monotonic()), first=True)
        if need_capacity and self.capacity(programs=False) == 0:
            where = f"the Ray cluster at {self.address}" if self.address else "the local Ray instance"
            if any(node.state == "probing" for node in self._nodes.values()):
                raise ClusterError(f"no node of {where} said what it runs within {PROBE_SECONDS:.0f} s")
            raise ClusterError(f"no node of {where} offers game slots: start each node with "
                               f"ray start ... --resources='{{\"{RESOURCE}\": N}}' (N: games it plays at once)")

    def _refresh(self) -> None:
        """The nodes as Ray sees them now: new ones asked what they run, lost ones said once."""
        seen = self.ray.nodes()
        lost, new = [], []
        with self._lock:
            for entry in seen:
                node_id = entry["NodeID"]
                slots = int(entry.get("Resources", {}).get(RESOURCE, 0))
                node = self._nodes.get(node_id)
                if node is None and entry.get("Alive") and slots > 0:
                    new.append(_Node(node_id, entry.get("NodeManagerAddress", "?"), slots))
                elif node is not None and not entry.get("Alive") and node.state != "lost":
                    lost.append(node)
                    node.state = "lost"
        for node in new:
            node.probe = self._probe_on(node.id)
            with self._lock:
                self._nodes[node.id] = node
        for node in lost:
            logger.warning("%s is lost: its games in flight are played again on other nodes", node.short,
                           extra={"fields": {"node": node.id, "address": node.address}})

    def _probe_on(self, node_id: str) -> Any:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        return self._probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False)).remote()

    def _answer(self, node: _Node, timeout: float, first: bool = False) -> None:
        """Take a node's answer to the probe (waiting up to ``timeout``); at start, a node
        of another version is an error, later one warning line and no games. A node that
        died meanwhile is lost; one that has not answered is asked on."""
        from ray.exceptions import RayError, RayTaskError

        ready, _ = self.ray.wait([node.probe], timeout=timeout)
        if not ready:
            if first:
                logger.warning("%s has not said what it runs in %.0f s: it gets games once it does", node.short,
                               PROBE_SECONDS, extra={"fields": {"node": node.id}})
            return
        facts: dict[str, Any] | None = None
        problem: str | None
        try:
            facts = self.ray.get(node.probe)
        except RayError as exc:
            if not isinstance(exc, RayTaskError):   # the node (or its worker) died before it answered
                with self._lock:
                    node.probe, node.state = None, "lost"
                logger.warning("%s is lost before it said what it runs (%s)", node.short, type(exc).__name__,
                               extra={"fields": {"node": node.id, "address": node.address}})
                return
            problem = f"cannot run gameroom: {' '.join(str(exc.cause if exc.cause else exc).split())[:300]}"
        else:
            assert facts is not None
            problem = mismatch(facts, self.here)
        with self._lock:
            node.probe = None
            if node.state == "lost":
                return
            if problem is not None:
                node.state, node.note = "refused", problem
            else:
                node.state = "ready"
                if facts is not None and facts.get("sandbox"):
                    node.programs, node.note = False, f"refuses program bots: {facts['sandbox']}"
        if problem is not None:
            line = f"{node.short} {problem}: install the same gameroom and Ray on every node"
            if first:
                raise ClusterError(line)
            logger.warning("%s; it gets no games", line, extra={"fields": {"node": node.id}})
        elif not node.programs:
            logger.warning("%s %s", node.short, node.note, extra={"fields": {"node": node.id}})

    # -- what the caller reads ---------------------------------------------------------------

    def capacity(self, programs: bool = True) -> int:
        """Games the nodes take at once: the slots of the nodes that can play program bots
        (``programs``), or of every node that plays."""
        with self._lock:
            return sum(node.capacity for node in self._nodes.values()
                       if node.state == "ready" and (node.programs or not programs))

    def in_flight(self) -> int:
        """Games a caller that gives a game as another ends (the arena's ladder) keeps given,
        so that they go in batches: each slot's batch, as many games as fill BATCH_SECONDS
        at the pace of the games that came back last (at most FEED_BATCH; GAMEROOM_RAY_BATCH
        when it is set), and, when that is more than one, another batch waiting for the
        slot; the slots alone until a game has come back."""
        slots, pace = self.capacity(), self._last_pace
        if self.batch is not None:
            batch = self.batch
        else:
            batch = 1 if pace is None else max(1, min(FEED_BATCH, int(BATCH_SECONDS / max(pace, 1e-6))))
        return slots if batch == 1 else 2 * slots * batch

    def sent(self) -> tuple[int, int]:
        """Ray tasks sent so far and the games they held (their ratio: the games a task)."""
        with self._lock:
            return self._sent

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """The games submitted within are sent once it ends, together, so that they go in
        batches (the arena's ladder picks its games one by one)."""
        with self._lock:
            self._held += 1
        try:
            yield
        finally:
            with self._lock:
                self._held -= 1
            self._wake.set()

    def nodes(self) -> list[dict[str, Any]]:
        """Every node that offers game slots: its id, address, slots, games in flight and
        played, games a second over the last minute, state and what is wrong with it."""
        with self._lock:
            return [{"node": n.id, "id": n.id[:8], "address": n.address, "capacity": n.capacity,
                     "in_flight": n.in_flight, "games": n.games, "games_per_second": round(n.per_second(), 3),
                     "state": n.state, "note": n.note}
                    for n in sorted(self._nodes.values(), key=lambda n: (n.address, n.id))]

    # -- playing -------------------------------------------------------------------------------

    def submit(self, task: TableTask, play: Callable[[TableTask], TableOutcome] | None = None
               ) -> concurrent.futures.Future[TableOutcome]:
        """Play ``task`` on a node (by ``play``, else the cluster's): a future of its outcome
        (played again elsewhere when its node is lost; the failure of the game itself
        otherwise)."""
        return self.submit_all([task], play)[0]

    def submit_all(self, tasks: Sequence[TableTask], play: Callable[[TableTask], TableOutcome] | None = None
                   ) -> list[concurrent.futures.Future[TableOutcome]]:
        """:meth:`submit` for each of ``tasks`` at once (a league's block): they wait
        together, so that they are played in batches."""
        games = [_Game(task, concurrent.futures.Future(), play or self.play, needs_sandbox(task)) for task in tasks]
        for game in games:
            game.outer.set_running_or_notify_cancel()
        with self._lock:
            left = self._stopping.is_set()
            if not left:
                self._queue.extend(games)
        if left:
            for game in games:
                _settle_future(game.outer, exc=ClusterError(f"{_label(game.task)} was not played: the cluster "
                                                            "was left"))
        self._wake.set()
        return [game.outer for game in games]

    def _working(self) -> None:
        """The one thread that sends and receives batches: woken by a submission or a batch
        come back, and every second to look at the nodes (new nodes' answers taken, games
        that no node could play for too long failed)."""
        while not self._stopping.is_set():
            self._wake.wait(max(0.0, self._next_look - time.monotonic()))
            self._wake.clear()
            if self._stopping.is_set():
                return
            try:
                with self._lock:
                    arrived, self._arrived = self._arrived, []
                for landed, inner in arrived:
                    self._settle(landed, inner)
                if time.monotonic() >= self._next_look:
                    self._next_look = time.monotonic() + REFRESH_SECONDS
                    self._look()
                while (batch := self._next_batch()) is not None:
                    self._launch(batch)
            except Exception:   # the thread goes on; what failed is in the log
                logger.warning("playing on the Ray cluster failed", exc_info=True)

    def _look(self) -> None:
        self._refresh()
        with self._lock:
            probing = [node for node in self._nodes.values() if node.probe is not None]
        for node in probing:
            self._answer(node, timeout=0)
        now = time.monotonic()
        expired: list[_Game] = []
        with self._lock:
            fit = {programs: any(node.state == "ready" and node.capacity > 0 and (node.programs or not programs)
                                 for node in self._nodes.values()) for programs in (False, True)}
            for game in self._queue:
                if fit[game.programs]:
                    game.since = now   # waiting for a slot, not for a node
                elif now - game.since > PARK_SECONDS:
                    expired.append(game)
            if expired:
                self._queue = [game for game in self._queue if game not in expired]
        for game in expired:
            _settle_future(game.outer, exc=ClusterError(
                f"no node of the cluster could play {_label(game.task)} for {PARK_SECONDS:.0f} s"
                + (f" (last: {game.why})" if game.why else "")))

    def _next_batch(self) -> _Batch | None:
        """The next batch to send, taken from the queue, for the ready node with a free slot
        that has the fewest tasks for its slots; None: no game waits, no slot is free for
        one, or a caller is within :meth:`together`."""
        with self._lock:
            if not self._queue or self._held:
                return None
            ready = [node for node in self._nodes.values() if node.state == "ready" and node.capacity > 0]
            slots = sum(node.capacity for node in ready)
            free = sum(node.capacity - node.tasks for node in ready if node.tasks < node.capacity)
            for node in sorted((node for node in ready if node.tasks < node.capacity),
                               key=lambda n: (n.tasks / n.capacity, n.games, n.id)):
                first = next((game for game in self._queue if node.programs or not game.programs), None)
                if first is None:
                    continue
                size = self._size(first, slots, free)
                chosen: list[_Game] = []
                for game in self._queue:
                    if game.play is first.play and game.task.game == first.task.game \
                            and game.programs == first.programs:
                        chosen.append(game)
                        if len(chosen) == size:
                            break
                self._queue = [game for game in self._queue if game not in chosen]
                node.tasks += 1
                self._sent = (self._sent[0] + 1, self._sent[1] + len(chosen))
                node.in_flight += len(chosen)
                return _Batch(node, chosen)
            return None

    def _size(self, first: _Game, slots: int, free: int) -> int:
        """How many games go in a batch (under the lock): the waiting games shared by the
        ``slots``, at least BATCH_LEAST while more wait than the ``free`` slots take one
        each, at most BATCH_MOST, and as many as fill BATCH_SECONDS at the pace such games
        went so far (one until one has come back); GAMEROOM_RAY_BATCH, when set, in place
        of these two bounds."""
        waiting = len(self._queue)
        shared = max(-(-waiting // max(1, slots)), BATCH_LEAST if waiting > free else 1)
        if self.batch is not None:   # the operator's bound, whatever the pace
            return max(1, min(self.batch, shared))
        pace = self._pace.get((first.play, first.task.game, first.programs))
        timed = 1 if pace is None else int(BATCH_SECONDS / max(pace, 1e-6))
        return max(1, min(BATCH_MOST, shared, timed))

    def _launch(self, batch: _Batch) -> None:
        """``batch`` sent to its node, with the references of the builds the node has not
        placed yet; a game whose bots' files cannot be packed fails alone."""
        node = batch.node
        tasks, carried = [], []
        refs: dict[str, Any] = {}
        for game in list(batch.games):
            try:
                carry, needed = self._carry(game.task)
            except Exception as exc:   # noqa: BLE001 -- the game's failure, handed to its caller
                batch.games.remove(game)
                with self._lock:
                    node.in_flight -= 1
                _settle_future(game.outer, exc=exc)
                continue
            tasks.append(game.task)
            carried.append(carry)
            refs.update((digest, ref) for digest, ref in needed.items() if digest not in node.placed)
        batch.sent = frozenset(refs)
        try:
            if not batch.games:
                raise LookupError("nothing left to send")
            ref = self._remote_on(node.id).remote(batch.games[0].play, tuple(tasks), tuple(carried), refs)
        except Exception as exc:   # noqa: BLE001 -- the games' failure, handed to their callers
            with self._lock:
                node.tasks -= 1
                node.in_flight -= len(batch.games)
            for game in batch.games:
                _settle_future(game.outer, exc=exc)
            return
        with self._lock:
            self._running.add(batch)
        ref.future().add_done_callback(functools.partial(self._landed, batch))

    def _landed(self, batch: _Batch, inner: concurrent.futures.Future[bytes]) -> None:
        """On Ray's thread: a batch came back (or failed), for the dispatching thread."""
        with self._lock:
            self._arrived.append((batch, inner))
        self._wake.set()

    def _remote_on(self, node_id: str) -> Any:
        remote = self._remotes.get(node_id)
        if remote is None:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            remote = self._remotes[node_id] = self._game.options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False))
        return remote

    def _carry(self, task: TableTask) -> tuple[tuple[tuple[str, str, str | None], ...], dict[str, Any]]:
        """The program bots' own files of ``task``: (as written, digest, file name) each,
        and the object-store references of their archives (packed and put once)."""
        carried: list[tuple[str, str, str | None]] = []
        refs: dict[str, Any] = {}
        for spec in task.bots:
            for written in _own_paths(_key(spec), os.getcwd()):
                absolute = os.path.abspath(written)
                try:
                    found = os.stat(absolute)
                except OSError as exc:
                    raise BuildError(f"bot {spec.get('name')!r}: {written}: {exc.strerror}") from None
                stamp = (found.st_mtime_ns, found.st_size, found.st_ino)
                with self._packing:
                    kept = self._builds.get(absolute)
                    if kept is None or kept[0] != stamp:
                        build = pack(absolute)
                        kept = self._builds[absolute] = (stamp, build, self.ray.put(build.data))
                        while len(self._builds) > BUILDS_KEPT:   # a game in flight still holds what it uses
                            self._builds.popitem(last=False)
                    self._builds.move_to_end(absolute)
                carried.append((written, kept[1].digest, kept[1].name))
                refs[kept[1].digest] = kept[2]
        return tuple(carried), refs

    def _settle(self, batch: _Batch, inner: concurrent.futures.Future[bytes]) -> None:
        """A batch came back from its node: each game's outcome (or its own failure) to its
        caller; or, the node lost or refusing, every game of it played again elsewhere."""
        node = batch.node
        with self._lock:
            node.tasks -= 1
            node.in_flight -= len(batch.games)
            self._running.discard(batch)
        try:
            results, seconds = pickle.loads(inner.result())
        except BaseException as exc:   # noqa: BLE001 -- played again, or the callers'
            self._failed(batch, exc)
            return
        node.placed |= batch.sent
        key = (batch.games[0].play, batch.games[0].task.game, batch.games[0].programs)
        pace = seconds / len(batch.games)
        self._pace[key] = self._last_pace = pace if key not in self._pace else (self._pace[key] + pace) / 2
        now = time.monotonic()
        again: list[_Game] = []
        for game, result in zip(batch.games, results):
            if isinstance(result, _Unsent):   # the node's cache lost a build: sent again, with it
                node.placed.discard(str(result.args[0]))
                again.append(game)
            elif isinstance(result, BaseException):
                _settle_future(game.outer, exc=result)
            else:
                with self._lock:
                    node.games += 1
                    node.finished.append(now)
                _settle_future(game.outer, result)
        if again:
            with self._lock:
                self._queue[:0] = again

    def _failed(self, batch: _Batch, exc: BaseException) -> None:
        """A batch that did not come back: played again elsewhere when its node was lost or
        refused it (one line a game), else each game's failure."""
        from ray.exceptions import NodeDiedError, RayError, RayTaskError, TaskUnschedulableError

        node = batch.node
        why = None
        if isinstance(exc, NodeRefused) or isinstance(getattr(exc, "cause", None), NodeRefused):
            with self._lock:
                first = node.programs
                node.programs = False
                node.note = node.note or f"refuses program bots: {exc}"
            if first:
                logger.warning("%s refuses program bots: it has no sandbox", node.short,
                               extra={"fields": {"node": node.id}})
            why = f"{node.short} refused it (no sandbox)"
        elif isinstance(exc, RayError) and not isinstance(exc, RayTaskError):
            if isinstance(exc, (NodeDiedError, TaskUnschedulableError)):
                with self._lock:
                    node.state = "lost"
            why = f"{node.short} was lost ({type(exc).__name__})"
        now = time.monotonic()
        again: list[_Game] = []
        for game in batch.games:
            if why is None or game.lost >= LOST_LIMIT:
                _settle_future(game.outer, exc=exc)
                continue
            game.lost += 1
            game.why, game.since = why, now
            logger.warning("%s is played again on another node from its seed: %s", _label(game.task), why,
                           extra={"fields": {"node": node.id, "index": game.task.index}})
            again.append(game)
        if again:
            with self._lock:
                self._queue[:0] = again

    def close(self) -> None:
        """Leave the cluster: the games not played yet fail (ClusterError)."""
        with self._lock:
            self._stopping.set()
            waiting, self._queue = self._queue, []
            running, self._running = self._running, set()
        self._wake.set()
        self._watch.join(5)
        for game in [*waiting, *(game for batch in running for game in batch.games)]:
            _settle_future(game.outer, exc=ClusterError(f"{_label(game.task)} was not played: the cluster was left"))
        self.ray.shutdown()


def _fixed_batch() -> int | None:
    """The games every batch holds at most as the environment's GAMEROOM_RAY_BATCH says
    (None: unset; ClusterError when it is not a whole number from 1 to 1000)."""
    given = os.environ.get(BATCH_VARIABLE, "").strip()
    if not given:
        return None
    if not given.isdigit() or not 1 <= int(given) <= 1000:
        raise ClusterError(f"{BATCH_VARIABLE}={given!r}: the games one Ray task plays at most must be a whole "
                           "number from 1 to 1000")
    return int(given)


def _loopback_only() -> None:
    """Keep a Ray of this machine alone (a local instance, or a cluster on 127.0.0.1) on the
    loopback: told 127.0.0.1, Ray would otherwise look up and bind the machine's outside
    address (its single-machine switch, read by this process and the ones Ray starts)."""
    import sys

    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    constants: Any = sys.modules.get("ray._private.ray_constants")
    if constants is not None:   # imported already: the switch was read
        constants.ENABLE_RAY_CLUSTER = False


def _address_towards(head: str) -> str | None:
    """This machine's address on the way to the cluster's head (a route looked up, no
    packet sent), for Ray to bind: the network the cluster is on, not the one towards the
    Internet that Ray would look for otherwise. None when the address is not HOST:PORT."""
    import socket

    host, colon, port = head.rpartition(":")
    host = host.strip("[]")
    if not colon or not port.isdigit() or "/" in host:
        return None
    try:
        family = socket.getaddrinfo(host, int(port), proto=socket.IPPROTO_UDP)[0]
        with socket.socket(family[0], socket.SOCK_DGRAM) as probe:
            probe.connect(family[4])
            return str(probe.getsockname()[0])
    except OSError:
        return None


def _key(spec: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    command = spec.get("command")
    return (tuple(command) if isinstance(command, list) else (), tuple(spec.get("read", ())))


@functools.lru_cache(maxsize=4096)
def _own_paths(key: tuple[tuple[str, ...], tuple[str, ...]], cwd: str) -> tuple[str, ...]:
    """``builds.own_paths`` of a spec's argv and ``read`` (the same bots, game after game)."""
    command, read = key
    if not command:
        return ()
    return tuple(own_paths({"command": list(command), "read": list(read)}, cwd))

