"""Replays: a game's match record as JSON Lines, shown and verified against the real rules.

A replay *is* the ``core.record.MatchRecord`` of the game in its JSON Lines form (header
with game, seed, configuration and seats; every call with its arguments, reply and
latency; every ejection with its kind and reason; the result), without the state
snapshots, which the rules recompute. :func:`verify` re-runs the game from the header's
seed through the registry's ``play`` with *scripted* seats that give back the recorded
replies (and fail where the recorded call failed), then compares every event and the
result: an altered file names the first step that differs.

Games a server plan or a tournament deals (``gameroom serve|tournament --replay``) have
no registry seed: their headers carry the *session* instead (the command's options, the
server's configuration and the seats in the order the plan received them), and every
match the session ran is in the file, the tournament's own start and end calls
included. :func:`verify_session` re-runs the whole session through the same command
with every seat answered from the file (a queue per seat and method, so concurrent
games of a round replay the same whatever the threads do) and compares each match.
"""

from __future__ import annotations

import json
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from gameroom.core.context import MatchContext
from gameroom.core.calls import CallFailed
from gameroom.core.chain import UNCHAINED, ChainCheck, DigestChain, check_chain
from gameroom.core.match import Seat
from gameroom.core.options import OptionError, option_values
from gameroom.core.record import (CALL, EJECT, END, SEAT_KEYS, STATE, Event, FailureKind, MatchRecord, MatchResult,
                                  Recorder, names_only)

__all__ = ["ReplayRecorder", "Divergence", "verify", "verify_lines", "verify_session", "describe", "read_replays", "ReplayFile",
           "LoadedReplay", "load_replays", "head_problems", "result_difference", "NOT_RE_DEALABLE"]

NOT_RE_DEALABLE = ("not re-dealable: dealt by a tournament or a server rather than from a seed, so the rules "
                   "cannot re-run it (no sign of an alteration)")
"""What ``replay verify`` and the web room say of a game they cannot re-run, in the same
words: it is not evidence of an alteration."""

logger = logging.getLogger(__name__)


