"""The streaming sitemap writer: normalise, de-duplicate, split, compress, index, publish.

Memory stays flat in the number of URLs apart from the de-duplication fingerprints
(:class:`~sitemapkit._fingerprints.FingerprintSet`, about 13 bytes a URL): entries are
rendered in batches, written out in chunks, and never kept.
"""

from __future__ import annotations

import codecs
import os
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta, tzinfo
from itertools import accumulate, chain, repeat
from operator import add
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Final, Literal, Self

from ._fingerprints import FingerprintSet
from ._hreflang import HreflangGroups
from .compression import FileSink, SinkResult, iter_gunzip
from .dates import format_lastmod, lastmod_timestamp, parse_lastmod
from .errors import (
    InvalidURLError,
    InvalidValueError,
    LimitError,
    SitemapError,
    StrictError,
)
from .markup import (
    EXTENSION_PREFIXES,
    extension_namespaces,
    format_priority,
    render_extensions,
    render_index,
    urlset_close,
    urlset_open,
)
from .model import (
    MAX_IMAGES_PER_URL,
    MAX_NEWS_URLS,
    PROTOCOLS,
    XHTML_NS,
    Profile,
    SitemapRef,
    URLEntry,
    check_changefreq,
    check_priority,
)
from .publish import Staging
from .urls import URLNormalizer, normalize_url

__all__ = [
    "CheckedOptions",
    "SitemapWriter",
    "WriteResult",
    "check_options",
    "child_file_name",
    "write_index",
]

_BATCH: Final = 1024
_CHUNK_ENTRIES: Final = 2048
_MIN_BYTES: Final = 4096

LastmodInput = str | date | datetime | None


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What a finished :class:`SitemapWriter` published."""

    out_dir: Path
    entry_point: Path
    entry_url: str
    children: tuple[Path, ...]
    urls: int
    skipped: Mapping[str, int]
    skipped_examples: Mapping[str, tuple[str, ...]]
    raw_bytes: int
    file_bytes: int
    #: The separate news set, when entries carried ``news`` (see ``split_news``).
    news: WriteResult | None = None
    #: Counts of things adjusted rather than left out (``news-too-old``, ``hreflang-conflict``).
    notes: Mapping[str, int] = field(default_factory=dict)
    #: The XSL stylesheet published with the set (``xsl=True``).
    stylesheet: Path | None = None

    @property
    def is_index(self) -> bool:
        """True when the entry point is a ``<sitemapindex>`` over several children."""
        return bool(self.children)

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file of the published set, entry point first."""
        return (self.entry_point, *self.children)


@dataclass(slots=True)
class _OpenFile:
    number: int
    sink: FileSink
    close_tag: str
    declared: frozenset[str]
    urls: int = 0
    size: int = 0
    newest: float = float("-inf")
    newest_text: str | None = None
    chunk: list[str] = field(default_factory=list)
    pending: int = 0  # entries in ``chunk``


@dataclass(frozen=True, slots=True)
class _Child:
    result: SinkResult
    urls: int
    lastmod: str | None


# A lastmod as written and as a timestamp; no lastmod sorts before every date.
_Lastmod = tuple[str | None, float]
_NO_LASTMOD: Final[_Lastmod] = (None, float("-inf"))
# changefreq, priority text and the entry carrying extensions, for the entries that have any.
_Extras = tuple[str | None, str | None, URLEntry | None]


@dataclass(frozen=True, slots=True)
class CheckedOptions:
    """Writer options after :func:`check_options`: the limits in force and the URL rules."""

    profile: Profile
    max_urls: int
    max_bytes: int
    normalizer: URLNormalizer
    base_url: str


