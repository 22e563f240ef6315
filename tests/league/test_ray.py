"""Leagues and an arena season on Ray: a local instance, and a real cluster on this machine.

Every Ray here lives in a network namespace of its own holding only ``lo``
(``tests.ray_cluster``): the league's command starting a local instance in one, and one
cluster for the rest of the module — a head and two worker nodes (``ray.cluster_utils``
and ``ray start``), one of them started where the arena's folder (its data, its
database, its configuration) is covered by an empty tmpfs — to which the cases add the
nodes they need: one without bubblewrap, one that is killed mid-season, one running
other gameroom code. The arena's season is here too, beside the league's, to share that
cluster (Ray starts in seconds, not milliseconds).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from gameroom.games import registry
from tests.arena.running import wait_for
from tests.league.conftest import EXAMPLES, GAMEROOM, bots_file, gameroom
from tests.ray_cluster import REPO, ClusterProcess, in_new_namespace, namespace_or_skip

PASSWORD = "correct-horse-9"


def _rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute("select g.\"index\", g.seed, b.name, r.rank, r.winner, r.ejected from games g "
                                  "join results r on r.game_id = g.id join bots b on b.id = r.bot_id "
                                  "order by g.\"index\", b.name").fetchall()


def _nodes(db: Path, where: str = "1 = 1") -> dict[str | None, int]:
    """Games by the node that played them (``games.config``'s ``node``)."""
    with sqlite3.connect(db) as connection:
        return dict(connection.execute(f"select json_extract(config, '$.node'), count(*) from games where {where} "
                                       "group by 1").fetchall())


def _needs_ray_and_sandbox() -> None:
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'gameroom[ray]')")
    namespace_or_skip()


def test_a_local_ray_instance_plays_the_same_league_as_the_pool(tmp_path: Path) -> None:
    """``--backend ray`` with no cluster named starts a local instance (in a namespace of
    its own here): the same games, results, ratings and output as the process pool, each
    game stored with the node that played it."""
    _needs_ray_and_sandbox()
    bots = bots_file(tmp_path, [{"name": "dag", "builtin": "dag"}, {"name": "ldasg", "builtin": "ldasg"},
                                {"name": "raiser", "builtin": "raise-in-take-turn"},
                                {"name": "cheat", "builtin": "cheat-tile-not-owned"}])
    common = ["league", "q", "--bots", str(bots), "--games", "24", "--players", "3", "--seed", "5", "--workers", "2",
              "--quiet"]
    local, ray = tmp_path / "local.db", tmp_path / "ray.db"
    first = gameroom(*common, "--backend", "local", "--db", f"sqlite:///{local}")
    assert first.returncode == 0, first.stderr
    env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
    second = in_new_namespace([*GAMEROOM, *common, "--backend", "ray", "--db", f"sqlite:///{ray}"], env=env)
    assert second.returncode == 0, second.stderr
    assert _rows(local) == _rows(ray)
    ratings = "select b.name, round(r.mu, 9), round(r.sigma, 9), r.games, r.wins, r.ejections from ratings r " \
              "join bots b on b.id = r.bot_id order by b.name"
    with sqlite3.connect(local) as a, sqlite3.connect(ray) as b:
        assert a.execute(ratings).fetchall() == b.execute(ratings).fetchall()
    assert first.stdout == second.stdout
    assert _nodes(local) == {None: 24}
    played = _nodes(ray)
    assert len(played) == 1 and sum(played.values()) == 24 and None not in played


@pytest.mark.parametrize("given", ["0", "two", "1001", "-3", "2.5"])
def test_a_batch_bound_that_is_no_count_of_games_is_one_line(monkeypatch: pytest.MonkeyPatch, given: str) -> None:
    """``GAMEROOM_RAY_BATCH`` (the games a Ray task plays at most) not a whole number from
    1 to 1000: the cluster is not joined, and the line names the variable and its value."""
    from gameroom.league.cluster import ClusterError, RayCluster

    monkeypatch.setenv("GAMEROOM_RAY_BATCH", given)
    with pytest.raises(ClusterError) as refused:
        RayCluster()
    assert str(refused.value) == (f"GAMEROOM_RAY_BATCH={given!r}: the games one Ray task plays at most must be a "
                                  "whole number from 1 to 1000")


