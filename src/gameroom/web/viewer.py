"""The viewer of stored games: a stored game's steps, re-derived once from its replay and
sent to the browser a page at a time as views — what a spectator may see of each state —
and what changed between them, not as pictures.

A replay keeps calls, not states (``league.replay``), so the states are the rules' own,
re-run with the recorded replies (``league.replay.verify_lines``: read line by line, so
the first step of a 1,080-turn Q game is there in a millisecond, and the whole replay is
never held parsed). Each state the game's story draws becomes a step: its caption, the
spectator's view (``views.spectator``) as a delta from the step before (``web.delta``),
and — only for a game that cannot be drawn in the browser — its picture, drawn once here.
A game whose descriptor has a ``drawing`` (a JavaScript module drawing the spectators'
picture of a view, the same picture; Q's) is drawn by the page from the views: a long Q
game's 1,080 pictures were 276 MB of SVG, its views as deltas are about 240 KB before
compression. Every page of steps starts with a whole view, so any page can be shown by
itself; a page is sent compressed (Zstandard when the browser takes it, else gzip).

The steps of the games viewed lately stay in memory within a byte budget; at most
:data:`RERUNS` games are re-run at once and :data:`WAITING` more may wait (beyond: 503).
A page asked before its steps exist waits for them, briefly, then says how far it got.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import zstandard
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from gameroom.core.game import GameDescriptor
from gameroom.core.narration import Story, winners_caption
from gameroom.core.record import CALL, EJECT, END, STATE, Event, MatchRecord, MatchResult
from gameroom.core.wire import WireError
from gameroom.games import registry
from gameroom.league.db import NOT_KEPT, GameRow
from gameroom.league.packing import WINDOW_LOG, is_packed, unpack, unpack_lines
from gameroom.league.replay import NOT_RE_DEALABLE, verify_lines
from gameroom.web.delta import diff

__all__ = ["Viewer", "Steps", "Busy", "PAGE", "encoded", "download"]

logger = logging.getLogger(__name__)

PAGE = 64
"""Steps a page holds at most; each page's first step carries its whole view."""
RERUNS = 2
"""Stored games re-run at once."""
WAITING = 16
"""Stored games that may wait for a re-run; one more is refused (503) until one is done."""
BUDGET = 64 * 1024 * 1024
"""Bytes of steps kept for the games viewed lately (a long Q game's are about 1 MB)."""
FIRST_WAIT = 0.1
"""Seconds a page with some steps waits for the rest of its steps before it is sent (the
first picture waits for no more than this; the page asks for the rest when it needs it)."""
LONGEST_WAIT = 15.0
"""Seconds a page waits for its first step (the page asks again after)."""
STATUS_WAIT = 2.0
"""Seconds a question for no steps (how far the re-run is) waits for its end."""


class Busy(Exception):
    """Too many stored games are being re-run or wait for it: ask again later."""


class _Stop(BaseException):
    """Raised through a re-run to end it (the viewer closes); not an Exception, so no
    referee or observer catch takes it for a failure of the game."""


@dataclass
class _Step:
    caption: str
    delta: str                  # JSON text: the view's delta from the step before ("null": unchanged)
    view: str | None = None     # JSON text of the whole view, at the start of each page
    svg: str | None = None      # the picture, for a game the browser cannot draw


