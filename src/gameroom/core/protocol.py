"""A game's player interface, declared once: methods, their wire names and codecs.

Both remote proxies are derived from a :class:`Protocol`, so a new game declares its
protocol instead of writing proxies: the proxy player encodes arguments and decodes the
reply with these codecs, and the proxy referee does the reverse. ``check`` validates what
a local (in-process) player returned, so local and remote players are held to the same
standard by the referee.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterable, TypeVar

from gameroom.core.wire import WireError, describe

T = TypeVar("T")

__all__ = ["Codec", "Method", "Protocol", "VOID", "JSON", "void_method"]


@dataclass(frozen=True)
class Codec(Generic[T]):
    """How one kind of value travels: ``encode`` to JSON, ``decode`` from JSON.

    ``decode`` raises ``WireError`` (a ``ValueError``) when the JSON is not such a value.
    """

    encode: Callable[[T], Any]
    decode: Callable[[Any], T]
    name: str = "value"


def _decode_void(value: Any) -> None:
    if value != "void" or not isinstance(value, str):
        raise WireError(f'expected the string "void", got {describe(value)}')
    return None


VOID: Codec[None] = Codec(encode=lambda _value: "void", decode=_decode_void, name="void")
JSON: Codec[Any] = Codec(encode=lambda value: value, decode=lambda value: value, name="json")


@dataclass(frozen=True)
class Method:
    """One call of the player interface."""

    name: str                                   # Python attribute name, e.g. "take_turn"
    wire: str                                   # name in the JSON call, e.g. "take-turn"
    args: tuple[Codec[Any], ...]
    result: Codec[Any] = VOID
    check: Callable[[Any], Any] | None = None   # validates/normalises a local player's result
    final: bool = False                         # the last call a client answers
    # What a remote reply that is not JSON at all stands for (e.g. Bazaar reads garbage in
    # reply to request-pebble-or-trades as "want pebble"); None: such a reply fails the call.
    # A reply that never completes still fails at the time limit.
    unreadable: Callable[[], Any] | None = None

    def encode_call(self, args: tuple[Any, ...]) -> list[Any]:
        return [self.wire, [codec.encode(arg) for codec, arg in zip(self.args, args)]]

    def decode_args(self, raw: Any) -> tuple[Any, ...]:
        if not isinstance(raw, list) or len(raw) != len(self.args):
            raise WireError(f"{self.wire} takes {len(self.args)} argument(s), got {describe(raw)}")
        out = []
        for i, (codec, arg) in enumerate(zip(self.args, raw)):
            try:
                out.append(codec.decode(arg))
            except WireError as exc:
                raise WireError(exc.detail, f"{self.wire} argument {i}: {exc.where}") from None
        return tuple(out)


def void_method(name: str, wire: str, *args: Codec[Any], final: bool = False) -> Method:
    return Method(name=name, wire=wire, args=tuple(args), result=VOID, final=final)


@dataclass(frozen=True)
class Protocol:
    """The complete set of calls a referee makes to a player of one game."""

    game: str
    methods: tuple[Method, ...]
    by_name: dict[str, Method] = field(init=False, repr=False, compare=False)
    by_wire: dict[str, Method] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {m.name: m for m in self.methods})
        object.__setattr__(self, "by_wire", {m.wire: m for m in self.methods})

    def method(self, name: str) -> Method:
        return self.by_name[name]

    def wire_names(self) -> Iterable[str]:
        return self.by_wire.keys()
