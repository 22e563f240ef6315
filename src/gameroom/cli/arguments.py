"""A game's declared options (``core.options.Option``) as argparse arguments, and the
parsed command line back as typed options for the game's plans."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from gameroom.cli.common import UsageError
from gameroom.core.options import Option, OptionError, option_values

__all__ = ["add_options", "typed_options", "with_default"]


def with_default(option: Option) -> str:
    """The option's help with its default, ``(default X)``, unless the help already speaks
    of one or there is none to tell (a switch, an absent value, an empty list)."""
    default = option.default
    if option.flag or default is None or default == () or default == [] or "default" in option.help.lower():
        return option.help
    shown = ",".join(map(str, default)) if isinstance(default, (list, tuple)) else str(default)
    return f"{option.help} (default {shown})" if option.help else f"default {shown}"


def add_options(parser: argparse.ArgumentParser, options: Sequence[Option], game: str) -> None:
    """Add each option to ``parser``; an option that clashes with one the command already
    has (``--port`` on ``serve``) is the game's mistake, reported as one line."""
    for option in options:
        flags = [option.flag_text, *option.aliases]
        text = with_default(option).replace("%", "%%")
        try:
            if option.flag:
                parser.add_argument(*flags, dest=option.key, action="store_true",
                                    default=bool(option.default), help=text)
                continue
            kwargs: dict[str, Any] = {"dest": option.key, "type": option.type, "help": text}
            if option.choices is not None:
                kwargs["choices"] = list(option.choices)
            if option.metavar is not None:
                kwargs["metavar"] = option.metavar
            if option.required:
                kwargs["required"] = True
            if option.repeat or option.many:
                kwargs["action"] = "extend" if option.many else "append"
                kwargs["default"] = []
                if option.many:
                    kwargs["nargs"] = "+"
            else:
                kwargs["default"] = option.default
            parser.add_argument(*flags, **kwargs)
        except (argparse.ArgumentError, ValueError, TypeError) as exc:
            raise UsageError(f"{game} declares the option {option.flag_text}, which cannot be added to "
                             f"'{parser.prog}': {exc}") from None


def typed_options(options: Sequence[Option], args: argparse.Namespace) -> dict[str, Any]:
    """The declared options' values from the parsed command line, each checked
    (bounds, choices, the option's own check): UsageError naming the option otherwise."""
    try:
        return option_values(options, vars(args))
    except OptionError as exc:
        raise UsageError(str(exc)) from None
