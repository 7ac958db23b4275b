"""Validate sitemaps, indexes, text sitemaps and feeds against every rule of the protocol.

:func:`validate` reads a file, a gzip file, a folder of sitemaps, a URL, ``-`` (stdin) or
bytes, streams it through the checker for its kind and returns a :class:`Report`. Bad content
never raises: it becomes :class:`Issue` values with a rule ID, a severity, a line and a column.
Only a source that cannot be read at all (missing file, unreachable URL) raises a
:class:`~sitemapkit.SitemapError`.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import BinaryIO, Final
from urllib.parse import unquote, urlsplit

from ..compression import is_gzip, iter_gunzip
from ..errors import FetchError, InvalidURLError, SitemapError, SourceError
from ..model import PROTOCOL_09
from ..urls import scope_of
from . import parallel
from .fastlane import _resolve as resolve_offsets
from .fastlane import run_fast
from .fetch import Fetched, Fetcher, SharedFetcher, UrllibFetcher, parse_robots_sitemaps
from .locations import Tree, TreeURLs, normalize_sitemap_url, tree_duplicate
from .parallel import Outcome, Prefetch, workers
from .report import FORMATS, Collector, Issue, Report, format_report
from .rules import RULES, Rule, Severity, current_time, frozen_time
from .textcheck import check_text
from .xmlcheck import CheckedFile, _Checker, check_xml

__all__ = [
    "FORMATS",
    "RULES",
    "Fetched",
    "Fetcher",
    "Issue",
    "Report",
    "Rule",
    "Severity",
    "SharedFetcher",
    "UrllibFetcher",
    "format_report",
    "validate",
]

_READ: Final = 1 << 20
#: Inflating or downloading stops a little past the largest legal sitemap (bomb guard, F-08).
INPUT_CAP: Final = PROTOCOL_09.max_bytes + (1 << 20)
_ROBOTS_CAP: Final = 512 * 1024
_MAX_DEPTH: Final = 4
_MAX_FILES: Final = 100_000
#: Canonical local files go through the fast lane first (a test turns it off to compare).
_FAST_LANE = True
_SITEMAP_SUFFIXES: Final = (".xml", ".xml.gz", ".txt", ".txt.gz", ".gz", ".rss", ".atom")

Source = str | os.PathLike[str] | bytes | BinaryIO


def _is_url(text: str) -> bool:
    return text[:8].lower().startswith(("http://", "https://"))


def _read_chunks(handle: BinaryIO) -> Iterator[bytes]:
    while block := handle.read(_READ):
        yield block


def _reader(path: Path, name: str) -> Callable[[], AbstractContextManager[Iterable[bytes]]]:
    """Opens ``path`` again, decoded, for a second pass."""

    @contextmanager
    def reread() -> Iterator[Iterable[bytes]]:
        with open(path, "rb") as handle:
            yield _decoded(_read_chunks(handle), name)

    return reread


def _decoded(chunks: Iterable[bytes], name: str) -> Iterator[bytes]:
    """Inflate gzip (sniffed by its magic bytes, F-08) up to :data:`INPUT_CAP`."""
    iterator = iter(chunks)
    head = b""
    for block in iterator:
        head += block
        if len(head) >= 2:
            break
    if is_gzip(head):
        yield from iter_gunzip(itertools.chain([head], iterator), limit=INPUT_CAP, source=name)
    else:
        if head:
            yield head
        yield from iterator


def _looks_like_xml(head: bytes) -> bool:
    text = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    stripped = text.lstrip()
    if stripped.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    return not stripped or stripped.startswith(b"<")


class _Run:
    """One call of :func:`validate`: the report, the shared tree state, what was visited."""

    def __init__(
        self,
        *,
        strict: bool,
        recursive: bool,
        fetch: bool,
        fetcher: Fetcher | None,
        max_per_rule: int,
        tree_wide: bool,
        now: datetime | None = None,
    ) -> None:
        self.report = Report(strict=strict)
        self.now = now
        self.recursive = recursive
        self.fetch = fetch
        self.fetcher: Fetcher = fetcher or SharedFetcher()
        self.own_fetcher = fetcher is None
        self.trusted: str | None = None
        self.max_per_rule = max_per_rule
        self.tree = Tree(
            seen=TreeURLs() if tree_wide else None, robots=self._robots if fetch else None
        )
        self.visited: set[str] = set()
        self.prefetch: Prefetch | None = None
        self.parallel = fetcher is None

    def _start_prefetch(self, checked: CheckedFile, path: Path, location: str | None) -> None:
        """Check the local children of an index in worker processes, when it pays."""
        processes = workers()
        if not self.parallel or processes < 2:
            return
        jobs = []
        size = 0
        for loc, _line, _column in checked.children:
            local = _local_child(loc, path, location)
            if local is None or str(local.resolve()) in self.visited:
                continue
            size += local.stat().st_size
            job = (
                str(local),
                loc,
                self.max_per_rule,
                self.report.strict,
                self.fetch,
                _FAST_LANE,
                self.trusted,
                current_time() if self.now is not None else None,
            )
            jobs.append((str(local.resolve()), job))
        if len(jobs) >= parallel.MIN_CHILDREN and size >= parallel.MIN_BYTES:
            self.prefetch = Prefetch(jobs, processes)

    def _merge(self, outcome: Outcome, local: Path, loc: str, depth: int) -> CheckedFile:
        """Take in a child a worker checked, as if it had been checked here."""
        self.visited.add(str(local.resolve()))
        report = self.report
        collector = Collector(report, outcome.name, max_per_rule=self.max_per_rule)
        collector.shown, collector.seen = outcome.shown, outcome.seen
        collector.first_hidden = outcome.hidden
        report.files.append(outcome.name)
        report.issues.extend(outcome.issues)
        for key, count in outcome.counts.items():
            report.counts[key] = report.counts.get(key, 0) + count
        report.urls += outcome.urls_counted
        self.tree.alternates.absorb(outcome.alternates, outcome.name, _reader(local, outcome.name))
        if self.tree.seen is not None and outcome.urls:
            repeated = self.tree.seen.add_batch(outcome.urls, outcome.lines, outcome.columns)
            places: dict[int, tuple[int, int]] = {}
            offsets = [-1 - outcome.lines[i] for i in repeated if outcome.lines[i] < 0]
            if offsets:  # fast-lane placeholders (see fastlane.run_fast)
                with _reader(local, outcome.name)() as stream:
                    places = resolve_offsets(stream, offsets)
            for position in repeated:
                line, column = outcome.lines[position], outcome.columns[position]
                if line < 0:
                    line, column = places[-1 - line]
                collector.add("SM-L11", tree_duplicate(outcome.urls[position]), line, column)
        self.follow(outcome.checked, collector, local, loc, depth=depth + 1)
        collector.finish()
        return outcome.checked

    def _robots(self, origin: str) -> frozenset[str] | None:
        url = origin.rstrip("/") + "/robots.txt"
        try:
            fetched = self.fetcher.open(url, max_bytes=_ROBOTS_CAP)
            body = b"".join(fetched.chunks)
        except FetchError:
            return None
        listed = parse_robots_sitemaps(body.decode("utf-8", "replace"), fetched.url)
        return frozenset(normalize_sitemap_url(url) for url in listed)

    # -- one document -----------------------------------------------------------------------

    def check(
        self, name: str, chunks: Iterable[bytes], *, location: str | None, top_level: bool
    ) -> tuple[CheckedFile, Collector]:
        collector = Collector(self.report, name, max_per_rule=self.max_per_rule)
        self.report.files.append(name)
        decoded = _decoded(chunks, name)
        try:
            first = next(decoded, b"")
        except SitemapError as error:
            collector.add("SM-F01", error.message, 1, 1)
            return CheckedFile(), collector
        stream = itertools.chain([first], decoded)
        if _looks_like_xml(first[:1024]):
            checked = check_xml(
                stream, collector, location=location, tree=self.tree, top_level=top_level
            )
        else:
            checked = check_text(
                stream, collector, location=location, tree=self.tree, top_level=top_level
            )
        self.report.urls += checked.urls if checked.kind != "sitemapindex" else 0
        return checked, collector

    def check_file(
        self, path: Path, *, location: str | None, top_level: bool, fast: bool | None = None
    ) -> tuple[CheckedFile, Collector]:
        """A file on disk: the fast lane first (it can give up and the file is read again)."""
        name = str(path)
        if _FAST_LANE if fast is None else fast:
            scratch = Report(strict=self.report.strict)
            collector = Collector(scratch, name, max_per_rule=self.max_per_rule)
            checked = CheckedFile()
            checker = _Checker(
                collector, checked, location=location, tree=self.tree, top_level=top_level
            )
            checker.reread = _reader(path, name)
            mark = self.tree.alternates.checkpoint()
            with open(path, "rb") as handle:
                if run_fast(checker, _decoded(_read_chunks(handle), name), checker.reread):
                    self.report.files.append(name)
                    self.report.extend(scratch)
                    self.report.urls += checked.urls
                    collector.report, collector.counts = self.report, self.report.counts
                    return checked, collector
            self.tree.alternates.rollback(mark)  # the full checker reads the file again
        with open(path, "rb") as handle:
            return self.check(name, _read_chunks(handle), location=location, top_level=top_level)

    def check_stream(self, name: str, chunks: Iterable[bytes], *, location: str | None) -> None:
        """A top-level source that is not a file on disk: its index children are not followed."""
        collector = self.check(name, chunks, location=location, top_level=True)[1]
        collector.finish()

    def check_path(self, path: Path, *, location: str | None, top_level: bool) -> None:
        self.visited.add(str(path.resolve()))
        checked, collector = self.check_file(path, location=location, top_level=top_level)
        self.follow(checked, collector, path, location, depth=1)
        collector.finish()

    def check_url(
        self, url: str, *, location: str | None, top_level: bool, depth: int = 1
    ) -> CheckedFile:
        self.visited.add(normalize_sitemap_url(url))
        fetched = self.fetcher.open(url, max_bytes=INPUT_CAP, user_given=top_level)
        checked, collector = self.check(
            url, fetched.chunks, location=location or fetched.url, top_level=top_level
        )
        self.follow(checked, collector, None, location or fetched.url, depth=depth)
        collector.finish()
        return checked

    # -- a tree -----------------------------------------------------------------------------

    def follow(
        self,
        checked: CheckedFile,
        collector: Collector,
        path: Path | None,
        location: str | None,
        *,
        depth: int,
    ) -> None:
        if not self.recursive or checked.kind != "sitemapindex":
            return
        started = path is not None and self.prefetch is None
        if started:
            assert path is not None
            self._start_prefetch(checked, path, location)
        try:
            self._follow_children(checked, collector, path, location, depth=depth)
        finally:
            if started:
                self.close()

    def report_alternates(self) -> None:
        """HREF-03 once every file is read: the hreflang sets that are not mutual."""
        for name, reread, items in self.tree.alternates.findings():
            offsets = [-1 - line for line, _, _ in items if line < 0]
            places: dict[int, tuple[int, int]] = {}
            if offsets and reread is not None:  # fast-lane placeholders
                with reread() as stream:
                    places = resolve_offsets(stream, offsets)
            collector = Collector(self.report, name, max_per_rule=self.max_per_rule)
            for line, column, message in items:
                if line < 0:
                    line, column = places.get(-1 - line, (1, 1))
                collector.add("SM-HREF-03", message, line, column)
            collector.finish()

    def close(self) -> None:
        """Stop the worker processes, if any."""
        if self.prefetch is not None:
            self.prefetch.close()
            self.prefetch = None

    def finish(self) -> None:
        """Release what the run opened: workers, the HTTP client it made."""
        self.close()
        if self.own_fetcher:
            self.fetcher.close()

    def _follow_children(
        self,
        checked: CheckedFile,
        collector: Collector,
        path: Path | None,
        location: str | None,
        *,
        depth: int,
    ) -> None:
        for loc, line, column in checked.children:
            if len(self.report.files) >= _MAX_FILES:
                collector.add("SM-FETCH-01", f"stopped after {_MAX_FILES:,} files", line, column)
                return
            local = _local_child(loc, path, location) if path is not None else None
            key = str(local.resolve()) if local is not None else normalize_sitemap_url(loc)
            if key in self.visited:
                continue
            child = self._child(loc, local, collector, line, column, depth)
            if child is not None and child.kind == "sitemapindex":
                collector.add(
                    "SM-I07",
                    f"{loc[:200]} is itself a sitemap index; indexes should not be nested",
                    line,
                    column,
                )

    def _child(
        self, loc: str, local: Path | None, parent: Collector, line: int, column: int, depth: int
    ) -> CheckedFile | None:
        if depth >= _MAX_DEPTH:
            parent.add(
                "SM-FETCH-01",
                f"{loc[:200]}: indexes nested deeper than {_MAX_DEPTH} levels; not followed",
                line,
                column,
            )
            return None
        if local is not None:
            outcome = self.prefetch.take(str(local.resolve())) if self.prefetch else None
            if outcome is not None:
                return self._merge(outcome, local, loc, depth)
            self.visited.add(str(local.resolve()))
            checked, collector = self.check_file(local, location=loc, top_level=False)
            self.follow(checked, collector, local, loc, depth=depth + 1)
            collector.finish()
            return checked
        if not self.fetch:
            parent.add(
                "SM-FETCH-01",
                f"{loc[:200]} was not found next to the index, and fetching is off",
                line,
                column,
            )
            return None
        if not _is_url(loc):
            parent.add(
                "SM-FETCH-01", f"{loc[:200]} cannot be fetched: not an http(s) URL", line, column
            )
            return None
        try:
            return self.check_url(loc, location=loc, top_level=False, depth=depth + 1)
        except FetchError as error:
            parent.add(
                "SM-FETCH-01", f"{loc[:200]} could not be fetched: {error.message}", line, column
            )
            return None


def _local_child(loc: str, index_path: Path, index_location: str | None) -> Path | None:
    """The file next to a local index that a child URL names, if it is there."""
    try:
        child_path = urlsplit(loc).path
    except ValueError:
        return None
    folder = index_path.parent
    names = []
    if index_location:
        try:
            scope_path = urlsplit(scope_of(index_location)).path
        except (InvalidURLError, ValueError):
            scope_path = ""
        if scope_path and child_path.startswith(scope_path):
            names.append(unquote(child_path[len(scope_path) :]))
    names.append(unquote(posixpath.basename(child_path)))
    root = folder.resolve()
    for name in names:
        if not name:
            continue
        candidate = folder / name
        try:
            if candidate.is_file() and candidate.resolve().is_relative_to(root):
                return candidate
        except OSError:  # a name over 255 bytes: not there; the child is reported as missing
            continue
    return None


def _folder_files(folder: Path) -> list[Path]:
    return sorted(
        path
        for path in folder.iterdir()
        if path.is_file()
        and not path.name.startswith(".")
        and path.name.lower().endswith(_SITEMAP_SUFFIXES)
    )


def _read_source(
    run: _Run,
    source: Source,
    *,
    location: str | None,
    is_url: bool,
    allow_fetch: bool,
    folder: Path | None,
) -> None:
    """Check ``source`` (every file of a folder) into ``run``."""
    if allow_fetch and location and not is_url:
        run.fetcher.trust(location)  # the user vouches for where the sitemap lives
        run.trusted = location
    if isinstance(source, bytes):
        run.check_stream("<bytes>", [source], location=location)
    elif isinstance(source, str) and is_url:
        run.check_url(source, location=location, top_level=True)
    elif isinstance(source, (str, os.PathLike)) and os.fspath(source) == "-":
        run.check_stream("<stdin>", _read_chunks(sys.stdin.buffer), location=location)
    elif isinstance(source, (str, os.PathLike)):
        if folder is not None:
            base = location.rstrip("/") + "/" if location else None
            for path in _folder_files(folder):
                if str(path.resolve()) in run.visited:
                    continue
                run.check_path(path, location=base + path.name if base else None, top_level=True)
        else:
            run.check_path(Path(source), location=location, top_level=True)
    else:
        run.check_stream(
            str(getattr(source, "name", "<stream>")), _read_chunks(source), location=location
        )


def validate(
    source: Source,
    *,
    location: str | None = None,
    recursive: bool = False,
    strict: bool = False,
    fetch: bool | None = None,
    fetcher: Fetcher | None = None,
    max_per_rule: int = 100,
    now: datetime | None = None,
) -> Report:
    """Check ``source`` against every rule of the protocol that a file can break.

    :param source: a path (file, ``.gz`` file or folder of sitemaps), an http(s) URL, ``"-"``
        for stdin, ``bytes``, or a binary file object.
    :param location: the public URL of the sitemap (for a folder: of the folder); turns on the
        scope rules (L-08, I-05, I-06, S-01). A fetched URL is its own location.
    :param recursive: also check every sitemap an index lists (next to a local index, or
        fetched), duplicates across the tree included.
    :param strict: warnings make the report fail (``Report.ok`` is False).
    :param fetch: allow network access (children, robots.txt for cross-host URLs). Default:
        only for URL sources.
    :param fetcher: what opens URLs (default :class:`SharedFetcher`, the project's client).
    :param max_per_rule: findings shown per rule and file; the rest are counted.
    :param now: the time to compare dates with (lastmod in the future, the two-day news
        window); an aware ``datetime``, default the clock.
    :raises SourceError: a local source does not exist or cannot be read.
    :raises FetchError: a URL source cannot be fetched.

    >>> report = validate(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    ...                   b'<url><loc>https://example.com/</loc></url></urlset>')
    >>> report.ok, [issue.rule for issue in report.warnings]
    (True, ['SM-F03'])
    """
    is_url = isinstance(source, str) and _is_url(source)
    allow_fetch = is_url if fetch is None else fetch
    folder = None
    if isinstance(source, (str, os.PathLike)) and not is_url and os.fspath(source) != "-":
        path = Path(source)
        if path.is_dir():
            folder = path
        elif not path.is_file():
            raise SourceError(f"no such file or folder: {path}", source=str(path))
    run = _Run(
        strict=strict,
        recursive=recursive,
        fetch=allow_fetch,
        fetcher=fetcher,
        max_per_rule=max_per_rule,
        tree_wide=recursive or folder is not None,
        now=now,
    )
    try:
        with frozen_time(now):
            _read_source(
                run,
                source,
                location=location,
                is_url=is_url,
                allow_fetch=allow_fetch,
                folder=folder,
            )
            run.report_alternates()
    except OSError as error:
        raise SourceError(
            f"cannot read {error.filename or source!r}: {error.strerror or error}",
            source=str(error.filename or ""),
        ) from error
    finally:
        run.finish()
    order = {name: position for position, name in enumerate(run.report.files)}
    run.report.issues.sort(key=lambda issue: (order.get(issue.file, 0), issue.line, issue.column))
    return run.report
