"""A real Ray cluster on this machine for the tests, inside a network namespace of its own.

Ray's nodes bind the machine's first external address unless told otherwise, and they
try an outside address to learn it; this project's tests send traffic to 127.0.0.0/8
only. So every Ray of the tests lives in a network namespace that holds nothing but
``lo`` (``unshare --net``, as root), where the head and every node bind 127.0.0.1:

* :class:`ClusterProcess` (the tests' side) starts ``python -m tests.ray_cluster`` in a new
  namespace: the head (``ray.cluster_utils.Cluster``, one game slot) with no more nodes
  than asked, and talks to it in JSON lines to add a node (a node of
  ``Cluster.add_node``, or one started with ``ray start`` in a mount namespace of its own
  where folders are covered by an empty tmpfs, bubblewrap is made unusable or the
  environment differs) and to kill one (SIGKILL, as a machine is lost). Commands that use
  the cluster run in the same namespace (``nsenter --net``): :meth:`ClusterProcess.run`.
* :func:`in_new_namespace` runs a command in a namespace of its own (a local Ray instance
  started by the command itself).

Where the namespace cannot be made (not root, no ``unshare``), :func:`namespace_or_skip`
skips the test with one line saying so.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

REPO = Path(__file__).resolve().parents[1]
RESOURCE = "gameroom_games"
T = TypeVar("T")
NAMESPACE = ["unshare", "--net", "--fork", "sh", "-c", 'ip link set lo up && exec "$@"', "netns"]


def namespace_or_skip() -> None:
    """Skip (one line) where a network namespace holding only ``lo`` cannot be made here."""
    import pytest

    try:
        made = subprocess.run([*NAMESPACE, "true"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"Ray's tests need a network namespace of their own (unshare --net): {exc}")
    if made.returncode != 0:
        pytest.skip("Ray's tests need a network namespace of their own (unshare --net, as root): "
                    + " ".join(made.stderr.split())[:200])


def in_new_namespace(argv: Sequence[str], env: dict[str, str] | None = None, timeout: float = 600,
                     cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``argv`` run in a network namespace of its own (only ``lo``, up)."""
    return subprocess.run([*NAMESPACE, *argv], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=cwd)


class ClusterProcess:
    """The tests' handle on a cluster in its own namespace (see the module)."""

    def __init__(self, folder: Path, head_slots: int = 1) -> None:
        self.folder = folder
        self.log = open(folder / "cluster.log", "wb")
        self.process = subprocess.Popen([*NAMESPACE, sys.executable, "-m", "tests.ray_cluster", str(folder),
                                         str(head_slots)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.log, cwd=REPO, text=True, bufsize=1)
        started = self._answer(300)
        self.address: str = started["address"]
        self.pid: int = started["pid"]
        self.head: str = started["head"]
        self.ids: dict[str, str] = {"head": self.head}

    def _answer(self, seconds: float) -> dict[str, Any]:
        import selectors

        assert self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(seconds):
                raise AssertionError(f"the cluster did not answer in {seconds} s:\n{self.tail()}")
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f"the cluster process ended:\n{self.tail()}")
        answer = json.loads(line)
        if "error" in answer:
            raise AssertionError(f"the cluster process: {answer['error']}\n{self.tail()}")
        return answer

    def tail(self) -> str:
        self.log.flush()
        return (self.folder / "cluster.log").read_text(errors="replace")[-4000:]

    def ask(self, command: dict[str, Any], seconds: float = 300) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self._answer(seconds)

    def add(self, name: str, slots: int = 1, hide: Sequence[str] = (), no_bwrap: bool = False,
            env: dict[str, str] | None = None) -> str:
        """A worker node named ``name`` (its id): ``slots`` games at once; ``hide``:
        folders covered by an empty tmpfs for its processes; ``no_bwrap``: bubblewrap
        unusable there; ``env``: more environment for its processes."""
        answer = self.ask({"add": name, "slots": slots, "hide": list(hide), "no_bwrap": no_bwrap, "env": env or {}})
        self.ids[name] = answer["id"]
        return answer["id"]

    def kill(self, name: str) -> None:
        """SIGKILL the node ``name`` and everything it runs, as a machine is lost."""
        self.ask({"kill": name})

    def run(self, argv: Sequence[str], env: dict[str, str] | None = None, timeout: float = 600,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """``argv`` run in the cluster's namespace with ``RAY_ADDRESS`` naming it."""
        return subprocess.run(["nsenter", f"--net=/proc/{self.pid}/ns/net", "--", *argv], capture_output=True,
                              text=True, timeout=timeout, cwd=cwd or REPO,
                              env={**os.environ, "RAY_ADDRESS": self.address, **(env or {})})

    def popen(self, argv: Sequence[str], log: Path, env: dict[str, str] | None = None,
              cwd: Path | None = None) -> subprocess.Popen[bytes]:
        """``argv`` started in the cluster's namespace (output to ``log``)."""
        with open(log, "wb") as out:
            return subprocess.Popen(["nsenter", f"--net=/proc/{self.pid}/ns/net", "--", *argv], stdout=out,
                                    stderr=out, cwd=cwd or REPO, env={**os.environ, **(env or {})})

    def inside(self, work: Callable[[], T]) -> T:
        """``work()`` done on a thread of this process that has entered the cluster's
        network namespace (a namespace is a thread's): the sockets it makes are there."""
        import concurrent.futures
        import ctypes

        def entered() -> T:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(f"/proc/{self.pid}/ns/net", os.O_RDONLY)
            try:
                if libc.setns(fd, 0x40000000) != 0:   # CLONE_NEWNET
                    raise OSError(ctypes.get_errno(), "setns into the cluster's network namespace")
            finally:
                os.close(fd)
            return work()

        with concurrent.futures.ThreadPoolExecutor(1) as thread:   # the thread ends with its namespace
            return thread.submit(entered).result()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)
        self.log.close()


