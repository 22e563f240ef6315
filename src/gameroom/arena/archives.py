"""Reading an uploaded archive as a stream, every budget checked before what it bounds is read.

An upload's format is the one its file name says, and only that one:

    .zip                          zip (members stored or deflated)
    .tar                          tar
    .tar.gz  .tgz                 tar compressed with gzip
    .tar.bz2 .tbz2 .tbz           tar compressed with bzip2
    .tar.xz  .txz                 tar compressed with xz

(:func:`archive_format`); content that is not that format is refused, whatever else it
may be. Nothing is decompressed ahead of need: :class:`_Inflow` hands out at most the
bytes asked for, so the memory of a read is its buffer, and the decompressed total is
held to :attr:`UploadLimits.max_ratio` times the upload (past :data:`RATIO_FLOOR`).

Tar is parsed here, header by header, rather than by :mod:`tarfile`, which reads a GNU
long-name record or a pax header whole, of whatever size its header declares, before
anyone can look at it (a 550-byte upload declaring a 600 MiB name cost 1.2 GB). Each
512-byte header's checksum and size are read first: a long-name or long-link record is
refused beyond what ``uploads.max_path`` allows, a pax header beyond
:data:`PAX_BYTES`, a member beyond what is left of ``uploads.max_unpacked_bytes``, and
every header, metadata records and directories included, counts towards
``uploads.max_entries``. A zip's central directory is walked (without making an object
per entry) and its entries counted before :mod:`zipfile` reads it.

:func:`members` yields ``(name, kind, reader)``: the member's name as the archive gives
it (pax and long names applied), its kind (``file``, ``dir``, ``link``, ``special``) and,
for a file, a reader of its bytes that counts them against the budget as they are read.
Every refusal is an :class:`~gameroom.arena.uploads.UploadError`-like
:class:`ArchiveError` naming the rule and its ``arena.toml`` key.
"""

from __future__ import annotations

import bz2
import io
import lzma
import struct
import zipfile
import zlib
from typing import Any, Iterator, Protocol

from gameroom.arena.config import UploadLimits
from gameroom.core.errors import GameroomError

__all__ = ["ArchiveError", "Budget", "Reader", "archive_format", "members", "magic_format", "PAX_BYTES", "RATIO_FLOOR",
           "NAME_MAX"]

SUFFIXES = ((".tar.gz", "gz"), (".tgz", "gz"), (".tar.bz2", "bz2"), (".tbz2", "bz2"), (".tbz", "bz2"),
            (".tar.xz", "xz"), (".txz", "xz"), (".tar", "tar"), (".zip", "zip"))
NAMES = {"gz": "a gzip-compressed tar", "bz2": "a bzip2-compressed tar", "xz": "an xz-compressed tar",
         "tar": "a tar archive", "zip": "a zip archive"}
MAGIC = (("gz", b"\x1f\x8b"), ("bz2", b"BZh"), ("xz", b"\xfd7zXZ\x00"), ("zip", b"PK\x03\x04"), ("zip", b"PK\x05\x06"))

PAX_BYTES = 8192
"""The largest pax extended header read (a path, a link and a few times: well under 1 KiB)."""
RATIO_FLOOR = 1 << 20
"""Decompressed bytes below which the ratio is not checked (tar's headers and padding
compress very well: a small honest archive may exceed any sensible ratio)."""
XZ_MEMORY = 96 << 20
"""The most an xz stream's decoder may ask for (``xz -9`` needs 65 MiB; a forged header
may ask for gigabytes of dictionary)."""
BLOCK = 512
CHUNK = 65536
NAME_MAX = 255   # bytes of one path component (Linux's NAME_MAX)


class ArchiveError(GameroomError, ValueError):
    """An archive refused (the message names the rule and its arena.toml key)."""


def archive_format(filename: str) -> str | None:
    """The archive format a file name says (``zip``, ``tar``, ``gz``, ``bz2``, ``xz``), or
    None for a single source file."""
    lowered = filename.lower()
    return next((kind for suffix, kind in SUFFIXES if lowered.endswith(suffix)), None)


def magic_format(data: bytes) -> str | None:
    """The archive or compression format the bytes begin with, if any."""
    for kind, magic in MAGIC:
        if data.startswith(magic) and (kind != "bz2" or data[3:4] in b"123456789"):
            return kind
    return None


def _short(name: str) -> str:
    return repr(name[:100] + ("..." if len(name) > 100 else ""))


