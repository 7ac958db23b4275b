from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

import pytest

from sitemapkit import ParseError, UnsafeContentError
from sitemapkit.compression import FileSink, gunzip_limited, is_gzip, iter_gunzip


def write(path: Path, chunks: list[bytes], *, compress: bool) -> bytes:
    sink = FileSink(path, gzip=compress)
    for chunk in chunks:
        sink.write(chunk)
    result = sink.close()
    assert result.raw_bytes == sum(map(len, chunks))
    assert result.file_bytes == path.stat().st_size
    return path.read_bytes()


def test_gzip_output_is_standard_and_reproducible(tmp_path: Path) -> None:
    chunks = [b"<url>%d</url>\n" % i * 50 for i in range(300)]
    first = write(tmp_path / "a.gz", chunks, compress=True)
    second = write(tmp_path / "b.gz", chunks, compress=True)
    assert first == second
    assert first[4:8] == b"\0\0\0\0"  # mtime 0
    assert gzip.decompress(first) == b"".join(chunks)
    assert is_gzip(first)


def test_plain_output(tmp_path: Path) -> None:
    assert write(tmp_path / "a", [b"abc", b"def"], compress=False) == b"abcdef"


def test_gunzip_multi_member_and_trailing_padding() -> None:
    data = gzip.compress(b"one ") + gzip.compress(b"two") + b"\0\0\0"
    assert gunzip_limited(data, limit=100) == b"one two"


def test_bomb_stops_at_the_cap() -> None:
    bomb = io.BytesIO()
    with gzip.GzipFile(fileobj=bomb, mode="wb") as out:
        block = b"\0" * (1 << 20)
        for _ in range(64):
            out.write(block)
    with pytest.raises(UnsafeContentError, match="exceeds the limit"):
        for _ in iter_gunzip([bomb.getvalue()], limit=5 << 20, source="bomb.gz"):
            pass


def test_streaming_in_small_chunks() -> None:
    payload = bytes(range(256)) * 4000
    data = gzip.compress(payload)
    chunks = [data[i : i + 7] for i in range(0, len(data), 7)]
    assert b"".join(iter_gunzip(chunks, limit=len(payload))) == payload


def test_truncated_and_corrupt_input() -> None:
    data = gzip.compress(b"x" * 10000)
    with pytest.raises(ParseError, match="truncated"):
        gunzip_limited(data[:-20], limit=10**6)
    corrupt = data[:10] + bytes(b ^ 0xFF for b in data[10:30]) + data[30:]
    with pytest.raises(ParseError):
        gunzip_limited(corrupt, limit=10**6)
    assert zlib  # the stdlib inflater is what reads