# -- one cluster for the rest of the module ----------------------------------------------------

@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterProcess]:
    """A head (one game slot) and two worker nodes (one each): ``w1``, and ``hidden``, whose
    processes see the module's ``arena`` folder as an empty tmpfs."""
    _needs_ray_and_sandbox()
    from gameroom.sandbox.bwrap import probe

    problem = probe()
    if problem is not None:
        pytest.skip(f"the cluster's program bots need bubblewrap: {problem}")
    folder = tmp_path_factory.mktemp("cluster")
    (folder / "arena").mkdir()
    started = ClusterProcess(folder)
    try:
        started.add("w1")
        started.add("hidden", hide=[str(folder / "arena")], env={"GAMEROOM_BUILD_CACHE": str(folder / "hidden-cache")})
        yield started
    finally:
        started.close()


def _program_bots() -> list[dict[str, Any]]:
    return [{"name": "py", "command": [sys.executable, str(EXAMPLES / "python_bot.py"), "{port}"]},
            {"name": "perl", "command": ["perl", str(EXAMPLES / "perl_bot.pl"), "{port}"]},
            {"name": "dag", "builtin": "dag"}]


def test_a_league_of_program_bots_on_three_nodes(cluster: ClusterProcess, tmp_path: Path) -> None:
    """The example Python and Perl programs (bubblewrap on each node) and a built-in: every
    node plays games, whose ids are stored with them; the league is the one the process
    pool plays, and every replay verifies."""
    bots = bots_file(tmp_path, _program_bots())
    common = ["league", "q", "--bots", str(bots), "--games", "12", "--players", "3", "--seed", "2", "--quiet"]
    ray = tmp_path / "ray.db"
    run = cluster.run([*GAMEROOM, *common, "--backend", "ray", "--db", f"sqlite:///{ray}"])
    assert run.returncode == 0, run.stderr + cluster.tail()
    assert set(_nodes(ray)) == {cluster.ids["head"], cluster.ids["w1"], cluster.ids["hidden"]}
    local = tmp_path / "local.db"
    pool = gameroom(*common, "--backend", "local", "--db", f"sqlite:///{local}")
    assert pool.returncode == 0, pool.stderr
    assert _rows(ray) == _rows(local)
    assert run.stdout == pool.stdout
    verified = gameroom("replay", "verify", "--db", f"sqlite:///{ray}")
    assert verified.returncode == 0 and "12 of 12 replays verified" in verified.stdout, verified.stdout


def every_game(folder: str) -> None:
    """In the cluster's namespace: for each game, a short league of the Python example
    program and two built-ins on the cluster and on the process pool (their rows on
    standard output as JSON)."""
    from gameroom.league.bots import bots_from_specs
    from gameroom.league.db import open_database
    from gameroom.league.runner import LeaguePlan, LocalBackend, RayBackend, run_league

    ray_backend, local_backend = RayBackend(2), LocalBackend(2)
    try:
        for game in registry.names():
            strategies = list(registry.game(game).strategies)
            specs = [{"name": "py", "command": [sys.executable, str(EXAMPLES / "python_bot.py"), "{port}"]},
                     {"name": f"{strategies[0]}-1", "builtin": strategies[0]},
                     {"name": f"{strategies[1 % len(strategies)]}-2", "builtin": strategies[1 % len(strategies)]}]
            plan = LeaguePlan(registry.game(game), bots_from_specs(specs), 4, seed=11)
            for name, runner in (("local", local_backend), ("ray", ray_backend)):
                run_league(plan, open_database(f"sqlite:///{Path(folder) / f'{game}-{name}.db'}"), runner)
    finally:
        local_backend.close()
        ray_backend.close()


def test_ray_and_local_agree_for_every_game(cluster: ClusterProcess, tmp_path: Path) -> None:
    """For each of the five games, a short league (the Python example program and two
    built-ins) gives the same games, results and ratings on the cluster as on the pool."""
    run = cluster.run([sys.executable, "-c", f"from tests.league.test_ray import every_game; "
                                            f"every_game({str(tmp_path)!r})"])
    assert run.returncode == 0, run.stderr + cluster.tail()
    for game in registry.names():
        ray, local = _rows(tmp_path / f"{game}-ray.db"), _rows(tmp_path / f"{game}-local.db")
        assert ray == local, game
        assert len(ray) == 4 * min(3, registry.game(game).max_players)
        assert None not in _nodes(tmp_path / f"{game}-ray.db")


