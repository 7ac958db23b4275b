"""Audit: what a site's sitemaps promise against what the site serves.

:func:`audit` finds the sitemaps (:func:`~sitemapkit.find_sitemaps`), validates them
(:func:`~sitemapkit.validate`, every finding with its file and line), reads every entry
(:class:`~sitemapkit.Reader`), and checks each listed URL over HTTP with the crawler's rules
(:func:`~sitemapkit.crawl.check.check_urls`): robots.txt, politeness, and the same judgement
of every answer. ``sample`` checks a reproducible random sample instead of every URL;
``crawl`` also crawls the site to find indexable pages no sitemap lists and listed pages no
link reaches. ``lastmod`` values are checked for dates in the future, one timestamp shared
by every entry, and dates older than the page's ``Last-Modified``.

Memory stays flat in the number of URLs: entries, results and problems live in a SQLite
file (:attr:`AuditResult.database`), summaries are computed there, and the sample is a
reservoir of ``sample`` row numbers. :mod:`sitemapkit.report` turns an :class:`AuditResult`
into a self-contained HTML page, JSON or CSV.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import sqlite3
import stat
import tempfile
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from .dates import lastmod_timestamp, parse_lastmod
from .discover import _site_root
from .errors import InvalidURLError, InvalidValueError, SitemapError, SourceError
from .fetch import FetchSettings
from .model import ProblemHandler, URLEntry, log_problem
from .urls import host_of, normalize_url

if TYPE_CHECKING:
    from .crawl import CrawlStats
    from .crawl.check import Verdict
    from .validate import Report

__all__ = [
    "PROBLEM_KINDS",
    "AuditProblem",
    "AuditResult",
    "AuditSitemap",
    "Threshold",
    "URLResult",
    "audit",
]

_ERROR: Final = "error"
_WARNING: Final = "warning"

#: Every kind of problem an audit reports: its severity and what it means.
PROBLEM_KINDS: Final[dict[str, tuple[str, str]]] = {
    "http-4xx": (_ERROR, "listed, but answered 4xx (not found, gone, forbidden...)"),
    "http-5xx": (_ERROR, "listed, but answered 5xx (after retries)"),
    "http-status": (_ERROR, "listed, but answered neither 200, a redirect nor an error"),
    "fetch-error": (_ERROR, "listed, but no answer: connection error, reset or timeout"),
    "noindex": (_ERROR, "listed, but robots noindex (meta tag or X-Robots-Tag)"),
    "robots-txt": (_ERROR, "listed, but robots.txt disallows it"),
    "invalid-url": (_ERROR, "listed, but not a URL that can be requested"),
    "redirect": (_WARNING, "listed, but redirects (list the target instead)"),
    "canonical": (_WARNING, "listed, but its canonical URL is another one"),
    "content-type": (_WARNING, "listed, but not HTML"),
    "private-address": (_WARNING, "listed on a private or loopback address; not checked"),
    "lastmod-future": (_WARNING, "lastmod is in the future"),
    "lastmod-uniform": (_WARNING, "every entry has the same lastmod (the build time?)"),
    "lastmod-stale": (_WARNING, "lastmod is older than the page's Last-Modified header"),
    "unlisted": (_WARNING, "indexable page the crawl found that no sitemap lists"),
    "orphan": (_WARNING, "listed page that no link on the site reaches"),
}
#: Names a threshold may use besides the kinds and validator rule IDs.
THRESHOLD_GROUPS: Final = {
    "error": "problems of error severity and validation errors",
    "warning": "problems of warning severity and validation warnings",
    "not-indexable": "checked URLs that are not indexable",
    "validation": "validation errors",
}
_SAME_LASTMOD_MIN: Final = 20  # as the validator's SM-M08
# Crawl outcomes of pages the crawl requested (or found disallowed): an audit takes these.
_FETCHED: Final = (
    "listed",
    "noindex",
    "canonical",
    "redirect",
    "http-4xx",
    "http-5xx",
    "http-status",
    "content-type",
    "fetch-error",
    "robots-txt",
)
_REUSE: Final = (
    "SELECT e.id, c.outcome, c.status, c.detail, c.lastmod, c.title "
    "FROM entry e JOIN crawl.url c ON c.url = e.key WHERE c.done = 1 AND c.outcome IN "
    "(" + ", ".join("?" * len(_FETCHED)) + ")"
)
_BATCH: Final = 1000
_THRESHOLD = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*>\s*([0-9]+(?:\.[0-9]+)?)\s*(%?)\s*$")

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS sitemap (
    id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, found_by TEXT, detail TEXT,
    urls INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS entry (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    key TEXT,
    sitemap INTEGER,
    lastmod TEXT,
    lastmod_ts REAL,
    lastmod_end REAL,
    sampled INTEGER NOT NULL DEFAULT 0,
    outcome TEXT,
    status INTEGER,
    detail TEXT,
    target TEXT,
    last_modified TEXT,
    last_modified_ts REAL,
    title TEXT
);
CREATE INDEX IF NOT EXISTS entry_key ON entry (key);
CREATE TABLE IF NOT EXISTS problem (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, severity TEXT NOT NULL, url TEXT NOT NULL,
    detail TEXT, sitemap TEXT
);
CREATE INDEX IF NOT EXISTS problem_kind ON problem (kind);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
"""


