"""sitemapkit: the Sitemap protocol (sitemaps.org 0.9 and Google 0.84) end to end.

The public API is re-exported here; modules behind it may change shape.
"""

import importlib as _importlib
import sys as _sys
import types as _types
import typing

if typing.TYPE_CHECKING:  # what type checkers and IDEs see; at run time see __getattr__
    from .audit import AuditProblem, AuditResult, AuditSitemap, Threshold, URLResult, audit
    from .config import load_settings, read_config
    from .crawl import Crawler, CrawlSettings, CrawlStats, ExcludedURL, crawl
    from .dates import format_lastmod, parse_lastmod
    from .diff import Change, diff_sitemaps
    from .discover import DiscoveredSitemap, discover, find_sitemaps
    from .errors import (
        ConfigError,
        FetchError,
        InvalidURLError,
        InvalidValueError,
        LimitError,
        ParseError,
        PublishError,
        SitemapError,
        SourceError,
        StrictError,
        UnsafeContentError,
    )
    from .fetch import Fetched, Fetcher, FetchSettings
    from .filters import FilterRule, URLFilter, filter_entries
    from .htmlmap import HTMLSiteMap
    from .model import (
        Alternate,
        Image,
        News,
        Problem,
        SitemapRef,
        TVShow,
        URLEntry,
        Video,
        VideoId,
        VideoPrice,
    )
    from .reader import Entry, Reader, ReadLimits, ReadStats, iter_urls, parse
    from .robots import update_robots_txt
    from .settings import (
        AccessLogSource,
        CrawlSource,
        DirectorySource,
        GenerateResult,
        GenerateSettings,
        SitemapSource,
        URLListSource,
        generate,
    )
    from .shard import (
        ChildFile,
        ShardedOutput,
        ShardedResult,
        ShardManifest,
        ShardOptions,
        ShardRouter,
        shard_of,
        write_shard,
        write_sharded,
    )
    from .sources import from_access_log, from_directory, from_urllist
    from .storage import ShardTarget
    from .submit import (
        IndexNowResult,
        SubmitSettings,
        announce,
        ensure_indexnow_key,
        generate_indexnow_key,
        ping_sitemap,
        submit_indexnow,
    )
    from .urls import URLNormalizer, iri_to_uri, normalize_url
    from .validate import Issue, Report, Severity, validate
    from .writer import SitemapWriter, WriteResult

__version__ = "0.1.0"

__all__ = [
    "AccessLogSource",
    "Alternate",
    "AuditProblem",
    "AuditResult",
    "AuditSitemap",
    "Change",
    "ChildFile",
    "ConfigError",
    "CrawlSettings",
    "CrawlSource",
    "CrawlStats",
    "Crawler",
    "DirectorySource",
    "DiscoveredSitemap",
    "Entry",
    "ExcludedURL",
    "FetchError",
    "FetchSettings",
    "Fetched",
    "Fetcher",
    "FilterRule",
    "GenerateResult",
    "GenerateSettings",
    "HTMLSiteMap",
    "Image",
    "IndexNowResult",
    "InvalidURLError",
    "InvalidValueError",
    "Issue",
    "LimitError",
    "News",
    "ParseError",
    "Problem",
    "PublishError",
    "ReadLimits",
    "ReadStats",
    "Reader",
    "Report",
    "Severity",
    "ShardManifest",
    "ShardOptions",
    "ShardRouter",
    "ShardTarget",
    "ShardedOutput",
    "ShardedResult",
    "SitemapError",
    "SitemapRef",
    "SitemapSource",
    "SitemapWriter",
    "SourceError",
    "StrictError",
    "SubmitSettings",
    "TVShow",
    "Threshold",
    "URLEntry",
    "URLFilter",
    "URLListSource",
    "URLNormalizer",
    "URLResult",
    "UnsafeContentError",
    "Video",
    "VideoId",
    "VideoPrice",
    "WriteResult",
    "__version__",
    "announce",
    "audit",
    "crawl",
    "diff_sitemaps",
    "discover",
    "ensure_indexnow_key",
    "filter_entries",
    "find_sitemaps",
    "format_lastmod",
    "from_access_log",
    "from_directory",
    "from_urllist",
    "generate",
    "generate_indexnow_key",
    "iri_to_uri",
    "iter_urls",
    "load_settings",
    "normalize_url",
    "parse",
    "parse_lastmod",
    "ping_sitemap",
    "read_config",
    "shard_of",
    "submit_indexnow",
    "update_robots_txt",
    "validate",
    "write_shard",
    "write_sharded",
]