class ReplayRecorder(Recorder):
    """A recorder that keeps calls, ejections and the end (no state snapshots, which cost
    encoding and space and which the rules recompute on verification) — unless
    ``states``: a game the rules cannot re-deal (no seed) keeps its snapshots, the only
    way to draw it later."""

    def __init__(self, *args: Any, states: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.states = states

    def __call__(self, event: Event) -> None:
        if event.kind != STATE or (self.states and event.subject is not None):
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


def _comparable(event: Event, recorded: Event | None = None) -> dict[str, Any]:
    """The event's facts to compare (not its latency); a re-run's end is compared by names
    only with a replay written before results held seat indices."""
    data = {key: value for key, value in event.to_json().items() if key != "latency"}
    if (recorded is not None and event.kind == END and isinstance(data.get("result"), dict)
            and "names" not in (recorded.get("result") or {})):
        data["result"] = names_only(data["result"])
    return data


class _Recorded:
    """A replay's events other than state snapshots, read as the re-run reaches them and
    let go once both the script and the comparison are past them: a long game's whole
    parse costs seconds and hundreds of MB, its first steps a few lines. ``result`` and
    ``written`` are the result line's, known once the source has been read to its end."""

    def __init__(self, source: Iterable[Event | tuple[MatchResult | None, dict[str, Any] | None]]) -> None:
        self._source = iter(source)
        self._events: dict[int, Event] = {}
        self._read = 0
        self.ended = False
        self.result: MatchResult | None = None
        self.written: dict[str, Any] | None = None

    def get(self, at: int) -> Event | None:
        """The ``at``-th event (0-based), None past the last."""
        while self._read <= at and not self.ended:
            item = next(self._source, None)
            if item is None:
                self.ended = True
            elif isinstance(item, Event):
                if item.kind != STATE:
                    self._events[self._read] = item
                    self._read += 1
            else:
                self.result, self.written = item
        return self._events.get(at)

    def count(self) -> int:
        """How many events there are (reads the source to its end)."""
        while not self.ended:
            self.get(self._read)
        return self._read

    def release(self, below: int) -> None:
        for at in [at for at in self._events if at < below]:
            del self._events[at]


class _Script:
    """The recorded calls handed back, in order, to whichever seat the referee calls."""

    def __init__(self, recorded: _Recorded, protocol: Any) -> None:
        self.recorded = recorded
        self.protocol = protocol
        self.at = 0

    def caller(self, seat_name: str) -> Any:
        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
            spec = self.protocol.by_name[method]
            while (found := self.recorded.get(self.at)) is not None and found.kind != CALL:
                self.at += 1
            if found is None:
                raise _Diverged(Divergence(self.at + 1,
                                           f"the rules call {spec.wire} of {seat_name}, the replay has no more calls"))
            step, event = self.at + 1, found
            self.at += 1
            if event.get("seat") != seat_name or event.get("method") != spec.wire:
                raise _Diverged(Divergence(step, f"the rules call {spec.wire} of {seat_name}, the replay has "
                                                 f"{event.get('method')} of {event.get('seat')}"))
            reply = event.get("reply")
            if spec.one_way:
                return None
            if reply is None:
                ejection = self._ejection(seat_name)
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

    def _ejection(self, seat_name: str) -> Event | None:
        """The recorded ejection of ``seat_name`` after the current call."""
        at = self.at
        while (event := self.recorded.get(at)) is not None:
            if event.kind == EJECT and event.get("seat") == seat_name:
                return event
            at += 1
        return None


class _Compare:
    """The observer that compares each event of the re-run, as it happens, with the
    recorded one at the same place (state snapshots aside), and stops the re-run at the
    first difference; it keeps the re-run's result."""

    def __init__(self, recorded: _Recorded, script: _Script) -> None:
        self.recorded, self.script = recorded, script
        self.at = 0
        self.result: MatchResult | None = None

    def __call__(self, event: Event) -> None:
        if event.kind == STATE:
            return
        if event.kind == END:
            self.result = MatchResult.from_record(event.data["result"])
        theirs = self.recorded.get(self.at)
        if theirs is None:
            raise _Diverged(Divergence(self.at + 1, f"the replay ends here, before {event.kind} "
                                                    f"{_short(_comparable(event))}"))
        a, b = _comparable(event, theirs), _comparable(theirs)
        if a != b:
            raise _Diverged(_differs(self.at + 1, theirs, a, b))
        self.at += 1
        self.recorded.release(min(self.at, self.script.at))

    def rest(self) -> Divergence | None:
        """After the re-run: a recorded event the rules never reached."""
        theirs = self.recorded.get(self.at)
        if theirs is None:
            return None
        return Divergence(self.at + 1, f"the rules end the game here, before {theirs.kind} "
                                       f"{_short(_comparable(theirs))}")


def recorded_options(game: Any, config: dict[str, Any]) -> dict[str, Any]:
    """The typed game options a replay header's configuration records (``options``, by
    option key, as ``league.table`` writes them); {} when it records none. OptionError
    for a key the game does not declare or a value it refuses."""
    given = config.get("options")
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise OptionError(f"expected a table of options, got {type(given).__name__}")
    declared = {option.key: option for option in game.room_options}
    unknown = sorted(set(given) - set(declared) - {option.name for option in game.room_options})
    if unknown:
        raise OptionError(f"{game.name} has no option {unknown[0]!r}")
    return option_values(list(declared.values()), given)


def verify(record: MatchRecord, observers: Iterable[Any] = ()) -> Divergence | None:
    """Re-run ``record`` through the real rules; None when every event and the result
    match, else the first step that differs. ``observers`` also see the re-run's events,
    state snapshots included (the web room draws a stored game's steps from them)."""
    events: list[Any] = [*record.events, (record.result, record.written_result)]
    return _rerun(record.game, record.seed, record.config, record.seats, _Recorded(events), observers)


def verify_lines(lines: Iterable[str], observers: Iterable[Any] = ()) -> Divergence | None:
    """:func:`verify` of a replay given as its JSON Lines, each line read only when the
    re-run reaches it: the first steps of a long game come at once, and memory holds a
    few events rather than the whole record (the web room's viewer of stored games). The
    lines' digests are not checked here (``load_replays`` does)."""
    lines = iter(lines)
    try:
        head = json.loads(next(line for line in lines if line.strip()))
        game, seed, config, seats = head["game"], head["seed"], head["config"], list(head["seats"])
    except (StopIteration, ValueError, KeyError, TypeError) as exc:
        return Divergence(0, f"the replay's header cannot be read: {type(exc).__name__}: {exc}")

    def read() -> Iterable[Any]:
        for number, line in enumerate(lines, 2):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                row.pop("digest", None)
                if "result" in row and "event" not in row:
                    yield MatchResult.from_record(row["result"], seats), row["result"]
                else:
                    yield Event.from_json(row)
            except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
                raise _Diverged(Divergence(0, f"line {number} cannot be read: {type(exc).__name__}: {exc}")) from None

    return _rerun(game, seed, config if isinstance(config, dict) else {}, seats, _Recorded(read()), observers)


def _rerun(name: str, seed: Any, config: dict[str, Any], seats: list[str], recorded: _Recorded,
           observers: Iterable[Any]) -> Divergence | None:
    from gameroom.games import registry

    try:
        game = registry.game(name)
    except registry.UnknownGame as exc:
        return Divergence(0, str(exc))
    if seed is None:
        return Divergence(0, NOT_RE_DEALABLE, unverifiable=True)
    seat_config = config.get("seats") or [{"name": seat} for seat in seats]
    if [s.get("name") for s in seat_config] != list(seats):
        return Divergence(0, "the header's seats and configuration disagree")
    try:
        options = recorded_options(game, config)
    except OptionError as exc:
        return Divergence(0, f"the header's game options cannot be played: {exc}")
    script = _Script(recorded, game.protocol)
    compare = _Compare(recorded, script)
    players = [Seat(s["name"], script.caller(s["name"]), trusted=bool(s.get("trusted", False))) for s in seat_config]
    try:
        game.play_options(seed, players, options, MatchContext(observers=[compare, *observers]))
        return compare.rest() or _result_difference(compare.result, recorded.result, recorded.written,
                                                    recorded.count() + 1)
    except _Diverged as exc:
        return exc.divergence
    except Exception as exc:   # a file can make the rules fail only by being altered
        logger.debug("replaying %s failed", script.at, exc_info=True)
        return Divergence(script.at, f"the rules could not replay the game: {type(exc).__name__}: {exc}")


_RESULT_KEYS = ("winners", "misbehaved", "ranking", "scores", "ejections", *SEAT_KEYS)


def result_difference(derived: MatchResult | None, record: MatchRecord) -> Divergence | None:
    """How the record's result line differs from the result the rules ``derived`` (None
    when the rules ended no game: a tournament's start and end calls); None when it agrees.
    The step is the result line's: one after the last event."""
    step = sum(1 for e in record.events if e.kind != STATE) + 1
    return _result_difference(derived, record.result, record.written_result, step)


def _result_difference(derived: MatchResult | None, result: MatchResult | None, written: dict[str, Any] | None,
                       step: int) -> Divergence | None:
    if derived is None:
        if result is not None:
            return Divergence(step, "the replay has a result line, but the rules end no game here")
        return None
    if result is None:
        return Divergence(step, "the replay has no result line (the rules' result: "
                                f"{_short(derived.to_record(), 200)})")
    # The line as written: a name list edited without its seats (or the reverse) differs
    # from the rules' result even though the parsed result is rebuilt from the seats.
    theirs = written if isinstance(written, dict) else result.to_record()
    ours = derived.to_record()
    if "names" not in theirs:   # written before results held seat indices: compared by names
        ours = names_only(ours)
    keys = [key for key in _RESULT_KEYS if key in ours and ours.get(key) != theirs.get(key)]
    if not keys:
        return None
    what = ", ".join(f"{k}: rules {_short(ours.get(k))} / replay {_short(theirs.get(k))}" for k in keys)
    return Divergence(step, f"the recorded result differs from the rules' ({what})")


def _first_difference(replayed: Sequence[Event], recorded: Sequence[Event], stop: int | None = None) -> Divergence | None:
    count = max(len(replayed), len(recorded)) if stop is None else stop
    for at in range(count):
        ours = replayed[at] if at < len(replayed) else None
        theirs = recorded[at] if at < len(recorded) else None
        if ours is None or theirs is None:
            missing = "the replay ends" if theirs is None else "the rules end the game"
            other = ours if theirs is None else theirs
            assert other is not None   # count is the longer length: one of the two is there
            return Divergence(at + 1, f"{missing} here, before {other.kind} {_short(_comparable(other))}")
        a, b = _comparable(ours, theirs), _comparable(theirs)
        if a != b:
            return _differs(at + 1, theirs, a, b)
    return None


def _differs(step: int, theirs: Event, a: dict[str, Any], b: dict[str, Any]) -> Divergence:
    keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    what = ", ".join(f"{k}: rules {_short(a.get(k))} / replay {_short(b.get(k))}" for k in keys)
    label = f"{theirs.kind} {theirs.get('method') or ''} {theirs.get('seat') or ''}".split()
    return Divergence(step, f"{' '.join(label)} differs ({what})")


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
        if result.seat_scores:
            yield "scores: " + ", ".join(f"{k} {v}" for k, v in result.named_scores())


def _bot(spec: dict[str, Any]) -> str:
    for kind in ("builtin", "python", "command"):
        if kind in spec:
            value = spec[kind]
            return f"{kind} {' '.join(value) if isinstance(value, list) else value}"
    return "?"


@dataclass
class LoadedReplay:
    """One replay of a file (or a stored game) with what its text shows before any re-run:
    the digest chain's breaks and the faults of its layout, each as ``line N: ...``.
    ``chained`` is False for text written before replays carried a digest chain."""

    label: str
    record: MatchRecord
    first_line: int
    last_line: int
    problems: list[str] = field(default_factory=list)
    chained: bool = True
    kept: bool = True
    """False for a stored game whose replay a retention rule let go: nothing to check."""

    @property
    def note(self) -> str | None:
        """What to say about a replay that is only as good as its re-run."""
        return None if self.chained else UNCHAINED


def read_replays(text: str, source: str) -> list[MatchRecord]:
    """One or more replays from JSON Lines text (a file may hold several, one after the
    other, each starting with its header line)."""
    return [loaded.record for loaded in load_replays(text, source)[0]]


def load_replays(text: str, source: str) -> tuple[list[LoadedReplay], ChainCheck]:
    """Every replay of ``text`` with its problems (see :class:`LoadedReplay`), and the
    file's digest chain as checked. Raises ValueError for a line that is not a JSON object
    or a record that cannot be read at all."""
    lines = text.splitlines()
    chunks: list[list[tuple[int, str, dict[str, Any]]]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}, line {number}: not JSON: {exc.msg}") from None
        except ValueError as exc:    # an integer of more than 4300 digits
            raise ValueError(f"{source}, line {number}: unreadable JSON: {exc}") from None
        if not isinstance(row, dict):
            raise ValueError(f"{source}, line {number}: not a JSON object")
        if "game" in row and "event" not in row and chunks:
            chunks.append([])
        if not chunks:
            chunks.append([])
        chunks[-1].append((number, line, row))
    if not chunks:
        raise ValueError(f"{source} holds no replay")
    chain = check_chain(lines, restarts={chunk[0][0] for chunk in chunks[1:]})
    loaded = []
    for at, chunk in enumerate(chunks):
        label = source + (f" #{at + 1}" if len(chunks) > 1 else "")
        first, last = chunk[0][0], chunk[-1][0]
        record = _record([line for _n, line, _r in chunk], label)
        problems = [str(b) for b in chain.breaks if first <= b.line <= last]
        problems += _layout(chunk)
        problems.sort(key=_line_number)
        loaded.append(LoadedReplay(label, record, first, last, problems, chain.chained))
    return loaded, chain


def _line_number(problem: str) -> int:
    head = problem.split(":", 1)[0]
    return int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 0


def _layout(chunk: list[tuple[int, str, dict[str, Any]]]) -> list[str]:
    """The faults of one record's lines: an event or a second result after the result
    line, an end event without a result line (or with another result), a result without
    an end event."""
    problems: list[str] = []
    result_at: int | None = None
    result: Any = None
    end_at: int | None = None
    end_result: Any = None
    for number, _line, row in chunk[1:]:
        if "event" in row:
            if result_at is not None:
                problems.append(f"line {number}: an event after the result line (line {result_at})")
            if row.get("event") == END:
                end_at, end_result = number, row.get("result")
        elif "result" in row:
            if result_at is not None:
                problems.append(f"line {number}: a second result line (the first is line {result_at})")
            else:
                result_at, result = number, row.get("result")
    last = chunk[-1][0]
    if end_at is not None and result_at is None:
        problems.append(f"line {last + 1}: no result line after the end event (line {end_at}): it was removed")
    elif end_at is not None and result != end_result:
        problems.append(f"line {result_at}: the result line differs from the end event's result (line {end_at})")
    elif end_at is None and result_at is not None:
        problems.append(f"line {result_at}: a result line without an end event")
    if result_at is not None and not _consistent(result):
        problems.append(f"line {result_at}: the result line's names disagree with its seats (winners, ranking, "
                        "scores or ejections edited on one side only)")
    return problems


def _consistent(result: Any) -> bool:
    """Whether a result line that names players both by seat and by name says the same
    both ways (what ``MatchResult.to_record`` writes); a line by names only (written before
    seats were identity) has nothing to disagree with."""
    if not isinstance(result, dict) or "names" not in result:
        return True
    try:
        return MatchResult.from_record(result).to_record() == result
    except (KeyError, TypeError, ValueError, IndexError):
        return False


def head_problems(check: ChainCheck, stored: str | None, where: str = "the database") -> list[str]:
    """How a replay's chain disagrees with the head kept for it elsewhere (``stored``;
    None when nothing was kept, as for games stored before chains existed)."""
    if stored is None:
        if check.chained:
            return [f"{where} keeps no digest for this game although its replay is chained (the digest was cleared)"]
        return []
    if not check.chained:
        return [(f"the replay carries no digest chain, yet {where} keeps its head {stored[:16]}...: "
                 "the chain was stripped")]
    if check.head != stored:
        return [(f"line {check.lines}: the replay's chain ends in {str(check.head)[:16]}..., {where} keeps "
                 f"{stored[:16]}...: lines were cut off its end, or the replay or its digest was replaced")]
    return []


def _record(lines: list[str], source: str) -> MatchRecord:
    try:
        return MatchRecord.from_lines(lines)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{source}: not a match record: {type(exc).__name__}: {exc}") from None


class ReplayFile:
    """Records every match this process runs into one JSON Lines file, a replay after the
    other as each game ends (``gameroom serve|tournament --replay FILE``). Such games are
    dealt by the server's configuration or the tournament, not from a registry seed: their
    header has no seed but the ``session`` set by :meth:`begin` (how to run them again).
    Matches that never end (a tournament's start and end calls) are written when the
    session closes."""

    def __init__(self, path: Any, config: dict[str, Any] | None = None) -> None:
        import threading

        self.path = path
        self.config = dict(config or {})
        self.written = 0
        self.session: dict[str, Any] | None = None
        self._sessions = 0
        self._open: list[ReplayRecorder] = []
        self._lock = threading.Lock()
        self._chain = DigestChain()   # one chain through the whole file, record after record
        with open(path, "w", encoding="utf-8"):
            pass   # start empty; fail now, not after the game, when it cannot be written

    def begin(self, session: dict[str, Any]) -> None:
        """The matches made from now on belong to this session (a served game, a tournament)."""
        self.close()
        self._sessions += 1
        self.session = {"id": self._sessions, **session}

    def observer(self, match: Any) -> Any:
        names = [seat.name for seat in match.seats]
        config = {**self.config, "seats": [{"name": n} for n in names]}
        if self.session is not None:
            config["session"] = self.session
        recorder = ReplayRecorder(match.protocol.game, None, config, names)
        with self._lock:
            self._open.append(recorder)

        def observe(event: Event) -> None:
            recorder(event)
            if event.kind == END:
                self._write(recorder)

        return observe

    def _write(self, recorder: ReplayRecorder) -> None:
        with self._lock, open(self.path, "a", encoding="utf-8") as out:
            if recorder in self._open:
                self._open.remove(recorder)
            out.write(recorder.record.to_jsonl(self._chain))
            self.written += 1

    def close(self) -> None:
        """Write the session's matches that never ended but called someone."""
        with self._lock:
            unfinished = [r for r in self._open if any(e.kind == CALL for e in r.record.events)]
            self._open.clear()
        for recorder in unfinished:
            self._write(recorder)


class _SessionScript:
    """A whole session's recorded calls as a queue per (seat, method): each seat plays its
    games one after the other, so its calls of one method come in the same order however
    a round's concurrent games interleave."""

    def __init__(self, records: Sequence[MatchRecord], protocol: Any) -> None:
        self.protocol = protocol
        self.queues: dict[tuple[str, str], deque[tuple[Any, tuple[str, str] | None]]] = {}
        for record in records:
            events = [e for e in record.events if e.kind != STATE]
            for at, event in enumerate(events):
                if event.kind != CALL:
                    continue
                failure = None
                if event.get("reply") is None:
                    ejection = next((e for e in events[at + 1:] if e.kind == EJECT and e.get("seat") == event.get("seat")),
                                    None)
                    if ejection is not None:
                        failure = (str(ejection.get("reason")), str(ejection.get("kind")))
                key = (str(event.get("seat")), str(event.get("method")))
                self.queues.setdefault(key, deque()).append((event.get("reply"), failure))

    def caller(self, seat_name: str) -> Callable[[str, tuple[Any, ...], float | None], Any]:
        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
            spec = self.protocol.by_name[method]
            queue = self.queues.get((seat_name, spec.wire))
            if not queue:
                raise _Diverged(Divergence(0, f"the session calls {spec.wire} of {seat_name} once more than "
                                              "the replay holds"))
            reply, failure = queue.popleft()
            if failure is not None:
                try:
                    kind = FailureKind(failure[1])
                except ValueError:
                    raise _Diverged(Divergence(0, f"unknown failure kind {failure[1]!r}")) from None
                raise CallFailed(failure[0], kind)
            if spec.one_way:
                return None
            if reply is None:
                raise _Diverged(Divergence(0, f"a call {spec.wire} of {seat_name} has no reply and no ejection"))
            try:
                return spec.result.decode(reply)
            except (ValueError, TypeError, KeyError) as exc:
                raise _Diverged(Divergence(0, f"a reply to {spec.wire} of {seat_name} is not a valid "
                                              f"{spec.result.name}: {exc}")) from None

        return call


def _keyed(records: Iterable[MatchRecord]) -> dict[tuple[Any, ...], MatchRecord]:
    """Records by (seats, occurrence): the same line-up's games in order."""
    out: dict[tuple[Any, ...], MatchRecord] = {}
    seen: dict[tuple[str, ...], int] = {}
    for record in records:
        seats = tuple(record.seats)
        seen[seats] = seen.get(seats, 0) + 1
        out[(*seats, seen[seats])] = record
    return out


def verify_session(records: Sequence[MatchRecord],
                   rerun: Callable[[Callable[[Any], Any]], None]) -> list[Divergence | None]:
    """Re-run one session (``rerun(factory)`` runs the command with ``factory`` given every
    match it makes, as ``core.match.observe_every_match`` does) with every seat answered
    from ``records``; per record (in order), None when it matches, else the first
    difference."""
    from gameroom.games import registry

    try:
        game = registry.game(records[0].game)
    except registry.UnknownGame as exc:
        return [Divergence(0, str(exc))] * len(records)
    script = _SessionScript(records, game.protocol)
    replayed: list[ReplayRecorder] = []

    def factory(match: Any) -> Any:
        for seat in match.seats:      # every call is answered from the file
            seat.caller = script.caller(seat.name)
        recorder = ReplayRecorder(records[0].game, None, {}, [seat.name for seat in match.seats])
        replayed.append(recorder)
        return recorder

    try:
        rerun(factory)
    except _Diverged as exc:
        return [exc.divergence] * len(records)
    except Exception as exc:   # a file can make the command fail only by being altered
        logger.debug("re-running a session failed", exc_info=True)
        return [Divergence(0, f"the session could not be run again: {type(exc).__name__}: {exc}")] * len(records)
    again = _keyed(r.record for r in replayed if r.record.events)
    ours = _keyed(records)
    out: list[Divergence | None] = []
    for key, record in ours.items():
        twin = again.get(key)
        if twin is None:
            out.append(Divergence(0, f"the session played no game of {', '.join(record.seats)} (#{key[-1]})"))
            continue
        recorded = [e for e in record.events if e.kind != STATE]
        out.append(_first_difference([e for e in twin.events if e.kind != STATE], recorded)
                   or result_difference(twin.result, record))
    return out
