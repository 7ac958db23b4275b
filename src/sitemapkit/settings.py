"""Everything one ``generate`` run needs, as values: the CLI and the config file both build a
:class:`GenerateSettings`, and :func:`generate` runs it.

A run chains its sources in order, applies each source's defaults (``changefreq``,
``priority``) and filters, then the global filters, and hands the entries to
:class:`~sitemapkit.SitemapWriter`; afterwards it updates robots.txt when asked.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import tzinfo as TimeZone
from pathlib import Path
from typing import Literal

from .crawl.crawler import ProgressHandler, crawl
from .crawl.options import CrawlSettings
from .dates import parse_timezone
from .errors import InvalidValueError
from .filters import FilterRule, URLFilter
from .htmlmap import DEFAULT_MAX_PAGES, HTMLSiteMap
from .model import ProblemHandler, URLEntry, check_changefreq, check_priority, log_problem
from .robots import update_robots_txt
from .shard import ShardedResult, ShardOptions, write_sharded
from .sources.accesslog import (
    DEFAULT_BOT_AGENTS,
    DEFAULT_SKIP_EXTENSIONS,
    LogFormat,
    from_access_log,
)
from .sources.directory import DEFAULT_INCLUDE, DEFAULT_INDEX_FILES, from_directory
from .sources.urllist import UrlListFormat, from_urllist
from .state import ChangeCounts, RunState, state_path
from .writer import SitemapWriter, WriteResult

__all__ = [
    "AccessLogSource",
    "CrawlSource",
    "DirectorySource",
    "GenerateResult",
    "GenerateSettings",
    "SitemapSource",
    "Source",
    "URLListSource",
    "generate",
]


def _check_defaults(changefreq: str | None, priority: float | None) -> None:
    check_changefreq(changefreq)
    check_priority(priority)


@dataclass(frozen=True, slots=True)
class URLListSource:
    """URL lists (:func:`~sitemapkit.from_urllist`): text, CSV, TSV, JSONL, gzip, ``-``."""

    paths: tuple[str, ...]
    format: UrlListFormat = "auto"
    encoding: str = "utf-8"
    changefreq: str | None = None
    priority: float | None = None
    filters: tuple[FilterRule, ...] = ()

    def __post_init__(self) -> None:
        _check_defaults(self.changefreq, self.priority)

    def entries(self, settings: GenerateSettings, on_problem: ProblemHandler) -> Iterator[URLEntry]:
        for path in self.paths:
            yield from from_urllist(
                path,
                format=self.format,
                encoding=self.encoding,
                assume_tz=settings.tzinfo,
                on_problem=on_problem,
            )


@dataclass(frozen=True, slots=True)
class DirectorySource:
    """A folder of static files (:func:`~sitemapkit.from_directory`)."""

    path: str
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    index_files: tuple[str, ...] = DEFAULT_INDEX_FILES
    keep_noindex: bool = False
    changefreq: str | None = None
    priority: float | None = None
    filters: tuple[FilterRule, ...] = ()

    def __post_init__(self) -> None:
        _check_defaults(self.changefreq, self.priority)

    def entries(self, settings: GenerateSettings, on_problem: ProblemHandler) -> Iterator[URLEntry]:
        return from_directory(
            self.path,
            base_url=settings.base_url,
            include=self.include,
            exclude=self.exclude,
            index_files=self.index_files,
            skip_noindex=not self.keep_noindex,
            on_problem=on_problem,
        )


@dataclass(frozen=True, slots=True)
class AccessLogSource:
    """Web-server access logs (:func:`~sitemapkit.from_access_log`)."""

    paths: tuple[str, ...]
    format: LogFormat = "auto"
    encoding: str = "utf-8"
    exclude_agents: tuple[str, ...] = DEFAULT_BOT_AGENTS
    skip_extensions: tuple[str, ...] = DEFAULT_SKIP_EXTENSIONS
    lastmod_from_requests: bool = False
    changefreq: str | None = None
    priority: float | None = None
    filters: tuple[FilterRule, ...] = ()

    def __post_init__(self) -> None:
        _check_defaults(self.changefreq, self.priority)

    def entries(self, settings: GenerateSettings, on_problem: ProblemHandler) -> Iterator[URLEntry]:
        return from_access_log(
            self.paths,
            base_url=settings.base_url,
            format=self.format,
            encoding=self.encoding,
            exclude_agents=self.exclude_agents,
            skip_extensions=self.skip_extensions,
            lastmod_from_requests=self.lastmod_from_requests,
            keep_session_ids=settings.keep_session_ids,
            on_problem=on_problem,
        )


@dataclass(frozen=True, slots=True)
class SitemapSource:
    """Existing sitemaps, paths or URLs, read with :func:`~sitemapkit.iter_urls`.

    Their entries (lastmod and extensions included) become input, so a run can merge an old
    set with new URLs. A local index's children are read from its folder when present.
    """

    paths: tuple[str, ...]
    changefreq: str | None = None
    priority: float | None = None
    filters: tuple[FilterRule, ...] = ()

    def __post_init__(self) -> None:
        _check_defaults(self.changefreq, self.priority)

    def entries(self, settings: GenerateSettings, on_problem: ProblemHandler) -> Iterator[URLEntry]:
        from .reader import iter_urls

        for path in self.paths:
            yield from iter_urls(path, on_problem=on_problem)


@dataclass(frozen=True, slots=True)
class CrawlSource:
    """A live site, crawled as :attr:`settings` say (:func:`~sitemapkit.crawl`).

    The crawl's include/exclude rules (``settings.filters``) are this source's ``filters``:
    they steer the crawl itself, so a URL they leave out is neither fetched nor listed.
    ``state`` and ``report`` are files (see :class:`~sitemapkit.Crawler`); ``on_progress``
    is the live display's hook, not part of the configuration.
    """

    settings: CrawlSettings
    state: str | None = None
    report: str | None = None
    changefreq: str | None = None
    priority: float | None = None
    on_progress: ProgressHandler | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_defaults(self.changefreq, self.priority)

    @property
    def url(self) -> str:
        return self.settings.start_url

    @property
    def filters(self) -> tuple[FilterRule, ...]:
        return self.settings.filters

    def entries(self, settings: GenerateSettings, on_problem: ProblemHandler) -> Iterator[URLEntry]:
        crawl_settings = self.settings
        if settings.keep_session_ids != crawl_settings.keep_session_ids:
            crawl_settings = dataclasses.replace(
                crawl_settings, keep_session_ids=settings.keep_session_ids
            )
        return crawl(
            crawl_settings.start_url,
            settings=crawl_settings,
            state=self.state,
            report=self.report,
            on_problem=on_problem,
            on_progress=self.on_progress,
        )


Source = URLListSource | DirectorySource | AccessLogSource | SitemapSource | CrawlSource


@dataclass(frozen=True, slots=True)
class GenerateSettings:
    """One ``generate`` run. Field names are the config file's keys (``out_dir`` is ``out``)."""

    base_url: str
    out_dir: Path
    sources: tuple[Source, ...]
    filters: tuple[FilterRule, ...] = ()
    gzip: bool = True
    max_urls: int | None = None
    max_bytes: int | None = None
    name: str = "sitemap"
    format: Literal["xml", "txt"] = "xml"
    protocol: Literal["0.9", "0.84"] = "0.9"
    keep_session_ids: bool = False
    timezone: str | None = None
    strict: bool = False
    quiet: bool = False
    robots: Path | None = None
    incremental: bool = False
    xsl: bool = False
    html: Path | None = None
    html_max_pages: int = DEFAULT_MAX_PAGES

    def __post_init__(self) -> None:
        if self.timezone is not None:
            parse_timezone(self.timezone)
        if self.xsl and self.format != "xml":
            raise InvalidValueError("xsl goes with XML sitemaps: text sitemaps cannot link one")
        if self.html_max_pages < 1:
            raise InvalidValueError(f"html_max_pages must be at least 1, not {self.html_max_pages}")

    @property
    def tzinfo(self) -> TimeZone | None:
        """The zone assumed for times written without one."""
        return None if self.timezone is None else parse_timezone(self.timezone)

    def shard_options(self, shards: int) -> ShardOptions:
        """The writer options of these settings, for a sharded run (local or on Dask)."""
        return ShardOptions(
            base_url=self.base_url,
            shards=shards,
            gzip=self.gzip,
            max_urls=self.max_urls,
            max_bytes=self.max_bytes,
            name=self.name,
            format=self.format,
            protocol=self.protocol,
            keep_session_ids=self.keep_session_ids,
            strict=self.strict,
            assume_tz=self.tzinfo,
            xsl=self.xsl,
        )


