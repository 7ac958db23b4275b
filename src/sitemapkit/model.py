"""The values sitemaps are made of: entries, extension records, protocol profiles and limits.

Everything that reads produces these, everything that writes consumes them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Final

from .errors import InvalidValueError

__all__ = [
    "CHANGEFREQS",
    "IMAGE_NS",
    "MAX_IMAGES_PER_URL",
    "MAX_NEWS_URLS",
    "MOBILE_NS",
    "NEWS_NS",
    "PROTOCOLS",
    "PROTOCOL_084",
    "PROTOCOL_09",
    "SITEMAP_NS_084",
    "SITEMAP_NS_09",
    "VIDEO_NS",
    "XHTML_NS",
    "Alternate",
    "Image",
    "News",
    "Problem",
    "ProblemHandler",
    "Profile",
    "SitemapRef",
    "TVShow",
    "URLEntry",
    "Video",
    "VideoId",
    "VideoPrice",
    "check_changefreq",
    "check_priority",
    "log_problem",
]

SITEMAP_NS_09: Final = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP_NS_084: Final = "http://www.google.com/schemas/sitemap/0.84"
IMAGE_NS: Final = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS: Final = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS: Final = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS: Final = "http://www.w3.org/1999/xhtml"
MOBILE_NS: Final = "http://www.google.com/schemas/sitemap-mobile/1.0"

#: The seven values of ``<changefreq>`` (PROTOCOL.md C-01).
CHANGEFREQS: Final = frozenset(
    {"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}
)


def check_changefreq(value: str | None) -> str | None:
    """A ``changefreq`` value, trimmed and lower-cased; None for an empty one.

    Raises :class:`~sitemapkit.InvalidValueError` for anything but the seven values.
    """
    if value is None or value in CHANGEFREQS:
        return value
    normal = value.strip().lower()
    if not normal:
        return None
    if normal not in CHANGEFREQS:
        raise InvalidValueError(
            f"changefreq {value!r} is not one of {', '.join(sorted(CHANGEFREQS))}"
        )
    return normal


def check_priority(value: str | float | None) -> float | None:
    """A ``priority`` as a number from 0.0 to 1.0; None for an empty one."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(f"priority {value!r} is not a number") from exc
    if not 0.0 <= number <= 1.0:
        raise InvalidValueError(f"priority {value!r} is outside 0.0 to 1.0")
    return number + 0.0  # -0.0 becomes 0.0: written as "0.0", not "-0.0"


MAX_IMAGES_PER_URL: Final = 1_000
MAX_NEWS_URLS: Final = 1_000


@dataclass(frozen=True, slots=True)
class Profile:
    """A protocol version and the limits that go with it."""

    version: str
    namespace: str
    max_urls: int
    max_bytes: int
    max_sitemaps: int


#: sitemaps.org 0.9 with the 2016 limits (PROTOCOL.md F-05, F-06, I-03).
PROTOCOL_09: Final = Profile("0.9", SITEMAP_NS_09, 50_000, 52_428_800, 50_000)
#: Google's 0.84 with its 10 MB and 1,000-sitemap limits.
PROTOCOL_084: Final = Profile("0.84", SITEMAP_NS_084, 50_000, 10_485_760, 1_000)
PROTOCOLS: Final = {"0.9": PROTOCOL_09, "0.84": PROTOCOL_084}


@dataclass(frozen=True, slots=True)
class Image:
    """``<image:image>``. Only ``loc`` is current; the rest were retired by Google in 2022."""

    loc: str
    caption: str | None = None
    geo_location: str | None = None
    title: str | None = None
    license: str | None = None


@dataclass(frozen=True, slots=True)
class VideoPrice:
    """``<video:price>``: an amount with its ISO 4217 currency."""

    value: str
    currency: str
    type: str | None = None
    resolution: str | None = None


@dataclass(frozen=True, slots=True)
class TVShow:
    """``<video:tvshow>`` (retired by Google in 2022, still in the schema)."""

    show_title: str
    video_type: str | None = None
    episode_title: str | None = None
    season_number: int | None = None
    episode_number: int | None = None
    premier_date: str | None = None


@dataclass(frozen=True, slots=True)
class VideoId:
    """``<video:id type="...">``: an identifier in a named scheme (``tms:series``, ``url``...)."""

    type: str
    value: str


@dataclass(frozen=True, slots=True)
class Video:
    """``<video:video>`` (Google video 1.1); dates are kept as written (W3C Datetime)."""

    thumbnail_loc: str
    title: str
    description: str
    content_loc: str | None = None
    player_loc: str | None = None
    duration: int | None = None
    expiration_date: str | None = None
    rating: float | None = None
    content_segment_locs: tuple[str, ...] = ()
    view_count: int | None = None
    publication_date: str | None = None
    family_friendly: bool | None = None
    restriction: str | None = None
    restriction_relationship: str | None = None
    prices: tuple[VideoPrice, ...] = ()
    requires_subscription: bool | None = None
    uploader: str | None = None
    uploader_info: str | None = None
    tvshow: TVShow | None = None
    platform: str | None = None
    platform_relationship: str | None = None
    live: bool | None = None
    ids: tuple[VideoId, ...] = ()
    tags: tuple[str, ...] = ()
    category: str | None = None
    gallery_loc: str | None = None


@dataclass(frozen=True, slots=True)
class News:
    """``<news:news>`` (Google news 0.9)."""

    publication_name: str
    publication_language: str
    publication_date: str
    title: str
    access: str | None = None
    genres: str | None = None
    keywords: str | None = None
    stock_tickers: str | None = None


@dataclass(frozen=True, slots=True)
class Alternate:
    """``<xhtml:link rel="alternate" hreflang="..." href="...">``."""

    hreflang: str
    href: str


@dataclass(slots=True)
class URLEntry:
    """One ``<url>`` of a sitemap.

    ``lastmod`` is a W3C Datetime string (as read from a file) or a ``date``/aware
    ``datetime`` (as given by a program); writers accept all three. ``sitemap`` names the
    file or URL an entry was read from. ``title`` is the page's ``<title>`` when a crawl
    saw it: not written to XML sitemaps, kept for HTML site maps made for people.

    Not frozen on purpose: a frozen dataclass costs about 2.3 µs to create here against
    0.3 µs, and sources create millions of these. Treat instances as values all the same.
    """

    loc: str
    lastmod: str | date | datetime | None = None
    changefreq: str | None = None
    priority: float | None = None
    images: tuple[Image, ...] = ()
    videos: tuple[Video, ...] = ()
    news: News | None = None
    alternates: tuple[Alternate, ...] = ()
    sitemap: str | None = field(default=None, compare=False)
    title: str | None = field(default=None, compare=False)

    @property
    def has_extensions(self) -> bool:
        return bool(self.images or self.videos or self.news or self.alternates)


@dataclass(frozen=True, slots=True)
class SitemapRef:
    """One ``<sitemap>`` of a sitemap index."""

    loc: str
    lastmod: str | None = None
    sitemap: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong in an input that was skipped rather than stopping the run."""

    source: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.message}"


#: Receives each :class:`Problem`; may raise to stop the run (strict mode does).
ProblemHandler = Callable[[Problem], None]

_logger = logging.getLogger("sitemapkit")


def log_problem(problem: Problem) -> None:
    """The default :data:`ProblemHandler`: a warning on the ``sitemapkit`` logger."""
    _logger.warning("%s", problem)