def check_options(
    *,
    base_url: str,
    max_urls: int | None,
    max_bytes: int | None,
    name: str,
    format: str,
    protocol: str,
    keep_session_ids: bool,
) -> CheckedOptions:
    """Refuse options no writer could honour; shared by every writer so they agree."""
    if protocol not in PROTOCOLS:
        raise InvalidValueError(f"unknown protocol version {protocol!r} (0.9 or 0.84)")
    if format not in ("xml", "txt"):
        raise InvalidValueError(f"unknown format {format!r} (xml or txt)")
    if not name or "/" in name or name.startswith("."):
        raise InvalidValueError(f"bad sitemap name {name!r}")
    profile = PROTOCOLS[protocol]
    max_urls = profile.max_urls if max_urls is None else max_urls
    max_bytes = profile.max_bytes if max_bytes is None else max_bytes
    if not 1 <= max_urls <= profile.max_urls:
        raise InvalidValueError(
            f"max_urls must be between 1 and {profile.max_urls:,} "
            f"(the protocol {protocol} limit), not {max_urls:,}"
        )
    if not _MIN_BYTES <= max_bytes <= profile.max_bytes:
        raise InvalidValueError(
            f"max_bytes must be between {_MIN_BYTES:,} and {profile.max_bytes:,} "
            f"(the protocol {protocol} limit), not {max_bytes:,}"
        )
    if not base_url.endswith("/"):
        base_url += "/"
    try:
        normalizer = URLNormalizer(base_url, keep_session_ids=keep_session_ids)
    except InvalidURLError as exc:
        raise InvalidValueError(f"bad base URL {base_url!r}: {exc.message}") from exc
    assert normalizer.base_url is not None
    return CheckedOptions(profile, max_urls, max_bytes, normalizer, normalizer.base_url)


def child_file_name(stem: str, number: int, sha256: str, suffix: str) -> str:
    """``{stem}-{number:05d}-{hash}{suffix}``: a new child never takes an old child's name."""
    return f"{stem}-{number:05d}-{sha256[:8]}{suffix}"


def write_index(
    path: Path, profile: Profile, refs: Sequence[SitemapRef], *, stylesheet: str | None = None
) -> SinkResult:
    """Write a ``<sitemapindex>`` file, fsynced (the entry point of a set of children)."""
    index = FileSink(path, gzip=False)
    index.write(render_index(profile, refs, stylesheet=stylesheet).encode("utf-8"))
    return index.close()


_LASTMOD = re.compile(r"<lastmod>([^<]*)</lastmod>")


def _entries_of(path: Path, limit: int) -> Iterator[str]:
    """The ``<url>`` entries of a sitemap this writer wrote, one string each."""
    with open(path, "rb") as handle:
        head = handle.read(2)
        handle.seek(0)
        chunks: Iterable[bytes] = iter(lambda: handle.read(1 << 20), b"")
        if head == b"\x1f\x8b":
            chunks = iter_gunzip(chunks, limit=limit + (1 << 20), source=str(path))
        decoder = codecs.getincrementaldecoder("utf-8")()
        pending = ""
        started = False
        for chunk in chunks:
            pending += decoder.decode(chunk)
            if not started:
                opening = pending.find("<urlset")
                if opening < 0:
                    continue
                pending = pending[pending.index(">\n", opening) + 2 :]
                started = True
            *complete, pending = pending.split("</url>\n")
            for text in complete:
                yield text + "</url>\n"


def _joiner(texts: list[str]) -> Callable[[slice], str]:
    """A ``render`` for :meth:`SitemapWriter._place` over entries rendered one by one."""

    def render(part: slice) -> str:
        return "".join(texts[part])

    return render