@dataclass(frozen=True, slots=True)
class GenerateResult:
    """What :func:`generate` did."""

    written: WriteResult | ShardedResult
    sitemap_url: str
    robots_changed: bool | None = None
    filtered: Mapping[str, int] = field(default_factory=dict)
    #: Pages listed in the HTML site map (``html``), None when none was written.
    html_pages: int | None = None
    #: What an incremental run changed since the last one (None when not incremental).
    changes: ChangeCounts | None = None


def _with_defaults(entries: Iterable[URLEntry], source: Source) -> Iterator[URLEntry]:
    changefreq, priority = source.changefreq, source.priority
    for entry in entries:
        if (changefreq is not None and entry.changefreq is None) or (
            priority is not None and entry.priority is None
        ):
            entry = dataclasses.replace(
                entry,
                changefreq=entry.changefreq or changefreq,
                priority=entry.priority if entry.priority is not None else priority,
            )
        yield entry


def generate(
    settings: GenerateSettings,
    *,
    on_problem: ProblemHandler = log_problem,
    wrap: Callable[[Iterable[URLEntry]], Iterable[URLEntry]] | None = None,
    shards: int | None = None,
    out: str | None = None,
) -> GenerateResult:
    """Read every source, filter, write and publish the sitemaps, then update robots.txt.

    ``wrap`` sees the combined entry stream before the writer (the CLI counts progress there).
    With ``shards`` the sharded writer (:func:`~sitemapkit.write_sharded`) writes them, to
    ``out`` (an fsspec URL) when given, else to ``settings.out_dir``.
    """
    if not settings.sources:
        raise InvalidValueError(
            "no source: give at least one URL list, folder, access log, sitemap or site to crawl"
        )
    filters: list[URLFilter] = []

    def source_entries(source: Source) -> Iterable[URLEntry]:
        entries: Iterable[URLEntry] = source.entries(settings, on_problem)
        if source.changefreq is not None or source.priority is not None:
            entries = _with_defaults(entries, source)
        if source.filters:
            filters.append(make_filter(source.filters))
            entries = filters[-1](entries)
        return entries

    def make_filter(rules: tuple[FilterRule, ...]) -> URLFilter:
        return URLFilter(
            rules, base_url=settings.base_url, keep_session_ids=settings.keep_session_ids
        )

    # Built before the writer opens, so a glob matching nothing or a bad pattern fails
    # before anything is written.
    entries: Iterable[URLEntry] = itertools.chain.from_iterable(
        [source_entries(source) for source in settings.sources]
    )
    if settings.filters:
        filters.append(make_filter(settings.filters))
        entries = filters[-1](entries)
    site_map = None
    if settings.html is not None:
        site_map = HTMLSiteMap(
            base_url=settings.base_url,
            keep_session_ids=settings.keep_session_ids,
            max_pages=settings.html_max_pages,
        )
        entries = site_map.watch(entries)
    stream = entries if wrap is None else wrap(entries)
    if settings.incremental:
        if out is not None:
            raise InvalidValueError("incremental runs keep their state in a local --out folder")
        return _generate_incremental(settings, stream, shards, filters, site_map)
    if shards is not None:
        written = write_sharded(stream, out or settings.out_dir, settings.shard_options(shards))
        return _finish(settings, written, filters, site_map)
    with SitemapWriter(
        settings.out_dir,
        base_url=settings.base_url,
        gzip=settings.gzip,
        max_urls=settings.max_urls,
        max_bytes=settings.max_bytes,
        name=settings.name,
        format=settings.format,
        protocol=settings.protocol,
        keep_session_ids=settings.keep_session_ids,
        strict=settings.strict,
        assume_tz=settings.tzinfo,
        xsl=settings.xsl,
    ) as writer:
        writer.add_all(stream)
    return _finish(settings, writer.result, filters, site_map)


