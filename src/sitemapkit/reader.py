"""Reading sitemaps of every format, from bytes, files, standard input, URLs and whole sites.

:func:`parse` is pure: bytes in, entries out, no I/O. :func:`iter_urls` and :class:`Reader`
add files and HTTP, follow indexes (children fetched concurrently, output in index order),
and turn whatever goes wrong into :class:`~sitemapkit.Problem` values so that the rest of a
run is still read.

The format is told by content, never by name or Content-Type: gzip by its magic bytes, XML
``<urlset>``/``<sitemapindex>``, RSS 2.0, Atom 1.0 and 0.3 by their root element, anything
else is a text sitemap.

Speed. A sitemap whose ``<url>`` elements hold nothing but ``loc``, ``lastmod``,
``changefreq`` and ``priority`` in the protocol's order (almost all of them) takes a fast
path: libxml2 checks the whole document for well-formedness without a single Python
callback (so any file it accepts has exactly one reading), then a regular expression made
for the shape of its entries pulls the fields out at C speed. Every other document, and
every document the check refuses, goes through lxml's pull parser element by element, which
also yields every complete entry of a truncated file before reporting the line where it
breaks.

Memory. Index children are fetched a few at a time and kept compressed; one thread
inflates and checks the next file while the current one is read, so a run holds about two
inflated files whatever its size.

Safety. Entities are never expanded, no DTD is loaded, nothing is fetched by the XML
parser; a DOCTYPE that declares entities is refused before parsing; libxml2 refuses nesting
deeper than 256 levels; gzip is inflated only up to ``max_bytes``.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import io
import itertools
import re
import sys
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Final, TypeAlias, cast
from urllib.parse import urlsplit

from lxml import etree

from .compression import is_gzip, iter_gunzip
from .errors import (
    FetchError,
    InvalidValueError,
    ParseError,
    SitemapError,
    StrictError,
    UnsafeContentError,
)
from .fetch import DEFAULT_MAX_BYTES, FetchSettings
from .model import (
    SITEMAP_NS_084,
    SITEMAP_NS_09,
    XHTML_NS,
    Alternate,
    Image,
    News,
    Problem,
    ProblemHandler,
    SitemapRef,
    TVShow,
    URLEntry,
    Video,
    VideoId,
    VideoPrice,
    log_problem,
)
from .urls import host_of, join_url

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

    from .fetch import Fetcher

__all__ = [
    "Entry",
    "ReadLimits",
    "ReadStats",
    "Reader",
    "iter_urls",
    "parse",
]

#: What :func:`parse` yields: page entries of a sitemap, or child references of an index.
Entry: TypeAlias = URLEntry | SitemapRef

ATOM_NS: Final = "http://www.w3.org/2005/Atom"
ATOM03_NS: Final = "http://purl.org/atom/ns#"
_SITEMAP_NAMESPACES: Final = frozenset({SITEMAP_NS_09, SITEMAP_NS_084, ""})
_XML_SPACE: Final = " \t\r\n"
_FEED_CHUNK: Final = 1 << 20
_SLICE: Final = 1 << 20
_TEXT_PROBLEMS_SHOWN: Final = 10


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """Bounds on what one run reads; each has a safe default.

    ``max_bytes`` caps a file after decompression (inflation stops there), ``max_entries``
    the entries taken from one file, ``max_files`` the files of a run, ``max_depth`` the
    nesting of indexes and ``max_seconds`` the whole run.
    """

    max_bytes: int = DEFAULT_MAX_BYTES
    max_entries: int = 500_000
    max_files: int = 10_000
    max_depth: int = 10
    max_seconds: float = 3600.0

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_entries", "max_files"):
            if getattr(self, name) < 1:
                raise InvalidValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.max_depth < 0:
            raise InvalidValueError(f"max_depth must be at least 0, not {self.max_depth}")
        if not self.max_seconds > 0:  # not NaN either: it would mean no limit at all
            raise InvalidValueError(f"max_seconds must be positive, not {self.max_seconds}")


@dataclass(slots=True)
class ReadStats:
    """Counters of a run, updated as it goes (the CLI's progress line reads them)."""

    files_ok: int = 0
    files_failed: int = 0
    urls: int = 0
    problems: int = 0

    @property
    def files(self) -> int:
        return self.files_ok + self.files_failed


# ---------------------------------------------------------------------------------------
# Preparing a document: gzip, encoding, prolog checks, format


_isal_zlib: Any
try:
    from isal import isal_zlib as _isal_zlib
except ImportError:  # pragma: no cover - platforms without an isal wheel
    _isal_zlib = None

_SAFE_PARSER_OPTIONS: Final[dict[str, Any]] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,
}

_DECLARATION = re.compile(rb"<\?xml[ \t\r\n][^>]*?\?>")
_ENCODING = re.compile(rb"""encoding[ \t\r\n]*=[ \t\r\n]*(["'])([A-Za-z][A-Za-z0-9._\-]*)\1""")
_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_.\-]*(?::[A-Za-z_][A-Za-z0-9_.\-]*)?")
_START_TAG = re.compile(
    rb"""<([^\s/>]+)((?:[ \t\r\n]+[^\s=/>]+[ \t\r\n]*=[ \t\r\n]*(?:"[^"]*"|'[^']*'))*)"""
    rb"""[ \t\r\n]*/?>"""
)
_LIBXML_WHERE = re.compile(r",? line \d+, column \d+$")
_UTF8_NAMES: Final = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})
_HTML_ROOTS: Final = frozenset({"html", "head", "body"})


class _Sink:
    """A parser target without callbacks: libxml2 parses in C and builds nothing."""

    def close(self) -> None:
        return None


@dataclass(slots=True)
class _Document:
    source: str
    kind: str  # urlset, sitemapindex, rss, atom, text
    data: bytes  # UTF-8 from here on
    base_url: str | None
    fast: bool = False
    trailing_error: ParseError | None = None


def _libxml_message(exc: etree.XMLSyntaxError) -> str:
    return _LIBXML_WHERE.sub("", str(exc.msg or exc))


def _inflate_fast(data: bytes, source: str, limit: int) -> bytes | None:
    """The common case with ISA-L (about eight times zlib's speed): one complete member.

    Anything else (several members, a truncated or broken stream, no ISA-L) returns None and
    is left to :func:`_inflate`'s zlib path, which knows how to keep a broken stream's start.
    """
    if _isal_zlib is None:
        return None
    inflater = _isal_zlib.decompressobj(zlib.MAX_WBITS | 16)
    try:
        out: bytes = inflater.decompress(data, limit + 1)
    except _isal_zlib.error:
        return None
    if len(out) > limit:
        raise UnsafeContentError(
            f"decompressed size exceeds the limit of {limit:,} bytes", source=source
        )
    if not inflater.eof or is_gzip(inflater.unused_data):
        return None
    return out