@dataclass(frozen=True, slots=True)
class Threshold:
    """When an audit fails: more than ``limit`` of ``kind``, a count or a percentage of the
    URLs checked.

    ``kind`` is a problem kind (:data:`PROBLEM_KINDS`), a group (``error``, ``warning``,
    ``not-indexable``, ``validation``) or a validator rule ID (``SM-L02``).

    >>> Threshold.parse("not-indexable>1%")
    Threshold(kind='not-indexable', limit=1.0, percent=True)
    """

    kind: str
    limit: float
    percent: bool = False

    @classmethod
    def parse(cls, text: str) -> Threshold:
        match = _THRESHOLD.match(text)
        if match is None:
            raise InvalidValueError(
                f"bad threshold {text!r}: write KIND>N or KIND>N% (for example error>0, "
                "not-indexable>1%)"
            )
        kind, limit, percent = match.group(1).lower(), float(match.group(2)), bool(match.group(3))
        known = kind in PROBLEM_KINDS or kind in THRESHOLD_GROUPS or kind.startswith("sm-")
        if not known:
            names = ", ".join([*THRESHOLD_GROUPS, *PROBLEM_KINDS])
            raise InvalidValueError(f"bad threshold {text!r}: unknown kind {kind!r} ({names})")
        if percent and limit > 100:
            raise InvalidValueError(f"bad threshold {text!r}: a percentage is at most 100")
        return cls(kind.upper() if kind.startswith("sm-") else kind, limit, percent)

    def __str__(self) -> str:
        return f"{self.kind}>{self.limit:g}{'%' if self.percent else ''}"


#: Without thresholds an audit fails on any error: a problem of error severity or a
#: validation error.
DEFAULT_THRESHOLDS: Final = (Threshold("error", 0),)


@dataclass(frozen=True, slots=True)
class AuditSitemap:
    """A sitemap file of the audit: how it was found and how many URLs it listed."""

    url: str
    found_by: str | None
    detail: str | None
    urls: int


@dataclass(frozen=True, slots=True)
class URLResult:
    """One listed URL and what checking it found (``outcome`` is None when not checked)."""

    url: str
    sitemap: str | None
    lastmod: str | None
    outcome: str | None
    status: int | None
    detail: str | None
    target: str | None
    last_modified: str | None
    title: str | None
    problems: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "sitemap": self.sitemap,
            "lastmod": self.lastmod,
            "outcome": self.outcome,
            "status": self.status,
            "detail": self.detail,
            "target": self.target,
            "last_modified": self.last_modified,
            "title": self.title,
            "problems": list(self.problems),
        }


@dataclass(frozen=True, slots=True)
class AuditProblem:
    """One problem of one URL (or, for ``lastmod-uniform``, of the whole set)."""

    kind: str
    severity: str
    url: str
    detail: str | None
    sitemap: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "severity": self.severity,
            "url": self.url,
            "detail": self.detail,
            "sitemap": self.sitemap,
        }


