"""A crawl's live counters and the names of the reasons a URL is left out."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Final

__all__ = ["REASONS", "CrawlStats"]

#: Why a URL is left out of the sitemap, as the report and the progress display name it.
REASONS: Final = {
    "robots-txt": "disallowed by robots.txt (never requested)",
    "out-of-scope": "outside the start URL's folder and the extra hosts (never requested)",
    "filtered": "left out by an include/exclude rule (never requested)",
    "noindex": "robots noindex (meta robots, meta googlebot or X-Robots-Tag)",
    "canonical": 'rel="canonical" names another URL (that one is crawled instead)',
    "redirect": "answered with a redirect (the target is crawled instead)",
    "http-4xx": "answered 4xx",
    "http-5xx": "answered 5xx (after retries)",
    "http-status": "answered neither 200, a redirect nor an error",
    "content-type": "not HTML, nor a type --include-types names",
    "fetch-error": "no answer: connection error, reset or timeout (after retries)",
    "max-depth": "deeper than --max-depth (never requested)",
    "max-per-pattern": "over --max-per-pattern for its URL pattern (never requested)",
    "max-pages": "still queued when --max-pages was reached",
    "max-time": "still queued when --max-time was reached",
    "interrupted": "still queued when the crawl was interrupted",
}


@dataclass
class CrawlStats:
    """Live counters of a crawl (a resumed crawl starts from the saved ones).

    ``limits`` maps each limit that was reached to a sentence saying so; ``stopped_by`` is
    the one that ended the crawl early (``max-pages``, ``max-time`` or ``interrupted``).
    """

    fetched: int = 0
    queued: int = 0
    listed: int = 0
    errors: int = 0
    truncated: int = 0
    excluded: dict[str, int] = field(default_factory=dict)
    limits: dict[str, str] = field(default_factory=dict)
    stopped_by: str | None = None
    finished: bool = False
    resumed: bool = False
    started: float = field(default_factory=time.monotonic)
    fetched_before: int = 0

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def pages_per_second(self) -> float:
        """Pages fetched per second by this run (not counting a resumed run's past)."""
        return (self.fetched - self.fetched_before) / max(self.elapsed, 1e-9)

    def exclude(self, reason: str) -> None:
        self.excluded[reason] = self.excluded.get(reason, 0) + 1
