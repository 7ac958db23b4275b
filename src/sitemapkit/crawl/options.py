"""How one crawl behaves, as a value: scope, politeness, what is listed, and its limits."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Final

from .._defaults import DEFAULT_PAGE_BYTES
from ..errors import InvalidValueError
from ..fetch import FetchSettings
from ..filters import FilterRule
from ..urls import normalize_url, scope_of

__all__ = [
    "DEFAULT_CRAWL_FETCH",
    "DEFAULT_PAGE_BYTES",
    "HTML_TYPES",
    "CrawlSettings",
    "url_shape",
]

#: Media types listed without being asked for: HTML and XHTML pages.
HTML_TYPES: Final = ("text/html", "application/xhtml+xml")
#: HTTP settings of a crawl: 8 requests at once, all of them to one host if need be.
DEFAULT_CRAWL_FETCH: Final = FetchSettings(concurrency=8, per_host=8)

_DIGITS = re.compile(r"[0-9]+")


def url_shape(url: str) -> str:
    """The pattern a URL is counted under for ``max_per_pattern``: digit runs of the path
    become ``#`` and the query is reduced to its presence.

    >>> url_shape("http://127.0.0.1:8080/calendar/2031/12?view=month&day=3")
    'http://127.0.0.1:8080/calendar/#/#?'
    """
    address, question, _query = url.partition("?")
    path_start = address.find("/", address.find("://") + 3)
    if path_start < 0:
        return address + question
    return address[:path_start] + _DIGITS.sub("#", address[path_start:]) + question


@dataclass(frozen=True, slots=True)
class CrawlSettings:
    """One crawl. Every limit has a default; ``None`` switches a limit off.

    :param start_url: where the crawl starts; its scheme, host, port and folder are the scope.
    :param extra_hosts: more hosts (``shop.example.com``) or URL prefixes in scope.
    :param filters: include/exclude rules over normalised URLs (:class:`FilterRule`); a URL
        they leave out is neither fetched nor listed.
    :param fetch: timeouts, retries, User-Agent, headers, ``concurrency`` (requests at once)
        and ``per_host`` (requests at once to one host).
    :param delay: seconds between two requests to one host; robots.txt ``Crawl-delay`` wins
        when it is longer.
    :param max_crawl_delay: the longest ``Crawl-delay`` obeyed: ``Crawl-delay: 99999999``
        would stall the crawl (and an audit's checking) for years between two requests.
    :param seed_sitemaps: also start from the URLs of the sitemaps robots.txt names.
    :param include_types: media types listed besides HTML (``application/pdf``).
    :param max_per_pattern: URLs of one :func:`url_shape` queued from pages of that same
        shape (the signature of a calendar or a faceted search linking to itself).
    """

    start_url: str
    extra_hosts: tuple[str, ...] = ()
    filters: tuple[FilterRule, ...] = ()
    fetch: FetchSettings = DEFAULT_CRAWL_FETCH
    delay: float = 0.0
    max_crawl_delay: float = 60.0
    seed_sitemaps: bool = False
    follow_nofollow: bool = False
    include_types: tuple[str, ...] = ()
    images: bool = False
    alternates: bool = False
    keep_session_ids: bool = False
    max_pages: int | None = 1_000_000
    max_depth: int | None = 100
    max_time: float | None = None
    max_page_bytes: int = DEFAULT_PAGE_BYTES
    max_per_pattern: int | None = 1_000
    scopes: tuple[str, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        start = normalize_url(self.start_url, keep_session_ids=self.keep_session_ids)
        object.__setattr__(self, "start_url", start)
        scopes = [scope_of(start)]
        scheme = start.split("://", 1)[0]
        for host in self.extra_hosts:
            text = host.strip()
            prefix = text if "://" in text else f"{scheme}://{text.strip('/')}/"
            scopes.append(scope_of(prefix if prefix.endswith("/") else prefix + "/"))
        object.__setattr__(self, "scopes", tuple(scopes))
        for name in ("max_pages", "max_depth", "max_per_pattern"):
            value = getattr(self, name)
            if value is not None and value < (0 if name == "max_depth" else 1):
                raise InvalidValueError(f"{name} must be at least 1, not {value}")
        if self.max_time is not None and not self.max_time > 0:  # not NaN either
            raise InvalidValueError(f"max_time must be positive, not {self.max_time}")
        if not 0 <= self.delay < math.inf or self.max_page_bytes < 1024:  # not NaN either
            raise InvalidValueError("delay must be >= 0 and max_page_bytes at least 1,024")
        if not 0 <= self.max_crawl_delay < math.inf:
            raise InvalidValueError(f"max_crawl_delay must be >= 0, not {self.max_crawl_delay}")
        types = tuple(t.strip().lower() for t in self.include_types if t.strip())
        object.__setattr__(self, "include_types", types)

    @property
    def listed_types(self) -> frozenset[str]:
        return frozenset((*HTML_TYPES, *self.include_types))

    def in_scope(self, url: str) -> bool:
        """Whether a normalised URL lies under the start URL's folder or an extra host."""
        return url.startswith(self.scopes)
