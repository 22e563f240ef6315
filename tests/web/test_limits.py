"""The web room's bounds on a real ``gameroom web`` (uvicorn subprocess, real HTTP):

* the finding — 1,000 matches took the room from 49 MB to 4.7 GB, never freed: 1,000 Q
  matches now keep its resident memory (read from /proc) bounded while they run and give
  it back once finished matches are evicted; an evicted match answers 404 saying so;
* the cap on live matches (503) and the quotas per address and per account (429), each a
  JSON error saying which limit and which option; a match whose people never came is
  cancelled after ``--join-within``;
* with ``--db`` every finished match is stored through the league's recording pieces, and
  an evicted one's page, summary and replay redirect to its stored game, across restarts.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import client_from, rss_mb, running_web, signed_up

MATCHES = 400   # four times --keep-finished's default: without the sweep, 1,000 matches took 4.7 GB
Q = {"game": "q", "seats": ["dag", "ldasg"]}


def start_until_taken(client: Any, body: dict[str, Any], deadline: float) -> str:
    """Start a match, waiting while the room or the quota is full (429/503 say so)."""
    while True:
        reply = client.post("/api/matches", json=body)
        if reply.status_code == 201:
            return reply.json()["id"]
        assert reply.status_code in (429, 503), reply.text
        assert "error" in reply.json() and reply.headers["retry-after"]
        assert time.monotonic() < deadline, "the room never took the match"
        time.sleep(0.05)


def wait_for(check: Any, what: str, timeout: float = 300) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"never: {what}")


def test_hundreds_of_matches_keep_the_memory_bounded_and_finished_ones_are_freed() -> None:
    with running_web() as server, client_from(server.url) as client:
        start = rss_mb(server.process.pid)
        peak = start
        deadline = time.monotonic() + 1200
        ids = []
        for seed in range(MATCHES):
            ids.append(start_until_taken(client, {**Q, "seed": seed}, deadline))
            peak = max(peak, rss_mb(server.process.pid))
        wait_for(lambda: all(m["status"] == "over" for m in client.get("/api/matches").json()), "every match over")
        # the room's sweep (every few seconds) keeps at most --keep-finished's default
        wait_for(lambda: len(client.get("/api/matches").json()) <= 100, "at most 100 finished matches kept")
        # the evicted ones say so; the newest are still here with their replays
        reply = client.get(f"/api/matches/{ids[0]}")
        assert reply.status_code == 404 and "finished and was evicted" in reply.json()["error"]
        page = client.get(f"/matches/{ids[0]}")   # a person's page says so too, as a page (it was raw JSON)
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html"), page.headers
        assert "finished and was evicted" in page.text and 'name="viewport"' in page.text
        assert client.get(f"/api/matches/{ids[-1]}/replay").text.count("\n") > 1
        # the sweep hands the evicted matches' memory back to the system
        after = wait_for(lambda: (rss := rss_mb(server.process.pid)) < start + 100 and rss, "memory given back")
        print(f"\n{MATCHES} Q matches: RSS {start:.0f} MB at start, peak {peak:.0f} MB, {after:.0f} MB after")
        assert peak < 300, f"peak {peak:.0f} MB (the finding: 4.7 GB)"


def test_the_live_cap_and_the_quotas_refuse_with_a_json_error_naming_the_limit() -> None:
    slow = {**Q, "pace": 5, "seed": 1}   # paced: they stay live for minutes
    with running_web("--max-live", "3", "--matches-per-address", "2", "--matches-per-user", "1") as server:
        with client_from(server.url) as first, client_from(server.url, "127.0.0.2") as second, \
                client_from(server.url, "127.0.0.3") as third:
            for _ in range(2):
                assert first.post("/api/matches", json=slow).status_code == 201
            reply = first.post("/api/matches", json=slow)
            assert reply.status_code == 429 and "--matches-per-address" in reply.json()["error"]
            assert second.post("/api/matches", json=slow).status_code == 201   # another address: its own quota
            reply = third.post("/api/matches", json=slow)
            assert reply.status_code == 503 and "the room is full" in reply.json()["error"]
            assert "--max-live" in reply.json()["error"] and reply.headers["retry-after"]
    with running_web("--matches-per-user", "1") as server:
        person = signed_up(server.url, "quota")
        waiting = {"game": "q", "seats": ["human", "dag"], "time_limit": 60}
        assert person.post("/api/matches", json=waiting).status_code == 201
        reply = person.post("/api/matches", json=waiting)
        assert reply.status_code == 429 and "--matches-per-user" in reply.json()["error"]
        # the quota is the account's: the same person from another address is refused too
        elsewhere = client_from(server.url, "127.0.0.2", cookies=person.cookies)
        assert elsewhere.post("/api/matches", json=waiting).status_code == 429
        # anyone may start a bots-only match; a person's seat needs a log-in
        reply = client_from(server.url, "127.0.0.3").post("/api/matches", json=waiting)
        assert reply.status_code == 401 and "log in" in reply.json()["error"]


def test_a_match_whose_people_never_sit_down_is_cancelled() -> None:
    with running_web("--join-within", "1") as server:
        person = signed_up(server.url, "absent")
        reply = person.post("/api/matches", json={"game": "q", "seats": ["human", "dag"], "time_limit": 60})
        match_id = reply.json()["id"]
        summary = wait_for(lambda: (s := person.get(f"/api/matches/{match_id}").json())["status"] == "over" and s,
                           "the waiting match cancelled")
        assert "not every person sat down within 1 s" in summary["result"]["error"]
        # its slot is free again: the same person may start another
        assert person.post("/api/matches", json={**Q, "seed": 2}).status_code == 201


def test_with_a_database_an_evicted_match_redirects_to_its_stored_game(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'room.db'}"
    options = ("--db", url, "--keep-finished", "0")
    with running_web(*options) as server, client_from(server.url, follow_redirects=True) as client:
        match_id = client.post("/api/matches", json={**Q, "seed": 9}).json()["id"]
        evicted = wait_for(lambda: (r := client.get(f"/api/matches/{match_id}")).history and r,
                           "the finished match evicted and stored")
        assert evicted.history[0].status_code == 303
        stored = evicted.json()
        assert stored["tournament"] == "web room" and stored["seed"] == 9 and stored["winners"]
        assert [s["bot"] for s in stored["seats"]] == ["P1", "P2"]
        page = client.get(f"/matches/{match_id}")
        assert page.history[0].headers["location"] == f"/results/games/{stored['id']}"
        frames = client.get(f"/api/matches/{match_id}/replay")
        assert frames.status_code == 200 and frames.headers["x-replay-verified"] == "yes"
        assert frames.text.count("\n") > 2
        # no ratings from casual matches
        assert client.get("/api/results/ratings/q").json() == []
    with running_web(*options) as server, client_from(server.url, follow_redirects=True) as client:
        # a new run numbers its matches after the stored ones, and the old id still leads there
        assert client.get(f"/api/matches/{match_id}").json()["id"] == stored["id"]
        newer = client.post("/api/matches", json={**Q, "seed": 10}).json()["id"]
        assert int(newer.split("-")[0]) > int(match_id.split("-")[0])


@pytest.mark.parametrize("option, value, message", [
    ("--max-live", "0", "max-live must be at least 1"),
    ("--max-body", "10", "max-body must be bytes in 1024..67108864"),
    ("--finished-grace", "-1", "finished-grace must be seconds"),
])
def test_a_limit_out_of_range_is_one_error_line(option: str, value: str, message: str) -> None:
    import subprocess

    from driver import GAMEROOM, free_port

    run = subprocess.run([*GAMEROOM, "web", "--port", str(free_port()), option, value], capture_output=True,
                         timeout=120)
    err = run.stderr.decode()
    assert run.returncode == 2 and message in err and err.count("\n") == 1, err


def test_addresses_come_from_the_proxy_only_when_it_is_named() -> None:
    slow = {**Q, "pace": 5, "seed": 3}
    with running_web("--matches-per-address", "1") as server, client_from(server.url) as client:
        # without --proxy a client cannot pass for another address with a header
        assert client.post("/api/matches", json=slow, headers={"x-forwarded-for": "10.0.0.1"}).status_code == 201
        reply = client.post("/api/matches", json=slow, headers={"x-forwarded-for": "10.0.0.2"})
        assert reply.status_code == 429
    with running_web("--matches-per-address", "1", "--proxy", "127.0.0.1") as server, \
            client_from(server.url) as proxy:
        for forwarded in ("10.0.0.1", "10.0.0.2"):   # two people behind the proxy: a quota each
            assert proxy.post("/api/matches", json=slow, headers={"x-forwarded-for": forwarded}).status_code == 201
        reply = proxy.post("/api/matches", json=slow, headers={"x-forwarded-for": "10.0.0.1"})
        assert reply.status_code == 429 and "--matches-per-address" in reply.json()["error"]
