"""sitemapkit: the Sitemap protocol (sitemaps.org 0.9 and Google 0.84) end to end.

The public API is re-exported here; modules behind it may change shape.
"""

from .dates import format_lastmod, parse_lastmod
from .discover import DiscoveredSitemap, discover, find_sitemaps
from .errors import (
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
from .model import (
    Alternate,
    Image,
    News,
    Problem,
    SitemapRef,
    URLEntry,
    Video,
    VideoPrice,
)
from .reader import Entry, Reader, ReadLimits, ReadStats, iter_urls, parse
from .sources import from_directory, from_urllist
from .urls import URLNormalizer, iri_to_uri, normalize_url
from .writer import SitemapWriter, WriteResult

__version__ = "0.1.0"

__all__ = [
    "Alternate",
    "DiscoveredSitemap",
    "Entry",
    "FetchError",
    "FetchSettings",
    "Fetched",
    "Fetcher",
    "Image",
    "InvalidURLError",
    "InvalidValueError",
    "LimitError",
    "News",
    "ParseError",
    "Problem",
    "PublishError",
    "ReadLimits",
    "ReadStats",
    "Reader",
    "SitemapError",
    "SitemapRef",
    "SitemapWriter",
    "SourceError",
    "StrictError",
    "URLEntry",
    "URLNormalizer",
    "UnsafeContentError",
    "Video",
    "VideoPrice",
    "WriteResult",
    "__version__",
    "discover",
    "find_sitemaps",
    "format_lastmod",
    "from_directory",
    "from_urllist",
    "iri_to_uri",
    "iter_urls",
    "normalize_url",
    "parse",
    "parse_lastmod",
]
