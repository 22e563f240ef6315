"""A game's player interface, declared once: methods, their wire names and codecs, the
envelope calls travel in and the sign-up greeting.

Both remote proxies are derived from a :class:`WireProtocol`, so a new game declares its
protocol instead of writing proxies: the proxy player encodes arguments and decodes the
reply with these codecs, and the proxy referee does the reverse. ``check`` validates what
a local (in-process) player returned, so local and remote players are held to the same
standard by the referee.

Where games' wires differ, the protocol declares parts instead of the proxies branching:

* the **envelope** (:class:`Envelope`) wraps a call's encoded arguments into one message
  and finds the method of a message: :data:`TAGGED` is ``[wire-name, [args...]]`` (Q, Bazaar,
  Fish); :class:`Positional` sends the bare argument array and tells methods apart by its
  length or a shape test (Evolution);
* a method may be **one-way** (``Method.one_way``): sent without waiting for a reply, and
  the client sends none (Evolution's ``start``);
* the **greeting** (:class:`Greeting`) says what a sign-up message carries and what the
  server answers on acceptance (nothing, or Evolution's ``"ok"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

from gameroom.core.wire import WireError, describe

T = TypeVar("T")

__all__ = ["Codec", "Method", "WireProtocol", "VOID", "JSON", "void_method", "Envelope", "Tagged", "TAGGED",
           "Positional", "Greeting", "PLAIN_NAME"]


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
    # Sent without waiting for a reply; the client answers nothing (Evolution's start).
    one_way: bool = False

    def encode_args(self, args: tuple[Any, ...]) -> list[Any]:
        return [codec.encode(arg) for codec, arg in zip(self.args, args)]

    def decode_args(self, raw: Any, where: str = "$") -> tuple[Any, ...]:
        """The arguments of a call from their JSON array at ``where``; a WireError names the
        JSON path of what was wrong (``$[1][0].players``)."""
        if not isinstance(raw, list) or len(raw) != len(self.args):
            raise WireError(f"{self.wire} takes {len(self.args)} argument(s), got {describe(raw)}", where)
        out = []
        for i, (codec, arg) in enumerate(zip(self.args, raw)):
            try:
                out.append(codec.decode(arg))
            except WireError as exc:
                raise WireError(exc.detail, f"{where}[{i}]{exc.where[1:]}") from None
        return tuple(out)


def void_method(name: str, wire: str, *args: Codec[Any], final: bool = False) -> Method:
    return Method(name=name, wire=wire, args=tuple(args), result=VOID, final=final)


class Envelope:
    """How one call travels as one JSON message; subclasses are the encodings."""

    def encode_call(self, method: Method, args: tuple[Any, ...]) -> Any:
        raise NotImplementedError

    def decode_call(self, protocol: "WireProtocol", message: Any) -> tuple[Method, tuple[Any, ...]]:
        """The method and decoded arguments of a message; WireError when it is none."""
        raise NotImplementedError


class Tagged(Envelope):
    """``[wire-name, [arguments...]]``: the method is named in the message."""

    def encode_call(self, method: Method, args: tuple[Any, ...]) -> Any:
        return [method.wire, method.encode_args(args)]

    def decode_call(self, protocol: "WireProtocol", message: Any) -> tuple[Method, tuple[Any, ...]]:
        if not (isinstance(message, list) and len(message) == 2):
            raise WireError(f"expected [method, [arguments]], got {describe(message)}")
        method = protocol.by_wire.get(message[0]) if isinstance(message[0], str) else None
        if method is None:
            raise WireError(f"unknown method {message[0]!r}; expected one of {', '.join(protocol.by_wire)}", "$[0]")
        return method, method.decode_args(message[1], "$[1]")


TAGGED = Tagged()


@dataclass(frozen=True)
class Positional(Envelope):
    """The bare argument array ``[arguments...]``: no tag, the receiver tells methods apart by
    shape. By default a method is recognised by the array's length (Evolution: start has
    4 elements, choose 2, feedNext 5); ``shapes`` may give a test per wire name instead,
    tried in declaration order."""

    shapes: tuple[tuple[str, Callable[[list[Any]], bool]], ...] = ()

    def encode_call(self, method: Method, args: tuple[Any, ...]) -> Any:
        return method.encode_args(args)

    def decode_call(self, protocol: "WireProtocol", message: Any) -> tuple[Method, tuple[Any, ...]]:
        if not isinstance(message, list):
            raise WireError(f"expected an array of arguments, got {describe(message)}")
        tests = dict(self.shapes)
        for method in protocol.methods:
            test = tests.get(method.wire)
            if test(message) if test is not None else len(message) == len(method.args):
                return method, method.decode_args(message)
        raise WireError(f"no call has the shape of {describe(message)}")


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Greeting:
    """The sign-up exchange: the message a client sends for its name (``message``), the
    name a server reads from it (``name_of``, which may raise WireError), and the value the
    server sends back on acceptance (``ack``; None: nothing is sent and a client reads
    nothing)."""

    message: Callable[[Any], Any] = _same
    name_of: Callable[[Any], Any] = _same
    ack: Any = None


PLAIN_NAME = Greeting()
"""The name as a bare JSON value, no answer (Q, Bazaar, Fish)."""


@dataclass(frozen=True)
class WireProtocol:
    """The complete set of calls a referee makes to a player of one game, the envelope
    they travel in and the sign-up greeting."""

    game: str
    methods: tuple[Method, ...]
    envelope: Envelope = TAGGED
    greeting: Greeting = PLAIN_NAME
    by_name: dict[str, Method] = field(init=False, repr=False, compare=False)
    by_wire: dict[str, Method] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {m.name: m for m in self.methods})
        object.__setattr__(self, "by_wire", {m.wire: m for m in self.methods})

    def method(self, name: str) -> Method:
        return self.by_name[name]
