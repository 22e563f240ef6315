"""Structured logs: one JSON object per line on standard error, through ``logging``.

Every record has ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``event`` (the
message); the fields a call passes as ``extra={"fields": {...}}`` are added, and an
exception's traceback is ``error``. A log collector (journald, Loki, CloudWatch) reads
them without a parser of ours.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

__all__ = ["JsonLines", "setup"]


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
                 "level": record.levelname.lower(), "logger": record.name, "event": record.getMessage()}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update({key: value for key, value in fields.items() if key not in entry})
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def setup(level: int = logging.INFO) -> None:
    """JSON lines on standard error for the arena's logger, uvicorn's, the sandbox's (its
    warning when bubblewrap is missing) and the Ray cluster's (its nodes, games played
    again)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    for name in ("gameroom.arena", "uvicorn.error", "gameroom.sandbox.policy", "gameroom.league.cluster"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False