@pytest.mark.parametrize("kind", ["league", "arena"])
def test_the_benchmark_measures_a_cluster_it_joins(cluster: ClusterProcess, kind: str) -> None:
    """``bench league --backend ray`` and ``bench arena``'s Ray rows (``bench.cluster``;
    the arena's alone, without its other rows) with ``RAY_ADDRESS`` measure the cluster it
    names beside the local pool: each row printed, the cluster's games checked against the
    pool's (the same games, each once), the hollow games fed in batches (as the league's
    runner and the arena's ladder feed theirs: several games a Ray task), Ray's cost a game
    and the JSON of every figure (printed, never asserted: they are times)."""
    argv = ["gameroom.bench", "league", "--backend", "ray", "--games", "8"] if kind == "league" \
        else ["gameroom.bench.cluster", "arena", "q", "8", "2", "1", cluster.address]
    run = cluster.run([sys.executable, "-m", *argv])
    assert run.returncode == 0, run.stdout + run.stderr + cluster.tail()
    ray = f"Ray, the cluster at {cluster.address}"
    lines = run.stdout.splitlines()
    figures = json.loads(lines[-1])
    assert figures["bench"] == f"{kind} on ray" and figures["games"] == 8 and figures["address"] == cluster.address
    assert list(figures["rows"]) == ["local pool", ray]
    for row in figures["rows"].values():
        assert row["games/s"] > 0 and row["driver CPU ms a game"] > 0 and row["CPU ms a game"] is None, row
    assert figures["rows"]["local pool"]["games a task"] is None and figures["rows"][ray]["games a task"] > 1
    said = "\n".join(lines)
    assert f"{kind}: local pool, 2 workers" in said and f"{kind}: {ray} " in said, said
    assert f"{kind}: {ray}: games checked: the 8 games the local pool played, each once" in said, said
    assert f"{kind}: {ray}: Ray's cost a game (wall) " in said, said


# -- the arena's season on the cluster -------------------------------------------------------

SLOW_ON_ONE_NODE = '''
import time as _time

_answer = answer


def answer(game, method, args):
    """Played on a node whose build cache is named slow-node..., the bot thinks SECONDS s
    a call: a game there is still in flight when that node is killed."""
    if "slow-node" in __file__:
        _time.sleep(SECONDS)
    return _answer(game, method, args)


if __name__ == "__main__":
    main()
'''


def _slow_on_one_node(seconds: float = 120) -> bytes:
    """The example Python program, slow on a node whose build cache is named slow-node..."""
    body, _, _ = (EXAMPLES / "python_bot.py").read_text().rpartition('if __name__ == "__main__":')
    return (body + SLOW_ON_ONE_NODE.replace("SECONDS", repr(seconds))).encode()


