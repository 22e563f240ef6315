"""One record of a match for every game: what replays, the results database, ratings and
the live web view read.

A :class:`MatchRecord` holds the game, seed, configuration and seats, then an ordered log
of :class:`Event` s — every call and its reply with the latency, every ejection with a
:class:`FailureKind` and a reason, state snapshots through the game's codec — and ends
in one :class:`MatchResult` (winners, ranking, scores, ejections). Records serialise to
JSON Lines (one header line, one line per event, one result line) and back without loss;
written out (:meth:`MatchRecord.to_jsonl`) every line is sealed into a digest chain
(``core.chain``), which reading strips again.

Events are also the one observer vocabulary: an observer is a callable that receives each
:class:`Event` as the match emits it (``core.match.Match``), the same for every game. A
state event carries the live state object as ``subject`` (for pictures; never serialised)
and encodes it to JSON only when asked (``Event.data``), so a match nobody records costs
nothing for snapshots.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Iterator

from gameroom.core.chain import DigestChain

__all__ = ["FailureKind", "Ejection", "MatchResult", "Event", "MatchRecord", "Recorder",
           "CALL", "EJECT", "STATE", "END"]

CALL = "call"      # {"seat", "method", "args", "reply", "latency"}; reply null when it failed
EJECT = "eject"    # {"seat", "method", "kind", "reason"}
STATE = "state"    # {"state", "caption"}
END = "end"        # {"result"}


class FailureKind(str, Enum):
    """Why a player was ejected."""

    TIMEOUT = "time-out"
    EXCEPTION = "exception"
    INVALID_REPLY = "invalid-reply"
    ILLEGAL_ACTION = "illegal-action"
    DISCONNECT = "disconnect"


@dataclass(frozen=True)
class Ejection:
    """One ejected player: the method it failed on, the kind of failure and the reason."""

    name: str
    method: str
    kind: FailureKind
    reason: str

    def __str__(self) -> str:
        return f"{self.name} dropped out on {self.method}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "method": self.method, "kind": self.kind.value, "reason": self.reason}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> "Ejection":
        return cls(value["name"], value["method"], FailureKind(value["kind"]), value["reason"])


@dataclass
class MatchResult:
    """How a match ended, for every game: the winners and the misbehaving players as the
    game's result prescribes them (order, sorting), the surviving players grouped by rank
    (best first), final scores, and the ejections in the order they happened."""

    winners: list[str]
    misbehaved: list[str] = field(default_factory=list)
    ranking: list[list[str]] = field(default_factory=list)
    scores: dict[str, Any] = field(default_factory=dict)
    ejections: list[Ejection] = field(default_factory=list)

    @property
    def failures(self) -> list[Ejection]:
        """The ejections (the name the referees' tests know them by)."""
        return self.ejections

    def to_json(self) -> list[list[str]]:
        """The games' result on the wire: ``[winners, misbehaving]``."""
        return [list(self.winners), list(self.misbehaved)]

    def to_record(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "misbehaved": list(self.misbehaved),
                "ranking": [list(g) for g in self.ranking], "scores": dict(self.scores),
                "ejections": [e.to_json() for e in self.ejections]}

    @classmethod
    def from_record(cls, value: dict[str, Any]) -> "MatchResult":
        return cls(list(value["winners"]), list(value["misbehaved"]), [list(g) for g in value["ranking"]],
                   dict(value["scores"]), [Ejection.from_json(e) for e in value["ejections"]])


class Event:
    """One thing that happened in a match. ``data`` is JSON: the facts given eagerly, plus
    what ``encode`` adds on first access (a state through the game's codec, a call's
    arguments), so an event nobody serialises costs no encoding."""

    __slots__ = ("kind", "_data", "_ready", "subject", "detail", "_encode")

    def __init__(self, kind: str, data: dict[str, Any] | None = None, subject: Any = None,
                 encode: Callable[[], dict[str, Any]] | None = None, detail: Any = None) -> None:
        self.kind = kind
        self._data = data if data is not None else {}
        self._ready = encode is None
        self.subject = subject    # the live object: a state, (args, reply) of a call, the result
        self.detail = detail      # a game's own live account of the event (Bazaar's Step)
        self._encode = encode

    @property
    def data(self) -> dict[str, Any]:
        if not self._ready:
            self._data = {**self._encode(), **self._data}  # type: ignore[misc]
            self._ready, self._encode = True, None
        return self._data

    def get(self, key: str, default: Any = None) -> Any:
        """One fact; the eager ones without encoding anything."""
        if key in self._data:
            return self._data[key]
        return self.data.get(key, default)

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind, **self.data}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> "Event":
        data = dict(value)
        return cls(data.pop("event"), data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and self.kind == other.kind and self.data == other.data

    def __repr__(self) -> str:
        return f"Event({self.kind!r}, {self.data!r})"


@dataclass
class MatchRecord:
    """A whole match: header, event log, result."""

    game: str
    seed: Any = None
    config: dict[str, Any] = field(default_factory=dict)
    seats: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    result: MatchResult | None = None

    def lines(self) -> Iterator[str]:
        """The record as JSON Lines: header, events, result."""
        yield json.dumps({"game": self.game, "seed": self.seed, "config": self.config, "seats": self.seats},
                         ensure_ascii=False)
        for event in self.events:
            yield json.dumps(event.to_json(), ensure_ascii=False)
        if self.result is not None:
            yield json.dumps({"result": self.result.to_record()}, ensure_ascii=False)

    def sealed_lines(self, chain: DigestChain) -> Iterator[str]:
        """The record's lines, each sealed into ``chain`` as it is produced."""
        for line in self.lines():
            yield chain.seal(line)

    def to_jsonl(self, chain: DigestChain | None = None) -> str:
        """The record as JSON Lines sealed into ``chain`` (a new one: the record is a file
        of its own; a file of several records passes its chain on)."""
        chain = chain if chain is not None else DigestChain()
        return "".join(line + "\n" for line in self.sealed_lines(chain))

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> "MatchRecord":
        """A record from its JSON Lines (digests, if any, are dropped: checking them is
        ``core.chain.check_chain``'s job); the last result line is the result."""
        rows = [json.loads(line) for line in lines if line.strip()]
        if not rows:
            raise ValueError("an empty match record")
        for row in rows:
            if isinstance(row, dict):
                row.pop("digest", None)
        head = rows[0]
        record = cls(head["game"], head["seed"], head["config"], list(head["seats"]))
        for row in rows[1:]:
            if "result" in row and "event" not in row:
                record.result = MatchResult.from_record(row["result"])
            else:
                record.events.append(Event.from_json(row))
        return record

    @classmethod
    def from_jsonl(cls, text: str) -> "MatchRecord":
        return cls.from_lines(text.splitlines())

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, MatchRecord) and self.lines_list() == other.lines_list())

    def lines_list(self) -> list[str]:
        return list(self.lines())


class Recorder:
    """An observer that keeps every event into a :class:`MatchRecord`."""

    def __init__(self, game: str, seed: Any = None, config: dict[str, Any] | None = None,
                 seats: Iterable[str] = ()) -> None:
        self.record = MatchRecord(game, seed, dict(config or {}), list(seats))

    def __call__(self, event: Event) -> None:
        event.data   # encode now: the live state may change after this event
        self.record.events.append(event)
        if event.kind == END:
            self.record.result = MatchResult.from_record(event.data["result"])