class SitemapWriter:
    """Write any number of URLs as a sitemap set in ``out_dir``, published atomically on close.

    One file's worth becomes ``OUT/sitemap.xml`` (a ``<urlset>``); more become children
    ``OUT/sitemap-00001-<hash>.xml.gz`` ... under an index ``OUT/sitemap.xml``. A child is cut
    before it would pass ``max_urls`` or ``max_bytes`` (uncompressed, closing tag included).

    URLs are normalised (:func:`~sitemapkit.normalize_url`) against ``base_url`` and must lie
    in its folder, the protocol's location rule; duplicates after normalisation are dropped,
    the first occurrence winning. URLs left out are counted by reason in the result, or raise
    :class:`StrictError` when ``strict``. Normalisation runs in batches of 1,024, so a strict
    error may surface from a later :meth:`add` or from :meth:`close`.

    >>> import tempfile
    >>> with SitemapWriter(tempfile.mkdtemp(), base_url="https://example.com/") as w:
    ...     w.add("/about", lastmod="2024-05-01")
    ...     w.add("https://example.com/contact?PHPSESSID=1")
    >>> w.result.urls
    2
    """

    #: Whether one file alone may become the entry point (a subclass writing parts says no).
    _single_file_possible: ClassVar[bool] = True
    #: Whether URLs arrive normalised, in scope and unique (a subclass that checked them).
    _trusted_input: ClassVar[bool] = False
    #: Whether hreflang sets are completed at close (needs every version in this writer).
    _reciprocal_hreflang: ClassVar[bool] = True

    def __init__(
        self,
        out_dir: str | os.PathLike[str],
        *,
        base_url: str,
        gzip: bool = True,
        max_urls: int | None = None,
        max_bytes: int | None = None,
        name: str = "sitemap",
        format: Literal["xml", "txt"] = "xml",
        protocol: Literal["0.9", "0.84"] = "0.9",
        keep_session_ids: bool = False,
        strict: bool = False,
        assume_tz: tzinfo | None = None,
        stylesheet: str | None = None,
        xsl: bool = False,
        compress_level: int | None = None,
        split_news: bool = True,
        news_max_age: timedelta | None = timedelta(days=2),
        now: datetime | None = None,
        legacy_image_fields: bool = False,
    ) -> None:
        checked = check_options(
            base_url=base_url,
            max_urls=max_urls,
            max_bytes=max_bytes,
            name=name,
            format=format,
            protocol=protocol,
            keep_session_ids=keep_session_ids,
        )
        self.profile = checked.profile
        self.max_urls = checked.max_urls
        self.max_bytes = checked.max_bytes
        self._normalizer = checked.normalizer
        self.base_url: str = checked.base_url
        self.out_dir = Path(out_dir)
        self.name = name
        self.format = format
        self.gzip = gzip
        self.strict = strict
        self.assume_tz = assume_tz
        if xsl and format != "xml":
            raise InvalidValueError("a stylesheet (xsl) goes with XML sitemaps, not text ones")
        #: File name of the stylesheet published with the set (``xsl=True``), or None.
        self.xsl_name = f"{name}.xsl" if xsl else None
        self.stylesheet = stylesheet if stylesheet is not None else self.xsl_name
        self._compress_level = compress_level
        self.keep_session_ids = keep_session_ids
        self.split_news = split_news and format == "xml"
        # Google retired image caption, title, geo_location and license in 2022.
        self.legacy_image_fields = legacy_image_fields
        self.news_max_age = news_max_age
        self.now = now
        self._news: SitemapWriter | None = None
        self._hreflang = HreflangGroups()
        self._namespaces: set[str] = set()  # extension namespaces any entry used
        self._rewrite_namespaces: frozenset[str] = frozenset()
        self._notes: dict[str, int] = {}
        self._suffix = ".txt" if format == "txt" else ".xml"
        self._fingerprints = FingerprintSet()
        self._lastmods: dict[object, _Lastmod] = {}
        # The batch waiting for normalisation: URLs, their lastmods, and, by position, the
        # rarer changefreq / priority / extensions.
        self._locs: list[str] = []
        self._lms: list[_Lastmod] = []
        self._extras: dict[int, _Extras] = {}
        self._children: list[_Child] = []
        self._file: _OpenFile | None = None
        self._skipped: dict[str, int] = {}
        self._examples: dict[str, list[str]] = {}
        self._urls = 0
        self._open = True
        self._result: WriteResult | None = None
        self._staging = Staging(self.out_dir, name)

    # -- input ------------------------------------------------------------------------------

    def add(
        self,
        url: str | URLEntry,
        *,
        lastmod: LastmodInput = None,
        changefreq: str | None = None,
        priority: float | None = None,
    ) -> None:
        """Queue one URL (or a whole :class:`URLEntry`) for writing.

        Raises :class:`InvalidValueError` for a bad lastmod, changefreq or priority.
        """
        if not self._open:
            raise RuntimeError("this SitemapWriter is closed")
        if type(url) is not str:
            self._add_entry(url)
            return
        if lastmod is None:
            lm = _NO_LASTMOD
        else:
            try:
                lm = self._lastmods[lastmod]
            except (KeyError, TypeError):
                lm = self._lastmod(lastmod)
        if changefreq is not None or priority is not None:
            self._extras[len(self._locs)] = (
                self._changefreq(changefreq),
                self._priority(priority),
                None,
            )
        self._locs.append(url)
        self._lms.append(lm)
        if len(self._locs) >= _BATCH:
            self._flush_pending()

    def _add_entry(self, entry: URLEntry | str) -> None:
        if not isinstance(entry, URLEntry):
            raise TypeError(f"expected a URL or a URLEntry, not {type(entry).__name__}")
        if entry.news is not None and self.split_news:
            self._add_news(entry)
            entry = replace(entry, news=None)
        if entry.alternates and self.format == "xml" and self._reciprocal_hreflang:
            self._declare_alternates(entry)
            entry = replace(entry, alternates=())  # the whole set is written at close
        extensions = None
        if entry.images or entry.videos or entry.news is not None or entry.alternates:
            if len(entry.images) > MAX_IMAGES_PER_URL:
                raise InvalidValueError(
                    f"{entry.loc}: {len(entry.images):,} images; a URL may carry at most "
                    f"{MAX_IMAGES_PER_URL:,}"
                )
            extensions = entry
        if entry.changefreq is not None or entry.priority is not None or extensions is not None:
            self._extras[len(self._locs)] = (
                self._changefreq(entry.changefreq),
                self._priority(entry.priority),
                extensions,
            )
        self._locs.append(entry.loc)
        self._lms.append(_NO_LASTMOD if entry.lastmod is None else self._lastmod(entry.lastmod))
        if len(self._locs) >= _BATCH:
            self._flush_pending()

    def add_all(self, entries: Iterable[str | URLEntry]) -> None:
        """Queue every URL or entry of ``entries``."""
        add = self.add
        for entry in entries:
            add(entry)

    def _note(self, what: str, count: int = 1) -> None:
        self._notes[what] = self._notes.get(what, 0) + count

    def _add_news(self, entry: URLEntry) -> None:
        """Send a news entry to the separate news set (at most 1,000 URLs a file)."""
        assert entry.news is not None
        if self.news_max_age is not None:
            published = parse_lastmod(entry.news.publication_date, assume_tz=self.assume_tz)
            if not isinstance(published, datetime):
                published = datetime(published.year, published.month, published.day, tzinfo=UTC)
            now = self.now or datetime.now(UTC)
            if published < now - self.news_max_age:
                self._note("news-too-old")
                return
        if self._news is None:
            self._news = SitemapWriter(
                self.out_dir,
                base_url=self.base_url,
                gzip=self.gzip,
                max_urls=min(MAX_NEWS_URLS, self.max_urls),
                name=f"{self.name}-news",
                keep_session_ids=self.keep_session_ids,
                strict=self.strict,
                assume_tz=self.assume_tz,
                stylesheet=self.stylesheet,
                compress_level=self._compress_level,
                split_news=False,
            )
        self._news.add(URLEntry(entry.loc, lastmod=entry.lastmod, news=entry.news))

    def _link_url(self, url: str) -> str:
        """Normalise a URL that may lie outside the scope (an hreflang link)."""
        if self._normalizer.is_normal(url):
            return url
        return normalize_url(url, base=self.base_url, keep_session_ids=self.keep_session_ids)

    def _declare_alternates(self, entry: URLEntry) -> None:
        """Record an entry's language versions; the full set is written for each at close."""
        try:
            owner = self._link_url(entry.loc)
            alternates = [replace(a, href=self._link_url(a.href)) for a in entry.alternates]
        except InvalidURLError as exc:
            raise InvalidValueError(f"{entry.loc}: bad hreflang URL: {exc.message}") from exc
        if owner not in {alternate.href for alternate in alternates}:
            self._note("hreflang-without-self")
        self._hreflang.declare(alternates, owner=owner)

    def _lastmod(self, value: str | date | datetime) -> _Lastmod:
        try:
            return self._lastmods[value]
        except KeyError:
            pass
        except TypeError as exc:
            raise InvalidValueError(f"lastmod must be a date, datetime or str: {value!r}") from exc
        parsed = parse_lastmod(value, assume_tz=self.assume_tz) if isinstance(value, str) else value
        try:
            text = format_lastmod(parsed, assume_tz=self.assume_tz)
        except TypeError as exc:
            raise InvalidValueError(str(exc)) from exc
        if isinstance(parsed, datetime) and parsed.tzinfo is None:
            assert self.assume_tz is not None  # format_lastmod refused it otherwise
            parsed = parsed.replace(tzinfo=self.assume_tz)
        result = (text, lastmod_timestamp(parsed))
        if len(self._lastmods) > 100_000:
            self._lastmods.clear()
        self._lastmods[value] = result
        return result

    _changefreq = staticmethod(check_changefreq)

    @staticmethod
    def _priority(value: float | None) -> str | None:
        number = check_priority(value)
        return None if number is None else format_priority(number)

    # -- rendering and splitting -----------------------------------------------------------

    def _skip(self, reason: str, url: str, message: str) -> None:
        if self.strict:
            raise StrictError(f"{message} (left out: {reason})")
        self._skipped[reason] = self._skipped.get(reason, 0) + 1
        examples = self._examples.setdefault(reason, [])
        if len(examples) < 5:
            examples.append(url)

    def _flush_pending(self) -> None:
        """Normalise, de-duplicate, render and place the queued batch.

        Runs once per 1,024 URLs; everything per URL here is a C-level string operation or a
        comprehension except the fingerprint check.
        """
        locs, lms, extras = self._locs, self._lms, self._extras
        if not locs:
            return
        self._locs, self._lms, self._extras = [], [], {}
        positions: list[int] | None = None  # original batch positions of what is kept
        if not self._trusted_input and not self._normalizer.batch_is_normal(locs):
            positions, normal = [], []
            for position, result in enumerate(self._normalizer.normalize_many(locs)):
                if type(result) is str:
                    positions.append(position)
                    normal.append(result)
                else:
                    assert isinstance(result, InvalidURLError)
                    self._skip(result.reason, locs[position], result.message)
            locs = normal
        fresh = None if self._trusted_input else self._fingerprints.add_many(locs)
        if fresh is not None and len(fresh) != len(locs):
            kept = set(fresh)
            for index, loc in enumerate(locs):
                if index not in kept:
                    self._skip("duplicate", loc, f"duplicate URL {loc}")
            locs = [locs[index] for index in fresh]
            positions = fresh if positions is None else [positions[i] for i in fresh]
        if positions is not None:
            lms = [lms[position] for position in positions]
        if not locs:
            return
        if extras and self.format == "xml":
            order = positions if positions is not None else range(len(locs))
            self._place_each(locs, lms, [extras.get(position) for position in order])
            return
        lastmod_texts, timestamps = zip(*lms, strict=True)
        if self.format == "txt":
            lines = [loc + "\n" for loc in locs]
            self._place(list(map(len, lines)), _joiner(lines), lastmod_texts, timestamps)
            return
        joined = "\0".join(locs)  # normal URLs hold no NUL
        if "&" in joined or "'" in joined:
            locs = joined.replace("&", "&amp;").replace("'", "&apos;").split("\0")
        # Render with C-level iteration only: sizes by arithmetic, text by joining slices.
        render: Callable[[slice], str]
        if None not in lastmod_texts:
            fixed = len("<url><loc></loc><lastmod></lastmod></url>\n")
            sizes = list(map(add, map(add, map(len, locs), map(len, lastmod_texts)), repeat(fixed)))

            def render_all(part: slice) -> str:
                return "".join(
                    chain.from_iterable(
                        zip(
                            repeat("<url><loc>"),
                            locs[part],
                            repeat("</loc><lastmod>"),
                            lastmod_texts[part],
                            repeat("</lastmod></url>\n"),
                        )
                    )
                )

            render = render_all
        elif not any(lastmod_texts):
            fixed = len("<url><loc></loc></url>\n")
            sizes = list(map(add, map(len, locs), repeat(fixed)))

            def render_locs(part: slice) -> str:
                return "".join(
                    chain.from_iterable(
                        zip(repeat("<url><loc>"), locs[part], repeat("</loc></url>\n"))
                    )
                )

            render = render_locs
        else:
            texts = [
                "<url><loc>" + loc + "</loc></url>\n"
                if lastmod is None
                else f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod></url>\n"
                for loc, lastmod in zip(locs, lastmod_texts, strict=True)
            ]
            sizes = list(map(len, texts))
            render = _joiner(texts)

        self._place(sizes, render, lastmod_texts, timestamps)

    def _place(
        self,
        sizes: list[int],
        render: Callable[[slice], str],
        lastmods: Sequence[str | None],
        timestamps: Sequence[float],
    ) -> None:
        """Append rendered entries to the open file, cutting files at the limits.

        ``render(slice)`` gives the markup of those entries, ``sizes`` its length in bytes.
        """
        position, count = 0, len(sizes)
        while position < count:
            file = self._file
            if (
                file is None
                or file.urls >= self.max_urls
                or file.size + sizes[position] > self.max_bytes
            ):
                file = self._next_file(())
                if file.size + sizes[position] > self.max_bytes:
                    raise LimitError(
                        f"one entry ({sizes[position]:,} bytes) does not fit in a sitemap of "
                        f"at most {self.max_bytes:,} bytes"
                    )
            end = min(count, position + self.max_urls - file.urls)
            running = list(accumulate(sizes[position:end]))
            taken = bisect_right(running, self.max_bytes - file.size)
            stop = position + taken
            file.chunk.append(render(slice(position, stop)))
            file.urls += taken
            file.size += running[taken - 1]
            file.pending += taken
            self._urls += taken
            newest = max(timestamps[position:stop])
            if newest > file.newest:
                file.newest = newest
                file.newest_text = lastmods[timestamps.index(newest, position, stop)]
            if file.pending >= _CHUNK_ENTRIES:
                file.sink.write("".join(file.chunk).encode("utf-8"))
                file.chunk.clear()
                file.pending = 0
            position = stop

    def _place_each(
        self, locs: list[str], lms: list[_Lastmod], extras: list[_Extras | None]
    ) -> None:
        """The slow path, entry by entry, for batches with changefreq, priority or extensions.

        An entry's markup depends on the file it lands in (namespaces declared there).
        """
        for index, loc in enumerate(locs):
            if "&" in loc or "'" in loc:
                loc = loc.replace("&", "&amp;").replace("'", "&apos;")
            changefreq, priority, extensions = extras[index] or (None, None, None)
            lastmod, timestamp = lms[index]
            file = self._file
            if file is None or file.urls >= self.max_urls:
                upcoming = [e[2] for e in extras[index : index + _BATCH] if e and e[2]]
                file = self._next_file(upcoming)
            text = self._render(file, loc, lastmod, changefreq, priority, extensions)
            size = len(text.encode("utf-8")) if extensions is not None else len(text)
            if file.size + size > self.max_bytes and file.urls:
                upcoming = [e[2] for e in extras[index : index + _BATCH] if e and e[2]]
                file = self._next_file(upcoming)
                text = self._render(file, loc, lastmod, changefreq, priority, extensions)
                size = len(text.encode("utf-8")) if extensions is not None else len(text)
            if file.size + size > self.max_bytes:
                raise LimitError(
                    f"{loc}: this one entry ({size:,} bytes) does not fit in a sitemap of "
                    f"at most {self.max_bytes:,} bytes"
                )
            self._place([size], _joiner([text]), [lastmod], [timestamp])

    def _render(
        self,
        file: _OpenFile,
        loc: str,
        lastmod: str | None,
        changefreq: str | None,
        priority: str | None,
        extensions: URLEntry | None,
    ) -> str:
        parts = ["<url"]
        if extensions is not None:
            extensions = self._normalize_extensions(extensions)
            self._namespaces |= extension_namespaces(extensions)
            for namespace in sorted(extension_namespaces(extensions) - file.declared):
                parts.append(f' xmlns:{EXTENSION_PREFIXES[namespace]}="{namespace}"')
        parts.append("><loc>" + loc + "</loc>")
        if lastmod is not None:
            parts.append("<lastmod>" + lastmod + "</lastmod>")
        if changefreq is not None:
            parts.append("<changefreq>" + changefreq + "</changefreq>")
        if priority is not None:
            parts.append("<priority>" + priority + "</priority>")
        if extensions is not None:
            parts.append(
                render_extensions(extensions, legacy_image_fields=self.legacy_image_fields)
            )
        parts.append("</url>\n")
        return "".join(parts)

    def _extension_url(self, url: str) -> str:
        return normalize_url(url, base=self.base_url, keep_session_ids=True)

    def _normalize_extensions(self, entry: URLEntry) -> URLEntry:
        """Encode the URLs inside extension elements; they may be on other hosts (CDNs)."""
        try:
            return replace(
                entry,
                images=tuple(replace(i, loc=self._extension_url(i.loc)) for i in entry.images),
                alternates=tuple(
                    replace(a, href=self._extension_url(a.href)) for a in entry.alternates
                ),
            )
        except InvalidURLError as exc:
            raise InvalidValueError(f"{entry.loc}: bad URL in an extension: {exc.message}") from exc

    def _next_file(self, upcoming: Iterable[URLEntry]) -> _OpenFile:
        if self._file is not None:
            self._finish_file(self._file)
        number = len(self._children) + 1
        if number > self.profile.max_sitemaps:
            raise LimitError(
                f"more than {self.profile.max_sitemaps:,} sitemaps would be needed; an index "
                f"may list at most {self.profile.max_sitemaps:,} (protocol {self.profile.version})"
            )
        # The first file might stay the only one, the plain entry point: compress it later.
        compress = self.gzip and (number > 1 or not self._single_file_possible)
        sink = FileSink(
            self._staging.path / f"part-{number:05d}", gzip=compress, level=self._compress_level
        )
        if self.format == "txt":
            self._file = _OpenFile(number, sink, "", frozenset())
            return self._file
        namespaces: set[str] = set(self._rewrite_namespaces)
        for entry in upcoming:
            namespaces |= extension_namespaces(entry)
        header = urlset_open(self.profile, namespaces, stylesheet=self.stylesheet)
        close_tag = urlset_close()
        self._file = _OpenFile(number, sink, close_tag, frozenset(namespaces))
        self._file.size = len(header.encode("utf-8")) + len(close_tag)
        sink.write(header.encode("utf-8"))
        return self._file

    def _finish_file(self, file: _OpenFile) -> None:
        file.chunk.append(file.close_tag)
        file.sink.write("".join(file.chunk).encode("utf-8"))
        file.chunk.clear()
        self._children.append(_Child(file.sink.close(), file.urls, file.newest_text))
        self._file = None

    # -- hreflang: the second pass ------------------------------------------------------

    def _complete_hreflang(self) -> None:
        """Give every language version the whole set of its group, reciprocal by design.

        Entries were written without their links; this pass reads the finished children
        back (our own output: one ``<url>`` after another), adds each member's links, adds
        the in-scope members no source listed, and cuts the files again.
        """
        groups = self._hreflang
        finished = []
        for child in self._children:  # moved aside: the new files take the part-N names
            moved = child.result.path.with_name("first-pass-" + child.result.path.name)
            os.replace(child.result.path, moved)
            finished.append(moved)
        self._children = []
        self._rewrite_namespaces = frozenset(self._namespaces | {XHTML_NS})
        self._urls = 0
        batch: list[str] = []
        for path in finished:
            for text in _entries_of(path, self.max_bytes):
                loc = text[text.index("<loc>") + 5 : text.index("</loc>")]
                links = groups.links_of(loc.replace("&apos;", "'").replace("&amp;", "&"))
                if links:
                    text = text[: -len("</url>\n")] + links + "</url>\n"
                batch.append(text)
                if len(batch) >= _BATCH:
                    self._place_rendered(batch)
                    batch = []
            path.unlink()
        for href in groups.members():
            if href.startswith(self._normalizer.scope) and href not in self._fingerprints:
                self._fingerprints.add(href)
                loc = href.replace("&", "&amp;").replace("'", "&apos;")
                batch.append(f"<url><loc>{loc}</loc>{groups.links_of(href)}</url>\n")
                self._note("hreflang-added")
        self._place_rendered(batch)
        if self._file is not None:
            self._finish_file(self._file)
        if groups.conflicts:
            self._note("hreflang-conflict", groups.conflicts)

    def _place_rendered(self, texts: list[str]) -> None:
        lastmods = [
            self._lastmod(match.group(1)) if match else _NO_LASTMOD
            for match in map(_LASTMOD.search, texts)
        ]
        lastmod_texts, timestamps = zip(*lms, strict=True) if (lms := lastmods) else ((), ())
        sizes = [len(text.encode("utf-8")) for text in texts]
        self._place(sizes, _joiner(texts), lastmod_texts, timestamps)

    # -- closing and publishing ------------------------------------------------------------

    def close(self) -> WriteResult:
        """Write what is left, the index if needed, and publish the set atomically."""
        if self._result is not None:
            return self._result
        if not self._open:
            raise RuntimeError("this SitemapWriter was aborted")
        try:
            self._flush_pending()
            if self._file is not None:
                self._finish_file(self._file)
            if self._hreflang:
                self._complete_hreflang()
            if not self._children:
                raise SitemapError(
                    "nothing to write: no URL was accepted"
                    + (f" ({self._describe_skipped()})" if self._skipped else "")
                )
            self._result = self._publish()
            if self._news is not None:
                self._result = replace(self._result, news=self._news.close())
        except BaseException:
            self.abort()
            raise
        self._open = False
        self._staging.release()
        return self._result

    def _describe_skipped(self) -> str:
        return ", ".join(f"{count:,} {reason}" for reason, count in self._skipped.items())

    def _publish(self) -> WriteResult:
        staging = self._staging.path
        entry_name = self.name + self._suffix
        if len(self._children) == 1:
            only = self._children[0].result
            os.replace(only.path, staging / entry_name)
            self._staging.publish(self._extra_files(), entry_name)
            return self._make_result(entry_name, [], only.raw_bytes, only.file_bytes)
        if self.gzip:
            self._children[0] = self._compress_first(self._children[0])
        refs: list[SitemapRef] = []
        names: list[str] = []
        raw = written = 0
        suffix = self._suffix + (".gz" if self.gzip else "")
        for number, child in enumerate(self._children, start=1):
            name = child_file_name(self.name, number, child.result.sha256, suffix)
            os.replace(child.result.path, staging / name)
            names.append(name)
            refs.append(SitemapRef(loc=self.base_url + name, lastmod=child.lastmod))
            raw += child.result.raw_bytes
            written += child.result.file_bytes
        index_name = self.name + ".xml"
        write_index(staging / index_name, self.profile, refs, stylesheet=self.stylesheet)
        self._staging.publish([*names, *self._extra_files()], index_name)
        return self._make_result(index_name, names, raw, written)

    def _extra_files(self) -> list[str]:
        """The stylesheet, written into staging so it is published (and later removed) with
        the set it styles: before the entry point that links it, listed in the manifest."""
        if self.xsl_name is None:
            return []
        from .stylesheet import SITEMAP_XSL

        with open(self._staging.path / self.xsl_name, "wb") as handle:
            handle.write(SITEMAP_XSL.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        return [self.xsl_name]

    def _compress_first(self, child: _Child) -> _Child:
        source = child.result.path
        sink = FileSink(
            source.with_name(source.name + ".gz"), gzip=True, level=self._compress_level
        )
        with open(source, "rb") as raw:
            while block := raw.read(1 << 20):
                sink.write(block)
        result = sink.close()
        source.unlink()
        return _Child(result, child.urls, child.lastmod)

    def _make_result(
        self, entry_name: str, children: list[str], raw: int, written: int
    ) -> WriteResult:
        return WriteResult(
            out_dir=self.out_dir,
            entry_point=self.out_dir / entry_name,
            entry_url=self.base_url + entry_name,
            children=tuple(self.out_dir / name for name in children),
            urls=self._urls,
            skipped=dict(self._skipped),
            skipped_examples={k: tuple(v) for k, v in self._examples.items()},
            raw_bytes=raw,
            file_bytes=written,
            notes=dict(self._notes),
            stylesheet=None if self.xsl_name is None else self.out_dir / self.xsl_name,
        )

    def abort(self) -> None:
        """Drop everything written so far; the published set stays as it was."""
        if self._news is not None and self._news._open:
            self._news.abort()
        if self._file is not None:
            self._file.sink.abort()
            self._file = None
        self._open = False
        self._staging.release()

    @property
    def result(self) -> WriteResult:
        """The result of :meth:`close`."""
        if self._result is None:
            raise RuntimeError("the writer has not been closed yet")
        return self._result

    @property
    def skipped(self) -> Mapping[str, int]:
        """URLs left out so far, by reason."""
        return dict(self._skipped)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        elif self._open:
            self.abort()
