"""Hostile uploads for the arena, and what refusing them costs in memory.

Builders of the archives a hostile student sends (each returns the upload's bytes):

* :func:`long_name_bomb`: a tar whose GNU long-name record (or pax header) declares
  ``declared`` bytes and really holds them, compressed to a few hundred bytes (bzip2's
  runs; ``single=False`` concatenates copies of one compressed stream, which decompresses
  the same and is built in milliseconds rather than seconds);
* :func:`member_bomb`: a member declaring ``declared`` bytes;
* :func:`directory_bomb`: one directory entry repeated ``entries`` times;
* :func:`header`: one tar header of any type and declared size.

:func:`refusal_rss` unpacks each upload in a fresh process (so its peak is its own) and
reports the peak resident memory it added while the arena refused them: the row ``python
-m gameroom.bench arena`` prints before its games (target: under +50 MB).
"""

from __future__ import annotations

import bz2
import json
import subprocess
import sys
import tarfile
from typing import Any

__all__ = ["header", "long_name_bomb", "member_bomb", "directory_bomb", "refusal_rss", "hostile_uploads", "report",
           "TARGET_MB"]

BLOCK = 512
RUN = 4 << 20   # bytes of one repeated stream
TARGET_MB = 50.0


def header(name: str, size: int, kind: bytes = tarfile.REGTYPE) -> bytes:
    """One tar header (GNU format) of type ``kind`` declaring ``size`` bytes."""
    info = tarfile.TarInfo(name)
    info.type, info.size, info.mode = kind, size, 0o755 if kind == tarfile.DIRTYPE else 0o644
    return info.tobuf(format=tarfile.GNU_FORMAT)


def _runs(byte: bytes, count: int, single: bool) -> bytes:
    """``count`` copies of ``byte``, bzip2-compressed: one stream, or copies of a stream
    of :data:`RUN` bytes (multi-stream bzip2 decompresses as their concatenation)."""
    if single:
        compressor = bz2.BZ2Compressor(9)
        chunk = byte * (1 << 20)
        out = [compressor.compress(chunk) for _ in range(count // len(chunk))]
        out.append(compressor.compress(byte * (count % len(chunk))))
        return b"".join(out) + compressor.flush()
    stream = bz2.compress(byte * RUN, 9)
    return stream * (count // RUN) + (bz2.compress(byte * (count % RUN), 9) if count % RUN else b"")


def long_name_bomb(declared: int = 600 << 20, pax: bool = False, single: bool = False) -> bytes:
    """A bzip2 tar whose first header is a GNU long-name record (or a pax header) of
    ``declared`` bytes, really that long, then an ordinary member."""
    kind = tarfile.XHDTYPE if pax else tarfile.GNUTYPE_LONGNAME
    first = header("././@LongLink" if not pax else "PaxHeader/bot", declared, kind)
    pad = b"\0" * (-declared % BLOCK)
    rest = pad + header("bot.py", 2) + b"1\n".ljust(BLOCK, b"\0") + b"\0" * (2 * BLOCK)
    return bz2.compress(first, 9) + _runs(b"a", declared, single) + bz2.compress(rest, 9)


def member_bomb(declared: int = 600 << 20) -> bytes:
    """A bzip2 tar whose one member declares (and holds) ``declared`` zero bytes."""
    return (bz2.compress(header("big.py", declared), 9) + _runs(b"\0", declared, False)
            + bz2.compress(b"\0" * (-declared % BLOCK + 2 * BLOCK), 9))


def directory_bomb(entries: int = 1_000_000) -> bytes:
    """A bzip2 tar of one directory entry repeated ``entries`` times (no files)."""
    one = header("d/", 0, tarfile.DIRTYPE)
    batch = 2000
    stream = bz2.compress(one * batch, 9)
    tail = bz2.compress(one * (entries % batch) + b"\0" * (2 * BLOCK), 9)
    return stream * (entries // batch) + tail


def hostile_uploads(single: bool = True) -> list[tuple[str, str, bytes]]:
    """(label, file name, bytes) of the uploads :func:`refusal_rss` measures."""
    long_name = long_name_bomb(single=single)
    return [("long-name record 600 MiB", "bot.tar.bz2", long_name),
            ("the same named bot.tgz", "bot.tgz", long_name),
            ("pax header 600 MiB", "bot.tar.bz2", long_name_bomb(pax=True, single=single)),
            ("member 600 MiB", "bot.tar.bz2", member_bomb()),
            ("directory bomb 1M entries", "bot.tar.bz2", directory_bomb())]


CHILD = """
import json, resource, sys, tempfile
from pathlib import Path
from gameroom.arena.config import UploadLimits
from gameroom.arena.uploads import UploadError, unpack
uploads = json.loads(sys.stdin.buffer.readline())
blobs = [sys.stdin.buffer.read(size) for size in uploads["sizes"]]
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
before = peak()
out = []
with tempfile.TemporaryDirectory() as folder:
    for at, (name, blob) in enumerate(zip(uploads["names"], blobs)):
        try:
            unpack(blob, name, Path(folder) / str(at), UploadLimits())
            out.append("accepted")
        except UploadError as exc:
            out.append(str(exc))
print(json.dumps({"before": before, "after": peak(), "answers": out}))
"""


def refusal_rss(uploads: list[tuple[str, str, bytes]] | None = None) -> dict[str, Any]:
    """Unpack ``uploads`` in a fresh process with the arena's default limits: its peak
    RSS before and after (bytes), the MB added and each answer."""
    uploads = uploads if uploads is not None else hostile_uploads()
    head = json.dumps({"names": [name for _, name, _ in uploads], "sizes": [len(data) for *_, data in uploads]})
    child = subprocess.run([sys.executable, "-c", CHILD], input=head.encode() + b"\n"
                           + b"".join(data for *_, data in uploads), capture_output=True, timeout=600)
    if child.returncode != 0:
        raise RuntimeError(child.stderr.decode("utf-8", "replace")[-2000:])
    found = json.loads(child.stdout)
    return {"bytes": [len(data) for *_, data in uploads], "labels": [label for label, _, _ in uploads],
            "answers": found["answers"], "peak MB before": found["before"] / 1e6,
            "added MB": (found["after"] - found["before"]) / 1e6}


def report(single: bool = True) -> dict[str, Any]:
    """Print the refusal row (each upload, its size and answer; the peak RSS added) and
    return its figures (``single``: see :func:`long_name_bomb`)."""
    found = refusal_rss(hostile_uploads(single))
    print(f"arena bench: hostile uploads refused, peak RSS +{found['added MB']:.1f} MB over the "
          f"{found['peak MB before']:.1f} MB of a process holding them (target under +{TARGET_MB:g} MB)", flush=True)
    for label, size, answer in zip(found["labels"], found["bytes"], found["answers"], strict=True):
        print(f"  {label:28} {size:>7} bytes: {answer[:110]}", flush=True)
    return found