# -- the cluster's side (python -m tests.ray_cluster FOLDER HEAD_SLOTS, in the namespace) -------

def _session_members(session: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == session:
                    members.append(int(entry))
            except OSError:
                continue
    return members


SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch that keeps a process told 127.0.0.1 on it (``league.cluster``): set here,
so that neither the head nor a node looks for an outside address; ``ray start`` refuses
to add a node with it set, so its nodes go without (their address given)."""


def _kill_session(leader: int) -> None:
    """SIGKILL every process of ``leader``'s session (a node started with ``ray start``)."""
    for pid in _session_members(leader):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _serve(folder: Path, head_slots: int) -> None:
    os.environ[SINGLE_MACHINE] = "0"
    answers = os.fdopen(os.dup(1), "w")   # the answers' own channel: what Ray prints goes to the log
    os.dup2(2, 1)
    import ray
    from ray.cluster_utils import Cluster

    temp = f"/tmp/gr-ray-{os.getpid()}"   # short: Ray's socket paths must fit 107 bytes
    cluster = Cluster(initialize_head=True, connect=False,
                      head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False,
                                      "resources": {RESOURCE: head_slots, "node_head": 1}, "temp_dir": temp,
                                      # a killed node known as dead in about 2 s rather than 15-30
                                      "_system_config": {"health_check_period_ms": 500,
                                                         "health_check_failure_threshold": 4}})
    ray.init(address=cluster.address, log_to_driver=False, _node_ip_address="127.0.0.1", configure_logging=False)
    added: dict[str, Any] = {}
    ids: dict[str, str] = {}

    def node_id(marker: str, seconds: float = 240) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for node in ray.nodes():
                if node["Alive"] and node["Resources"].get(marker):
                    return str(node["NodeID"])
            time.sleep(0.3)
        raise RuntimeError(f"no node with {marker} joined in {seconds} s")

    def say(answer: dict[str, Any]) -> None:
        answers.write(json.dumps(answer) + "\n")
        answers.flush()

    say({"address": cluster.address, "pid": os.getpid(), "head": node_id("node_head")})
    for line in sys.stdin:
        command = json.loads(line)
        try:
            if "add" in command:
                name = command["add"]
                resources = {RESOURCE: command["slots"], f"node_{name}": 1}
                if command["hide"] or command["no_bwrap"] or command["env"]:
                    mounts = [f"mount -t tmpfs -o size=1m,mode=0755 tmpfs '{path}'" for path in command["hide"]]
                    if command["no_bwrap"]:
                        mounts.append("mount --bind /dev/null \"$(command -v bwrap)\"")
                    ray_command = os.path.join(os.path.dirname(sys.executable), "ray")
                    script = " && ".join([*mounts, f"exec '{ray_command}' start --address={cluster.address} "
                                                   f"--node-ip-address=127.0.0.1 --num-cpus=1 "
                                                   f"--resources='{json.dumps(resources)}' --block "
                                                   f"--disable-usage-stats"])
                    log = open(folder / f"node-{name}.log", "wb")
                    added[name] = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                                                    script], start_new_session=True, stdout=log, stderr=log,
                                                   cwd=REPO, env={**{k: v for k, v in os.environ.items() if k != SINGLE_MACHINE},
                                                                 **command["env"]})
                else:
                    added[name] = cluster.add_node(num_cpus=1, resources=resources, node_ip_address="127.0.0.1")
                ids[name] = node_id(f"node_{name}")
                say({"id": ids[name]})
            elif "kill" in command:
                node = added.pop(command["kill"])
                killed = ids.pop(command["kill"])
                if isinstance(node, subprocess.Popen):
                    _kill_session(node.pid)
                    node.wait(60)
                else:
                    cluster.remove_node(node, allow_graceful=False)
                deadline = time.monotonic() + 120   # answered once the cluster knows it is gone
                while any(n["NodeID"] == killed and n["Alive"] for n in ray.nodes()):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"node {command['kill']} still alive 120 s after its kill")
                    time.sleep(0.2)
                say({"killed": command["kill"]})
        except Exception as exc:   # noqa: BLE001 -- the tests' side reads it as their failure
            say({"error": f"{type(exc).__name__}: {exc}"})
    for node in added.values():
        if isinstance(node, subprocess.Popen):
            _kill_session(node.pid)
    ray.shutdown()
    cluster.shutdown()
    import shutil

    shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    _serve(Path(sys.argv[1]), int(sys.argv[2]))
