"""Actor specifications (6.4): which built-in strategy a player uses and how it misbehaves.

``[name, strategy]`` is a well-behaved player; ``[name, strategy, JExn]`` raises on the
first call of a method; ``[name, strategy, "a cheat", JCheat]`` cheats (9.3);
``[name, strategy, JExn, Count]`` loops forever on the Count-th call of a method (9.4).
Which forms a reader accepts is chosen with ``allow``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from gameroom.core.wire import WireError, describe, expect_choice, expect_int, expect_list
from gameroom.games.q.codec import decode_name

STRATEGY_NAMES: tuple[str, ...] = ("dag", "ldasg")
EXN_METHODS: tuple[str, ...] = ("setup", "take-turn", "new-tiles", "win")
CHEAT_NAMES: tuple[str, ...] = ("non-adjacent-coordinate", "tile-not-owned", "not-a-line",
                                "bad-ask-for-tiles", "no-fit")
A_CHEAT = "a cheat"
LOOP_MIN, LOOP_MAX = 1, 7
ALL_FORMS: tuple[str, ...] = ("exn", "cheat", "loop")


@dataclass(frozen=True)
class ActorSpec:
    """One player specification.

    `exn` names the misbehaving method: it raises on its first call, or — when
    `loop_count` is set — loops forever on its `loop_count`-th call. `cheat` is a JCheat.
    """

    name: str
    strategy: str
    exn: str | None = None
    cheat: str | None = None
    loop_count: int | None = None

    def to_json(self) -> list[Any]:
        """The JActorSpec form of this spec."""
        return encode_actor(self)


def encode_actor(spec: ActorSpec) -> list[Any]:
    """JActorSpec."""
    out: list[Any] = [spec.name, spec.strategy]
    if spec.cheat is not None:
        out += [A_CHEAT, spec.cheat]
    elif spec.exn is not None:
        out.append(spec.exn)
        if spec.loop_count is not None:
            out.append(spec.loop_count)
    return out


def decode_actor(value: Any, allow: Iterable[str] = ALL_FORMS, lax_names: bool = False,
                    where: str = "$") -> ActorSpec:
    """JActorSpec -> ActorSpec. `allow` lists the permitted misbehaving forms among
    "exn", "cheat", "loop"; `lax_names` accepts any string as a name (10.9)."""
    allowed = set(allow)
    spec = expect_list(value, where)
    if not 2 <= len(spec) <= 4:
        raise WireError(f"expected an actor spec of 2 to 4 elements, got {describe(value)}", where)
    name = decode_name(spec[0], f"{where}[0]", lax=lax_names)
    strategy = expect_choice(spec[1], STRATEGY_NAMES, f"{where}[1]")
    if len(spec) == 2:
        return ActorSpec(name, strategy)
    if len(spec) == 3:
        if "exn" not in allowed:
            raise WireError("exception-raising actor specs are not allowed here", where)
        return ActorSpec(name, strategy, exn=expect_choice(spec[2], EXN_METHODS, f"{where}[2]"))
    if spec[2] == A_CHEAT:
        if "cheat" not in allowed:
            raise WireError("cheating actor specs are not allowed here", where)
        return ActorSpec(name, strategy, cheat=expect_choice(spec[3], CHEAT_NAMES, f"{where}[3]"))
    if "loop" not in allowed:
        raise WireError("looping actor specs are not allowed here", where)
    exn = expect_choice(spec[2], EXN_METHODS, f"{where}[2]")
    count = expect_int(spec[3], f"{where}[3]", LOOP_MIN, LOOP_MAX)
    return ActorSpec(name, strategy, exn=exn, loop_count=count)


def encode_actors(specs: Iterable[ActorSpec]) -> list[list[Any]]:
    """JActors."""
    return [encode_actor(s) for s in specs]


def decode_actors(value: Any, allow: Iterable[str] = ALL_FORMS, lax_names: bool = False,
                     where: str = "$") -> list[ActorSpec]:
    """JActors -> list of ActorSpec (possibly empty), in turn order."""
    allow = tuple(allow)
    items = expect_list(value, where)
    return [decode_actor(v, allow, lax_names, f"{where}[{i}]") for i, v in enumerate(items)]