def _inflate(data: bytes, source: str, limit: int) -> tuple[bytes, ParseError | None]:
    """Gunzip up to ``limit``; a broken or truncated stream keeps what came out before."""
    fast = _inflate_fast(data, source, limit)
    if fast is not None:
        return fast, None
    pieces: list[bytes] = []
    try:
        for piece in iter_gunzip([data], limit=limit, source=source):
            pieces.append(piece)
    except UnsafeContentError:
        raise
    except ParseError as exc:
        if not pieces:
            raise
        return b"".join(pieces), exc
    return b"".join(pieces), None


def _is_file(path: Path) -> bool:
    """``Path.is_file`` that says no to a name the OS refuses (over 255 bytes: ENAMETOOLONG),
    so a child an index lists under such a name is reported, not the whole run ended.
    """
    try:
        return path.is_file()
    except OSError:
        return False


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _to_utf8(data: bytes, source: str) -> bytes:
    """Re-encode a document declared (or marked) in another encoding as UTF-8."""
    for bom, codec in (
        (b"\xff\xfe\x00\x00", "utf-32-le"),
        (b"\x00\x00\xfe\xff", "utf-32-be"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom):
            return _recode(data[len(bom) :], codec, source)
    if data[:4] in {b"<\x00?\x00", b"<\x00\x00\x00"}:
        return _recode(data, "utf-16-le" if data[2:3] == b"?" else "utf-32-le", source)
    if data[:4] in {b"\x00<\x00?", b"\x00\x00\x00<"}:
        return _recode(
            data, "utf-16-be" if data[:1] == b"\x00" and data[1:2] == b"<" else "utf-32-be", source
        )
    declaration = _DECLARATION.match(data)
    if declaration is None:
        return data
    match = _ENCODING.search(declaration.group())
    if match is None or match.group(2).decode("ascii").lower() in _UTF8_NAMES:
        return data
    return _recode(data, match.group(2).decode("ascii"), source)


def _recode(data: bytes, codec: str, source: str) -> bytes:
    try:
        text = data.decode(codec)
    except LookupError as exc:
        raise ParseError(f"unknown character encoding {codec!r}", source=source) from exc
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError(
            f"bytes that are not {codec}: {exc.reason}", source=source, line=line
        ) from exc
    except ValueError as exc:  # codecs such as punycode or idna raise plain UnicodeError
        raise ParseError(f"bytes that are not {codec}: {exc}", source=source) from exc
    utf8 = text.encode("utf-8", "surrogatepass")
    declaration = _DECLARATION.match(utf8)
    if declaration is not None:
        fixed = _ENCODING.sub(b'encoding="UTF-8"', declaration.group())
        utf8 = fixed + utf8[declaration.end() :]
    return utf8


def _skip_prolog(data: bytes, source: str) -> tuple[int, bool]:
    """Offset of the root start tag, and whether a DOCTYPE was seen.

    Refuses a DOCTYPE that declares entities and recognises HTML doctypes.
    """
    position = 0
    declaration = _DECLARATION.match(data)
    if declaration is not None:
        position = declaration.end()
    doctype = False
    size = len(data)
    while True:
        while position < size and data[position] in b" \t\r\n":
            position += 1
        if data.startswith(b"<!--", position):
            end = data.find(b"-->", position + 4)
            if end < 0:
                raise ParseError(
                    "file ends inside a comment", source=source, line=_line_at(data, position)
                )
            position = end + 3
        elif data.startswith(b"<?", position):
            end = data.find(b"?>", position + 2)
            if end < 0:
                raise ParseError(
                    "file ends inside a processing instruction",
                    source=source,
                    line=_line_at(data, position),
                )
            position = end + 2
        elif data[position : position + 9].upper() == b"<!DOCTYPE":
            doctype = True
            end = _doctype_end(data, position)
            text = data[position:end]
            if b"<!ENTITY" in text.upper():
                raise UnsafeContentError(
                    "DOCTYPE declares entities (refused as unsafe)",
                    source=source,
                    line=_line_at(data, position),
                )
            if text[9:].strip().lower().startswith(b"html"):
                raise ParseError("not a sitemap (HTML page)", source=source)
            if end < 0 or end >= size:
                raise ParseError(
                    "file ends inside a DOCTYPE", source=source, line=_line_at(data, position)
                )
            position = end
        else:
            return position, doctype


def _doctype_end(data: bytes, start: int) -> int:
    subset = data.find(b"[", start)
    close = data.find(b">", start)
    if close < 0:
        return len(data)
    if 0 <= subset < close:
        end = data.find(b"]", subset)
        if end < 0:
            return len(data)
        close = data.find(b">", end)
        return len(data) if close < 0 else close + 1
    return close + 1


def _prepare(data: bytes, source: str, base_url: str | None, limits: ReadLimits) -> _Document:
    """Everything before extraction; runs in a worker thread for fetched files."""
    trailing: ParseError | None = None
    if is_gzip(data):
        data, trailing = _inflate(data, source, limits.max_bytes)
    if len(data) > limits.max_bytes:
        raise UnsafeContentError(
            f"file exceeds the limit of {limits.max_bytes:,} bytes", source=source
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data = _to_utf8(data, source)
    if data[:1] in b" \t\r\n\f\v" or data.startswith(b"\xef\xbb\xbf"):
        data = data.lstrip(b" \t\r\n\f\v")
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:].lstrip(b" \t\r\n\f\v")
    if not data:
        raise ParseError("empty file", source=source)
    if not data.startswith(b"<"):
        if b"\x00" in data[:4096]:
            raise ParseError("not a sitemap (binary data)", source=source)
        return _Document(source, "text", data, base_url, trailing_error=trailing)
    position, doctype = _skip_prolog(data, source)
    tag = _START_TAG.match(data, position)
    if tag is None:
        name = _NAME.match(data, position + 1)
        if name is not None and name.group().decode("ascii").lower() in _HTML_ROOTS:
            raise ParseError("not a sitemap (HTML page)", source=source)
        raise ParseError(
            "not a sitemap (no root element)", source=source, line=_line_at(data, position)
        )
    qname = tag.group(1).decode("utf-8", "replace")
    prefix, _, local = qname.rpartition(":")
    if local.lower() in _HTML_ROOTS:
        raise ParseError("not a sitemap (HTML page)", source=source)
    kinds = {"urlset": "urlset", "sitemapindex": "sitemapindex", "rss": "rss", "feed": "atom"}
    kind = kinds.get(local)
    if kind is None:
        raise ParseError(
            f"not a sitemap (root element <{qname}>)", source=source, line=_line_at(data, position)
        )
    document = _Document(source, kind, data, base_url, trailing_error=trailing)
    if kind in {"urlset", "sitemapindex"} and not prefix and not doctype:
        document.fast = _fast_path_possible(data, tag.end()) and _well_formed(data)
    return document


def _fast_path_possible(data: bytes, body_start: int) -> bool:
    """No construct the regular expressions would misread: CDATA, comments, PIs, xmlns."""
    return (
        _absent(data, b"<![CDATA[", body_start)
        and _absent(data, b"<!--", body_start)
        and _absent(data, b"<?", body_start)
        and data.find(b"xmlns", body_start) < 0
    )


def _absent(data: bytes, marker: bytes, start: int) -> bool:
    """``marker`` is not in ``data[start:]``: a one-byte search (memchr, several times faster
    than a search for the whole marker) for its second byte first, as sitemaps seldom hold a
    ``!`` and often no ``?`` at all; the whole marker is looked for from there only."""
    first = data.find(marker[1:2], start + 1)
    return first < 0 or data.find(marker, first - 1) < 0


def _well_formed(data: bytes) -> bool:
    parser = etree.XMLParser(target=cast(Any, _Sink()), **_SAFE_PARSER_OPTIONS)
    try:
        etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return False
    return True


# ---------------------------------------------------------------------------------------
# The fast path: one regular expression per document slice

_WS = "[ \t\r\n]*"
_VALUE = r"([^<\s]*)"


def _field(name: str) -> str:
    return f"(?:<{name}>{_WS}{_VALUE}{_WS}</{name}>{_WS})?"


_URL_RE: Final = re.compile(
    f"<url>{_WS}<loc>{_WS}{_VALUE}{_WS}</loc>{_WS}"
    + _field("lastmod")
    + _field("changefreq")
    + _field("priority")
    + "</url>"
)
_SITEMAP_RE: Final = re.compile(
    f"<sitemap>{_WS}<loc>{_WS}{_VALUE}{_WS}</loc>{_WS}" + _field("lastmod") + "</sitemap>"
)
_CHAR_REF: Final = re.compile(r"&(?:#[xX]([0-9A-Fa-f]+)|#([0-9]+)|(amp|lt|gt|quot|apos));")
_PREDEFINED: Final = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_DECIMAL: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def _char(match: re.Match[str]) -> str:
    hexa, decimal, name = match.groups()
    if name:
        return _PREDEFINED[name]
    return chr(int(hexa, 16) if hexa else int(decimal))


def _unescape(text: str) -> str:
    """Undo the five predefined entities and character references, once."""
    return _CHAR_REF.sub(_char, text) if "&" in text else text


_FIELDS: Final = ("loc", "lastmod", "changefreq", "priority")
_OPEN_TAG: Final = re.compile(r"<([A-Za-z][^\s/>]*)")


#: Shapes whose fields are a prefix of URLEntry's: rows map onto its arguments directly.
_PREFIX_SHAPES: Final = frozenset({("loc",), ("loc", "lastmod"), ("loc", "lastmod", "changefreq")})


def _shape_of(piece: str, first: int) -> tuple[str, ...] | None:
    """The children of the first ``<url>`` when they are protocol fields in protocol order."""
    close = piece.find("</url>", first)
    if close < 0:
        return None
    names = tuple(_OPEN_TAG.findall(piece, first + len("<url>"), close))
    if not names or names[0] != "loc" or len(set(names)) != len(names):
        return None
    order = [_FIELDS.index(name) if name in _FIELDS else -1 for name in names]
    return names if min(order) >= 0 and order == sorted(order) else None


@functools.lru_cache(maxsize=16)
def _shape_pattern(shape: tuple[str, ...]) -> re.Pattern[str]:
    # Between tags \s is faster than [ \t\r\n] in sre, and other spaces there are text the
    # general parser ignores as well. Values are [^<]*, sre's fastest loop; whitespace and
    # entities in them are dealt with per column.
    fields = r"\s*".join(f"<{name}>([^<]*)</{name}>" for name in shape)
    return re.compile(rf"<url>\s*{fields}\s*</url>")


def _none_for_empty(column: Sequence[str]) -> Sequence[str | None]:
    return [value or None for value in column] if "" in column else column


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while one slice's entries are made.

    A slice makes thousands of objects (match tuples, entries) that all stay alive until the
    batch is read; collections triggered in the meantime free nothing, and with the
    collector on they cost about a third of the fast path's time. Objects are still freed
    by reference counting; the collector runs again as soon as the slice is done.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _Fallback(Exception):
    """Internal: the fast path met something it does not read; use the general parser."""


class _Extractor:
    """Turns one prepared document into batches of entries, reporting problems."""

    def __init__(self, document: _Document, limits: ReadLimits, report: ProblemHandler) -> None:
        self.doc = document
        self.source = document.source
        self.limits = limits
        self.report = report
        self.count = 0
        self._text_copy = ""

    def problem(self, message: str, line: int | None = None) -> None:
        self.report(Problem(self.source, line, message))

    def _counted(self, batch: list[Entry]) -> list[Entry]:
        self.count += len(batch)
        if self.count > self.limits.max_entries:
            raise UnsafeContentError(
                f"more than {self.limits.max_entries:,} entries; the rest of the file is not read",
                source=self.source,
            )
        return batch

    def batches(self) -> Iterator[list[Entry]]:
        doc = self.doc
        if doc.kind == "text":
            yield from self._text()
        elif doc.fast:
            done = 0
            try:
                for batch in self._fast():
                    done += len(batch)
                    yield batch
            except _Fallback:
                doc.data = self._text_copy.encode("utf-8")
                self._text_copy = ""
                yield from self._general(skip=done)
        else:
            yield from self._general(skip=0)
        if doc.trailing_error is not None:
            raise doc.trailing_error

    # -- fast path ----------------------------------------------------------------------

    def _fast(self) -> Iterator[list[Entry]]:
        text = self.doc.data.decode("utf-8")
        self.doc.data = b""  # one copy of a big file is enough; a fallback re-encodes it
        self._text_copy = text
        is_index = self.doc.kind == "sitemapindex"
        pattern, tag, parent = (
            (_SITEMAP_RE, "<sitemap", "<sitemapindex") if is_index else (_URL_RE, "<url", "<urlset")
        )
        close = "</sitemap>" if is_index else "</url>"
        start = 0
        size = len(text)
        while start < size:
            end = text.find(close, start + _SLICE)
            end = size if end < 0 else end + len(close)
            piece = text[start:end]
            with _gc_paused():
                batch = None if is_index else self._uniform(piece)
                if batch is None:
                    matches = pattern.findall(piece)
                    if len(matches) != piece.count(tag) - piece.count(parent):
                        raise _Fallback
                    if matches:
                        batch = self._sitemaps(matches) if is_index else self._urls(matches, piece)
            if batch:
                yield self._counted(batch)
            start = end

    def _uniform(self, piece: str) -> list[Entry] | None:
        """All entries at once, when every ``<url>`` of ``piece`` has the same children.

        Generated sitemaps nearly always do: an expression made for that one shape has no
        optional groups and runs about twice as fast as the general one.
        """
        first = piece.find("<url>")
        if first < 0:
            return None
        shape = _shape_of(piece, first)
        if shape is None:
            return None
        end = piece.rfind("</url>") + len("</url>")
        rows = _shape_pattern(shape).findall(piece, first, end)
        # Every match starts at its own <url>: as many matches as <url ...> tags in the whole
        # slice means every entry has exactly this shape.
        if len(rows) != piece.count("<url") - piece.count("<urlset"):
            return None
        if shape in _PREFIX_SHAPES:
            entries = self._plain_rows(shape, rows)
            if entries is not None:
                return entries
        transposed: list[Sequence[str]] = (
            [rows] if len(shape) == 1 else list(zip(*rows, strict=True))
        )
        columns: dict[str, Sequence[str]] = {}
        for name, column in zip(shape, transposed, strict=True):
            joined = "".join(column)
            if (
                "&" in joined
                or " " in joined
                or "\n" in joined
                or "\t" in joined
                or ("\r" in joined)
            ):
                column = [_unescape(value.strip(_XML_SPACE)) for value in column]
            columns[name] = column
        locs = columns["loc"]
        if "" in locs:
            raise _Fallback  # the general parser reports each one with its line
        none: Iterable[None] = itertools.repeat(None)
        lastmods: Iterable[str | None] = none
        changefreqs: Iterable[str | None] = none
        priorities: Iterable[float | None] = none
        if "lastmod" in columns:
            lastmods = _none_for_empty(columns["lastmod"])
        if "changefreq" in columns:
            changefreqs = _none_for_empty(columns["changefreq"])
        if "priority" in columns:
            numbers: dict[str, float | None] = {"": None}
            for text in set(columns["priority"]):
                if text:
                    if not _DECIMAL.fullmatch(text):
                        raise _Fallback
                    numbers[text] = float(text)
            priorities = map(numbers.__getitem__, columns["priority"])
        empty = itertools.repeat(())
        return list(
            map(
                URLEntry,
                locs,
                lastmods,
                changefreqs,
                priorities,
                empty,
                empty,
                none,
                empty,
                itertools.repeat(self.source),
            )
        )

    def _plain_rows(self, shape: tuple[str, ...], rows: list[Any]) -> list[Entry] | None:
        """Entries straight from the rows when no value needs a change (the common case).

        The fields are the first ones of URLEntry, in its order, so each row is a ready
        argument list; one joined string shows at C speed whether any value is empty, holds
        an entity or has whitespace to strip.
        """
        values: Iterable[str] = rows if len(shape) == 1 else itertools.chain.from_iterable(rows)
        blob = "\x00".join(values)  # NUL cannot occur in a well-formed document
        if (
            "&" in blob
            or " " in blob
            or "\n" in blob
            or "\t" in blob
            or "\r" in blob
            or "\x00\x00" in blob
            or blob.startswith("\x00")
            or blob.endswith("\x00")
        ):
            return None
        entries: list[URLEntry] = (
            list(map(URLEntry, rows))
            if len(shape) == 1
            else list(itertools.starmap(URLEntry, rows))
        )
        source = self.source
        for entry in entries:
            entry.sitemap = source
        return entries  # type: ignore[return-value]

    def _urls(self, matches: list[tuple[str, str, str, str]], piece: str) -> list[Entry]:
        source = self.source
        priorities: dict[str, float | None] = {"": None}
        for value in {match[3] for match in matches}:
            if value:
                if not _DECIMAL.fullmatch(value):
                    raise _Fallback  # the general parser reports it with its line
                priorities[value] = float(value)
        if "&" in piece:
            matches = [(_unescape(a), _unescape(b), _unescape(c), d) for a, b, c, d in matches]
        if any(not match[0] for match in matches):
            raise _Fallback
        return [
            URLEntry(
                loc,
                lastmod or None,
                changefreq or None,
                priorities[priority],
                (),
                (),
                None,
                (),
                source,
            )
            for loc, lastmod, changefreq, priority in matches
        ]

    def _sitemaps(self, matches: list[tuple[str, str]]) -> list[Entry]:
        if any(not loc for loc, _ in matches):
            raise _Fallback
        return [
            SitemapRef(_unescape(loc), _unescape(lastmod) or None, self.source)
            for loc, lastmod in matches
        ]

    def _priority(self, value: str, line: int | None = None) -> float | None:
        if _DECIMAL.fullmatch(value):
            return float(value)
        self.problem(f"priority {value!r} is not a decimal number; left out", line)
        return None

    # -- general path -------------------------------------------------------------------

    def _general(self, skip: int) -> Iterator[list[Entry]]:
        kind = self.doc.kind
        builders: dict[str, Callable[[etree._Element], Entry | None]] = {
            "urlset": self._url_element,
            "sitemapindex": self._sitemap_element,
            "rss": self._rss_item,
            "atom": self._atom_entry,
        }
        record_name = {"urlset": "url", "sitemapindex": "sitemap", "rss": "item", "atom": "entry"}[
            kind
        ]
        build = builders[kind]
        parser = etree.XMLPullParser(
            events=("start", "end"), remove_comments=True, remove_pis=True, **_SAFE_PARSER_OPTIONS
        )
        data = self.doc.data
        inside = 0  # depth inside the current record; 0 when outside one
        root_ns: str | None = None
        batch: list[Entry] = []
        seen = 0

        def drain() -> Iterator[list[Entry]]:
            nonlocal inside, root_ns, batch, seen
            events = cast("Iterator[tuple[str, etree._Element]]", parser.read_events())
            for event, element in events:
                if not isinstance(element.tag, str):
                    continue
                ns, _, local = (
                    element.tag[1:].rpartition("}")
                    if element.tag[:1] == "{"
                    else ("", "", element.tag)
                )
                if event == "start":
                    if root_ns is None:
                        root_ns = ns
                    if inside:
                        inside += 1
                    elif local == record_name and self._record_ns(ns, root_ns):
                        inside = 1
                    continue
                if not inside:
                    continue
                inside -= 1
                if inside:
                    continue
                seen += 1
                if seen > skip:
                    entry = build(element)
                    if entry is not None:
                        batch.append(entry)
                element.clear()
                parent = element.getparent()
                if parent is not None:
                    parent.remove(element)
                if len(batch) >= 4096:
                    yield self._counted(batch)
                    batch = []
            if batch:
                yield self._counted(batch)
                batch = []

        try:
            for offset in range(0, len(data), _FEED_CHUNK):
                parser.feed(data[offset : offset + _FEED_CHUNK])
                yield from drain()
            parser.close()
            yield from drain()
        except etree.XMLSyntaxError as exc:
            yield from drain()
            message = _libxml_message(exc)
            if "Excessive depth" in message:
                raise UnsafeContentError(
                    "elements nested deeper than 256 levels (refused)",
                    source=self.source,
                    line=exc.lineno,
                ) from None
            raise ParseError(
                f"XML is truncated or malformed: {message}", source=self.source, line=exc.lineno
            ) from None
        except etree.LxmlError as exc:
            raise ParseError(f"XML cannot be parsed: {exc}", source=self.source) from None

    @staticmethod
    def _record_ns(ns: str, root_ns: str | None) -> bool:
        return ns in _SITEMAP_NAMESPACES or ns == root_ns or ns in {ATOM_NS, ATOM03_NS}

    def _url_element(self, element: etree._Element) -> URLEntry | None:
        loc = lastmod = changefreq = None
        priority: float | None = None
        images: list[Image] = []
        videos: list[Video] = []
        news: News | None = None
        alternates: list[Alternate] = []
        own_ns = _element_ns(element)
        for child in element:
            if not isinstance(child.tag, str):
                continue
            ns, local = _split_tag(child.tag)
            if ns in _SITEMAP_NAMESPACES or ns == own_ns:
                if local == "loc":
                    loc = _text(child)
                elif local == "lastmod":
                    lastmod = _text(child) or None
                elif local == "changefreq":
                    changefreq = _text(child) or None
                elif local == "priority":
                    value = _text(child)
                    priority = self._priority(value, _line(child)) if value else None
                continue
            family = _extension(ns)
            if family == "image" and local == "image":
                image = self._image(child)
                if image is not None:
                    images.append(image)
            elif family == "video" and local == "video":
                videos.append(self._video(child))
            elif family == "news" and local == "news":
                news = self._news(child)
            elif family == "xhtml" and local == "link":
                alternate = self._alternate(child)
                if alternate is not None:
                    alternates.append(alternate)
        if not loc:
            self.problem("<url> without <loc>; skipped", _line(element))
            return None
        return URLEntry(
            loc,
            lastmod,
            changefreq,
            priority,
            tuple(images),
            tuple(videos),
            news,
            tuple(alternates),
            self.source,
        )

    def _sitemap_element(self, element: etree._Element) -> SitemapRef | None:
        fields = _children_text(element)
        loc = fields.get("loc")
        if not loc:
            self.problem("<sitemap> without <loc>; skipped", _line(element))
            return None
        return SitemapRef(loc, fields.get("lastmod") or None, self.source)

    def _image(self, element: etree._Element) -> Image | None:
        fields = _children_text(element)
        loc = fields.get("loc")
        if not loc:
            self.problem("<image:image> without <image:loc>; skipped", _line(element))
            return None
        return Image(
            loc,
            fields.get("caption"),
            fields.get("geo_location"),
            fields.get("title"),
            fields.get("license"),
        )

    def _video(self, element: etree._Element) -> Video:
        fields: dict[str, str] = {}
        attributes: dict[str, dict[str, str]] = {}
        prices: list[VideoPrice] = []
        tags: list[str] = []
        segments: list[str] = []
        ids: list[VideoId] = []
        tvshow: TVShow | None = None
        for child in element:
            if not isinstance(child.tag, str):
                continue
            local = _split_tag(child.tag)[1]
            if local == "tvshow":
                tvshow = tvshow or self._tvshow(child)
                continue
            value = _text(child)
            if local == "price":
                prices.append(
                    VideoPrice(
                        value, child.get("currency", ""), child.get("type"), child.get("resolution")
                    )
                )
            elif local == "tag":
                tags.append(value)
            elif local == "content_segment_loc":
                segments.append(value)
            elif local == "id":
                ids.append(VideoId(child.get("type", ""), value))
            else:
                fields.setdefault(local, value)
                attributes.setdefault(local, {str(k): str(v) for k, v in child.attrib.items()})
        line = _line(element)

        def number(name: str, kind: Callable[[str], float | int]) -> float | int | None:
            value = fields.get(name)
            if not value:
                return None
            try:
                return kind(value)
            except ValueError:
                self.problem(f"video:{name} {value!r} is not a number; left out", line)
                return None

        duration = number("duration", int)
        rating = number("rating", float)
        views = number("view_count", int)
        return Video(
            thumbnail_loc=fields.get("thumbnail_loc", ""),
            title=fields.get("title", ""),
            description=fields.get("description", ""),
            content_loc=fields.get("content_loc"),
            player_loc=fields.get("player_loc"),
            duration=None if duration is None else int(duration),
            expiration_date=fields.get("expiration_date"),
            rating=None if rating is None else float(rating),
            content_segment_locs=tuple(segments),
            view_count=None if views is None else int(views),
            publication_date=fields.get("publication_date"),
            family_friendly=_yes_no(fields.get("family_friendly")),
            restriction=fields.get("restriction"),
            restriction_relationship=attributes.get("restriction", {}).get("relationship"),
            prices=tuple(prices),
            requires_subscription=_yes_no(fields.get("requires_subscription")),
            uploader=fields.get("uploader"),
            uploader_info=attributes.get("uploader", {}).get("info"),
            tvshow=tvshow,
            platform=fields.get("platform"),
            platform_relationship=attributes.get("platform", {}).get("relationship"),
            live=_yes_no(fields.get("live")),
            ids=tuple(ids),
            tags=tuple(tags),
            category=fields.get("category"),
            gallery_loc=fields.get("gallery_loc"),
        )

    def _tvshow(self, element: etree._Element) -> TVShow:
        fields = _children_text(element)

        def number(name: str) -> int | None:
            value = fields.get(name)
            if not value:
                return None
            try:
                return int(value)
            except ValueError:
                self.problem(f"video:{name} {value!r} is not a number; left out", _line(element))
                return None

        return TVShow(
            show_title=fields.get("show_title", ""),
            video_type=fields.get("video_type"),
            episode_title=fields.get("episode_title"),
            season_number=number("season_number"),
            episode_number=number("episode_number"),
            premier_date=fields.get("premier_date"),
        )

    def _news(self, element: etree._Element) -> News:
        fields: dict[str, str] = {}
        for child in element:
            if not isinstance(child.tag, str):
                continue
            local = _split_tag(child.tag)[1]
            if local == "publication":
                for part in child:
                    if isinstance(part.tag, str):
                        fields.setdefault("publication_" + _split_tag(part.tag)[1], _text(part))
            else:
                fields.setdefault(local, _text(child))
        return News(
            publication_name=fields.get("publication_name", ""),
            publication_language=fields.get("publication_language", ""),
            publication_date=fields.get("publication_date", ""),
            title=fields.get("title", ""),
            access=fields.get("access"),
            genres=fields.get("genres"),
            keywords=fields.get("keywords"),
            stock_tickers=fields.get("stock_tickers"),
        )

    def _alternate(self, element: etree._Element) -> Alternate | None:
        if (element.get("rel") or "").strip().lower() != "alternate":
            return None
        href = (element.get("href") or "").strip(_XML_SPACE)
        hreflang = (element.get("hreflang") or "").strip(_XML_SPACE)
        if not href or not hreflang:
            self.problem("xhtml:link without href or hreflang; skipped", _line(element))
            return None
        return Alternate(hreflang, href)

    def _resolve(self, link: str) -> str:
        base = self.doc.base_url
        if not base or _is_absolute(link):
            return link
        joined = join_url(base, link)
        return link if joined is None else joined

    def _rss_item(self, element: etree._Element) -> URLEntry | None:
        link = guid = published = None
        for child in element:
            if not isinstance(child.tag, str) or child.tag[:1] == "{":
                continue
            if child.tag == "link" and link is None:
                link = _text(child) or None
            elif child.tag == "guid" and guid is None:
                guid = _text(child) or None
            elif child.tag == "pubDate" and published is None:
                published = _text(child) or None
        if link is None and guid is not None and _is_absolute(guid):
            link = guid
        if not link:
            self.problem("RSS item without a link; skipped", _line(element))
            return None
        return URLEntry(self._resolve(link), published, sitemap=self.source)

    def _atom_entry(self, element: etree._Element) -> URLEntry | None:
        href = None
        updated = None
        for child in element:
            if not isinstance(child.tag, str):
                continue
            ns, local = _split_tag(child.tag)
            if ns not in {ATOM_NS, ATOM03_NS}:
                continue
            if local == "link":
                rel = (child.get("rel") or "alternate").strip().lower()
                value = (child.get("href") or "").strip(_XML_SPACE)
                if rel == "alternate" and value and href is None:
                    href = value
            elif local in {"updated", "modified"} and updated is None:
                updated = _text(child) or None
        if not href:
            self.problem("Atom entry without a link; skipped", _line(element))
            return None
        return URLEntry(self._resolve(href), updated, sitemap=self.source)

    # -- text sitemaps ------------------------------------------------------------------

    def _text(self) -> Iterator[list[Entry]]:
        source = self.source
        batch: list[Entry] = []
        urls = 0
        bad = 0
        first_bad = ""
        pending: list[tuple[int, str]] = []  # bad lines before the first URL
        lines = io.StringIO(self.doc.data.decode("utf-8", "replace"), newline=None)
        for number, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line:
                continue
            if _is_absolute(line) and len(line.split(None, 1)) == 1:
                batch.append(URLEntry(line, sitemap=source))
                urls += 1
                if pending:
                    for where, text in pending:
                        self.problem(f"not a URL: {text!r}; skipped", where)
                    pending = []
                if len(batch) >= 4096:
                    yield self._counted(batch)
                    batch = []
                continue
            bad += 1
            if bad == 1:
                first_bad = line[:80]
            if bad <= _TEXT_PROBLEMS_SHOWN:
                if urls:
                    self.problem(f"not a URL: {line[:200]!r}; skipped", number)
                else:
                    pending.append((number, line[:200]))
        if batch:
            yield self._counted(batch)
        if not urls and bad:
            raise ParseError(
                f"not a sitemap (no URL on any line; first line {first_bad!r})", source=source
            )
        if bad > _TEXT_PROBLEMS_SHOWN:
            self.problem(f"{bad - _TEXT_PROBLEMS_SHOWN:,} more lines that are not URLs skipped")


def _element_ns(element: etree._Element) -> str:
    tag = element.tag
    return tag[1:].partition("}")[0] if isinstance(tag, str) and tag[:1] == "{" else ""


def _line(element: etree._Element) -> int | None:
    return cast("int | None", element.sourceline)


def _split_tag(tag: str) -> tuple[str, str]:
    if tag[:1] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def _text(element: etree._Element) -> str:
    if len(element) == 0:
        return (element.text or "").strip(_XML_SPACE)
    return "".join(cast("Iterator[str]", element.itertext())).strip(_XML_SPACE)


def _children_text(element: etree._Element) -> dict[str, str]:
    fields: dict[str, str] = {}
    for child in element:
        if isinstance(child.tag, str):
            fields.setdefault(_split_tag(child.tag)[1], _text(child))
    return fields


def _extension(ns: str) -> str | None:
    if "sitemap-image" in ns:
        return "image"
    if "sitemap-video" in ns:
        return "video"
    if "sitemap-news" in ns:
        return "news"
    if ns == XHTML_NS:
        return "xhtml"
    return None


def _yes_no(value: str | None) -> bool | None:
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in {"yes", "true", "1"}:
        return True
    if lowered in {"no", "false", "0"}:
        return False
    return None


def _is_absolute(url: str) -> bool:
    head = url[:8].lower()
    return (head.startswith("http://") and len(url) > 7) or (
        head.startswith("https://") and len(url) > 8
    )


# ---------------------------------------------------------------------------------------
# Public, pure parsing


def parse(
    data: bytes,
    *,
    url: str | None = None,
    on_problem: ProblemHandler | None = None,
    limits: ReadLimits | None = None,
) -> Iterator[Entry]:
    """Parse one sitemap, index, feed or text sitemap held in memory. No I/O.

    Yields :class:`~sitemapkit.URLEntry` values for a sitemap or feed and
    :class:`~sitemapkit.SitemapRef` values for an index, as they are read. Problems that cost
    an entry go to ``on_problem`` (default: a warning on the ``sitemapkit`` logger); a
    document that is broken, unsafe or not a sitemap raises
    :class:`~sitemapkit.ParseError` (:class:`~sitemapkit.UnsafeContentError`) *after* every
    complete entry before the break was yielded.

    :param url: where the data came from; names the ``sitemap`` of each entry and resolves
        relative feed links.

    >>> [e.loc for e in parse(b"https://example.com/a\\nhttps://example.com/b\\n")]
    ['https://example.com/a', 'https://example.com/b']
    """
    limits = limits or ReadLimits()
    source = url or "<data>"
    base = url if url and _is_absolute(url) else None
    document = _prepare(data, source, base, limits)
    extractor = _Extractor(document, limits, on_problem or log_problem)
    for batch in extractor.batches():
        yield from batch


# ---------------------------------------------------------------------------------------
# Reading files, URLs and sites


@dataclass(slots=True)
class _Loaded:
    source: str
    document: _Document | None = None
    error: SitemapError | None = None


@dataclass(slots=True)
class _Fetched:
    url: str
    body: bytes | None = None
    final_url: str | None = None
    error: SitemapError | None = None


@dataclass(slots=True)
class _Run:
    visited: set[str] = field(default_factory=set)
    started: float = field(default_factory=time.monotonic)
    files_full: bool = False
    stopped: bool = False  # out of time: nothing more is fetched


class Reader:
    """Reads sitemaps from paths, URLs, site roots or ``-``, following indexes.

    One reader holds one HTTP client (made on first use) and can read several sources;
    :attr:`stats` adds up over all of them. Index children are fetched ``concurrency`` at a
    time (at most ``per_host`` per host) while entries come out in the index's order. A
    sitemap listed by several indexes is read once; an index that lists one of its own
    ancestors, or nesting deeper than ``limits.max_depth``, is reported.

    :param stop_on_error: raise the first problem (as its :class:`~sitemapkit.SitemapError`,
        or :class:`~sitemapkit.StrictError`) instead of reporting it and going on.
    """

    def __init__(
        self,
        *,
        limits: ReadLimits | None = None,
        settings: FetchSettings | None = None,
        on_problem: ProblemHandler | None = None,
        stop_on_error: bool = False,
        fetcher: Fetcher | None = None,
    ) -> None:
        self.limits = limits or ReadLimits()
        self.settings = settings or FetchSettings()
        self.on_problem = on_problem or log_problem
        self.stop_on_error = stop_on_error
        self.stats = ReadStats()
        self._fetcher = fetcher
        self._own_fetcher = fetcher is None
        self._fetcher_lock = threading.Lock()  # the fetch threads may all ask for it at once
        self._pool: ThreadPoolExecutor | None = None
        self._preparer: ThreadPoolExecutor | None = None

    # -- resources ----------------------------------------------------------------------

    @property
    def fetcher(self) -> Fetcher:
        if self._fetcher is None:
            from .fetch import Fetcher

            with self._fetcher_lock:
                if self._fetcher is None:
                    self._fetcher = Fetcher(self.settings)
        return self._fetcher

    def _executors(self) -> tuple[ThreadPoolExecutor, ThreadPoolExecutor]:
        if self._pool is None or self._preparer is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(
                max(1, self.settings.concurrency), thread_name_prefix="sitemapkit-fetch"
            )
            self._preparer = ThreadPoolExecutor(1, thread_name_prefix="sitemapkit-prepare")
        return self._pool, self._preparer

    def close(self) -> None:
        """Stop the worker threads and close the HTTP client."""
        for pool in (self._preparer, self._pool):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self._pool = self._preparer = None
        if self._fetcher is not None and self._own_fetcher:
            self._fetcher.close()
            self._fetcher = None

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- problems -----------------------------------------------------------------------

    def _problem(self, problem: Problem, error: SitemapError | None = None) -> None:
        self.stats.problems += 1
        if self.stop_on_error:
            if error is not None:
                raise error
            raise StrictError(problem.message, source=problem.source, line=problem.line)
        self.on_problem(problem)

    def _failed(self, error: SitemapError, source: str) -> None:
        self.stats.files_failed += 1
        where = error.source or source
        self._problem(Problem(where, error.line, error.message), error)

    # -- reading ------------------------------------------------------------------------

    def read(self, source: str | Path) -> Iterator[URLEntry]:
        """Stream the URL entries of ``source``: a path, ``-``, a sitemap URL or a site root.

        A site root (a URL whose path is empty or ``/``) is looked up with
        :func:`~sitemapkit.discover.discover` first.
        """
        for batch in self.read_batches(source):
            yield from batch

    def read_batches(self, source: str | Path) -> Iterator[list[URLEntry]]:
        """Like :meth:`read`, in lists of up to a few thousand entries (cheaper per entry)."""
        run = _Run()
        text = str(source)
        if isinstance(source, str) and _is_absolute(source):
            self.fetcher.trust_start(source)
            # host_of is empty for a URL that cannot be parsed: fetching it says why.
            if host_of(source) and urlsplit(source).path in {"", "/"}:
                yield from self._read_site(source, run)
                return
            loaded = self._load_url(source, run, user_given=True)
        else:
            loaded = self._load_local(text)
        run.visited.add(loaded.source)
        yield from self._emit(loaded, (), 0, run)

    def _read_site(self, site: str, run: _Run) -> Iterator[list[URLEntry]]:
        from .discover import find_sitemaps

        try:
            found = find_sitemaps(site, fetcher=self.fetcher)
        except SitemapError as exc:
            self._failed(exc, site)
            return
        if not found:
            self._failed(
                FetchError("no sitemap found (robots.txt, well-known paths, home page)", url=site),
                site,
            )
            return
        refs = [SitemapRef(item.url, sitemap=site) for item in found]
        yield from self._follow(refs, site, (), 0, run)

    def _load_local(self, path: str) -> _Loaded:
        name = "<stdin>" if path == "-" else path
        limit = self.limits.max_bytes
        try:
            if path == "-":
                data = sys.stdin.buffer.read(limit + 1)
            else:
                with open(path, "rb") as handle:
                    data = handle.read(limit + 1)
        except OSError as exc:
            return _Loaded(
                name, error=SitemapError(f"cannot read: {exc.strerror or exc}", source=name)
            )
        if len(data) > limit:
            return _Loaded(
                name,
                error=UnsafeContentError(f"file exceeds the limit of {limit:,} bytes", source=name),
            )
        return self._prepared(data, name, None)

    def _prepared(self, data: bytes, name: str, base: str | None) -> _Loaded:
        try:
            return _Loaded(name, _prepare(data, name, base, self.limits))
        except SitemapError as exc:
            return _Loaded(name, error=exc)

    def _load_url(self, url: str, run: _Run, *, user_given: bool = False) -> _Loaded:
        """Fetch and prepare one file."""
        return self._prepare_fetched(self._fetch(url, run, user_given=user_given))

    def _fetch(self, url: str, run: _Run, *, user_given: bool = False) -> _Fetched:
        """Fetch one file; runs in a fetch worker. The body stays compressed for now."""
        if run.stopped:
            return _Fetched(url)
        try:
            fetched = self.fetcher.fetch(url, user_given=user_given)
        except SitemapError as exc:
            return _Fetched(url, error=exc)
        return _Fetched(url, fetched.body, fetched.final_url)

    def _read_beside(self, path: Path, url: str) -> _Fetched:
        """Read a child sitemap from the folder of a local index instead of fetching it."""
        limit = self.limits.max_bytes
        try:
            with open(path, "rb") as handle:
                body = handle.read(limit + 1)
        except OSError as exc:
            return _Fetched(str(path), error=SitemapError(f"cannot read: {exc.strerror}"))
        if len(body) > limit:
            message = f"file exceeds the limit of {limit:,} bytes"
            return _Fetched(str(path), error=UnsafeContentError(message, source=str(path)))
        return _Fetched(str(path), body, url)

    def _prepare_fetched(self, fetched: _Fetched | Future[_Fetched]) -> _Loaded:
        """Inflate and check a fetched file; runs in the preparing thread, one file ahead."""
        if not isinstance(fetched, _Fetched):
            fetched = fetched.result()
        if fetched.error is not None or fetched.body is None:
            return _Loaded(fetched.url, error=fetched.error)
        return self._prepared(fetched.body, fetched.url, fetched.final_url)

    def _emit(
        self, loaded: _Loaded, ancestry: tuple[str, ...], depth: int, run: _Run
    ) -> Iterator[list[URLEntry]]:
        if loaded.error is not None:
            self._failed(loaded.error, loaded.source)
            return
        document = loaded.document
        if document is None:
            return
        refs: list[SitemapRef] = []
        stats = self.stats
        extractor = _Extractor(document, self.limits, self._entry_problem)
        try:
            for batch in extractor.batches():
                if document.kind == "sitemapindex":
                    refs.extend(batch)  # type: ignore[arg-type]
                else:
                    stats.urls += len(batch)
                    yield batch  # type: ignore[misc]
        except SitemapError as exc:
            self._failed(exc, document.source)
        else:
            stats.files_ok += 1
        if refs:
            yield from self._follow(
                refs, document.source, (*ancestry, document.source), depth + 1, run
            )

    def _entry_problem(self, problem: Problem) -> None:
        self._problem(problem)

    def _follow(
        self,
        refs: Iterable[SitemapRef],
        parent: str,
        ancestry: tuple[str, ...],
        depth: int,
        run: _Run,
    ) -> Iterator[list[URLEntry]]:
        base = parent if _is_absolute(parent) else None
        targets: list[str] = []
        for ref in refs:
            target = join_url(base, ref.loc) if base else ref.loc
            if target is None or not _is_absolute(target) or not host_of(target):
                self._problem(
                    Problem(
                        parent,
                        None,
                        f"child sitemap {ref.loc[:200]!r} is not a valid http(s) URL; not read",
                    )
                )
                continue
            if target in ancestry:
                self._problem(
                    Problem(
                        parent,
                        None,
                        f"index loop: {target} is an ancestor of this index; not read again",
                    )
                )
                continue
            if depth > self.limits.max_depth:
                self._problem(
                    Problem(
                        parent,
                        None,
                        f"indexes nested deeper than {self.limits.max_depth} "
                        f"levels; {target} not read",
                    )
                )
                continue
            if target in run.visited:
                continue
            if len(run.visited) >= self.limits.max_files:
                if not run.files_full:
                    run.files_full = True
                    self._problem(
                        Problem(
                            parent,
                            None,
                            f"file limit of {self.limits.max_files:,} reached; "
                            "the rest is not read",
                        )
                    )
                break
            run.visited.add(target)
            targets.append(target)
        if not targets:
            return
        # Up to `concurrency` bodies are fetched at once and kept compressed; one thread
        # inflates and checks the next file while this one is read. Memory holds a few
        # compressed bodies and two inflated files, however many files are in flight.
        pool, preparer = self._executors()
        fetching: deque[Future[_Fetched]] = deque()
        queue = iter(targets)
        # A local index's children are read from its folder when they are there (as
        # sitemap_gen did), so a published set can be read back without a web server.
        folder = None if base or parent == "<stdin>" else Path(parent).parent

        def fetch_next() -> None:
            target = next(queue, None)
            if target is None:
                return
            beside = folder / PurePosixPath(urlsplit(target).path).name if folder else None
            if beside is not None and _is_file(beside):
                fetching.append(pool.submit(self._read_beside, beside, target))
            else:
                fetching.append(pool.submit(self._fetch, target, run))

        def prepare_next() -> Future[_Loaded] | None:
            if not fetching:
                return None
            future = fetching.popleft()
            fetch_next()
            return preparer.submit(self._prepare_fetched, future)

        for _ in range(max(1, self.settings.concurrency)):
            fetch_next()
        ahead = prepare_next()
        try:
            while ahead is not None:
                if not run.stopped and time.monotonic() - run.started > self.limits.max_seconds:
                    run.stopped = True
                    self._problem(
                        Problem(
                            parent,
                            None,
                            f"run time limit of {self.limits.max_seconds:g} s "
                            "reached; the rest is not read",
                        )
                    )
                loaded = ahead.result()
                ahead = prepare_next()
                if run.stopped and loaded.error is None and loaded.document is None:
                    continue
                yield from self._emit(loaded, ancestry, depth, run)
        finally:
            if ahead is not None:
                ahead.cancel()
            for future in fetching:
                future.cancel()


def iter_urls(
    source: str | Path,
    *,
    limits: ReadLimits | None = None,
    settings: FetchSettings | None = None,
    on_problem: ProblemHandler | None = None,
    stop_on_error: bool = False,
) -> Iterator[URLEntry]:
    """Stream every URL entry of ``source``, following indexes.

    ``source`` is a path, ``-`` (standard input), a sitemap URL or a site root (looked up
    with :func:`~sitemapkit.discover`). Problems (a 404 child, a truncated file, an HTML
    page, a refused DOCTYPE) go to ``on_problem`` and the rest is still read; with
    ``stop_on_error`` the first one is raised instead.
    """
    with Reader(
        limits=limits, settings=settings, on_problem=on_problem, stop_on_error=stop_on_error
    ) as reader:
        yield from reader.read(source)