class Budget:
    """What one upload may unpack to, counted as it is read."""

    def __init__(self, limits: UploadLimits, compressed: int) -> None:
        self.limits = limits
        self.compressed = compressed
        self.entries = 0
        self.files = 0
        self.bytes = 0

    def entry(self, name: str) -> None:
        """One more header of any kind (a file, a directory, a long-name or pax record)."""
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise ArchiveError(f"the archive has more than {self.limits.max_entries} entries, directories and "
                               f"metadata records included (uploads.max_entries); stopped at {_short(name)}")

    def file(self, name: str) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise ArchiveError(f"the archive has more than {self.limits.max_files} files (uploads.max_files); "
                               f"stopped at {_short(name)}")

    def declared(self, size: int, name: str) -> None:
        """A member declaring ``size`` bytes: refused at once when they cannot fit."""
        if self.bytes + size > self.limits.max_unpacked_bytes:
            raise ArchiveError(f"the archive unpacks to more than {self.limits.max_unpacked_bytes} bytes "
                               f"(uploads.max_unpacked_bytes): {_short(name)} alone declares {size}")

    def add(self, count: int, name: str) -> None:
        self.bytes += count
        if self.bytes > self.limits.max_unpacked_bytes:
            raise ArchiveError(f"the archive unpacks to more than {self.limits.max_unpacked_bytes} bytes "
                               f"(uploads.max_unpacked_bytes); stopped in {_short(name)}")

    def inflated(self, total: int) -> None:
        """``total`` bytes decompressed so far from the upload."""
        if total > RATIO_FLOOR and total > self.limits.max_ratio * self.compressed:
            raise ArchiveError(f"the archive decompresses to more than {self.limits.max_ratio} times its "
                               f"{self.compressed} bytes (uploads.max_ratio)")


class Reader(Protocol):
    def read(self, size: int) -> bytes: ...


class _Inflow:
    """The decompressed bytes of ``data``, handed out as asked: never more decompressed
    than the reader takes, the total held to the budget's ratio. Concatenated streams of
    the same format (``pigz``, ``pbzip2``) are read one after another."""

    def __init__(self, data: bytes, kind: str, budget: Budget) -> None:
        self.data, self.kind, self.budget = memoryview(data), kind, budget
        self.at = 0              # input consumed
        self.total = 0           # output given
        self.pending = b""       # input handed to zlib and not yet taken (its unconsumed tail)
        self.ended = False
        self.decompressor: Any = self._new()

    def _new(self) -> Any:
        if self.kind == "gz":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        if self.kind == "bz2":
            return bz2.BZ2Decompressor()
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ, memlimit=XZ_MEMORY)

    def _step(self, want: int) -> bytes:
        """Up to ``want`` more bytes (b"" at the end of the compressed data)."""
        d = self.decompressor
        if d.eof:
            rest = d.unused_data + bytes(self.data[self.at:])
            self.at = len(self.data)
            if not rest or not any(rest.startswith(m) for k, m in MAGIC if k == self.kind):
                self.ended = True   # trailing bytes that begin no new stream (padding) end it
                return b""
            self.data, self.at, self.pending = memoryview(rest), 0, b""
            d = self.decompressor = self._new()
        if self.kind == "gz":
            if not self.pending:
                self.pending = bytes(self.data[self.at:self.at + CHUNK])
                self.at += len(self.pending)
            if not self.pending:
                raise zlib.error("the compressed data ends before its stream does")
            out = d.decompress(self.pending, want)
            self.pending = d.unconsumed_tail
        else:
            chunk = b""
            if d.needs_input:
                chunk = bytes(self.data[self.at:self.at + CHUNK])
                self.at += len(chunk)
                if not chunk:
                    raise EOFError("the compressed data ends before its stream does")
            out = d.decompress(chunk, want)
        return bytes(out)

    def read(self, size: int) -> bytes:
        parts: list[bytes] = []
        got = 0
        try:
            while got < size and not self.ended:
                out = self._step(size - got)
                if out:
                    parts.append(out)
                    got += len(out)
                    self.total += len(out)
                    self.budget.inflated(self.total)
        except (zlib.error, OSError, EOFError, lzma.LZMAError) as exc:
            raise ArchiveError(f"the upload, {NAMES[self.kind]}, cannot be decompressed: {exc}") from None
        return b"".join(parts)


class _Member:
    """A tar member's bytes: at most ``size`` of them, counted against the budget."""

    def __init__(self, source: Reader, size: int, name: str, budget: Budget) -> None:
        self.source, self.left, self.name, self.budget = source, size, name, budget

    def read(self, size: int = CHUNK) -> bytes:
        chunk = self.source.read(min(size, self.left)) if self.left else b""
        if self.left and not chunk:
            raise ArchiveError(f"the tar archive is cut short inside {_short(self.name)}")
        self.left -= len(chunk)
        self.budget.add(len(chunk), self.name)
        return chunk

    def drain(self) -> None:
        while self.left:
            self.read()


