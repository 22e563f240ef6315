"""A game's command-line options as data: what ``gameroom play|serve|clients|tournament
GAME`` accepts beyond the generic options, declared by the game and turned into argparse
by the command line.

A game declares :class:`Option` records; the command line parses them and hands the game
plain *typed options*: a mapping from each option's :attr:`Option.key` to its value,
converted by the option's ``type`` and checked (bounds, choices, the option's own
``check``). Games build their plans from such a mapping, never from an
``argparse.Namespace``, so the same plan can be built again from a replay header, which
stores the mapping as JSON. The same records type a lobby room's options, which travel
as JSON (:func:`json_option_value`, :func:`describe_option`). Game-agnostic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from gameroom.core.errors import ConfigurationError as ConfigurationError, OptionError as OptionError   # re-exported
from gameroom.core.wire import describe

__all__ = [
    "ConfigurationError",
    "Option",
    "OptionError",
    "Options",
    "comma_list",
    "describe_option",
    "json_option_value",
    "named_options",
    "option_values",
    "players_option",
    "table_options",
    "seed_option",
    "strategies_option",
]

Options = Mapping[str, Any]
"""Typed option values by :attr:`Option.key` (``"q_bonus"`` for ``--q-bonus``)."""


@dataclass(frozen=True)
class Option:
    """One command-line option, ``--NAME``.

    ``type`` converts the text given (``int``, ``float``, ``str``, or any function of one
    string; :func:`comma_list` for comma-separated names); ``default`` is the value when the
    option is absent (not converted). ``choices`` limits the values; ``low``/``high``
    bound a number (checked after parsing: ``--NAME must lie in LOW..HIGH, got V``).
    ``flag`` makes a switch without a value (``False`` unless given). ``repeat`` lets the
    option be given several times, one value each; ``many`` takes one or more values per
    use; both collect a list. ``check(value)`` raises :class:`OptionError` for a value
    the bounds cannot describe. ``aliases`` are further spellings (``-s``).
    """

    name: str
    type: Callable[[str], Any] = str
    default: Any = None
    help: str = ""
    choices: Sequence[Any] | None = None
    low: float | None = None
    high: float | None = None
    flag: bool = False
    repeat: bool = False
    many: bool = False
    required: bool = False
    metavar: str | None = None
    aliases: tuple[str, ...] = ()
    check: Callable[[Any], None] | None = None

    @property
    def key(self) -> str:
        """The option's key among the typed options: its name with ``_`` for ``-``."""
        return self.name.replace("-", "_")

    @property
    def flag_text(self) -> str:
        return f"--{self.name}"

    def validate(self, value: Any) -> None:
        """Raise :class:`OptionError` when ``value`` (already converted) breaks a bound,
        a choice or the option's own check; None (an absent optional value) passes."""
        if value is None:
            return
        values = value if isinstance(value, (list, tuple)) and (self.repeat or self.many) else [value]
        for one in values:
            if self.choices is not None and one not in self.choices:
                raise OptionError(f"{self.flag_text}: invalid choice {one!r}; choose from "
                                  f"{', '.join(map(str, self.choices))}")
            number = isinstance(one, (int, float)) and not isinstance(one, bool)
            if number and ((self.low is not None and one < self.low) or (self.high is not None and one > self.high)):
                raise OptionError(f"{self.flag_text} must lie in {_bound(self.low)}..{_bound(self.high)}, got {one}")
        if self.check is not None:
            self.check(value)


