"""sitemapkit: the Sitemap protocol (sitemaps.org 0.9 and Google 0.84) end to end.

The public API is re-exported here; modules behind it may change shape.
"""

from .dates import format_lastmod, parse_lastmod
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
from .filters import FilterRule, URLFilter, filter_entries
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
from .robots import update_robots_txt
from .sources import from_access_log, from_directory, from_urllist
from .urls import URLNormalizer, iri_to_uri, normalize_url
from .writer import SitemapWriter, WriteResult

__version__ = "0.1.0"

__all__ = [
    "Alternate",
    "ConfigError",
    "FetchError",
    "FilterRule",
    "Image",
    "InvalidURLError",
    "InvalidValueError",
    "LimitError",
    "News",
    "ParseError",
    "Problem",
    "PublishError",
    "SitemapError",
    "SitemapRef",
    "SitemapWriter",
    "SourceError",
    "StrictError",
    "URLEntry",
    "URLFilter",
    "URLNormalizer",
    "UnsafeContentError",
    "Video",
    "VideoPrice",
    "WriteResult",
    "__version__",
    "filter_entries",
    "format_lastmod",
    "from_access_log",
    "from_directory",
    "from_urllist",
    "iri_to_uri",
    "normalize_url",
    "parse_lastmod",
    "update_robots_txt",
]
