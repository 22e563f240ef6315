"""Uploads that cost what they say: archives read as streams with every budget checked as
each header and member is read (the hostile archives of a season's attack: a long-name
record, a pax header or a member declaring 600 MiB in a few hundred bytes, a million
directory entries, a deep tree, a compression bomb), exactly the format the name says,
and nothing left on disk after a refusal."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import time
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest

from gameroom.arena.config import UploadLimits
from gameroom.arena.uploads import UploadError, read_manifest, unpack
from gameroom.bench.archives import directory_bomb, header, long_name_bomb, member_bomb

LIMITS = UploadLimits()
MANIFEST = b'language = "python"\nmain = "src/main.py"\n'


def _tar(files: list[tuple[str, bytes | None]], fmt: int = tarfile.GNU_FORMAT) -> bytes:
    """An uncompressed tar of (name, bytes) files, or directories where bytes is None."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt) as archive:
        for name, data in files:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                archive.addfile(info)
            else:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _xz_asking(dictionary: int) -> bytes:
    """An xz stream whose block header asks for a ``dictionary`` of that many bytes (a
    power of two), its data compressed with the smallest (encoding with a gigabyte's
    dictionary would cost the test gigabytes)."""
    data = bytearray(lzma.compress(_tar([("bot.toml", MANIFEST)]), format=lzma.FORMAT_XZ,
                                   filters=[{"id": lzma.FILTER_LZMA2, "dict_size": 4096}]))
    size = (data[12] + 1) * 4   # the block header after the 12-byte stream header
    at = data.index(b"\x21\x01", 12, 12 + size) + 2   # LZMA2's one property byte: the dictionary's size
    data[at] = 2 * (dictionary.bit_length() - 1 - 12) + 2
    data[12 + size - 4:12 + size] = zlib.crc32(data[12:12 + size - 4]).to_bytes(4, "little")
    return bytes(data)


BOT = [("./", None), ("./bot.toml", MANIFEST), ("./src", None), ("./src/main.py", b"print(1)\n")]


@pytest.mark.parametrize("name, pack", [
    ("bot.tar.gz", gzip.compress), ("bot.tgz", gzip.compress), ("bot.tar.bz2", bz2.compress),
    ("bot.tbz2", bz2.compress), ("bot.tar.xz", lzma.compress), ("bot.txz", lzma.compress), ("bot.tar", bytes),
    ("BOT.TAR.GZ", gzip.compress)])
def test_every_format_its_name_says_unpacks(tmp_path: Path, name: str, pack: object) -> None:
    data = pack(_tar(BOT))  # type: ignore[operator]
    assert unpack(data, name, tmp_path / "v", LIMITS) is True
    assert read_manifest(tmp_path / "v") == ("python", "src/main.py")
    assert (tmp_path / "v" / "src" / "main.py").read_bytes() == b"print(1)\n"


def test_a_pax_archive_and_concatenated_gzip_streams(tmp_path: Path) -> None:
    long = "src/" + "n" * 150 + ".py"   # a pax path record: within uploads.max_path
    data = gzip.compress(_tar([("bot.toml", MANIFEST), (long, b"x")], tarfile.PAX_FORMAT))
    assert unpack(data, "bot.tgz", tmp_path / "a", LIMITS)
    assert (tmp_path / "a" / long).read_bytes() == b"x"
    raw = _tar([("bot.toml", MANIFEST), ("src/main.py", b"print(2)\n")])
    halves = gzip.compress(raw[:1024]) + gzip.compress(raw[1024:])   # as pigz may write it
    assert unpack(halves, "bot.tar.gz", tmp_path / "b", LIMITS)
    assert (tmp_path / "b" / "src" / "main.py").read_bytes() == b"print(2)\n"


@pytest.mark.parametrize("name, data, message", [
    ("bot.tgz", bz2.compress(_tar(BOT)), "the name says a gzip-compressed tar, but the upload is a bzip2-compressed"),
    ("bot.tar.gz", lzma.compress(_tar(BOT)), "but the upload is an xz-compressed tar"),
    ("bot.zip", gzip.compress(_tar(BOT)), "the name says a zip archive, but the upload is not one"),
    ("bot.tar.bz2", _tar(BOT), "the name says a bzip2-compressed tar, but the upload is not compressed that way"),
    ("bot.tar", gzip.compress(_tar(BOT)), "the name says an uncompressed tar archive, but the upload is a gzip"),
    ("bot.tar", b"just some text, no tar at all" * 30, "not a tar archive: header 1's checksum is wrong"),
    ("bot.py", gzip.compress(b"print(1)"), "'bot.py' is compressed: give its name the archive's suffix"),
    ("bot", b"PK\x03\x04rest", "'bot' is a zip archive"),
    ("bot.tgz", gzip.compress(_tar(BOT))[:-30], "the upload, a gzip-compressed tar, cannot be decompressed"),
    ("bot.tar.xz", _xz_asking(1 << 30), "cannot be decompressed: Memory usage limit"),
], ids=["bzip2-as-tgz", "xz-as-targz", "gzip-as-zip", "tar-as-bz2", "gz-as-tar", "text-as-tar", "gz-as-py",
        "zip-without-suffix", "cut-short", "xz-asks-a-gigabyte"])
def test_only_the_format_the_name_says(tmp_path: Path, name: str, data: bytes, message: str) -> None:
    with pytest.raises(UploadError) as refused:
        unpack(data, name, tmp_path / "v", LIMITS)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert not (tmp_path / "v").exists()


