"""The viewer of stored games gets states, not pictures. A results database holds a long Q
game (1,080 turns: a 27.8 MB replay, whose 1,080 pictures were 276 MB), short Q and Fish
games, a game dealt without a seed (drawn from its snapshots) and a game whose replay a
retention rule let go; ``gameroom web --db`` serves it.

* Every step's view and caption, rebuilt from the pages' deltas, are what the room drew
  before (``/replay``'s frames), each picture too: Fish's drawn by the room, Q's by its
  drawing module in the browser — the same SVG text as the game's own picture code, for
  the long game's steps and for states made to test the edges (quotes, long words, odd
  spaces, negative rows), in Chromium; the delta module of the browser undoes the
  server's deltas.
* The long game on the wire: every page of every step, compressed as the browser takes
  it (Zstandard or gzip), is at most twice the game's stored size (it is under half).
* A browser opens the long game: its first picture shows while the rules re-run the rest,
  it steps forward, jumps to the middle and to the last picture (the winners), and all
  the pages it fetched weigh less than twice the stored game.
* Bad questions get a status and the reason; a game not kept says so; too many re-runs
  at once are refused (503) rather than queued without bound.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import select, update  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from gameroom.core.context import MatchContext  # noqa: E402
from gameroom.core.match import trusted_seat  # noqa: E402
from gameroom.games import registry  # noqa: E402
from gameroom.league.db import GameRow, open_database, record_game  # noqa: E402
from gameroom.league.replay import ReplayRecorder  # noqa: E402
from gameroom.league.table import TableTask, record_table  # noqa: E402
from gameroom.web.delta import apply, diff  # noqa: E402
from gameroom.web.viewer import Busy, Viewer  # noqa: E402
from tests.long_games import long_q_game  # noqa: E402
from tests.web.conftest import WebServer, running_web, screenshot  # noqa: E402


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The database's URL and the ids of its games by kind."""
    where: Path = tmp_path_factory.mktemp("viewer")
    url = f"sqlite:///{where / 'results.db'}"
    engine = open_database(url)
    ids: dict[str, Any] = {"url": url}
    ids["long"] = record_game(engine, long_q_game().record)
    ids["q"] = record_game(engine, record_table(TableTask("q", 0, 11, ({"name": "dag", "builtin": "dag"},
                                                                         {"name": "ldasg", "builtin": "ldasg"}))))
    ids["fish"] = record_game(engine, record_table(TableTask("fish", 0, 12, ({"name": "g1", "builtin": "greedy"},
                                                                             {"name": "g2", "builtin": "greedy"}))))
    fish = registry.game("fish")
    recorder = ReplayRecorder("fish", None, {"tournament": "t"}, ["f1", "f2"], states=True)
    fish.play(5, [trusted_seat(n, fish.strategies["greedy"](n, 5)) for n in ("f1", "f2")],
              MatchContext(observers=[recorder]))
    ids["unseeded"] = record_game(engine, recorder.record, tournament="t")
    ids["pruned"] = record_game(engine, record_table(TableTask("q", 1, 13, ({"name": "dag", "builtin": "dag"},
                                                                              {"name": "ldasg", "builtin": "ldasg"}))))
    with Session(engine) as session, session.begin():
        session.execute(update(GameRow).where(GameRow.id == ids["pruned"]).values(replay=None))
        ids["stored bytes"] = len(session.scalar(select(GameRow.replay).where(GameRow.id == ids["long"])) or b"")
    engine.dispose()
    return ids


@pytest.fixture(scope="module")
def server(stored: dict[str, Any]) -> Iterator[WebServer]:
    with running_web("--db", stored["url"]) as running:
        yield running