@dataclass
class AuditResult:
    """What :func:`audit` found. Summaries are attributes; per-URL rows are read from
    :attr:`database` by :meth:`urls` and :meth:`problems`, so they never all sit in memory.

    Use it as a context manager (or call :meth:`close`) to remove a temporary database.
    """

    source: str
    database: Path
    started: datetime
    seconds: float
    sitemaps: list[AuditSitemap]
    listed: int
    entries: int
    checked: int
    sample: int | None
    seed: int
    outcomes: dict[str, int]
    statuses: dict[str, int]
    lastmods: dict[str, int]
    problem_counts: dict[str, int]
    validation: Report
    thresholds: tuple[Threshold, ...]
    failed: list[str]
    notes: list[str]
    crawl: CrawlStats | None = None
    crawl_indexable: int | None = None
    check_stats: CrawlStats | None = None
    #: Seconds spent checking URLs over HTTP (the rest went to finding, validating, reading).
    check_seconds: float = 0.0
    _temp: str | None = field(default=None, repr=False)

    @property
    def duplicates(self) -> int:
        """Entries that repeat a URL already listed (in the same or another sitemap)."""
        return self.entries - self.listed

    @property
    def indexable(self) -> int:
        from .crawl.check import INDEXABLE

        return self.outcomes.get(INDEXABLE, 0)

    @property
    def error_count(self) -> int:
        """Problems of error severity plus validation errors."""
        own = sum(n for k, n in self.problem_counts.items() if PROBLEM_KINDS[k][0] == _ERROR)
        return own + self.validation.error_count

    @property
    def warning_count(self) -> int:
        own = sum(n for k, n in self.problem_counts.items() if PROBLEM_KINDS[k][0] == _WARNING)
        return own + self.validation.warning_count

    @property
    def ok(self) -> bool:
        """True when no threshold was passed (by default: nothing at error level)."""
        return not self.failed

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def measure(self, kind: str) -> int:
        """The count a threshold of ``kind`` compares."""
        if kind == "error":
            return self.error_count
        if kind == "warning":
            return self.warning_count
        if kind == "validation":
            return self.validation.error_count
        if kind == "not-indexable":
            return self.checked - self.indexable
        if kind in PROBLEM_KINDS:
            return self.problem_counts.get(kind, 0)
        return sum(n for key, n in self.validation.counts.items() if key.split("/")[0] == kind)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.database)

    def urls(self) -> Iterator[URLResult]:
        """Every listed URL in the order read, with its result and problem kinds."""
        db = self._connect()
        try:
            after = 0
            while True:
                rows = db.execute(
                    "SELECT e.id, e.url, s.url, e.lastmod, e.outcome, e.status, e.detail, "
                    "e.target, e.last_modified, e.title, "
                    "(SELECT group_concat(kind, ' ') FROM problem p WHERE p.url = e.url) "
                    "FROM entry e LEFT JOIN sitemap s ON s.id = e.sitemap "
                    "WHERE e.id > ? ORDER BY e.id LIMIT ?",
                    (after, _BATCH),
                ).fetchall()
                if not rows:
                    return
                for row_id, *values, kinds in rows:
                    after = row_id
                    found = tuple(sorted(set(kinds.split()))) if kinds else ()
                    url, sitemap, lastmod, outcome, status, detail, target, modified, title = values
                    yield URLResult(
                        url,
                        sitemap,
                        lastmod,
                        outcome,
                        status,
                        detail,
                        target,
                        modified,
                        title,
                        found,
                    )
        finally:
            db.close()

    def problems(self, kind: str | None = None) -> Iterator[AuditProblem]:
        """Every problem (of ``kind``), errors first, then by kind and URL."""
        db = self._connect()
        try:
            where = "" if kind is None else "WHERE kind = ?"
            query = (
                f"SELECT kind, severity, url, detail, sitemap FROM problem {where} "  # noqa: S608
                "ORDER BY severity = 'warning', kind, id"
            )
            cursor = db.execute(query, () if kind is None else (kind,))
            while rows := cursor.fetchmany(_BATCH):
                for row in rows:
                    yield AuditProblem(*row)
        finally:
            db.close()

    def unlisted(self) -> Iterator[str]:
        """Indexable pages the crawl found that no sitemap lists (with ``crawl`` only)."""
        for problem in self.problems("unlisted"):
            yield problem.url

    def close(self) -> None:
        """Remove the database when :func:`audit` made a temporary one."""
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None

    def __enter__(self) -> AuditResult:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def write_html(self, path: str | os.PathLike[str]) -> None:
        """The self-contained HTML report (:func:`sitemapkit.report.write_html`)."""
        from .report import write_html

        write_html(self, path)


class _Reservoir:
    """A uniform random sample of ``size`` row numbers from a stream of 1, 2, 3, ...

    Algorithm L (Li, 1994): after the reservoir fills, the next replacement is reached by
    a random skip, so the cost grows with the sample, not the stream, and memory is
    ``size`` integers. Seeded, so the same stream gives the same sample.
    """

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.rows = array("q")
        self._random = random.Random(seed)  # noqa: S311 - a sample, not a secret
        self._weight = 1.0
        self._next = 0

    def _skip(self) -> None:
        self._weight *= math.exp(math.log(self._uniform()) / self.size)
        gap = math.log(self._uniform()) / math.log(max(1 - self._weight, 1e-300))
        self._next += int(gap) + 1

    def _uniform(self) -> float:
        return self._random.random() or 1e-300

    def offer(self, first: int, last: int) -> None:
        """Rows ``first`` to ``last`` (inclusive) have arrived."""
        row = first
        while row <= last and len(self.rows) < self.size:
            self.rows.append(row)
            row += 1
            if len(self.rows) == self.size:
                self._next = self.size
                self._skip()
        while len(self.rows) == self.size and self._next <= last:
            if self._next >= first:
                self.rows[self._random.randrange(self.size)] = self._next
            self._skip()