def _refused_cheaply(data: bytes, name: str, tmp_path: Path) -> str:
    """Unpack ``data``: the refusal, checked to have cost under 4 MB of Python memory and
    to have left nothing on disk."""
    tracemalloc.start()
    try:
        with pytest.raises(UploadError) as refused:
            unpack(data, name, tmp_path / "v", LIMITS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"{peak} bytes to refuse {name}"
    assert not (tmp_path / "v").exists()
    return str(refused.value)


@pytest.mark.parametrize("build, rule", [
    (lambda: long_name_bomb(64 << 20), "a long-name record of 67108864 bytes: a member's path is at most 200 "
                                       "characters (uploads.max_path)"),
    (lambda: long_name_bomb(64 << 20, pax=True), "a pax extended header of 67108864 bytes, more than 8192"),
    (lambda: member_bomb(64 << 20), "(uploads.max_unpacked_bytes): 'big.py' alone declares 67108864"),
], ids=["gnu-long-name", "pax-header", "member"])
def test_hostile_headers_are_refused_before_what_they_declare_is_read(tmp_path: Path, build: object,
                                                                     rule: str) -> None:
    """Finding 1: a few KB whose header declares 64 MiB, really there (tarfile read a
    long-name record whole before any budget: 814 bytes made a 2 GB peak)."""
    data = build()  # type: ignore[operator]
    assert len(data) < 20_000
    assert rule in _refused_cheaply(data, "bot.tar.bz2", tmp_path)


def test_a_directory_bomb_stops_at_the_entries_bound(tmp_path: Path) -> None:
    """Finding 2: a tar.bz2 of one directory entry repeated 200,000 times (the season's
    had a million: accepted after 48 s, 153,001 directories kept)."""
    started = time.monotonic()
    answer = _refused_cheaply(directory_bomb(200_000), "bot.tar.bz2", tmp_path)
    assert "more than 1000 entries, directories and metadata records included (uploads.max_entries)" in answer
    assert time.monotonic() - started < 30   # stopped at the bound, not after reading the rest


@pytest.mark.parametrize("files, rule", [
    ([("/".join(["d"] * 16) + "/f.py", b"x")], "17 levels deep, more than 16 (uploads.max_depth)"),
    ([("x" * 300, b"x")], "a path of 300 characters, more than 200 (uploads.max_path)"),
    ([("dd/" * 70 + "f", b"x")], "a path of 211 characters, more than 200 (uploads.max_path)"),
    ([("x", b"1"), ("x/y", b"2")], "'x/y': 'x' is a file, not a directory"),
    ([("x/y", b"1"), ("x", b"2")], "'x': given twice (already a directory)"),
    ([("x", None), ("x", b"2")], "'x': given twice (already a directory)"),
    ([("x", b"1"), ("x", None)], "'x/': given twice (already a file)"),
    ([("a.py", b"1"), ("a.py", b"2")], "'a.py': given twice (already a file)"),
    ([("ok/" + "n" * 256, b"x")], "a name longer than 255 bytes (the file system's limit)"),
], ids=["deep", "300-character-name", "long-path", "file-then-under-it", "dir-then-file", "dir-entry-then-file",
        "file-then-dir-entry", "twice", "long-component"])
def test_odd_archives_are_one_clear_refusal(tmp_path: Path, files: list[tuple[str, bytes | None]],
                                            rule: str) -> None:
    """Finding 3: a file x then x/y, a 300-character member name, a too-long path (each was
    an HTTP 500 and files left on disk)."""
    limits = UploadLimits(max_path=1000) if "255" in rule else LIMITS
    with pytest.raises(UploadError) as refused:
        unpack(gzip.compress(_tar(files)), "bot.tgz", tmp_path / "v", limits)
    assert rule in str(refused.value)
    assert not (tmp_path / "v").exists()


def test_a_compression_bomb_is_held_to_the_ratio(tmp_path: Path) -> None:
    zeros = gzip.compress(_tar([("bot.toml", MANIFEST), ("pad.txt", bytes(8 << 20))]), 9)
    assert len(zeros) < 20_000
    answer = _refused_cheaply(zeros, "bot.tgz", tmp_path)
    assert f"decompresses to more than 200 times its {len(zeros)} bytes (uploads.max_ratio)" in answer
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pad.txt", bytes(8 << 20))
    assert "(uploads.max_ratio)" in _refused_cheaply(zipped.getvalue(), "bot.zip", tmp_path)


def test_zip_entries_are_counted_before_zipfile_reads_them(tmp_path: Path) -> None:
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_STORED) as archive:
        for at in range(1500):
            archive.writestr(f"d{at}/", b"")
    assert "more than 1000 entries" in _refused_cheaply(zipped.getvalue(), "bot.zip", tmp_path)
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("bot.toml", MANIFEST)
    assert "compressed with method 12; a zip's members are stored or deflated" in _refused_cheaply(
        other.getvalue(), "bot.zip", tmp_path)


def test_a_header_of_an_unknown_type_or_a_sparse_file(tmp_path: Path) -> None:
    for kind, said in ((tarfile.GNUTYPE_SPARSE, "a sparse file"), (b"Z", "a member of unknown type b'Z'")):
        data = header("odd", 0, kind) + bytes(1024)
        with pytest.raises(UploadError, match=said):
            unpack(data, "bot.tar", tmp_path / "v", LIMITS)
        assert not (tmp_path / "v").exists()