@dataclass
class Steps:
    """One stored game's steps as its re-run makes them (thread-safe)."""

    game_id: int
    game: str
    drawing: bool
    steps: list[_Step] = field(default_factory=list)
    done: bool = False
    verdict: str | None = None        # yes | no | not-re-dealable | not-kept, once done
    message: str | None = None
    size: int = 0
    _last: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    stopped: bool = False

    def add(self, caption: str, view: Any, svg: str | None) -> None:
        if self.stopped:
            raise _Stop()
        delta = json.dumps(diff(self._last, view) if self.steps else ["=", view], ensure_ascii=False)
        whole = json.dumps(view, ensure_ascii=False) if len(self.steps) % PAGE == 0 else None
        step = _Step(caption, delta, whole, svg)
        with self._lock:
            self.steps.append(step)
            self.size += len(delta) + len(caption) + len(whole or "") + len(svg or "")
        self._last = view

    def finish(self, verdict: str, message: str | None) -> None:
        with self._lock:
            self.verdict, self.message, self.done = verdict, message, True
        self._last = None

    def ready(self, start: int) -> tuple[int, bool]:
        """How many steps exist from ``start`` on, and whether the re-run is over."""
        with self._lock:
            return max(0, len(self.steps) - start), self.done

    def page(self, start: int, count: int = PAGE) -> dict[str, Any]:
        """The steps from ``start`` (at most ``count``) as the page receives them: the
        first with its whole view, the others with their deltas; and how far the re-run is."""
        with self._lock:
            chosen = self.steps[start:start + count]
            total, done, verdict, message = len(self.steps), self.done, self.verdict, self.message
        out = []
        for at, step in enumerate(chosen, start):
            item: dict[str, Any] = {"step": at + 1, "caption": step.caption}
            if at == start:
                item["view"] = json.loads(step.view) if step.view is not None else self._view_at(at)
            else:
                item["delta"] = json.loads(step.delta)
            if step.svg is not None:
                item["svg"] = step.svg
            out.append(item)
        return {"id": self.game_id, "game": self.game, "drawing": f"/drawings/{self.game}.js" if self.drawing else None,
                "from": start, "steps": out, "next": start + len(out), "known": total, "done": done,
                "total": total if done else None, "verified": verdict, "message": message}

    def _view_at(self, at: int) -> Any:
        """The whole view of step ``at``: the page's first view and the deltas after it."""
        from gameroom.web.delta import apply

        base = at - at % PAGE
        with self._lock:
            steps = self.steps[base:at + 1]
        view = json.loads(steps[0].view) if steps[0].view is not None else None
        for step in steps[1:]:
            view = apply(view, json.loads(step.delta))
        return view


class Viewer:
    """The steps of the stored games of ``engine`` (a results database), re-derived when
    first asked and kept within :data:`BUDGET` bytes."""

    def __init__(self, engine: Engine, budget: int = BUDGET, reruns: int = RERUNS, waiting: int = WAITING) -> None:
        self.engine = engine
        self.budget = budget
        self.waiting, self.reruns = waiting, reruns
        self._kept: OrderedDict[int, Steps] = OrderedDict()
        self._lock = threading.Lock()
        self._turns = threading.Semaphore(reruns)
        self._closed = False
        threading.Thread(target=self._warm, name="stored-games-warm", daemon=True).start()

    def _warm(self) -> None:
        """Load what the first stored game shown needs (the games' narrators, the database's
        first query), so that one does not wait for it: done once, at start."""
        try:
            for game in registry.games().values():
                game.story(0, [f"P{k + 1}" for k in range(game.min_players)])
            with Session(self.engine) as session:
                session.get(GameRow, 0)
        except Exception:   # noqa: BLE001 -- only a head start: the first game shown loads it otherwise
            logger.debug("warming the viewer of stored games failed", exc_info=True)

    def open(self, game_id: int) -> Steps | None:
        """The game's steps (being re-derived, or done); None when there is no such game.
        Busy when too many games wait for their re-run. Reads the database: call it off
        the event loop."""
        with self._lock:
            found = self._kept.get(game_id)
            if found is not None:
                self._kept.move_to_end(game_id)
                return found
            if sum(1 for s in self._kept.values() if not s.done) >= self.waiting + self.reruns:
                raise Busy("too many stored games are being re-run: ask again in a few seconds")
        with Session(self.engine) as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            name, blob = row.game, row.replay
        try:
            game: GameDescriptor[Any, Any] | None = registry.game(name)
        except registry.UnknownGame:
            game = None
        steps = Steps(game_id, name, game is not None and game.drawing is not None and game.drawing.is_file())
        with self._lock:
            if game_id in self._kept:   # another request made it meanwhile
                return self._kept[game_id]
            self._kept[game_id] = steps
        if blob is None:
            steps.finish("not-kept", NOT_KEPT)
        elif game is None:
            steps.finish("no", f"no game {name!r} in this installation")
        else:
            threading.Thread(target=self._derive, args=(steps, game, blob), name=f"stored-game-{game_id}",
                             daemon=True).start()
        return steps

    def _derive(self, steps: Steps, game: GameDescriptor[Any, Any], blob: bytes) -> None:
        with self._turns:
            try:
                if not self._closed:
                    derive(steps, game, blob)
            except _Stop:
                steps.finish("no", "the viewer was closed")
            except Exception as exc:   # noqa: BLE001 -- a stored game that cannot be shown says why on its page
                logger.warning("stored game %s cannot be shown", steps.game_id, exc_info=True)
                steps.finish("no", f"the stored game cannot be shown: {type(exc).__name__}: {exc}")
        self._trim()

    def _trim(self) -> None:
        """Let go of the steps of the games viewed longest ago beyond the budget."""
        with self._lock:
            total = sum(s.size for s in self._kept.values())
            for game_id in list(self._kept):
                if total <= self.budget:
                    break
                kept = self._kept[game_id]
                if kept.done:
                    total -= kept.size
                    del self._kept[game_id]

    def close(self) -> None:
        """End the re-runs in progress (the room is stopping)."""
        self._closed = True
        with self._lock:
            for steps in self._kept.values():
                steps.stopped = True


