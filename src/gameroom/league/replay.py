"""Replays: a game's match record as JSON Lines, shown and verified against the real rules.

A replay *is* the ``core.record.MatchRecord`` of the game in its JSON Lines form (header
with game, seed, configuration and seats; every call with its arguments, reply and
latency; every ejection with its kind and reason; the result), without the state
snapshots, which the rules recompute. :func:`verify` re-runs the game from the header's
seed through the registry's ``play`` with *scripted* seats that give back the recorded
replies (and fail where the recorded call failed), then compares every event and the
result: an altered file names the first step that differs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from gameroom.core.calls import CallFailed
from gameroom.core.match import Seat
from gameroom.core.record import CALL, EJECT, END, STATE, Event, FailureKind, MatchRecord, Recorder

__all__ = ["ReplayRecorder", "Divergence", "verify", "describe", "read_replays"]


class ReplayRecorder(Recorder):
    """A recorder that keeps calls, ejections and the end (no state snapshots, which cost
    encoding and space and which the rules recompute on verification)."""

    def __call__(self, event: Event) -> None:
        if event.kind != STATE:
            super().__call__(event)


@dataclass
class Divergence:
    """Where a replay and the real rules part: the step (1-based event number) and why.
    ``unverifiable`` marks a replay the registry cannot re-deal (no seed: a tournament game
    dealt by its own manager), which is not evidence of an alteration."""

    step: int
    message: str
    unverifiable: bool = False

    def __str__(self) -> str:
        return f"step {self.step}: {self.message}"


class _Diverged(BaseException):
    """Raised through the referee when it asks for a call the replay does not have
    (BaseException so that no referee's ``except Exception`` can swallow it)."""

    def __init__(self, divergence: Divergence) -> None:
        super().__init__(str(divergence))
        self.divergence = divergence


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _comparable(event: Event) -> dict[str, Any]:
    return {key: value for key, value in event.to_json().items() if key != "latency"}


class _Script:
    """The recorded calls handed back, in order, to whichever seat the referee calls."""

    def __init__(self, record: MatchRecord, protocol: Any) -> None:
        self.events = [e for e in record.events if e.kind != STATE]
        self.protocol = protocol
        self.at = 0

    def caller(self, seat_name: str) -> Any:
        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
            spec = self.protocol.by_name[method]
            while self.at < len(self.events) and self.events[self.at].kind != CALL:
                self.at += 1
            if self.at >= len(self.events):
                raise _Diverged(Divergence(len(self.events) + 1,
                                           f"the rules call {spec.wire} of {seat_name}, the replay has no more calls"))
            step, event = self.at + 1, self.events[self.at]
            self.at += 1
            if event.get("seat") != seat_name or event.get("method") != spec.wire:
                raise _Diverged(Divergence(step, f"the rules call {spec.wire} of {seat_name}, the replay has "
                                                 f"{event.get('method')} of {event.get('seat')}"))
            reply = event.get("reply")
            if spec.one_way:
                return None
            if reply is None:
                ejection = next((e for e in self.events[self.at:] if e.kind == EJECT and e.get("seat") == seat_name),
                                None)
                if ejection is None:
                    raise _Diverged(Divergence(step, f"call {spec.wire} of {seat_name} has no reply and no ejection"))
                try:
                    kind = FailureKind(ejection.get("kind"))
                except ValueError:
                    raise _Diverged(Divergence(step, f"unknown failure kind {ejection.get('kind')!r}")) from None
                raise CallFailed(str(ejection.get("reason")), kind)
            try:
                return spec.result.decode(reply)
            except (ValueError, TypeError, KeyError) as exc:
                raise _Diverged(Divergence(step, f"reply to {spec.wire} of {seat_name} is not a valid "
                                                 f"{spec.result.name}: {exc}")) from None

        return call


def verify(record: MatchRecord, observers: Iterable[Any] = ()) -> Divergence | None:
    """Re-run ``record`` through the real rules; None when every event and the result
    match, else the first step that differs. ``observers`` also see the re-run's events,
    state snapshots included (the web room draws a stored game's steps from them)."""
    from gameroom.games import registry

    try:
        game = registry.game(record.game)
    except registry.UnknownGame as exc:
        return Divergence(0, str(exc))
    if record.seed is None:
        return Divergence(0, "not dealt by the registry from a seed (a served or tournament game): it cannot be re-run",
                          unverifiable=True)
    seat_config = record.config.get("seats") or [{"name": name} for name in record.seats]
    if [s.get("name") for s in seat_config] != list(record.seats):
        return Divergence(0, "the header's seats and configuration disagree")
    script = _Script(record, game.protocol)
    seats = [Seat(s["name"], script.caller(s["name"]), trusted=bool(s.get("trusted", False))) for s in seat_config]
    again = ReplayRecorder(record.game, record.seed, record.config, record.seats)
    try:
        game.play(record.seed, seats, observers=[again, *observers])
    except _Diverged as exc:
        earlier = _first_difference(again.record.events, script.events, stop=exc.divergence.step - 1)
        return earlier or exc.divergence
    except Exception as exc:   # a file can make the rules fail only by being altered
        return Divergence(script.at, f"the rules could not replay the game: {type(exc).__name__}: {exc}")
    return _first_difference(again.record.events, script.events)


def _first_difference(replayed: Sequence[Event], recorded: Sequence[Event], stop: int | None = None) -> Divergence | None:
    count = max(len(replayed), len(recorded)) if stop is None else stop
    for at in range(count):
        ours = replayed[at] if at < len(replayed) else None
        theirs = recorded[at] if at < len(recorded) else None
        if ours is None or theirs is None:
            missing = "the replay ends" if theirs is None else "the rules end the game"
            other = ours if theirs is None else theirs
            return Divergence(at + 1, f"{missing} here, before {other.kind} {_short(_comparable(other))}")
        a, b = _comparable(ours), _comparable(theirs)
        if a != b:
            keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            what = ", ".join(f"{k}: rules {_short(a.get(k))} / replay {_short(b.get(k))}" for k in keys)
            label = f"{theirs.kind} {theirs.get('method') or ''} {theirs.get('seat') or ''}".split()
            return Divergence(at + 1, f"{' '.join(label)} differs ({what})")
    return None


def describe(record: MatchRecord) -> Iterable[str]:
    """A readable account of a replay, one line per step."""
    seats = record.config.get("seats") or [{"name": n} for n in record.seats]
    yield f"{record.game}, seed {record.seed}: " + ", ".join(
        f"{s['name']}" + (f" ({_bot(s['bot'])})" if s.get("bot") else "") for s in seats)
    extra = {k: v for k, v in record.config.items() if k != "seats"}
    if extra:
        yield "configuration: " + _short(extra, 400)
    for step, event in enumerate((e for e in record.events if e.kind != STATE), 1):
        if event.kind == CALL:
            latency = event.get("latency")
            timing = f" in {latency * 1000:.1f} ms" if isinstance(latency, (int, float)) else ""
            reply = "(failed)" if event.get("reply") is None else _short(event.get("reply"), 100)
            yield f"{step:5} call {event.get('method')} -> {event.get('seat')}: {_short(event.get('args'), 100)} => {reply}{timing}"
        elif event.kind == EJECT:
            yield f"{step:5} ejected {event.get('seat')} on {event.get('method')} [{event.get('kind')}]: {event.get('reason')}"
        elif event.kind == END:
            yield f"{step:5} end"
        else:
            yield f"{step:5} {event.kind} {_short(event.data)}"
    if record.result is not None:
        result = record.result
        yield f"winners: {', '.join(result.winners) or 'none'}; ejected: {', '.join(result.misbehaved) or 'none'}"
        if result.scores:
            yield "scores: " + ", ".join(f"{k} {v}" for k, v in result.scores.items())


def _bot(spec: dict[str, Any]) -> str:
    for kind in ("builtin", "python", "command"):
        if kind in spec:
            value = spec[kind]
            return f"{kind} {' '.join(value) if isinstance(value, list) else value}"
    return "?"


def read_replays(text: str, source: str) -> list[MatchRecord]:
    """One or more replays from JSON Lines text (a file may hold several, one after the
    other, each starting with its header line)."""
    records: list[MatchRecord] = []
    chunk: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}, line {number}: not JSON: {exc.msg}") from None
        if not isinstance(row, dict):
            raise ValueError(f"{source}, line {number}: not a JSON object")
        if "game" in row and "event" not in row and chunk:
            records.append(_record(chunk, source))
            chunk = []
        chunk.append(line)
    if chunk:
        records.append(_record(chunk, source))
    if not records:
        raise ValueError(f"{source} holds no replay")
    return records


def _record(lines: list[str], source: str) -> MatchRecord:
    try:
        return MatchRecord.from_lines(lines)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{source}: not a match record: {type(exc).__name__}: {exc}") from None


class ReplayFile:
    """Records every match this process runs into one JSON Lines file, a replay after the
    other as each game ends (``gameroom serve --replay FILE``). Such games are dealt by the
    server's configuration, not from a registry seed, so their header has no seed."""

    def __init__(self, path: Any, config: dict[str, Any] | None = None) -> None:
        import threading

        self.path = path
        self.config = dict(config or {})
        self.written = 0
        self._lock = threading.Lock()
        with open(path, "w", encoding="utf-8"):
            pass   # start empty; fail now, not after the game, when it cannot be written

    def observer(self, match: Any) -> Any:
        names = [seat.name for seat in match.seats]
        recorder = ReplayRecorder(match.protocol.game, None, {**self.config, "seats": [{"name": n} for n in names]},
                                  names)

        def observe(event: Event) -> None:
            recorder(event)
            if event.kind == END:
                with self._lock, open(self.path, "a", encoding="utf-8") as out:
                    out.write(recorder.record.to_jsonl())
                    self.written += 1

        return observe