def test_a_league_loses_a_node_and_none_of_its_games(cluster: ClusterProcess, tmp_path: Path) -> None:
    """A node killed with a league's game in flight: that game is played again on another
    node from its seed (one line naming the lost node); exactly the scheduled games are
    stored, each once, none on the lost node, the same as the process pool's, and every
    replay verifies."""
    script = tmp_path / "slowpy.py"
    script.write_bytes(_slow_on_one_node(2.0))   # within Q's 6 s a call, a game of minutes there
    bots = bots_file(tmp_path, [{"name": "slowpy", "command": [sys.executable, str(script), "{port}"]},
                                {"name": "dag", "builtin": "dag"}, {"name": "ldasg", "builtin": "ldasg"}])
    cache = cluster.folder / "slow-node-league-cache"
    doomed = cluster.add("doomed", env={"GAMEROOM_BUILD_CACHE": str(cache)})
    common = ["league", "q", "--bots", str(bots), "--games", "8", "--players", "3", "--seed", "4", "--quiet"]
    ray, log = tmp_path / "ray.db", tmp_path / "league.log"
    alive = True
    try:
        league = cluster.popen([*GAMEROOM, *common, "--backend", "ray", "--db", f"sqlite:///{ray}"], log,
                               env={"RAY_ADDRESS": cluster.address})
        # its build placed in the doomed node's cache: a game of slowpy has started there
        wait_for("a game on the node to kill", lambda: cache.is_dir() and any(cache.iterdir()), league, log, 300)
        cluster.kill("doomed")
        alive = False
        assert league.wait(300) == 0, log.read_text() + cluster.tail()
    finally:
        if alive:
            cluster.kill("doomed")
    again = [line for line in log.read_text().splitlines() if "played again on another node" in line]
    assert len(again) == 1 and f"node {doomed[:8]}" in again[0] and "was lost" in again[0], log.read_text()
    with sqlite3.connect(ray) as connection:
        indexes = [row[0] for row in connection.execute('select "index" from games')]
    assert sorted(indexes) == list(range(8))
    played = _nodes(ray)
    assert doomed not in played and None not in played and sum(played.values()) == 8
    local = tmp_path / "local.db"
    pool = gameroom(*common, "--backend", "local", "--db", f"sqlite:///{local}")
    assert pool.returncode == 0, pool.stderr
    assert _rows(ray) == _rows(local)
    verified = gameroom("replay", "verify", "--db", f"sqlite:///{ray}")
    assert verified.returncode == 0 and "8 of 8 replays verified" in verified.stdout, verified.stdout


class _Season:
    """A ``gameroom arena`` process in the cluster's namespace, and its API reached there."""

    def __init__(self, cluster: ClusterProcess, folder: Path) -> None:
        from tests.driver import free_port

        self.cluster, self.folder = cluster, folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.config = folder / "arena.toml"
        self.db = folder / "arena.db"
        self.log = folder / "arena.log"
        self.config.write_text(f'listen = "127.0.0.1:{self.port}"\ndatabase = "sqlite:///arena.db"\ndata = "data"\n'
                               f'workers = 2\nray_address = "{cluster.address}"\n\n'
                               f'[[competitions]]\nname = "c"\ngame = "q"\nseed = 3\nqualification = 1\n'
                               f'call_seconds = 300\n')
        (folder / "accounts.csv").write_text("username,password\n"
                                             + "".join(f"{n},{PASSWORD}\n" for n in ("ann", "bob", "cat")))
        for args, env in ((["import", str(folder / "accounts.csv"), "--competition", "c"], {}),
                          (["admin", "boss"], {"GAMEROOM_ARENA_PASSWORD": PASSWORD})):
            done = subprocess.run([*GAMEROOM, "arena", *args, "--config", str(self.config)], capture_output=True,
                                  text=True, timeout=300, env={**os.environ, **env}, cwd=folder)
            assert done.returncode == 0, done.stderr
        # every Ray task two games at most, whatever their pace: a lost batch is two games
        self.process = cluster.popen([*GAMEROOM, "arena", "--config", str(self.config)], self.log,
                                     env={"GAMEROOM_WEB_SECRET": "s" * 32, "GAMEROOM_RAY_BATCH": "2"}, cwd=folder)
        deadline = time.monotonic() + 240
        while True:
            try:
                self.call(lambda client: client.get("/api/arena"))
                return
            except Exception:   # noqa: BLE001 -- not listening yet; the deadline says when to give up
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    raise AssertionError(self.log.read_text()[-3000:]) from None
                time.sleep(0.5)

    def call(self, work: Callable[[Any], Any], user: str | None = None) -> Any:
        """``work(client)`` with an HTTP client in the cluster's namespace (logged in as ``user``)."""
        import httpx

        def inside() -> Any:
            with httpx.Client(base_url=self.url, headers={"origin": self.url}, timeout=60) as client:
                if user is not None:
                    assert client.post("/api/login", json={"username": user, "password": PASSWORD}).status_code == 200
                return work(client)

        return self.cluster.inside(inside)

    def admin(self) -> dict[str, Any]:
        reply = self.call(lambda client: client.get("/api/arena/admin"), "boss")
        assert reply.status_code == 200, reply.text
        return dict(reply.json())

    def pause(self, paused: bool) -> None:
        reply = self.call(lambda client: client.post("/api/arena/admin/pause", json={"paused": paused}), "boss")
        assert reply.status_code == 200, reply.text

    def node(self, node: str) -> dict[str, Any]:
        return next((n for n in self.admin()["nodes"] if n["node"] == node), {})

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.startswith("{")]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)


