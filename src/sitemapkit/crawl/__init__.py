"""Crawling a live site into a sitemap: polite, robots-aware, indexability-aware, resumable.

:func:`crawl` streams the pages a search engine should index (answered 200 with HTML or a
listed type, not ``noindex``, canonical to themselves) as :class:`~sitemapkit.URLEntry`
values; :class:`Crawler` gives the counters and the excluded URLs as well. The fetching
runs on asyncio (:mod:`.engine`), the state lives in SQLite (:mod:`.state`), and pages are
read by :mod:`.page`. Importing this package loads neither httpx nor an event loop.
"""

from .crawler import Crawler, ProgressHandler, crawl, write_report
from .options import DEFAULT_CRAWL_FETCH, HTML_TYPES, CrawlSettings, url_shape
from .state import ExcludedURL
from .stats import REASONS, CrawlStats

__all__ = [
    "DEFAULT_CRAWL_FETCH",
    "HTML_TYPES",
    "REASONS",
    "CrawlSettings",
    "CrawlStats",
    "Crawler",
    "ExcludedURL",
    "ProgressHandler",
    "crawl",
    "url_shape",
    "write_report",
]
