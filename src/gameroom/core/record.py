"""One record of a match for every game: what replays, the results database, ratings and
the live web view read.

A :class:`MatchRecord` holds the game, seed, configuration and seats, then an ordered log
of :class:`Event` s — every call and its reply with the latency, every ejection with a
:class:`FailureKind` and a reason, state snapshots through the game's codec — and ends
in one :class:`MatchResult` (winners, ranking, scores, ejections), which names players
by seat index (their identity: display names may repeat) and by name. Records serialise
to JSON Lines (one header line, one line per event, one result line) and back without
loss; written out (:meth:`MatchRecord.to_jsonl`) every line is sealed into a digest chain
(``core.chain``), which reading strips again; records written before results held seat
indices still load.

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

__all__ = ["FailureKind", "Ejection", "MatchResult", "Event", "MatchRecord", "Recorder", "names_only", "SEAT_KEYS",
           "CALL", "EJECT", "STATE", "END"]

CALL = "call"      # {"seat", "method", "args", "reply", "latency"}; reply null when it failed
EJECT = "eject"    # {"seat", "method", "kind", "reason"}
STATE = "state"    # {"state", "caption", notes...}; a note "event" (the game's name of the step)
                   # travels in JSON as "what", beside the record's own "event" key
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
    """One ejected player: its seat (the index in the match's seat order, its identity),
    its name (for display), the method it failed on, the kind of failure and the reason."""

    seat: int
    name: str
    method: str
    kind: FailureKind
    reason: str

    def __str__(self) -> str:
        return f"{self.name} dropped out on {self.method}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "method": self.method, "kind": self.kind.value, "reason": self.reason,
                "seat": self.seat}

    @classmethod
    def from_json(cls, value: dict[str, Any], seat: int = -1) -> "Ejection":
        """An ejection from its JSON; ``seat`` where a record written before seats were
        identity holds none."""
        return cls(value.get("seat", seat), value["name"], value["method"], FailureKind(value["kind"]),
                   value["reason"])


SEAT_KEYS = ("names", "winner_seats", "misbehaved_seats", "ranking_seats", "seat_scores")
"""The keys of a result record that name seats by index (records written before seats
were identity hold only the names)."""


@dataclass
class MatchResult:
    """How a match ended, for every game, by seat: ``names`` gives each seat's display
    name (in the match's seat order); the winners and the misbehaving seats as the game's
    result prescribes them (order, sorting), the surviving seats grouped by rank (best
    first), final scores per seat, and the ejections in the order they happened. Seats are
    indices into ``names``, so two players of the same name stay apart; ``winners``,
    ``misbehaved``, ``ranking`` and ``scores`` give the names, for printing and the wire."""

    names: list[str]
    winner_seats: list[int] = field(default_factory=list)
    misbehaved_seats: list[int] = field(default_factory=list)
    ranking_seats: list[list[int]] = field(default_factory=list)
    seat_scores: dict[int, Any] = field(default_factory=dict)
    ejections: list[Ejection] = field(default_factory=list)

    @property
    def winners(self) -> list[str]:
        return [self.names[seat] for seat in self.winner_seats]

    @property
    def misbehaved(self) -> list[str]:
        return [self.names[seat] for seat in self.misbehaved_seats]

    @property
    def ranking(self) -> list[list[str]]:
        return [[self.names[seat] for seat in group] for group in self.ranking_seats]

    @property
    def scores(self) -> dict[str, Any]:
        """Scores by name, for display (of two seats of one name, the later one shows)."""
        return {self.names[seat]: score for seat, score in self.seat_scores.items()}

    def named_scores(self) -> list[tuple[str, Any]]:
        """``(name, score)`` of every seat with a score, in the result's order: for printing,
        two seats of one name both shown."""
        return [(self.names[seat], score) for seat, score in self.seat_scores.items()]

    @property
    def failures(self) -> list[Ejection]:
        """The ejections (the name the referees' tests know them by)."""
        return self.ejections

    def to_json(self) -> list[list[str]]:
        """The games' result on the wire: ``[winners, misbehaving]``."""
        return [self.winners, self.misbehaved]

    def to_record(self) -> dict[str, Any]:
        """The result as JSON: by name (what records have always held) and by seat."""
        return {"winners": self.winners, "misbehaved": self.misbehaved, "ranking": self.ranking,
                "scores": self.scores, "ejections": [e.to_json() for e in self.ejections],
                "names": list(self.names), "winner_seats": list(self.winner_seats),
                "misbehaved_seats": list(self.misbehaved_seats),
                "ranking_seats": [list(g) for g in self.ranking_seats],
                "seat_scores": [[seat, score] for seat, score in self.seat_scores.items()]}

    @classmethod
    def from_record(cls, value: dict[str, Any], names: Iterable[str] | None = None) -> "MatchResult":
        """A result from :meth:`to_record`'s JSON. A record written before seats were
        identity holds names only: each name is then given a seat of that name among
        ``names`` (the record's seats; by default the names in the order the result shows
        them), one seat per occurrence."""
        if "names" in value:
            return cls(list(value["names"]), list(value["winner_seats"]), list(value["misbehaved_seats"]),
                       [list(g) for g in value["ranking_seats"]], {seat: s for seat, s in value["seat_scores"]},
                       [Ejection.from_json(e) for e in value["ejections"]])
        shown = [*(n for g in value["ranking"] for n in g), *value["winners"], *value["misbehaved"],
                 *value["scores"], *(e["name"] for e in value["ejections"])]
        seated = list(names) if names is not None else list(dict.fromkeys(shown))
        ejections = _seats_by_name(seated, [e["name"] for e in value["ejections"]])
        ranked = iter(_seats_by_name(seated, [n for g in value["ranking"] for n in g]))
        return cls(seated, _seats_by_name(seated, value["winners"]), _seats_by_name(seated, value["misbehaved"]),
                   [[next(ranked) for _ in g] for g in value["ranking"]],
                   dict(zip(_seats_by_name(seated, list(value["scores"])), value["scores"].values())),
                   [Ejection.from_json(e, seat) for e, seat in zip(value["ejections"], ejections)])


def _seats_by_name(names: list[str], shown: Iterable[str]) -> list[int]:
    """The seats of ``shown`` names (one list of a result: winners, the whole ranking, ...):
    the k-th occurrence of a name takes the k-th seat of that name (the last one when
    there are fewer; -1 for a name no seat has)."""
    taken: dict[str, int] = {}
    seats = []
    for name in shown:
        at = [i for i, n in enumerate(names) if n == name]
        k = taken.get(name, 0)
        taken[name] = k + 1
        seats.append(at[min(k, len(at) - 1)] if at else -1)
    return seats


def names_only(result: dict[str, Any]) -> dict[str, Any]:
    """A result record as records written before seats were identity hold it."""
    return {**{k: v for k, v in result.items() if k not in SEAT_KEYS},
            "ejections": [{k: v for k, v in e.items() if k != "seat"} for e in result.get("ejections", ())]}


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
        data = self.data
        if "event" in data and "what" not in data:   # a game's own note "event" (Fish's "moved")
            data = {("what" if key == "event" else key): value for key, value in data.items()}
        return {"event": self.kind, **data}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> "Event":
        data = dict(value)
        kind = data.pop("event")
        if "what" in data and "event" not in data:
            data = {("event" if key == "what" else key): value for key, value in data.items()}
        return cls(kind, data)

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
    # The result line as read (``from_lines``): ``result`` is rebuilt from its seats, so a
    # name list edited on its own is seen only here (``league.replay`` compares both).
    written_result: dict[str, Any] | None = field(default=None, repr=False, compare=False)

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
                record.result = MatchResult.from_record(row["result"], record.seats)
                record.written_result = row["result"]
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
        _ = event.data   # encode now: the live state may change after this event
        self.record.events.append(event)
        if event.kind == END:
            self.record.result = MatchResult.from_record(event.data["result"])