def _clear_database(path: Path) -> None:
    """Remove an earlier audit database (and its -wal, -shm) before a run writes a new one.

    Only SQLite files (or empty ones) are removed: ``--database /dev/null`` deleted the
    device, and a typo naming a document would have deleted the document.
    """
    for suffix in ("", "-wal", "-shm"):
        target = Path(f"{path}{suffix}")
        try:
            if not stat.S_ISREG(target.stat().st_mode):
                raise InvalidValueError(
                    f"{target}: not a regular file; not replaced by the audit database"
                )
            if suffix == "":
                with open(target, "rb") as handle:
                    head = handle.read(16)
                if head and head != b"SQLite format 3\x00":
                    raise InvalidValueError(
                        f"{target}: not an SQLite file; not replaced by the audit database"
                    )
            target.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise SourceError(
                f"cannot replace the audit database: {exc.strerror}", source=str(target)
            ) from exc


def _is_site(source: str) -> bool:
    """A site root (``https://example.com/``) or a bare host name (``example.com``)."""
    if "://" in source:
        return bool(host_of(source)) and urlsplit(source).path in {"", "/"}
    name = source.rstrip("/")
    return (
        not Path(source).exists()
        and "." in name
        and "/" not in name
        and not name.lower().endswith((".xml", ".gz", ".txt", ".rss", ".atom"))
    )


def _lastmod_values(value: str | date | datetime | None) -> tuple[float | None, float | None]:
    """(instant, end) of a lastmod; a date ends 24 hours after it starts."""
    if value is None:
        return None, None
    try:
        parsed = parse_lastmod(value, assume_tz=UTC) if isinstance(value, str) else value
    except InvalidValueError:
        return None, None
    if isinstance(parsed, datetime) and parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    start = lastmod_timestamp(parsed)
    return start, start + (0 if isinstance(parsed, datetime) else 86400)


