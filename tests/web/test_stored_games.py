"""Stored games tell their story. A Fish tournament stored with ``--db`` (its games dealt
by the tournament, not from a seed) is "not re-dealable" in the same words on the command
line (``replay verify``, status 0: nothing is wrong with it) and in the web room (never
"differs", never an alteration), and the web room still draws every step from the state
snapshots the replay kept, captioned with who did what, the winners on the last picture.
A Q game stored by a league is re-run and told by Q's narrator, as ``gameroom play`` tells it.
The stored games' tables stay inside their panels on a laptop and on a phone."""

from __future__ import annotations

import json
import subprocess
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("sqlalchemy")

from driver import GAMEROOM  # noqa: E402
from gameroom.league.replay import NOT_RE_DEALABLE  # noqa: E402
from tests.web.conftest import WebServer, running_web, screenshot, stored_league  # noqa: E402

LONG = "a-bot-whose-name-is-much-longer-than-a-table-cell"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    where: Path = tmp_path_factory.mktemp("stored")
    url = f"sqlite:///{where / 'results.db'}"
    tournament = subprocess.run([*GAMEROOM, "tournament", "fish", "--players", "5", "--seed", "2", "--db", url],
                                capture_output=True, timeout=300, cwd=where)
    assert tournament.returncode == 0, tournament.stderr.decode()
    stored_league(where, url, "q", f'[[bots]]\nname = "{LONG}"\nbuiltin = "dag"\n\n'
                                   '[[bots]]\nname = "ldasg"\nbuiltin = "ldasg"\n', 1)
    return url


@pytest.fixture(scope="module")
def server(database: str) -> Iterator[WebServer]:
    with running_web("--db", database) as running:
        yield running


def replay(server: WebServer, game_id: int) -> tuple[dict[str, str], list[dict]]:
    with urllib.request.urlopen(f"{server.url}/api/results/games/{game_id}/replay", timeout=120) as reply:
        headers = {k.lower(): v for k, v in reply.headers.items()}
        return headers, [json.loads(line) for line in reply.read().decode().splitlines()]


def caption_of(svg: str) -> str:
    return ET.fromstring(svg).find("{http://www.w3.org/2000/svg}title").text or ""


def test_the_command_line_says_a_tournament_game_is_not_re_dealable(database: str) -> None:
    run = subprocess.run([*GAMEROOM, "replay", "verify", "--db", database], capture_output=True, timeout=300)
    assert run.returncode == 0, run.stderr.decode()   # nothing is wrong with these games
    lines = run.stderr.decode().splitlines()
    fish = [line for line in lines if NOT_RE_DEALABLE in line]
    assert len(fish) == 3 and all(line == f"game {n}: {NOT_RE_DEALABLE}" for n, line in zip((1, 2, 3), fish))
    assert "differs" not in run.stderr.decode() and "altered" not in run.stderr.decode()
    assert "1 of 4 replays verified, 3 not re-dealable" in run.stdout.decode()


def test_the_web_room_says_so_in_the_same_words_and_draws_the_recorded_pictures(server: WebServer) -> None:
    games = server.get("/api/results/games?game=fish")["games"]
    assert len(games) == 3
    for game in games:
        assert game["seed"] is None and game["re_dealable"] is False and game["note"] == NOT_RE_DEALABLE
        headers, frames = replay(server, game["id"])
        assert headers["x-replay-verified"] == "not-re-dealable" and headers["x-replay-message"] == NOT_RE_DEALABLE
        # every penguin placed and every move, drawn (not null), captioned with who did what
        assert frames and all(f["svg"] and f["svg"].startswith("<svg") and f["view"] for f in frames)
        captions = [f["caption"] for f in frames]
        assert all(not c.startswith("step ") for c in captions)
        assert sum(" places a penguin on " in c for c in captions) >= 8 and any(" moves [" in c for c in captions)
        assert all(caption_of(f["svg"]) == f["caption"] for f in frames)
        winners = game["winners"]
        assert captions[-1].startswith("game over: winner") and all(w in captions[-1] for w in winners)


def test_a_re_dealt_game_is_told_by_its_narrator(server: WebServer) -> None:
    (game,) = server.get("/api/results/games?game=q")["games"]
    assert game["re_dealable"] is True and game["note"] is None
    headers, frames = replay(server, game["id"])
    assert headers["x-replay-verified"] == "yes" and "x-replay-message" not in headers
    captions = [f["caption"] for f in frames]
    assert captions[0].startswith("start") and all(not c.startswith("step ") for c in captions)
    turns = [f for f in frames[1:-1]]
    assert turns and all(f["caption"].split()[0] in (LONG, "ldasg") for f in turns)
    # the lines gameroom play prints: "turn   1: dag places 2 tiles: ...  [scores; pile N]"
    assert all(len(f["narration"]) == 1 and f["narration"][0].startswith("turn ") and f["caption"] in
               f["narration"][0] for f in turns)
    assert captions[-1].startswith("game over: winner") and all(w in captions[-1] for w in game["winners"])


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_the_stored_games_tables_stay_inside_their_panels(server: WebServer, browser: Any, width: int,
                                                        height: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(120_000)
    try:
        (game,) = server.get("/api/results/games?game=q")["games"]
        for path, ready in (("/results?game=q", "#stored tbody tr"), (f"/results/games/{game['id']}", "#seats tr")):
            page.goto(server.url + path)
            page.wait_for_selector(ready)
            screenshot(page, f"stored-{path.split('/')[-1].split('?')[0]}-{width}x{height}")
            # nothing runs past the page's right edge
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            # a table stays inside its panel, or scrolls inside it (never over its edge)
            for table in page.query_selector_all("table"):
                fits = table.evaluate("""t => { const s = t.closest('section'), a = t.getBoundingClientRect(),
                                               b = s.getBoundingClientRect();
                                        return a.width === 0 || a.right <= b.right + 0.5
                                               || getComputedStyle(s).overflowX === 'auto'; }""")
                assert fits, (path, table.get_attribute("id"))
        # the seats of a stored game fit at both sizes, the long name wrapped
        seats = page.query_selector("#seats")
        assert seats.evaluate("t => t.getBoundingClientRect().right <= t.closest('section').getBoundingClientRect().right + 0.5")
    finally:
        page.close()