def _generate_incremental(
    settings: GenerateSettings,
    entries: Iterable[URLEntry],
    shards: int | None,
    filters: list[URLFilter],
    site_map: HTMLSiteMap | None,
) -> GenerateResult:
    """Write in the shards the state remembers, then record what changed (see state.py)."""
    from .reader import iter_urls

    settings.out_dir.mkdir(parents=True, exist_ok=True)
    with RunState(state_path(settings.out_dir, settings.name)) as state:
        count = shards or state.shards or 1
        written = write_sharded(entries, settings.out_dir, settings.shard_options(count))
        published = iter_urls(str(written.entry_point), stop_on_error=True)
        changes = state.record(published, shards=count)
    finished = _finish(settings, written, filters, site_map)
    return dataclasses.replace(finished, changes=changes)


def _finish(
    settings: GenerateSettings,
    written: WriteResult | ShardedResult,
    filters: list[URLFilter],
    site_map: HTMLSiteMap | None,
) -> GenerateResult:
    """Write the HTML site map, update robots.txt and count what the filters dropped."""
    html_pages = None
    if site_map is not None and settings.html is not None:
        html_pages = site_map.write(settings.html, total=written.urls)
    sitemap_url = written.entry_url
    robots_changed = None
    if settings.robots is not None:
        robots_changed = update_robots_txt(settings.robots, sitemap_url)
    filtered: dict[str, int] = {}
    for url_filter in filters:
        for rule, count in url_filter.dropped.items():
            filtered[rule] = filtered.get(rule, 0) + count
    return GenerateResult(written, sitemap_url, robots_changed, filtered, html_pages)
