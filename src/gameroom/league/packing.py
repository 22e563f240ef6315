"""Stored replays, packed: a replay's JSON Lines compressed for the results database (and
the worker that hands a played game to the writer), and unpacked again.

A replay repeats itself from call to call: each call of a long Q game carries the whole
map, tens of kilobytes, so the same text comes back every few lines. zlib's 32 KB window
cannot reach the previous copy once a map outgrows it (a 27 MB replay of 1,080 turns
packed to 3.3 MB); Zstandard with a long window and long-distance matching packs it to
about 190 KB in about the same time, and a short game to half of what zlib made.

The frame is a standard one whose window is at most 8 MB (``WINDOW_LOG`` 23), the largest
a browser's Zstandard decoder accepts for ``Content-Encoding: zstd`` (RFC 9659), so a
download can be the stored bytes themselves. Blobs written before (zlib) are told apart
by the frame's magic number and still read: nothing else marks which is which.
"""

from __future__ import annotations

import codecs
import functools
import zlib
from collections.abc import Iterator
from typing import Any

__all__ = ["pack", "unpack", "unpack_frames", "unpack_lines", "is_packed", "LEVEL", "WINDOW_LOG", "MAGIC"]

LEVEL = 5
"""Zstandard's level: with long-distance matching, 27 MB of a long Q game in about 80 ms
(level 7 saves 8% more for twice the time; zlib's level 1 took 300 ms for 17 times the size)."""
WINDOW_LOG = 23
"""2**23 bytes (8 MB): the window, the most a browser's decoder takes (RFC 9659)."""
MAGIC = b"\x28\xb5\x2f\xfd"
"""The first bytes of every Zstandard frame; a zlib stream begins otherwise (0x78 ...)."""
CHUNK = 1 << 14
"""Packed bytes unpacked at a time by :func:`unpack_lines` (up to a few MB of text)."""



@functools.cache
def _zstandard() -> Any:
    """The Zstandard binding (the ``league`` extra's), imported when first packing or
    unpacking: a plain replay file is read without it."""
    import zstandard

    return zstandard


@functools.cache
def _parameters() -> Any:
    return _zstandard().ZstdCompressionParameters.from_level(LEVEL, window_log=WINDOW_LOG, enable_ldm=True,
                                                             write_content_size=True, write_checksum=True)


def pack(text: str) -> bytes:
    """A replay's text as stored: one Zstandard frame (its size and checksum included)."""
    return _zstandard().ZstdCompressor(compression_params=_parameters()).compress(text.encode("utf-8"))


def is_packed(blob: bytes) -> bool:
    """Whether ``blob`` is a Zstandard frame (what :func:`pack` writes) rather than zlib."""
    return blob[:4] == MAGIC


def unpack(blob: bytes) -> str:
    """The replay's text from a stored blob, Zstandard or (written before) zlib. ValueError
    for bytes that are neither, or corrupt (a UnicodeDecodeError for text not UTF-8)."""
    if not is_packed(blob):
        try:
            return zlib.decompress(blob).decode("utf-8")
        except zlib.error as exc:
            raise ValueError(f"the stored replay cannot be unpacked: {exc}") from None
    zstandard = _zstandard()
    try:
        return zstandard.ZstdDecompressor(max_window_size=1 << WINDOW_LOG).decompress(blob).decode("utf-8")
    except zstandard.ZstdError as exc:
        raise ValueError(f"the stored replay cannot be unpacked: {exc}") from None


def unpack_frames(data: bytes) -> str:
    """The text of one or more Zstandard frames one after the other (packed replays put
    together: ``cat a.jsonl.zst b.jsonl.zst``). ValueError for bytes that are not."""
    zstandard = _zstandard()
    out = []
    decoder = codecs.getincrementaldecoder("utf-8")()
    while data:
        frame = zstandard.ZstdDecompressor(max_window_size=1 << WINDOW_LOG).decompressobj()
        try:
            out.append(decoder.decode(frame.decompress(data)))
        except zstandard.ZstdError as exc:
            raise ValueError(f"not a Zstandard frame: {exc}") from None
        if not frame.eof:
            raise ValueError("a Zstandard frame is cut short")
        data = frame.unused_data
    out.append(decoder.decode(b"", final=True))
    return "".join(out)


def unpack_lines(blob: bytes) -> Iterator[str]:
    """The replay's lines (without their newlines) as the blob is unpacked, so a reader
    that stops early (the first steps of a long game) unpacks only what it read."""
    if not is_packed(blob):
        yield from unpack(blob).splitlines()
        return
    zstandard = _zstandard()
    decoder = codecs.getincrementaldecoder("utf-8")()
    frame = zstandard.ZstdDecompressor(max_window_size=1 << WINDOW_LOG).decompressobj()
    rest = ""
    try:
        for at in range(0, len(blob), CHUNK):
            lines = (rest + decoder.decode(frame.decompress(blob[at:at + CHUNK]))).split("\n")
            rest = lines.pop()
            yield from lines
    except zstandard.ZstdError as exc:
        raise ValueError(f"the stored replay cannot be unpacked: {exc}") from None
    if not frame.eof:
        raise ValueError("the stored replay cannot be unpacked: its frame is cut short")
    rest += decoder.decode(b"", final=True)
    if rest:
        yield rest