def all_steps(server: WebServer, game_id: int, encoding: str = "gzip") -> tuple[list[dict[str, Any]], dict[str, Any], int]:
    """Every step of a stored game page after page as the browser asks for them (views
    rebuilt from the deltas), the last page, and the bytes the pages took on the wire."""
    steps: list[dict[str, Any]] = []
    wire = 0
    at = 0
    with httpx.Client(base_url=server.url, timeout=120, headers={"accept-encoding": encoding}) as client:
        while True:
            with client.stream("GET", f"/api/results/games/{game_id}/steps?from={at}") as reply:
                assert reply.status_code == 200
                raw = b"".join(reply.iter_raw())
                wire += len(raw)
                assert reply.headers.get("content-encoding", "identity") == encoding
                body = json.loads(raw if encoding == "identity" else _decoded(raw, encoding))
            view = None
            for number, step in enumerate(body["steps"], at + 1):
                assert step["step"] == number
                assert ("view" in step) == (number == at + 1)   # each page begins with a whole view
                view = step["view"] if "view" in step else apply(view, step["delta"])
                steps.append({**step, "view": view})
            at = body["next"]
            if body["done"] and at >= body["total"]:
                return steps, body, wire


def _decoded(raw: bytes, encoding: str) -> bytes:
    import gzip

    import zstandard

    return gzip.decompress(raw) if encoding == "gzip" else zstandard.ZstdDecompressor().decompressobj().decompress(raw)


@pytest.mark.parametrize("kind", ["q", "fish", "unseeded"])
def test_the_steps_are_the_spectators_views_and_pictures_the_room_drew(server: WebServer, stored: dict[str, Any],
                                                                       kind: str, page: Any) -> None:
    steps, last, _ = all_steps(server, stored[kind])
    frames = [json.loads(line) for line in
              httpx.get(f"{server.url}/api/results/games/{stored[kind]}/replay", timeout=120).text.splitlines()]
    assert [(s["step"], s["caption"], s["view"]) for s in steps] == [(f["step"], f["caption"], f["view"])
                                                                     for f in frames]
    assert last["verified"] == ("not-re-dealable" if kind == "unseeded" else "yes")
    assert last["total"] == len(frames) > 2
    if kind == "q":   # drawn in the browser from the views, by the game's drawing module
        assert last["drawing"] == "/drawings/q.js" and not any("svg" in s for s in steps)
        page.goto(server.url + "/results")
        drawn = page.evaluate("""async (cases) => {
            const { draw } = await import("/drawings/q.js");
            return cases.map(([view, caption, before]) => draw(view, caption, before));
        }""", [[s["view"], s["caption"], steps[at - 1]["view"] if at else None] for at, s in enumerate(steps)])
        assert drawn == [f["svg"] for f in frames]
    else:             # drawn by the room, once a step
        assert last["drawing"] is None and [s["svg"] for s in steps] == [f["svg"] for f in frames]


def test_a_long_game_takes_less_than_twice_its_stored_size_on_the_wire(server: WebServer,
                                                                       stored: dict[str, Any]) -> None:
    game = long_q_game()
    for encoding in ("gzip", "zstd"):
        steps, last, wire = all_steps(server, stored["long"], encoding)
        assert last["verified"] == "yes" and len(steps) == game.steps + 1   # and the winners' picture
        assert wire <= 2 * stored["stored bytes"], (encoding, wire, stored["stored bytes"])
    # the last view has the stored result's scores
    scores = {p["name"]: p["score"] for p in steps[-1]["view"]["players"]}
    result = game.record.result
    assert result is not None and scores == dict(result.named_scores())
    assert steps[-1]["caption"].startswith("game over: winner")


