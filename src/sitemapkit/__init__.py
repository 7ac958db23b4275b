"""sitemapkit: the Sitemap protocol (sitemaps.org 0.9 and Google 0.84) end to end.

The public API is re-exported here; modules behind it may change shape.
"""

from .dates import format_lastmod, parse_lastmod
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
from .sources import from_directory, from_urllist
from .storage import ShardTarget
from .urls import URLNormalizer, iri_to_uri, normalize_url
from .writer import SitemapWriter, WriteResult

__version__ = "0.1.0"

__all__ = [
    "Alternate",
    "ChildFile",
    "FetchError",
    "Image",
    "InvalidURLError",
    "InvalidValueError",
    "LimitError",
    "News",
    "ParseError",
    "Problem",
    "PublishError",
    "ShardManifest",
    "ShardOptions",
    "ShardRouter",
    "ShardTarget",
    "ShardedOutput",
    "ShardedResult",
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
    "format_lastmod",
    "from_directory",
    "from_urllist",
    "iri_to_uri",
    "normalize_url",
    "parse_lastmod",
    "shard_of",
    "write_shard",
    "write_sharded",
]