def derive(steps: Steps, game: GameDescriptor[Any, Any], blob: bytes) -> None:
    """Fill ``steps`` from a stored replay: the rules' re-run told by the game's story
    (and checked, as ``replay verify`` checks it); a game the rules cannot re-deal from
    the state snapshots its replay kept, else its calls."""
    lines = unpack_lines(blob)
    first = next(lines, "")
    try:
        header = json.loads(first)
        seed, seats = header.get("seed"), list(header.get("seats") or [])
    except (ValueError, AttributeError, TypeError):
        seed, seats = None, []
    story = game.story(seed if isinstance(seed, int) else 0, seats)
    ended: list[MatchResult] = []

    def observe(event: Event) -> None:
        told = story.tell(event)
        if told.drawn:
            _add(steps, game, story, told.state, told.caption or "")
        elif event.kind == END and isinstance(event.subject, MatchResult):
            ended.append(event.subject)

    divergence = verify_lines(_chained(first, lines), observers=[observe])
    if divergence is not None and divergence.unverifiable:
        record = MatchRecord.from_jsonl(unpack(blob))
        if not _recorded(steps, game, record):
            _calls(steps, record)
        steps.finish("not-re-dealable", NOT_RE_DEALABLE)
        return
    if divergence is None and ended and story.last is not None:
        # the last picture names the winners, as in gameroom play
        caption = story.narrator.final_caption(ended[-1])
        if caption is not None:
            _add(steps, game, story, story.last, caption)
    steps.finish("yes" if divergence is None else "no", None if divergence is None else str(divergence))


def _chained(first: str, rest: Iterator[str]) -> Iterator[str]:
    yield first
    yield from rest


def _add(steps: Steps, game: GameDescriptor[Any, Any], story: Story | None, state: Any, caption: str) -> None:
    svg = None if steps.drawing else game.picture(state, None, caption, story.draw if story is not None else None)
    steps.add(caption, game.views.spectator(state), svg)