def _cases() -> list[tuple[Any, str, Any, str]]:
    """Q states made to test the drawing's edges, with the spectators' picture of each."""
    from collections import deque

    from gameroom.games.q.descriptor import conceal, spectator_view
    from gameroom.games.q.pieces import ALL_KINDS
    from gameroom.games.q.qmap import QMap
    from gameroom.games.q.render import render_svg
    from gameroom.games.q.state import PlayerRecord, RefereeState

    rng = random.Random(7)
    captions = ["", "ada places 1 tile: red star at (0,1)", "it's \"quoted\" & <tagged> — 'naïve' ✓ 🙂",
                "a\u00a0b\u2003c\x1cd\u0085e " + "x" * 130 + " end", "game over: winners ada, bo (ada 12, bo 12)"]
    names = ["ada", "o'neil & <co>", "zoë", "🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂"]
    out = []
    for size in (1, 3, 12, 40, 200):
        cells: dict[tuple[int, int], Any] = {}
        r, c = rng.randint(-30, 30), rng.randint(-30, 30)
        while len(cells) < size:
            cells[(r, c)] = rng.choice(ALL_KINDS)
            dr, dc = rng.choice([(0, 1), (1, 0), (0, -1), (-1, 0)])
            r, c = r + dr, c + dc
        before = dict(list(cells.items())[:max(1, size - rng.randint(0, 3))])
        players = [PlayerRecord(name, rng.randint(0, 3000), [rng.choice(ALL_KINDS) for _ in range(rng.randint(0, 6))])
                   for name in rng.sample(names, rng.randint(1, 4))]
        pile = deque(rng.choice(ALL_KINDS) for _ in range(rng.choice([0, 1, 30])))
        state = RefereeState(QMap(cells), players, pile)
        view = spectator_view(state)
        earlier = spectator_view(RefereeState(QMap(before), players, pile))
        for caption in captions:
            placed = sorted(set(cells) - set(before))
            out.append((view, caption, earlier, render_svg(conceal(state, None), caption, placed)))
    out.append((spectator_view(RefereeState(QMap({}), [], deque())), "nobody", None,
                render_svg(conceal(RefereeState(QMap({}), [], deque()), None), "nobody", [])))
    return out


def test_qs_drawing_in_the_browser_is_its_picture_and_the_deltas_undo(server: WebServer, page: Any) -> None:
    cases = [*long_q_game().pictures, *_cases()]
    page.goto(server.url + "/results")
    drawn = page.evaluate("""async (cases) => {
        const { draw } = await import("/drawings/q.js");
        return cases.map(([view, caption, before]) => draw(view, caption, before));
    }""", [[view, caption, before] for view, caption, before, _ in cases])
    for (view, caption, _, svg), got in zip(cases, drawn):
        assert got == svg, (caption, view["players"])
    # the browser's delta module undoes what the server's diff found, on values of every shape
    rng = random.Random(3)

    def value(depth: int) -> Any:
        kind = rng.randrange(7 if depth < 4 else 4)
        if kind == 0:
            return rng.choice([None, True, False, 0, 1, -2.5, "", "x", "__proto__"])
        if kind in (1, 2, 3):
            return rng.randint(-5, 5)
        if kind in (4, 5):
            return [value(depth + 1) for _ in range(rng.randint(0, 5))]
        return {rng.choice(["a", "b", "c", "__proto__", "constructor", "1"]): value(depth + 1)
                for _ in range(rng.randint(0, 4))}

    pairs = []
    for _ in range(300):
        before = value(0)
        after = json.loads(json.dumps(before))
        for _ in range(rng.randint(0, 3)):
            after = [after, value(1)][rng.randrange(2)] if rng.random() < 0.3 else _changed(after, rng, value)
        pairs.append((before, diff(before, after), after))
        assert apply(before, diff(before, after)) == after
    undone = page.evaluate("""async (pairs) => {   // as JSON text, as the pages come (a "__proto__" key stays a key)
        const { apply } = await import("/static/delta.js");
        return pairs.map(([before, delta]) => JSON.stringify(apply(JSON.parse(before), JSON.parse(delta))));
    }""", [[json.dumps(b), json.dumps(d)] for b, d, _ in pairs])
    assert [json.loads(text) for text in undone] == [after for _, _, after in pairs]


def _changed(value: Any, rng: random.Random, make: Any) -> Any:
    if isinstance(value, list) and value:
        at = rng.randrange(len(value))
        choice = rng.randrange(3)
        if choice == 0:
            return value[:at] + [make(2)] + value[at:]
        if choice == 1:
            return value[:at] + value[at + 1:]
        return value[:at] + [_changed(value[at], rng, make)] + value[at + 1:]
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        out = dict(value)
        if rng.random() < 0.3:
            del out[key]
        else:
            out[key] = _changed(value[key], rng, make)
        return out
    return make(2)