class _Audit:
    """One run: the database and the steps that fill it."""

    def __init__(
        self,
        source: str,
        db_path: Path,
        *,
        fetch: FetchSettings,
        on_problem: ProblemHandler,
        on_progress: Callable[[str, int, int | None], None] | None,
        now: datetime,
    ) -> None:
        self.source = source
        self.fetch = fetch
        self.on_problem = on_problem
        self.on_progress = on_progress
        self.now = now
        self.db = sqlite3.connect(db_path, isolation_level="DEFERRED")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        self.notes: list[str] = []

    def progress(self, stage: str, done: int, total: int | None = None) -> None:
        if self.on_progress is not None:
            self.on_progress(stage, done, total)

    # -- finding, validating, reading -----------------------------------------------------

    def find(self) -> list[str]:
        from .discover import find_sitemaps

        self.progress("discovering", 0)
        if not _is_site(self.source):
            self.db.execute(
                "INSERT OR IGNORE INTO sitemap (url, found_by, detail) VALUES (?, ?, ?)",
                (self.source, "given", "the audited sitemap"),
            )
            return [self.source]
        found = find_sitemaps(self.source, settings=self.fetch)
        if not found:
            raise SitemapError(
                f"{self.source}: no sitemap found (robots.txt, well-known paths, home page)"
            )
        self.db.executemany(
            "INSERT OR IGNORE INTO sitemap (url, found_by, detail) VALUES (?, ?, ?)",
            [(item.url, item.found_by, item.detail) for item in found],
        )
        return [item.url for item in found]

    def validate(self, sitemaps: list[str], max_per_rule: int) -> Report:
        from .errors import FetchError, SourceError
        from .validate import Issue, Report, Severity, validate
        from .validate.report import merge

        reports: list[Report] = []
        seen: set[str] = set()
        for number, sitemap in enumerate(sitemaps):
            self.progress("validating", number, len(sitemaps))
            if sitemap in seen:
                continue  # a child of an index validated already
            try:
                report = validate(sitemap, recursive=True, max_per_rule=max_per_rule)
            except (FetchError, SourceError) as exc:
                report = Report()
                report.files.append(sitemap)
                report.issues.append(
                    Issue("SM-FETCH-01", Severity.ERROR, exc.message, sitemap, 1, 1)
                )
                report.counts["SM-FETCH-01/error"] = 1
            seen.update(report.files)
            reports.append(report)
        return merge(reports)

    def read(self, sitemaps: list[str], reservoir: _Reservoir | None) -> tuple[int, int]:
        """Store every entry; returns (distinct URLs, entries)."""
        from .reader import Reader

        sitemap_ids: dict[str, int] = {}
        files_before: set[str] = set()
        entries = 0
        last_id = 0

        def sitemap_id(name: str) -> int:
            number = sitemap_ids.get(name)
            if number is None:
                self.db.execute("INSERT OR IGNORE INTO sitemap (url) VALUES (?)", (name,))
                row = self.db.execute("SELECT id FROM sitemap WHERE url = ?", (name,)).fetchone()
                number = sitemap_ids[name] = int(row[0])
            return number

        with Reader(settings=self.fetch, on_problem=self.on_problem) as reader:
            for sitemap in sitemaps:
                files_now: set[str] = set()
                for batch in reader.read_batches(sitemap):
                    rows = []
                    counts: dict[int, int] = {}
                    for entry in batch:
                        name = entry.sitemap or sitemap
                        if name in files_before:
                            continue  # read already through an earlier sitemap
                        files_now.add(name)
                        number = sitemap_id(name)
                        counts[number] = counts.get(number, 0) + 1
                        rows.append(self._entry_row(entry, number))
                    entries += len(rows)
                    self.db.executemany(
                        "INSERT OR IGNORE INTO entry (url, key, sitemap, lastmod, lastmod_ts, "
                        "lastmod_end) VALUES (?, ?, ?, ?, ?, ?)",
                        rows,
                    )
                    self.db.executemany(
                        "UPDATE sitemap SET urls = urls + ? WHERE id = ?",
                        [(count, number) for number, count in counts.items()],
                    )
                    newest = self.db.execute("SELECT max(id) FROM entry").fetchone()[0] or 0
                    if reservoir is not None and newest > last_id:
                        reservoir.offer(last_id + 1, newest)
                    last_id = newest
                    self.db.commit()
                    self.progress("reading", entries)
                files_before |= files_now
        return last_id, entries

    @staticmethod
    def _entry_row(entry: URLEntry, sitemap: int) -> tuple[Any, ...]:
        try:
            key: str | None = normalize_url(entry.loc)
        except InvalidURLError:
            key = None
        lastmod = entry.lastmod
        start, end = _lastmod_values(lastmod)
        text = lastmod if isinstance(lastmod, str) or lastmod is None else lastmod.isoformat()
        return entry.loc, key, sitemap, text, start, end

    # -- checking -------------------------------------------------------------------------

    def to_check(self, sampled: bool) -> Iterator[tuple[int, str]]:
        column = "outcome IS NULL AND " + ("sampled = 1 AND " if sampled else "")
        after = 0
        while True:
            rows = self.db.execute(
                f"SELECT id, url FROM entry WHERE {column}id > ? ORDER BY id LIMIT ?",  # noqa: S608
                (after, 256),
            ).fetchall()
            if not rows:
                return
            after = rows[-1][0]
            yield from rows

    def check(self, settings: Any, sampled: bool, total: int, stop: threading.Event) -> Any:
        from .crawl.check import INDEXABLE, check_urls

        pending: list[tuple[Any, ...]] = []
        problems: list[tuple[Any, ...]] = []
        done = 0
        last_commit = time.monotonic()

        def flush() -> None:
            self._store(pending, problems)
            pending.clear()
            problems.clear()

        def record(verdict: Verdict) -> None:
            nonlocal done, last_commit
            modified = verdict.last_modified
            pending.append(
                (
                    verdict.outcome,
                    verdict.status,
                    verdict.detail,
                    verdict.target,
                    None if modified is None else modified.isoformat(),
                    None if modified is None else modified.timestamp(),
                    verdict.title,
                    verdict.key,
                )
            )
            if verdict.outcome != INDEXABLE:
                severity = PROBLEM_KINDS[verdict.outcome][0]
                detail = verdict.target or verdict.detail
                problems.append((verdict.outcome, severity, detail, verdict.key))
            done += 1
            if len(pending) >= _BATCH or time.monotonic() - last_commit > 0.5:
                flush()
                last_commit = time.monotonic()
                self.progress("checking", done, total)

        stats = check_urls(
            self.to_check(sampled),
            settings,
            on_verdict=record,
            on_problem=self.on_problem,
            stop=stop,
        )
        flush()
        self.progress("checking", done, total)
        return stats

    # -- lastmod and crawl comparisons ----------------------------------------------------

    def check_lastmods(self, listed: int) -> None:
        insert = (
            "INSERT INTO problem (kind, severity, url, detail, sitemap) "
            "SELECT ?, 'warning', e.url, ?, s.url FROM entry e "
            "LEFT JOIN sitemap s ON s.id = e.sitemap WHERE "
        )
        now = self.now.timestamp()
        when = self.now.isoformat(timespec="seconds")
        self.db.execute(
            insert + "e.lastmod_ts > ?",
            ("lastmod-future", f"after the audit's time, {when}", now),
        )
        self.db.execute(
            "INSERT INTO problem (kind, severity, url, detail, sitemap) "
            "SELECT 'lastmod-stale', 'warning', e.url, "
            "'lastmod ' || e.lastmod || ' is older than Last-Modified ' || e.last_modified, "
            "s.url FROM entry e LEFT JOIN sitemap s ON s.id = e.sitemap "
            "WHERE e.last_modified_ts > e.lastmod_end + 0.999"
        )
        with_lastmod, distinct, value = self.db.execute(
            "SELECT count(lastmod), count(DISTINCT lastmod), min(lastmod) FROM entry"
        ).fetchone()
        if (
            listed >= _SAME_LASTMOD_MIN
            and with_lastmod == listed
            and distinct == 1
            and "T" in value
        ):
            self.db.execute(
                "INSERT INTO problem (kind, severity, url, detail) VALUES (?, 'warning', ?, ?)",
                (
                    "lastmod-uniform",
                    self.source,
                    f"all {listed:,} URLs have lastmod {value}: lastmod should be when each "
                    "page changed, not when the sitemap was built",
                ),
            )
        self.db.commit()

    def reuse_crawl(self, state: Path, sampled: bool) -> int:
        """Take the crawl's judgement of the listed pages it fetched (or found disallowed),
        so no page is requested twice; returns how many were taken."""
        import ast

        from .crawl.check import INDEXABLE

        self.db.execute("ATTACH DATABASE ? AS crawl", (str(state),))
        try:
            query = _REUSE + (" AND e.sampled = 1" if sampled else "")
            rows = self.db.execute(query, _FETCHED).fetchall()
        finally:
            self.db.execute("DETACH DATABASE crawl")
        updates, problems = [], []
        for key, outcome, status, detail, lastmod, title in rows:
            target = None
            if outcome == "listed":
                outcome = INDEXABLE
            elif outcome == "canonical":
                target = detail
            elif outcome == "redirect" and detail and detail.startswith("to "):
                try:
                    target = str(ast.literal_eval(detail[3:]))
                except (ValueError, SyntaxError):
                    target = detail[3:]
                detail = f"HTTP {status}"
            modified = datetime.fromisoformat(lastmod).timestamp() if lastmod else None
            updates.append((outcome, status or None, detail, target, lastmod, modified, title, key))
            if outcome != INDEXABLE:
                problems.append((outcome, PROBLEM_KINDS[outcome][0], target or detail, key))
        self._store(updates, problems)
        return len(updates)

    def _store(self, updates: list[tuple[Any, ...]], problems: list[tuple[Any, ...]]) -> None:
        self.db.executemany(
            "UPDATE entry SET outcome = ?, status = ?, detail = ?, target = ?, "
            "last_modified = ?, last_modified_ts = ?, title = ? WHERE id = ?",
            updates,
        )
        self.db.executemany(
            "INSERT INTO problem (kind, severity, url, detail, sitemap) "
            "SELECT ?, ?, url, ?, (SELECT url FROM sitemap WHERE id = entry.sitemap) "
            "FROM entry WHERE id = ?",
            problems,
        )
        self.db.commit()

    def compare_crawl(self, state: Path, finished: bool) -> int:
        """Unlisted pages and orphans from a crawl's state file; returns its indexable pages."""
        self.db.execute("ATTACH DATABASE ? AS crawl", (str(state),))
        try:
            self.db.execute(
                "INSERT INTO problem (kind, severity, url, detail) "
                "SELECT 'unlisted', 'warning', c.url, c.title FROM crawl.url c "
                "WHERE c.outcome = 'listed' AND NOT EXISTS "
                "(SELECT 1 FROM entry e WHERE e.key = c.url) ORDER BY c.id"
            )
            if finished:
                self.db.execute(
                    "INSERT INTO problem (kind, severity, url, detail, sitemap) "
                    "SELECT 'orphan', 'warning', e.url, 'no link of the crawl reaches it', s.url "
                    "FROM entry e LEFT JOIN sitemap s ON s.id = e.sitemap "
                    "WHERE e.key IS NOT NULL AND NOT EXISTS "
                    "(SELECT 1 FROM crawl.url c WHERE c.url = e.key)"
                )
            else:
                self.notes.append(
                    "the crawl stopped at a limit before reaching every page: orphans are not "
                    "reported (raise --max-pages or --max-time)"
                )
            indexable = self.db.execute(
                "SELECT count(*) FROM crawl.url WHERE outcome = 'listed'"
            ).fetchone()[0]
            self.db.commit()
        finally:
            self.db.execute("DETACH DATABASE crawl")
        return int(indexable)

    # -- summaries ------------------------------------------------------------------------

    def counts(self, query: str) -> dict[str, int]:
        return {str(key): int(count) for key, count in self.db.execute(query).fetchall()}

    def sitemaps(self) -> list[AuditSitemap]:
        rows = self.db.execute("SELECT url, found_by, detail, urls FROM sitemap ORDER BY id")
        return [AuditSitemap(*row) for row in rows.fetchall()]


