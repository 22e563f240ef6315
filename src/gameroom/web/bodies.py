"""Request and response bodies as declared schema types, validated and encoded by msgspec.

An endpoint that takes a JSON body declares it once as a :class:`Body` (a ``msgspec.Struct``
whose fields carry their types and bounds, and whose ``SHAPE`` shows a right body) and reads
it with :func:`read_body`. The transport's checks come first (``web.guard.read_json``: the
media type, the size limit, UTF-8 and nesting depth); then msgspec converts the value to the
declared type, strictly (a ``true`` is not a count, a ``"3"`` is not a number), and its
error becomes one 400 line that names the field and what was wrong with it::

    code: expected `str` of length >= 1; the body must be {"code": "your invite code"}

Fields the schema does not declare are ignored, as a client of a newer version may send them
(a schema made with ``forbid_unknown_fields=True`` refuses them instead).

An answer an endpoint makes itself is an :class:`Answer` (a ``msgspec.Struct``) sent with
:func:`answer`; every refusal is :class:`Refusal` (``{"error": why}``) sent with
:func:`refusal`. Answers made by the layers below (a match's summary, the standings) stay
the plain JSON values those layers document.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from gameroom.web.guard import BadBody, read_json

__all__ = ["Answer", "Body", "Refusal", "answer", "explain", "read_body", "refusal", "to_body"]

B = TypeVar("B", bound="Body")


class Body(msgspec.Struct, kw_only=True):
    """A request body; ``SHAPE`` is a right one, shown in every refusal."""

    SHAPE: ClassVar[str] = ""


def explain(error: msgspec.ValidationError, shape: str = "") -> str:
    """One line from msgspec's ``error``: the field's path first, then what was wrong
    (``seats[1]: expected `str`, got `int```), then the right ``shape`` if there is one."""
    text = str(error)
    what, sep, where = text.rpartition(" - at `")
    if sep:
        path = where.rstrip("`").removeprefix("$").removeprefix(".") or "the body"
    else:
        what, path = text, "the body"
    line = f"{path}: {what[:1].lower()}{what[1:]}"
    return f"{line}; the body must be {shape}" if shape else line


def to_body(value: Any, schema: type[B]) -> B:
    """``value`` (decoded JSON) as ``schema``; :class:`BadBody` (400) saying which field
    was wrong and how."""
    try:
        return msgspec.convert(value, schema, strict=True)
    except msgspec.ValidationError as exc:
        raise BadBody(400, explain(exc, schema.SHAPE)) from None


async def read_body(request: Request, schema: type[B], limit: int, key: str = "--max-body") -> B:
    """The request's JSON body as ``schema``; :class:`BadBody` (415, 413 or 400) saying what
    was wrong (``key``: how the size limit is set)."""
    return to_body(await read_json(request, limit, key), schema)


class Answer(msgspec.Struct, kw_only=True):
    """A response body an endpoint declares."""


class Refusal(Answer):
    """Every refusal: why, in one line."""

    error: str


def answer(body: Answer | list[Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """``body`` as a JSON response (a list: of answers, or of JSON values)."""
    return Response(msgspec.json.encode(body), status_code=status, headers=headers, media_type="application/json")


def refusal(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """A refusal: ``{"error": message}`` with its status."""
    return answer(Refusal(error=message), status, headers)