def test_a_browser_opens_a_long_stored_game_and_steps_through_it(server: WebServer, stored: dict[str, Any],
                                                                 page: Any) -> None:
    game = long_q_game()
    fetched: list[int] = []
    page.on("requestfinished", lambda request: fetched.append(request.sizes()["responseBodySize"])
            if "/steps" in request.url else None)
    page.goto(f"{server.url}/results/games/{stored['long']}")
    page.wait_for_selector("#picture[data-step='1'] svg")
    first = game.pictures[0]
    assert page.inner_text("#caption") == f"step 1: {first[1]}"
    assert page.locator("#picture svg > title").text_content() == first[1]
    page.click("#forward")
    page.wait_for_selector("#picture[data-step='2'] svg")
    assert page.inner_text("#stepinfo").startswith("step 2 of ")
    assert page.locator("#picture svg g.placed rect").count() == 1   # the tile just placed, outlined
    screenshot(page, "stored-long-game-step-2")
    # the whole game once the rules have re-run it; then its middle and its end
    page.wait_for_function("!document.querySelector('#stepinfo').textContent.includes('so far')", timeout=300_000)
    assert page.inner_text("#stepinfo") == f"step 2 of {game.steps + 1}"
    middle = game.pictures[len(game.pictures) // 2]
    number = (len(game.pictures) // 2) * 45 + 1
    page.fill("#scrub", str(number - 1))
    page.wait_for_selector(f"#picture[data-step='{number}'] svg")
    assert page.inner_text("#caption") == f"step {number}: {middle[1]}"
    page.click("#last")
    page.wait_for_selector(f"#picture[data-step='{game.steps + 1}'] svg")
    assert page.inner_text("#caption").split(": ", 1)[1].startswith("game over: winner")
    screenshot(page, "stored-long-game-last")
    assert sum(fetched) <= 2 * stored["stored bytes"], (fetched, stored["stored bytes"])


@pytest.mark.parametrize("path, status, message", [
    ("/api/results/games/x/steps", 404, "no stored game 'x'"),
    ("/api/results/games/999999/steps", 404, "no stored game '999999'"),
    ("/api/results/games/1/steps?from=-1", 400, "from: expected a step number"),
    ("/api/results/games/1/steps?count=65", 400, "count: expected a number of steps in 0..64"),
    ("/drawings/fish.js", 404, "no drawing of 'fish'"),
])
def test_bad_questions_get_a_status_and_the_reason(server: WebServer, path: str, status: int, message: str) -> None:
    got, answer = server.request("GET", path)
    assert got == status and message in answer["error"], answer


def test_a_game_not_kept_says_so(server: WebServer, stored: dict[str, Any]) -> None:
    answer = server.get(f"/api/results/games/{stored['pruned']}/steps?from=0")
    assert answer["done"] and answer["verified"] == "not-kept" and answer["steps"] == []
    assert "its replay was not kept" in answer["message"]
    status = server.get(f"/api/results/games/{stored['q']}/steps?from=0&count=0")
    assert status["steps"] == [] and status["done"] and status["total"] == status["known"] > 0


def test_too_many_re_runs_at_once_are_refused(stored: dict[str, Any]) -> None:
    engine = open_database(stored["url"])
    viewer = Viewer(engine, reruns=1, waiting=1)
    viewer._turns.acquire()   # the one re-run slot is taken: every game opened waits
    try:
        waiting = [viewer.open(stored[kind]) for kind in ("q", "fish")]
        assert all(steps is not None and not steps.done for steps in waiting)
        with pytest.raises(Busy):
            viewer.open(stored["unseeded"])
        assert viewer.open(stored["q"]) is waiting[0]   # one already asked for is no new re-run
    finally:
        viewer._turns.release()
    viewer.close()
    engine.dispose()