def _upload(client: Any, name: str, filename: str, data: bytes, language: str) -> Any:
    return client.post("/api/arena/c/bots", content=data,
                       params={"name": name, "filename": filename, "language": language})


def test_an_arena_season_on_the_cluster(cluster: ClusterProcess) -> None:
    """The arena joins the cluster (``ray_address``); three students' Python and Perl bots
    play on every node, all of them on the node that cannot see the arena's folder (their
    builds travel with their games); a node without bubblewrap is said once in the log and
    on the staff's overview and plays nothing; the ladder keeps more games given than the
    slots, so a node takes a batch of them: a node killed with a batch of two ladder games
    in flight, each is played again elsewhere (one line each) and stored once; then the
    node that cannot see the arena's folder is killed too and the season goes on on the
    others; the ladder paused, exactly the scheduled games are stored, each once, and
    every one verifies."""
    folder = cluster.folder / "arena"
    cluster.add("nobwrap", no_bwrap=True)
    season: _Season | None = None
    alive = {"nobwrap"}
    try:
        season = _Season(cluster, folder)
        uploads = [("ann", "pyann", "bot.py", _slow_on_one_node(), ""),
                   ("bob", "pybob", "bot.py", _slow_on_one_node(), ""),
                   ("cat", "perly", "perl_bot.pl", (EXAMPLES / "perl_bot.pl").read_bytes(), "command")]
        for user, name, filename, data, language in uploads:
            upload = functools.partial(_upload, name=name, filename=filename, data=data, language=language)
            reply = season.call(upload, user)
            assert reply.status_code == 201, reply.text
        bots = {f"{name}-v1" for _, name, *_ in uploads}
        playing = [cluster.ids["head"], cluster.ids["w1"], cluster.ids["hidden"]]

        # the versions qualified and the ladder going, it is paused until no game is in
        # flight; the node to kill joins then, idle, and takes the first batch when the
        # ladder resumes: two ladder games (GAMEROOM_RAY_BATCH), the first of a Python bot,
        # which thinks there until the kill
        def qualified() -> int:
            with sqlite3.connect(season.db) as connection:
                return int(connection.execute("select count(*) from games where tournament = 'arena:c:qualify'"
                                              ).fetchone()[0])

        wait_for("the qualification games and a ladder game",
                 lambda: qualified() == 3 and any(line["event"] == "game" for line in season.lines()),
                 season.process, season.log, 400)
        season.pause(True)
        wait_for("the games in flight ending", lambda: not season.admin()["running"], season.process, season.log,
                 300)
        slow = cluster.add("slow", env={"GAMEROOM_BUILD_CACHE": str(cluster.folder / "slow-node-cache")})
        alive.add("slow")
        wait_for("the node to kill ready", lambda: season.node(slow).get("state") == "ready", season.process,
                 season.log, 300)
        season.pause(False)
        wait_for("a batch on the node to kill", lambda: season.node(slow).get("in_flight"), season.process,
                 season.log, 300)
        lost = season.node(slow)["in_flight"]
        assert lost == 2 and len(season.admin()["running"]) > 4   # more given than the 4 slots: batches
        cluster.kill("slow")
        alive.discard("slow")
        wait_for("the lost batch's games played again",
                 lambda: [line for line in season.lines() if "played again on another node" in line["event"]],
                 season.process, season.log, 300)

        def spread() -> bool:
            with sqlite3.connect(season.db) as connection:
                seated = connection.execute(
                    "select json_extract(g.config, '$.node'), b.name from games g join seats s on s.game_id = g.id "
                    "join bots b on b.id = s.bot_id where g.league_id is not null").fetchall()
            on = {node: {bot for n, bot in seated if n == node} for node in playing}
            return all(on.values()) and on[cluster.ids["hidden"]] >= bots

        wait_for("ladder games on every node, every bot on the hidden one", spread, season.process, season.log,
                 400)
        again = [line for line in season.lines() if "played again on another node" in line["event"]]
        assert len(again) == lost and all(line["node"] == slow and "was lost" in line["event"] for line in again)
        assert len({line["index"] for line in again}) == lost and not any("qualification" in line["event"]
                                                                           for line in again)
        overview = season.admin()
        nodes = {node["node"]: node for node in overview["nodes"]}
        assert nodes[slow]["state"] == "lost"
        nobwrap = nodes[cluster.ids["nobwrap"]]
        assert nobwrap["state"] == "ready" and nobwrap["games"] == 0 and "refuses program bots" in nobwrap["note"]
        assert all(nodes[node]["games"] > 0 and nodes[node]["games_per_second"] > 0 for node in playing)
        refusals = [line for line in season.lines() if "refuses program bots" in line["event"]]
        assert len(refusals) == 1 and refusals[0]["node"] == cluster.ids["nobwrap"]

        # the node that cannot see the arena's folder killed too (a game of it in flight,
        # as a rule): the season goes on on the head and w1, its games there stored once
        hidden = cluster.ids["hidden"]
        wait_for("a game on the hidden node", lambda: any(n["node"] == hidden and n["in_flight"]
                                                          for n in season.admin()["nodes"]),
                 season.process, season.log, 300)
        written = len([line for line in season.lines() if line["event"] == "game"])
        cluster.kill("hidden")
        wait_for("three more games after the hidden node's loss",
                 lambda: len([line for line in season.lines() if line["event"] == "game"]) >= written + 3,
                 season.process, season.log, 300)
        assert {node["node"]: node for node in season.admin()["nodes"]}[hidden]["state"] == "lost"
        season.pause(True)
        wait_for("the games in flight ending", lambda: not season.admin()["running"], season.process, season.log,
                 300)
    finally:
        if season is not None:
            season.stop()
        for name in alive:   # the nodes this case added leave with it
            cluster.kill(name)
    with sqlite3.connect(season.db) as connection:
        indexes = [row[0] for row in connection.execute(
            "select g.\"index\" from games g join leagues l on l.id = g.league_id where l.name = 'arena:c'")]
        qualifications = connection.execute("select count(*) from games where tournament like 'arena:c:qualify'"
                                            ).fetchone()[0]
    stored = [line["index"] for line in season.lines() if line["event"] == "game"]
    assert sorted(indexes) == list(range(len(indexes))) == sorted(stored)
    assert qualifications == 3
    again = [line for line in season.lines() if "played again on another node" in line["event"]]
    assert {line["node"] for line in again} <= {slow, cluster.ids["hidden"]}
    for line in again:   # a ladder game played again is stored once, under its index
        assert "qualification" in line["event"] or indexes.count(line["index"]) == 1
    assert not _nodes(season.db).keys() & {cluster.ids["nobwrap"], None}
    verified = gameroom("replay", "verify", "--db", f"sqlite:///{season.db}")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_node_running_other_code_is_one_line(cluster: ClusterProcess, tmp_path: Path) -> None:
    """A node whose gameroom differs from the league's (the same version number, one file
    changed) stops the league before any game with one line naming the node."""
    other = tmp_path / "other"
    shutil.copytree(REPO / "src" / "gameroom", other / "gameroom", ignore=shutil.ignore_patterns("__pycache__"))
    with open(other / "gameroom" / "__init__.py", "a") as changed:
        changed.write("\n# another build of the same version\n")
    node = cluster.add("other", env={"PYTHONPATH": str(other)})
    try:
        bots = bots_file(tmp_path, [{"name": "dag", "builtin": "dag"}, {"name": "ldasg", "builtin": "ldasg"}])
        run = cluster.run([*GAMEROOM, "league", "q", "--bots", str(bots), "--games", "2", "--backend", "ray",
                           "--db", f"sqlite:///{tmp_path / 'l.db'}", "--quiet"])
    finally:
        cluster.kill("other")
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"gameroom: error: node {node[:8]} (127.0.0.1) runs gameroom ")
    assert "install the same gameroom and Ray on every node" in lines[0]