def _number(field: bytes, what: str) -> int:
    """A tar header's number: octal digits, or base-256 when the first byte's top bit is set."""
    if field[:1] and field[0] & 0x80:
        if field[0] == 0xFF:
            raise ArchiveError(f"the tar archive is damaged: a negative {what}")
        return int.from_bytes(bytes([field[0] & 0x7F]) + field[1:], "big")
    text = field.split(b"\0", 1)[0].strip(b" ")
    if not text:
        return 0
    try:
        return int(text, 8)
    except ValueError:
        raise ArchiveError(f"the tar archive is damaged: its {what} field is not a number") from None


def _checksum_ok(block: bytes) -> bool:
    try:
        stored = _number(block[148:156], "checksum")
    except ArchiveError:
        return False
    header = block[:148] + b" " * 8 + block[156:]
    return stored in (sum(header), sum(struct.unpack("512b", header)))


def _padded(source: Reader, size: int, what: str) -> bytes:
    """``size`` bytes and the padding to the next block (the size checked by the caller)."""
    data = source.read(size + (-size) % BLOCK)
    if len(data) < size:
        raise ArchiveError(f"the tar archive is cut short inside {what}")
    return data[:size]


def _pax(data: bytes) -> dict[str, str]:
    """A pax extended header's records (``"%d %s=%s\\n"``)."""
    found: dict[str, str] = {}
    at = 0
    while at < len(data):
        if not data[at:].strip(b"\0"):   # NUL padding after the records
            break
        space = data.find(b" ", at, at + 20)
        if space < 0 or not data[at:space].isdigit():
            raise ArchiveError("the tar archive is damaged: a malformed pax header")
        length = int(data[at:space])
        record = data[space + 1:at + length]
        if length <= space - at or at + length > len(data) or not record.endswith(b"\n") or b"=" not in record:
            raise ArchiveError("the tar archive is damaged: a malformed pax header")
        key, _, value = record[:-1].partition(b"=")
        try:
            found[key.decode("utf-8")] = value.decode("utf-8")
        except UnicodeDecodeError:
            raise ArchiveError("a pax header that is not UTF-8 (names must be UTF-8)") from None
        at += length
    return found


