"""Games on a Ray cluster: joining it, placing each game on a node, carrying the bots'
files there, and playing a game again elsewhere when its node is lost.

Used by the league's Ray backend (``league.runner``) and the arena's (``arena.ladder``);
nothing here names a game.

* **Joining.** :class:`RayCluster` attaches this process to the cluster at the address it
  is given (an ``arena.toml``'s ``ray_address``) or in ``RAY_ADDRESS``; with neither, it
  starts a local Ray instance as before, bound to 127.0.0.1, with ``workers`` game slots.
  Every node that offers game slots is asked once what it runs (:func:`node_facts`:
  gameroom's version and a digest of its code, Ray's and Python's versions, whether it can
  make the sandbox): a node that differs from this process is one line — an error at
  start (:class:`ClusterError`), later a warning, and that node gets no game.
* **Capacity.** A node says how many games it plays at once with the custom resource
  :data:`RESOURCE` (``ray start --resources='{"gameroom_games": 8}'``); every game asks
  for one. :meth:`RayCluster.capacity` is their sum over the nodes that can play, which
  the ladder keeps in flight; each game goes to the node with the fewest games in flight
  for its slots (Ray's node affinity), so every node is kept busy and the driver knows
  where each game is.
* **No shared disk.** A program bot's own files travel with its game, packed and named
  by their SHA-256 (``league.builds``): put once into Ray's object store, fetched by a
  node the first time one of its games needs them, checked against the digest and
  unpacked into the node's cache. Results travel back as the game's value. Nothing on a
  node opens the driver's files or database.
* **The sandbox on each node.** A game whose bots are untrusted and whose sandbox is
  bubblewrap goes only to nodes that can make one; a node that cannot refuses such a game
  (:class:`NodeRefused`) rather than play it in a lesser sandbox. The node is said once in
  the log and shown in :meth:`RayCluster.nodes`.
* **Losing a node.** A game whose node dies (or that Ray could no longer place there) is
  played again on another node from the same task — the same seed and bots, so the same
  game — with one warning line. The caller's future gets the one outcome that arrived:
  a game is counted once and never lost.

Where a game was played is kept in its result: the record's configuration gets
``"node"`` (stored in ``games.config``), while the replay itself, which depends only on
the seed and the bots, does not say.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import functools
import hashlib
import logging
import os
import platform
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

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


def _node_game(play: Callable[[TableTask], TableOutcome], task: TableTask,
               carried: tuple[tuple[str, str, str | None], ...], refs: dict[str, Any]) -> TableOutcome:
    """On a node: the game's bots' files placed from the cache (fetched once), the game
    played by ``play``, and the node's id put in its result. NodeRefused when the game
    needs bubblewrap and this node cannot make a sandbox."""
    import ray

    global _cache
    node = ray.get_runtime_context().get_node_id()
    if needs_sandbox(task):
        problem = _sandbox_problem()
        if problem is not None:
            raise NodeRefused(f"node {node[:8]} refuses program bots: {problem}")
    if carried:
        if _cache is None:
            _cache = NodeCache()
        task = dataclasses.replace(task, places=place(carried, lambda digest: ray.get(refs[digest]), _cache))
    outcome = play(task)
    outcome.record.config["node"] = node
    return outcome


# -- the driver's view of the nodes ---------------------------------------------------------

@dataclass
class _Node:
    id: str
    address: str
    capacity: int
    state: str = "probing"          # probing, ready, refused (another version), lost
    note: str = ""
    programs: bool = True           # can make the sandbox for program bots
    in_flight: int = 0
    games: int = 0
    finished: collections.deque[float] = field(default_factory=lambda: collections.deque(maxlen=10_000))
    probe: Any = None

    @property
    def short(self) -> str:
        return f"node {self.id[:8]} ({self.address})"

    def per_second(self, window: float = 60.0) -> float:
        horizon = time.monotonic() - window
        return sum(1 for at in self.finished if at >= horizon) / window


@dataclass
class _Game:
    task: TableTask
    outer: concurrent.futures.Future[TableOutcome]
    play: Callable[[TableTask], TableOutcome]
    lost: int = 0
    since: float = field(default_factory=time.monotonic)
    why: str = ""


def _label(task: TableTask) -> str:
    extra = dict(task.extra)
    if "qualify" in extra:
        return f"qualification game {task.index} of {extra['qualify']}"
    where = extra.get("arena") or extra.get("league")
    return f"game {task.index}" + (f" of {where}" if where else "")


class RayCluster:
    """Ray for this process, and the games it plays on the cluster's nodes (see the module).
    ``play``: what a node runs for a game (a function importable on every node, taking and
    returning what ``league.table.play_table`` does)."""

    def __init__(self, address: str | None = None, workers: int = 2,
                 play: Callable[[TableTask], TableOutcome] = play_table, need_capacity: bool = True) -> None:
        self.address = address or os.environ.get("RAY_ADDRESS") or None
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
        self._parked: list[_Game] = []
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._game = ray.remote(num_cpus=0, max_retries=0, resources={RESOURCE: 1})(_node_game)
        self._probe = ray.remote(num_cpus=0, max_retries=0)(node_facts)
        try:
            self._first_look(need_capacity)
        except BaseException:
            ray.shutdown()
            raise
        self._watch = threading.Thread(target=self._watching, name="ray-cluster", daemon=True)
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
        outer: concurrent.futures.Future[TableOutcome] = concurrent.futures.Future()
        outer.set_running_or_notify_cancel()
        self._launch(_Game(task, outer, play or self.play))
        return outer

    def _choose(self, task: TableTask) -> _Node | None:
        programs = needs_sandbox(task)
        with self._lock:
            fit = [node for node in self._nodes.values()
                   if node.state == "ready" and node.capacity > 0 and (node.programs or not programs)]
            if not fit:
                return None
            node = min(fit, key=lambda n: (n.in_flight / n.capacity, n.games, n.id))
            node.in_flight += 1
            return node

    def _launch(self, game: _Game) -> None:
        node = self._choose(game.task)
        if node is None:
            with self._lock:
                self._parked.append(game)
            return
        try:
            carried, refs = self._carry(game.task)
            ref = self._remote_on(node.id).remote(game.play, game.task, carried, refs)
        except Exception as exc:   # noqa: BLE001 -- the game's failure, handed to its caller
            with self._lock:
                node.in_flight -= 1
            game.outer.set_exception(exc)
            return
        ref.future().add_done_callback(functools.partial(self._landed, game, node))

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

    def _landed(self, game: _Game, node: _Node, inner: concurrent.futures.Future[TableOutcome]) -> None:
        """A game came back from ``node``: its outcome to the caller, or (a lost node, a
        refusal) the game played again elsewhere."""
        from ray.exceptions import NodeDiedError, RayError, RayTaskError, TaskUnschedulableError

        with self._lock:
            node.in_flight -= 1
        try:
            outcome = inner.result()
        except BaseException as exc:   # noqa: BLE001 -- played again, or the caller's
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
                        node.state = "lost" if node.state != "lost" else node.state
                why = f"{node.short} was lost ({type(exc).__name__})"
            if why is None or game.lost >= LOST_LIMIT:
                game.outer.set_exception(exc)
                return
            game.lost += 1
            game.why = why
            logger.warning("%s is played again on another node from its seed: %s", _label(game.task), why,
                           extra={"fields": {"node": node.id, "index": game.task.index}})
            with self._lock:
                self._parked.append(game)   # relaunched by the watcher, not on Ray's callback thread
            self._wake.set()
            return
        with self._lock:
            node.games += 1
            node.finished.append(time.monotonic())
        game.outer.set_result(outcome)

    def _watching(self) -> None:
        """Every second (or when woken): the nodes looked at, new nodes' answers taken, the
        games waiting for a node launched, those that waited too long failed."""
        while not self._stopping.is_set():
            self._wake.wait(REFRESH_SECONDS)
            self._wake.clear()
            if self._stopping.is_set():
                return
            try:
                self._refresh()
                with self._lock:
                    probing = [node for node in self._nodes.values() if node.probe is not None]
                for node in probing:
                    self._answer(node, timeout=0)
                with self._lock:
                    waiting, self._parked = self._parked, []
                for game in waiting:
                    if time.monotonic() - game.since > PARK_SECONDS:
                        game.outer.set_exception(ClusterError(
                            f"no node of the cluster could play {_label(game.task)} for {PARK_SECONDS:.0f} s"
                            + (f" (last: {game.why})" if game.why else "")))
                    else:
                        self._launch(game)
            except Exception:   # the watcher goes on; what failed is in the log
                logger.warning("looking at the Ray cluster failed", exc_info=True)

    def close(self) -> None:
        self._stopping.set()
        self._wake.set()
        self._watch.join(5)
        with self._lock:
            waiting, self._parked = self._parked, []
        for game in waiting:
            game.outer.set_exception(ClusterError(f"{_label(game.task)} was not played: the cluster was left"))
        self.ray.shutdown()


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