def _crawl_settings(start: str, fetch: FetchSettings, options: dict[str, Any]) -> Any:
    from .crawl import CrawlSettings

    return CrawlSettings(start, fetch=fetch, **options)


def audit(
    source: str | os.PathLike[str],
    *,
    crawl: bool = False,
    sample: int | None = None,
    seed: int = 0,
    fetch: FetchSettings | None = None,
    delay: float = 0.0,
    include_types: tuple[str, ...] = (),
    max_page_bytes: int | None = None,
    max_pages: int | None = 1_000_000,
    max_time: float | None = None,
    thresholds: Iterable[Threshold | str] = (),
    database: str | os.PathLike[str] | None = None,
    max_per_rule: int = 100,
    on_problem: ProblemHandler = log_problem,
    on_progress: Callable[[str, int, int | None], None] | None = None,
    stop: threading.Event | None = None,
    now: datetime | None = None,
) -> AuditResult:
    """Audit the sitemaps of a site (``https://example.com/``), or one sitemap (a URL or a
    local file whose URLs are checked over HTTP).

    :param crawl: also crawl the site (from its root) and report indexable pages that no
        sitemap lists (``unlisted``) and listed pages no link reaches (``orphan``).
    :param sample: check this many URLs, a uniform random sample chosen with ``seed`` (the
        same sitemaps and seed give the same sample); every URL is still read and counted.
    :param fetch: HTTP settings (User-Agent, timeouts, retries, ``concurrency``,
        ``per_host``); default: 8 requests at a time, as a crawl.
    :param delay: seconds between two requests to one host (robots.txt ``Crawl-delay`` wins
        when longer). ``include_types``, ``max_page_bytes``: as for a crawl.
    :param max_pages: pages the ``crawl`` fetches at most; ``max_time``: seconds each of the
        crawl and the checking may take at most.
    :param thresholds: when the audit fails (:attr:`AuditResult.ok`), as :class:`Threshold`
        values or text (``"not-indexable>1%"``); default: any error.
    :param database: keep the per-URL results in this SQLite file (an earlier SQLite file
        there is replaced, any other file refused); default: a temporary file removed by
        :meth:`AuditResult.close`.
    :param on_progress: called with (stage, done, total or None) as the audit goes.
    :raises SitemapError: the site cannot be reached or has no sitemap.
    """
    from .crawl import DEFAULT_CRAWL_FETCH, Crawler
    from .crawl.options import DEFAULT_PAGE_BYTES

    if sample is not None and sample < 1:
        raise InvalidValueError(f"sample must be at least 1, not {sample}")
    limits = tuple(t if isinstance(t, Threshold) else Threshold.parse(t) for t in thresholds)
    text = os.fspath(source)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # undecodable command-line bytes; SQLite would refuse them
        raise InvalidValueError(f"{text!r} is not valid UTF-8") from None
    if _is_site(text) and "://" not in text:
        text = f"https://{text.strip('/')}/"
    fetch = fetch or DEFAULT_CRAWL_FETCH
    started = datetime.now(UTC)
    clock = time.monotonic()
    temp = None
    if database is None:
        temp = tempfile.mkdtemp(prefix="sitemapkit-audit-")
        db_path = Path(temp) / "audit.sqlite"
    else:
        db_path = Path(database)
        _clear_database(db_path)
    try:
        run = _Audit(
            text,
            db_path,
            fetch=fetch,
            on_problem=on_problem,
            on_progress=on_progress,
            now=now or started,
        )
    except sqlite3.Error as exc:  # a missing folder, a read-only place
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
        raise SourceError(f"cannot open the audit database: {exc}", source=str(db_path)) from exc
    stop = stop or threading.Event()
    try:
        sitemaps = run.find()
        report = run.validate(sitemaps, max_per_rule)
        reservoir = None if sample is None else _Reservoir(sample, seed)
        listed, entries = run.read(sitemaps, reservoir)
        if reservoir is not None:
            run.db.executemany(
                "UPDATE entry SET sampled = 1 WHERE id = ?", [(row,) for row in reservoir.rows]
            )
            run.db.commit()
        first = run.db.execute("SELECT url FROM entry ORDER BY id LIMIT 1").fetchone()
        start = text if "://" in text else (first[0] if first else None)
        crawl_stats = crawl_indexable = None
        page_options: dict[str, Any] = {
            "delay": delay,
            "include_types": include_types,
            "max_page_bytes": max_page_bytes or DEFAULT_PAGE_BYTES,
            "max_time": max_time,
        }
        if crawl and start is not None:
            crawl_settings = _crawl_settings(
                _site_root(start), fetch, {**page_options, "max_pages": max_pages}
            )
            state = db_path.with_name(db_path.name + ".crawl")
            _clear_database(state)
            with Crawler(crawl_settings, state=state, on_problem=on_problem) as crawler:
                for count, _entry in enumerate(crawler, start=1):
                    if count % 100 == 0:
                        run.progress("crawling", count)
                crawl_stats = crawler.stats
            crawl_indexable = run.compare_crawl(state, crawl_stats.stopped_by is None)
            run.reuse_crawl(state, reservoir is not None)
        to_check = listed if reservoir is None else len(reservoir.rows)
        to_check -= run.db.execute(
            "SELECT count(*) FROM entry WHERE outcome IS NOT NULL"
        ).fetchone()[0]
        check_stats = None
        check_seconds = 0.0
        if start is not None and to_check:
            settings = _crawl_settings(_site_root(start), fetch, page_options)
            check_started = time.monotonic()
            check_stats = run.check(settings, reservoir is not None, to_check, stop)
            check_seconds = time.monotonic() - check_started
            if check_stats.stopped_by is not None:
                run.notes.append(f"checking stopped early ({check_stats.stopped_by})")
        run.check_lastmods(listed)
        checked = run.db.execute("SELECT count(*) FROM entry WHERE outcome IS NOT NULL").fetchone()[
            0
        ]
        result = AuditResult(
            source=text,
            database=db_path,
            started=started,
            seconds=time.monotonic() - clock,
            sitemaps=run.sitemaps(),
            listed=listed,
            entries=entries,
            checked=int(checked),
            sample=sample,
            seed=seed,
            outcomes=run.counts(
                "SELECT outcome, count(*) FROM entry WHERE outcome IS NOT NULL "
                "GROUP BY outcome ORDER BY count(*) DESC"
            ),
            statuses=run.counts(
                "SELECT coalesce(status, 'none'), count(*) FROM entry WHERE outcome IS NOT NULL "
                "GROUP BY 1 ORDER BY 1"
            ),
            lastmods=run.counts(
                "SELECT strftime('%Y-%m', lastmod_ts, 'unixepoch'), count(*) FROM entry "
                "WHERE lastmod_ts IS NOT NULL GROUP BY 1 ORDER BY 1"
            ),
            problem_counts=run.counts(
                "SELECT kind, count(*) FROM problem GROUP BY kind ORDER BY count(*) DESC"
            ),
            validation=report,
            thresholds=limits or DEFAULT_THRESHOLDS,
            failed=[],
            notes=run.notes,
            crawl=crawl_stats,
            crawl_indexable=crawl_indexable,
            check_stats=check_stats,
            check_seconds=check_seconds,
            _temp=temp,
        )
    except BaseException:
        run.db.close()
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
        raise
    run.db.close()
    result.failed = _failures(result)
    return result


def _failures(result: AuditResult) -> list[str]:
    """A sentence for each threshold the result passes."""
    base = result.checked or result.listed
    failed = []
    for threshold in result.thresholds:
        value = result.measure(threshold.kind)
        if threshold.percent:
            share = 100.0 * value / base if base else 0.0
            if share > threshold.limit:
                failed.append(
                    f"{threshold}: {value:,} of {base:,} URLs ({share:.2f} %) are {threshold.kind}"
                )
        elif value > threshold.limit:
            failed.append(f"{threshold}: {value:,} found")
    return failed