def _bound(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def option_values(declared: Sequence[Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """The typed options of ``declared`` taken from ``given`` (keys as :attr:`Option.key`,
    or as its name: ``q_bonus`` or ``q-bonus``; anything else in ``given`` is ignored, e.g.
    the other command-line options an older replay header stored, and raw text is
    converted by the option's type), defaults for those missing, each validated."""
    out: dict[str, Any] = {}
    for option in declared:
        value = given.get(option.key, given.get(option.name, bool(option.default) if option.flag else option.default))
        if (option.repeat or option.many) and value is None:
            value = []
        elif isinstance(value, str) and option.type is not str and not option.flag:
            try:   # the raw text an older replay header kept ("greedy,maximin")
                value = option.type(value)
            except (TypeError, ValueError) as exc:
                raise OptionError(f"{option.flag_text}: cannot read {value!r}: {exc}") from None
        option.validate(value)
        out[option.key] = value
    return out


def json_option_value(option: Option, value: Any) -> Any:
    """The typed value of ``option`` from a JSON value (a room option of the lobby, a
    filter of its listing): ``true``/``false`` for a flag, a number for ``int``/``float``
    options (``2.0`` counts as 2), a string for text, a string the option's ``type``
    converts for anything else, an array of such for ``repeat``/``many``; then the bounds,
    choices and check. :class:`OptionError` names the option and what was wrong."""
    if option.repeat or option.many:
        if not isinstance(value, list):
            raise OptionError(f"{option.name}: expected an array, got {describe(value)}")
        one = Option(option.name, option.type, flag=option.flag)
        converted: Any = [json_option_value(one, item) for item in value]
    elif option.flag:
        if not isinstance(value, bool):
            raise OptionError(f"{option.name}: expected true or false, got {describe(value)}")
        converted = value
    elif option.type in (int, float):
        integral = isinstance(value, int) or isinstance(value, float) and value.is_integer()
        if isinstance(value, bool) or not isinstance(value, (int, float)) or option.type is int and not integral:
            kind = "a whole number" if option.type is int else "a number"
            raise OptionError(f"{option.name}: expected {kind}, got {describe(value)}")
        converted = option.type(value)
    elif not isinstance(value, str):
        raise OptionError(f"{option.name}: expected a string, got {describe(value)}")
    else:
        try:
            converted = option.type(value)
        except (TypeError, ValueError) as exc:
            raise OptionError(f"{option.name}: cannot read {describe(value)}: {exc}") from None
    try:
        option.validate(converted)
    except OptionError as exc:   # the message names --NAME; a JSON key has no dashes before it
        raise OptionError(str(exc).replace(option.flag_text, option.name, 1)) from None
    return converted


def table_options(declared: Sequence[Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """The typed options of ``declared`` from a table of JSON or TOML values keyed by
    option name (a lobby room's ``CREATE_ROOM`` fields, an arena competition's
    ``options``): each present value read by :func:`json_option_value`, the default where
    absent (or null, for an option whose default is none). Other keys of ``given`` are
    not looked at (a message has fields of its own); :class:`OptionError` names the
    first bad value."""
    out: dict[str, Any] = {}
    for option in declared:
        if option.name not in given or given[option.name] is None and option.default is None:
            value = bool(option.default) if option.flag else option.default
            option.validate(value)
            out[option.key] = list(value) if isinstance(value, tuple) else value
        else:
            out[option.key] = json_option_value(option, given[option.name])
    return out


def named_options(declared: Sequence[Option], typed: Mapping[str, Any]) -> dict[str, Any]:
    """Typed options (by :attr:`Option.key`) keyed by each option's name instead, as
    ``arena.toml``, lobby rooms and ``--help`` spell them (``q-bonus``), in declared
    order; keys ``declared`` does not know are left out."""
    return {option.name: typed[option.key] for option in declared if option.key in typed}


def describe_option(option: Option) -> dict[str, Any]:
    """What a client needs to offer ``option`` (a room option) to a person, as JSON: its
    name, kind (``flag``, ``int``, ``float``, ``text``, or ``list`` for repeated values),
    default, help, and ``choices``/``low``/``high`` when it has them."""
    kind = ("list" if option.repeat or option.many else "flag" if option.flag
            else "int" if option.type is int else "float" if option.type is float else "text")
    default = bool(option.default) if option.flag else option.default
    out: dict[str, Any] = {"name": option.name, "kind": kind,
                           "default": list(default) if isinstance(default, tuple) else default, "help": option.help}
    if option.choices is not None:
        out["choices"] = list(option.choices)
    for bound in ("low", "high"):
        if getattr(option, bound) is not None:
            out[bound] = getattr(option, bound)
    return out


def comma_list(text: str) -> tuple[str, ...]:
    """``"dag,ldasg"`` -> ``("dag", "ldasg")``: an option type for names assigned in turn."""
    return tuple(text.split(","))


def players_option(low: int, high: int, default: int) -> Option:
    """``--players N`` of a local game, within ``low..high``."""
    return Option("players", int, default, f"number of players, {low}..{high} (default {default})", low=low, high=high)


def seed_option(help: str, default: int | None = 1) -> Option:
    """``--seed S``: what the seed decides (``help``) and its default."""
    return Option("seed", int, default, f"{help} (default {default})" if default is not None else help)


def strategies_option(known: Sequence[str], default: Sequence[str], name: str = "strategies",
                      what: str = "strategy") -> Option:
    """``--strategies a,b``: built-in players assigned to the seats in turn, each one of
    ``known`` (``unknown strategy 'x'; choose from ...`` otherwise)."""
    def check(value: Sequence[str]) -> None:
        unknown = [s for s in value if s not in known]
        if unknown or not value:
            raise OptionError(f"unknown {what} {(unknown or [''])[0]!r}; choose from {', '.join(known)}")

    return Option(name, comma_list, tuple(default),
                  f"comma-separated {what} names, assigned in turn, from {', '.join(known)} "
                  f"(default {','.join(default)})", check=check)