def _text(raw: bytes, what: str) -> str:
    try:
        return raw.split(b"\0", 1)[0].decode("utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"{what} {raw[:60]!r} is not UTF-8 (names must be UTF-8)") from None


FILE_TYPES = {b"0": "file", b"\0": "file", b"7": "file", b"5": "dir", b"1": "link", b"2": "link", b"3": "special",
              b"4": "special", b"6": "special"}


def _tar(source: Reader, budget: Budget) -> Iterator[tuple[str, str, _Member | None]]:
    limits = budget.limits
    name_bytes = limits.max_path * 4 + 1   # max_path characters of UTF-8 and a terminating NUL
    long_name: str | None = None
    pax: dict[str, str] = {}
    while True:
        block = source.read(BLOCK)
        if not block or block == bytes(BLOCK):   # the end (a zero block; a missing end is forgiven)
            return
        if len(block) < BLOCK:
            raise ArchiveError("the tar archive is cut short inside a header")
        if not _checksum_ok(block):
            raise ArchiveError(f"not {NAMES['tar'] if budget.entries == 0 else 'a whole tar archive'}: "
                               f"header {budget.entries + 1}'s checksum is wrong")
        kind = block[156:157]
        size = _number(block[124:136], "size")
        header_name = block[:100].split(b"\0", 1)[0].decode("utf-8", "replace")
        budget.entry(long_name or pax.get("path") or header_name)
        if kind in (b"L", b"K"):
            if size > name_bytes:
                raise ArchiveError(f"a long-{'name' if kind == b'L' else 'link'} record of {size} bytes: a member's "
                                   f"path is at most {limits.max_path} characters (uploads.max_path)")
            value = _text(_padded(source, size, "a long-name record"), "a long name")
            if kind == b"L":
                long_name = value
            continue
        if kind in (b"x", b"g"):
            if size > PAX_BYTES:
                raise ArchiveError(f"a pax extended header of {size} bytes, more than {PAX_BYTES}: a member's path is "
                                   f"at most {limits.max_path} characters (uploads.max_path)")
            records = _pax(_padded(source, size, "a pax header"))
            if any(key.startswith("GNU.sparse") for key in records):
                raise ArchiveError("a sparse file (sparse files are refused)")
            if kind == b"x":
                pax = records
            continue
        if kind not in FILE_TYPES:
            what = {b"S": "a sparse file", b"V": "a volume label", b"M": "a multi-volume continuation"}.get(
                kind, f"a member of unknown type {kind!r}")
            raise ArchiveError(f"archive member {_short(header_name)}: {what} (refused)")
        if "path" in pax:
            name = pax["path"]
        elif long_name is not None:
            name = long_name
        else:
            name = _text(block[:100], "a member's name")
            if block[257:265] == b"ustar\x0000":
                prefix = _text(block[345:500], "a member's name prefix")
                if prefix:
                    name = f"{prefix}/{name}"
        if "size" in pax:
            if not pax["size"].isdigit():
                raise ArchiveError(f"archive member {_short(name)}: a pax size that is not a number")
            size = int(pax["size"])
        long_name, pax = None, {}
        member_kind = FILE_TYPES[kind]
        if member_kind != "file":
            if size and member_kind == "dir":
                raise ArchiveError(f"the tar archive is damaged: directory {_short(name)} declares {size} bytes")
            yield name, member_kind, None   # links and special files are refused by the caller
            continue
        budget.declared(size, name)
        member = _Member(source, size, name, budget)
        yield name, "file", member
        member.drain()
        if size % BLOCK and len(source.read(BLOCK - size % BLOCK)) < BLOCK - size % BLOCK:
            raise ArchiveError(f"the tar archive is cut short after {_short(name)}")


def _zip_count(data: bytes, budget: Budget) -> None:
    """Walk a zip's central directory and count its entries against the budget before
    :mod:`zipfile` makes an object of each."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 65535))
    if end < 0 or len(data) < end + 22:
        raise ArchiveError("not a readable zip archive (no end-of-central-directory record)")
    size, offset = struct.unpack("<II", data[end + 12:end + 20])
    if size == 0xFFFFFFFF or offset == 0xFFFFFFFF or data[end + 10:end + 12] == b"\xff\xff":
        raise ArchiveError("a zip64 archive (a bot's archive is a plain zip)")
    at = end - size
    if at < 0:
        raise ArchiveError("not a readable zip archive (its central directory lies outside it)")
    while at < end:
        if data[at:at + 4] != b"PK\x01\x02" or at + 46 > end:
            raise ArchiveError("the zip archive's central directory is damaged")
        name_length, extra_length, comment_length = struct.unpack("<HHH", data[at + 28:at + 34])
        budget.entry(data[at + 46:at + 46 + min(name_length, 100)].decode("utf-8", "replace"))
        at += 46 + name_length + extra_length + comment_length


def _zip(data: bytes, budget: Budget) -> Iterator[tuple[str, str, Any]]:
    import stat

    _zip_count(data, budget)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise ArchiveError(f"not a readable zip archive: {exc}") from None
    with archive:
        total = 0
        for info in archive.infolist():
            mode = info.external_attr >> 16
            if info.is_dir():
                yield info.filename, "dir", None
                continue
            if stat.S_ISLNK(mode):   # a Unix zip keeps a link's type in its external attributes
                yield info.filename, "link", None
                continue
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                yield info.filename, "special", None
                continue
            if info.flag_bits & 0x1:
                raise ArchiveError(f"archive member {_short(info.filename)}: encrypted (refused)")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise ArchiveError(f"archive member {_short(info.filename)}: compressed with method "
                                   f"{info.compress_type}; a zip's members are stored or deflated")
            budget.declared(info.file_size, info.filename)
            try:
                with archive.open(info) as opened:
                    source = _ZipMember(opened, info.filename, budget, total)
                    yield info.filename, "file", source
                    total = source.total
            except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError) as exc:
                raise ArchiveError(f"archive member {_short(info.filename)} is damaged: {exc}") from None


class _ZipMember:
    """A zip member's bytes, counted against the budget (unpacked bytes and the ratio of
    the whole archive) as they are read."""

    def __init__(self, opened: Any, name: str, budget: Budget, total: int) -> None:
        self.opened, self.name, self.budget, self.total = opened, name, budget, total

    def read(self, size: int = CHUNK) -> bytes:
        chunk: bytes = self.opened.read(size)
        self.total += len(chunk)
        self.budget.add(len(chunk), self.name)
        self.budget.inflated(self.total)
        return chunk


def members(data: bytes, kind: str, budget: Budget) -> Iterator[tuple[str, str, Reader | None]]:
    """The members of an upload of format ``kind`` (:func:`archive_format`); ArchiveError
    when the bytes are not that format or break a budget."""
    found = magic_format(data)
    if kind == "zip":
        if found != "zip":
            raise ArchiveError(f"the name says {NAMES['zip']}, but the upload is not one")
        yield from _zip(data, budget)
        return
    if kind == "tar":
        if found is not None:
            raise ArchiveError(f"the name says an uncompressed tar archive, but the upload is "
                               f"{NAMES[found]}: name it accordingly")
        yield from _tar(io.BytesIO(data), budget)
        return
    if found != kind:
        said = NAMES[found] if found is not None else "not compressed that way"
        raise ArchiveError(f"the name says {NAMES[kind]}, but the upload is {said}")
    yield from _tar(_Inflow(data, kind, budget), budget)
