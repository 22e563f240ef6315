"""The results database in the web room: a real league of Q between built-in players (one
of them raising on purpose, so there are ejections) fills a SQLite file through
``gameroom league``; ``gameroom web --db`` serves it. The API lists the stored games
newest first a page at a time, shows one with its seats, result and ejections, draws its
replay step by step, and gives the leaderboard ``gameroom ratings`` prints; a browser
opens the leaderboard page and scrubs a stored replay. A bad or unreachable database is
one error line at start."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any, Iterator

import pytest

pytest.importorskip("sqlalchemy")

from driver import GAMEROOM, free_port  # noqa: E402
from tests.web.conftest import WebServer, running_web, screenshot, stored_league  # noqa: E402

GAMES = 5
BOTS = """
[[bots]]
name = "dag"
builtin = "dag"

[[bots]]
name = "ldasg"
builtin = "ldasg"

[[bots]]
name = "raiser"
builtin = "raise-in-take-turn"
"""


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    where = tmp_path_factory.mktemp("results")
    url = f"sqlite:///{where / 'league.db'}"
    stored_league(where, url, "q", BOTS, GAMES)
    return url


@pytest.fixture(scope="module")
def results_server(database: str) -> Iterator[WebServer]:
    with running_web("--db", database) as server:
        yield server


def test_the_stored_games_are_listed_newest_first_a_page_at_a_time(results_server: WebServer) -> None:
    overview = results_server.get("/api/results")
    assert "database" not in overview   # where it is is no visitor's business
    assert {g["name"]: g["stored"] for g in overview["games"]}["q"] == GAMES
    first = results_server.get("/api/results/games?game=q&per_page=3")
    second = results_server.get(f"/api/results/games?game=q&per_page=3&before={first['next']}")
    assert first["total"] == GAMES and len(first["games"]) == 3 and len(second["games"]) == 2
    assert first["next"] == first["games"][-1]["id"] and second["next"] is None
    games = first["games"] + second["games"]
    assert [g["finished_at"] for g in games] == sorted((g["finished_at"] for g in games), reverse=True)
    assert sorted(g["index"] for g in games) == list(range(GAMES))
    assert results_server.get("/api/results/games?game=fish")["games"] == []
    for game in games:
        assert game == results_server.get(f"/api/results/games/{game['id']}")
        assert len(game["seats"]) == 2 and game["winners"]
        for seat in game["seats"]:
            assert seat["winner"] == (seat["bot"] in game["winners"])
            assert seat["ejected"] == any(e["seat"] == seat["bot"] for e in game["ejected"])
    ejected = [e for g in games for e in g["ejected"]]
    assert ejected and all(e["seat"] == "raiser" and e["method"] == "take-turn" and e["kind"] == "exception"
                           for e in ejected)


@pytest.mark.parametrize("path, status, message", [
    ("/api/results/games?before=0", 400, "before: expected a whole number"),
    ("/api/results/games?page=2", 400, "page: the games are paged by before=ID"),
    ("/api/results/games?per_page=1000", 400, "per_page: expected a whole number in 1..100"),
    ("/api/results/games?game=chess", 400, "game: 'chess' is not a game"),
    ("/api/results/games/999999", 404, "no stored game '999999'"),
    ("/api/results/games/x/replay", 404, "no stored game 'x'"),
    ("/api/results/ratings/chess", 404, "'chess' is not a game"),
])
def test_bad_questions_get_a_status_and_the_reason(results_server: WebServer, path: str, status: int,
                                                   message: str) -> None:
    got, answer = results_server.request("GET", path)
    assert got == status and message in answer["error"], answer


def test_a_stored_replay_is_drawn_step_by_step_as_a_spectator_sees_it(results_server: WebServer) -> None:
    game = results_server.get("/api/results/games?game=q&per_page=1")["games"][0]
    status, text = results_server.request("GET", f"/api/results/games/{game['id']}/replay")
    assert status == 200
    frames = [json.loads(line) for line in text.splitlines()]
    assert len(frames) > 2 and [f["step"] for f in frames] == list(range(1, len(frames) + 1))
    assert all(f["svg"].startswith("<svg") for f in frames)
    # a spectator's view: hands by their size only
    assert all(isinstance(p["tile*"], int) for f in frames for p in f["view"]["players"])
    # the last step shows the stored scores of the players still in the game
    scores = {p["name"]: p["score"] for p in frames[-1]["view"]["players"]}
    for seat in game["seats"]:
        if not seat["ejected"]:
            assert scores[seat["bot"]] == seat["score"]


def leaderboard_printed(database: str) -> list[list[str]]:
    """The rows of ``gameroom ratings``' table."""
    run = subprocess.run([*GAMEROOM, "ratings", "--game", "q", "--db", database], capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode()
    return [cells for line in run.stdout.decode().splitlines()
            if len(cells := [c.strip() for c in line.split("│")[1:-1]]) == 8 and cells[0].isdigit()]


def test_the_leaderboard_has_the_figures_gameroom_ratings_prints(results_server: WebServer, database: str) -> None:
    rows = results_server.get("/api/results/ratings/q")
    assert [[str(r["rank"]), r["bot"], f"{r['rating']:.2f}", f"{r['mu']:.2f}", f"{r['sigma']:.2f}", str(r["games"]),
             str(r["wins"]), str(r["ejections"])] for r in rows] == leaderboard_printed(database)
    assert {r["bot"] for r in rows} == {"dag", "ldasg", "raiser"} and rows[-1]["bot"] == "raiser"
    assert sum(r["games"] for r in rows) == 2 * GAMES and rows[-1]["ejections"] > 0
    assert results_server.get("/api/results/ratings/fish") == []


def test_the_leaderboard_page_and_a_stored_replay_scrubbed(results_server: WebServer, page: Any) -> None:
    rows = results_server.get("/api/results/ratings/q")
    page.goto(results_server.url + "/results/ratings/q")
    page.wait_for_selector("#leaderboard:not(.hidden)")
    for row in rows:
        cells = page.locator(f"#leaderboard tr[data-bot='{row['bot']}'] td").all_inner_texts()
        assert cells == [str(row["rank"]), row["bot"], f"{row['rating']:.2f}", f"{row['mu']:.2f}",
                         f"{row['sigma']:.2f}", str(row["games"]), str(row["wins"]), str(row["ejections"])]
    screenshot(page, "results-leaderboard")

    # the results page lists the stored games; the newest one opens on the match page
    page.goto(results_server.url + "/results")
    page.wait_for_selector("#stored tbody tr")
    assert page.inner_text("#heading") == f"Stored q games ({GAMES})"
    newest = results_server.get("/api/results/games?game=q&per_page=1")["games"][0]
    page.click(f"#stored tr[data-stored='{newest['id']}'] a")
    page.wait_for_url(re.compile(rf"/results/games/{newest['id']}$"))
    page.wait_for_selector("#replay:not(.hidden)")
    assert page.inner_text("#winners") == f"winners: {', '.join(newest['winners'])}"
    assert page.inner_text("#status") == "over"
    # the first step at once; the count once the rules have re-run the game
    page.wait_for_selector("#picture[data-step='1'] svg")
    page.wait_for_function("!document.querySelector('#stepinfo').textContent.includes('so far')")
    steps = int(page.inner_text("#stepinfo").split(" of ")[1])
    assert page.inner_text("#stepinfo") == f"step 1 of {steps}" and steps > 2
    first = page.inner_html("#picture")
    screenshot(page, "results-replay-first")
    page.click("#last")
    page.wait_for_selector(f"#picture[data-step='{steps}'] svg")
    assert page.inner_text("#stepinfo") == f"step {steps} of {steps}"
    last = page.inner_html("#picture")
    page.click("#first")
    page.wait_for_selector("#picture[data-step='1'] svg")
    page.fill("#scrub", str(steps - 1))
    page.wait_for_selector(f"#picture[data-step='{steps}'] svg")
    assert page.inner_text("#stepinfo") == f"step {steps} of {steps}"
    assert page.inner_html("#picture") == last != first
    for ejection in newest["ejected"]:
        assert ejection["reason"] in page.inner_text("#events")


@pytest.mark.parametrize("url, message", [
    ("nonsense", "bad database URL 'nonsense'"),
    ("postgresql+psycopg://nobody@127.0.0.1:{port}/none", "cannot open database"),
])
def test_a_bad_or_unreachable_database_is_one_error_line(url: str, message: str) -> None:
    run = subprocess.run([*GAMEROOM, "web", "--port", str(free_port()), "--db", url.format(port=free_port())],
                         capture_output=True, timeout=120)
    err = run.stderr.decode()
    assert run.returncode == 2 and err.startswith("gameroom: error: ") and message in err and err.count("\n") == 1, err


def test_without_a_database_the_pages_say_so(web_server: WebServer, page: Any) -> None:
    for path in ("/results", "/results/ratings/q", "/results/games/1"):
        page.goto(web_server.url + path)
        shown = "#turn" if path.startswith("/results/games/") else "#nodb"
        page.wait_for_selector(f"{shown}:has-text('no results database')")
