"""sitemapkit: the Sitemap protocol (sitemaps.org 0.9 and Google 0.84) end to end.

The public API is re-exported here; modules behind it may change shape.
"""

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