#: Where each public name lives; it is imported on first use (PEP 562), so that
#: ``import sitemapkit`` and ``sitemapkit ls`` load only the modules they need.
_LAZY: dict[str, str] = {
    "AccessLogSource": "settings",
    "Alternate": "model",
    "AuditProblem": "audit",
    "AuditResult": "audit",
    "AuditSitemap": "audit",
    "Change": "diff",
    "ChildFile": "shard",
    "ConfigError": "errors",
    "CrawlSettings": "crawl",
    "CrawlSource": "settings",
    "CrawlStats": "crawl",
    "Crawler": "crawl",
    "DirectorySource": "settings",
    "DiscoveredSitemap": "discover",
    "Entry": "reader",
    "ExcludedURL": "crawl",
    "FetchError": "errors",
    "FetchSettings": "fetch",
    "Fetched": "fetch",
    "Fetcher": "fetch",
    "FilterRule": "filters",
    "GenerateResult": "settings",
    "GenerateSettings": "settings",
    "HTMLSiteMap": "htmlmap",
    "Image": "model",
    "IndexNowResult": "submit",
    "InvalidURLError": "errors",
    "InvalidValueError": "errors",
    "Issue": "validate",
    "LimitError": "errors",
    "News": "model",
    "ParseError": "errors",
    "Problem": "model",
    "PublishError": "errors",
    "ReadLimits": "reader",
    "ReadStats": "reader",
    "Reader": "reader",
    "Report": "validate",
    "Severity": "validate",
    "ShardManifest": "shard",
    "ShardOptions": "shard",
    "ShardRouter": "shard",
    "ShardTarget": "storage",
    "ShardedOutput": "shard",
    "ShardedResult": "shard",
    "SitemapError": "errors",
    "SitemapRef": "model",
    "SitemapSource": "settings",
    "SitemapWriter": "writer",
    "SourceError": "errors",
    "StrictError": "errors",
    "SubmitSettings": "submit",
    "TVShow": "model",
    "Threshold": "audit",
    "URLEntry": "model",
    "URLFilter": "filters",
    "URLListSource": "settings",
    "URLNormalizer": "urls",
    "URLResult": "audit",
    "UnsafeContentError": "errors",
    "Video": "model",
    "VideoId": "model",
    "VideoPrice": "model",
    "WriteResult": "writer",
    "announce": "submit",
    "audit": "audit",
    "crawl": "crawl",
    "diff_sitemaps": "diff",
    "discover": "discover",
    "ensure_indexnow_key": "submit",
    "filter_entries": "filters",
    "find_sitemaps": "discover",
    "format_lastmod": "dates",
    "from_access_log": "sources",
    "from_directory": "sources",
    "from_urllist": "sources",
    "generate": "settings",
    "generate_indexnow_key": "submit",
    "iri_to_uri": "urls",
    "iter_urls": "reader",
    "load_settings": "config",
    "normalize_url": "urls",
    "parse": "reader",
    "parse_lastmod": "dates",
    "ping_sitemap": "submit",
    "read_config": "config",
    "shard_of": "shard",
    "submit_indexnow": "submit",
    "update_robots_txt": "robots",
    "validate": "validate",
    "write_shard": "shard",
    "write_sharded": "shard",
}


def __getattr__(name: str) -> object:
    """Import a public name's module on first use and keep the name (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(_types.ModuleType):
    """The package's module type, for four functions named like the submodules that define
    them (:func:`audit`, :func:`crawl`, :func:`discover`, :func:`validate`).

    Importing such a submodule (``import sitemapkit.audit``, or the first use of the
    function) sets the package's attribute of that name to the submodule; here the
    attribute stays, or becomes on first use, the function, as it was when everything was
    imported up front. The submodule is still ``sys.modules["sitemapkit.audit"]``.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name in _LAZY and value is _sys.modules.get(f"{__name__}.{name}"):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