def _recorded(steps: Steps, game: GameDescriptor[Any, Any], record: MatchRecord) -> bool:
    """The state snapshots a replay recorded, as a spectator sees them, captioned as they
    were (a snapshot the game cannot read: a step saying so); whether there were any."""
    last = None
    for event in record.events:
        if event.kind != STATE or event.data.get("state") is None:
            continue
        caption = str(event.get("caption") or f"step {len(steps.steps) + 1}")
        try:
            last = game.state_codec.decode(event.data["state"])
        except (WireError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            steps.add(f"{caption} (unreadable snapshot: {exc})", None, None)
            last = None
            continue
        _add(steps, game, None, last, caption)
    if last is not None and record.result is not None:   # the last picture names the winners
        _add(steps, game, None, last, winners_caption(record.result))
    return bool(steps.steps)


def _calls(steps: Steps, record: MatchRecord) -> None:
    """A replay without snapshots nor seed: its calls and ejections as captions (without
    arguments, which may hold a seat's secrets)."""
    for event in record.events:
        if event.kind == CALL:
            steps.add(f"{event.get('seat')}: {event.get('method')}" + (" (failed)" if event.get("reply") is None
                                                                       else ""), None, None)
        elif event.kind == EJECT:
            steps.add(f"{event.get('seat')} ejected on {event.get('method')}: {event.get('reason')}", None, None)


async def wait_page(steps: Steps, start: int, count: int = PAGE) -> dict[str, Any]:
    """The page of at most ``count`` steps from ``start`` once it is complete, the re-run
    is over, or it has some steps and waited :data:`FIRST_WAIT` for the rest
    (:data:`LONGEST_WAIT` at most for its first); with ``count`` 0, how far the re-run is
    once it is over or after :data:`STATUS_WAIT`. Polled, so no thread waits."""
    began = time.monotonic()
    some = None
    while True:
        ready, done = steps.ready(start)
        now = time.monotonic()
        if ready and some is None:
            some = now
        if (done or (count and ready >= count) or (count and some is not None and now - some >= FIRST_WAIT)
                or now - began >= (LONGEST_WAIT if count else STATUS_WAIT)):
            return steps.page(start, count)
        await asyncio.sleep(0.02 if ready else 0.05)


# -- on the wire ----------------------------------------------------------------------------

def accepted(request: Request) -> set[str]:
    """The content codings the client takes (``Accept-Encoding``, q above 0)."""
    out = set()
    for part in request.headers.get("accept-encoding", "").split(","):
        coding, _, params = part.strip().partition(";")
        quality = params.strip()
        if quality.startswith("q="):
            try:
                if float(quality[2:]) <= 0:
                    continue
            except ValueError:
                continue
        if coding:
            out.add(coding.strip().lower())
    return out


_PAGE_ZSTD = zstandard.ZstdCompressionParameters.from_level(3, window_log=WINDOW_LOG, write_content_size=True)


def encoded(request: Request, body: bytes, media_type: str, headers: dict[str, str] | None = None) -> Response:
    """``body`` compressed as the client takes it: Zstandard (a window of at most 8 MB, as
    browsers require), else gzip, else as it is."""
    codings = accepted(request)
    extra = {"vary": "accept-encoding", **(headers or {})}
    if "zstd" in codings:
        body = zstandard.ZstdCompressor(compression_params=_PAGE_ZSTD).compress(body)
        extra["content-encoding"] = "zstd"
    elif "gzip" in codings:
        body = gzip.compress(body, 6)
        extra["content-encoding"] = "gzip"
    return Response(body, media_type=media_type, headers=extra)


def download(request: Request, blob: bytes, filename: str) -> Response:
    """A stored replay to download as JSON Lines: its stored bytes themselves with
    ``Content-Encoding: zstd`` to a client that takes it (what the database keeps is on
    the wire), else gzip or plain text made as it is sent."""
    headers = {"content-disposition": f'attachment; filename="{filename}"', "vary": "accept-encoding"}
    codings = accepted(request)
    if "zstd" in codings and is_packed(blob):
        return Response(blob, media_type="application/x-ndjson", headers={**headers, "content-encoding": "zstd"})
    if "gzip" in codings:
        headers["content-encoding"] = "gzip"
        return StreamingResponse(_gzipped(blob), media_type="application/x-ndjson", headers=headers)
    return StreamingResponse(_lines(blob), media_type="application/x-ndjson", headers=headers)


def _lines(blob: bytes) -> Iterator[bytes]:
    batch: list[str] = []
    size = 0
    for line in unpack_lines(blob):
        batch.append(line + "\n")
        size += len(line)
        if size >= 1 << 16:
            yield "".join(batch).encode("utf-8")
            batch, size = [], 0
    if batch:
        yield "".join(batch).encode("utf-8")


def _gzipped(blob: bytes) -> Iterator[bytes]:
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)   # a gzip member
    for chunk in _lines(blob):
        out = packer.compress(chunk)
        if out:
            yield out
    yield packer.flush()
