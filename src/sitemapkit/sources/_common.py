"""What every source shares: opening files (plain, gzip, stdin) and checking field values."""

from __future__ import annotations

import gzip
import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import IO, cast

from ..compression import GZIP_MAGIC
from ..dates import parse_lastmod
from ..errors import InvalidValueError, SourceError
from ..model import check_changefreq, check_priority

__all__ = [
    "FieldParser",
    "check_encoding",
    "is_utf8",
    "open_binary",
    "open_text",
    "source_name",
]


def source_name(path: str | Path) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


@contextmanager
def open_binary(path: str | Path) -> Iterator[IO[bytes]]:
    """Open ``path`` (``-`` for standard input) for reading bytes, inflating gzip found by
    its magic bytes (PROTOCOL.md F-08: never trust a file name).

    Raises :class:`SourceError` when the file cannot be opened; errors while reading (a
    truncated gzip member) are the caller's to report. Standard input is never closed.
    """
    name = source_name(path)
    try:
        stream = sys.stdin.buffer if name == "<stdin>" else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}", source=name) from exc
    try:
        buffered = (
            stream
            if isinstance(stream, io.BufferedReader)
            else io.BufferedReader(cast(io.RawIOBase, stream))
        )
        if buffered.peek(2)[:2] == GZIP_MAGIC:
            yield cast(IO[bytes], gzip.GzipFile(fileobj=buffered, mode="rb"))
        else:
            yield cast(IO[bytes], buffered)
    finally:
        if name != "<stdin>":
            stream.close()


@contextmanager
def open_text(path: str | Path, *, encoding: str = "utf-8") -> Iterator[IO[str]]:
    """Open ``path`` (``-`` for standard input) as text, inflating gzip found by magic bytes.

    Decoding errors are replaced rather than fatal: one bad byte should cost one line, not
    the file. A UTF-8 byte order mark is dropped.
    """
    name = source_name(path)
    check_encoding(encoding)
    with open_binary(path) as binary:
        codec = "utf-8-sig" if is_utf8(encoding) else encoding
        text = io.TextIOWrapper(binary, encoding=codec, errors="replace", newline="")
        try:
            yield text
        except (OSError, EOFError) as exc:
            raise SourceError(f"cannot read: {exc}", source=name) from exc
        except UnicodeError as exc:  # utf-16 without a BOM: the codec refuses, errors= or not
            raise SourceError(f"cannot decode as {encoding}: {exc}", source=name) from exc
        finally:
            text.detach()  # the binary stream is open_binary's to close, stdin nobody's


def check_encoding(encoding: str) -> None:
    """Refuse a name that is no text codec (``bogus``, ``rot13``) or cannot replace bad bytes
    (``idna``): such codecs fail mid-file with errors that are not decoding errors.
    """
    try:
        "a".encode(encoding)
        b"a".decode(encoding, "replace")
    except (LookupError, ValueError) as exc:
        raise InvalidValueError(f"unknown encoding {encoding!r}") from exc


def is_utf8(encoding: str) -> bool:
    return encoding.lower().replace("_", "-") in {"utf-8", "utf8"}


class FieldParser:
    """Checks lastmod, changefreq and priority text, caching parsed dates."""

    def __init__(self, assume_tz: tzinfo | None = None) -> None:
        self.assume_tz = assume_tz
        self._dates: dict[str, date | datetime] = {}

    def lastmod(self, text: str | None) -> date | datetime | None:
        if not text or not text.strip():
            return None
        try:
            return self._dates[text]
        except KeyError:
            value = parse_lastmod(text, assume_tz=self.assume_tz)
            if len(self._dates) > 10_000:
                self._dates.clear()
            self._dates[text] = value
            return value

    changefreq = staticmethod(check_changefreq)
    priority = staticmethod(check_priority)
