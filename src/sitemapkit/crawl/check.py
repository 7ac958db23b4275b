"""Checking given URLs the way a crawl judges pages, without following any link.

:func:`check_urls` runs the crawler's own :class:`~sitemapkit.crawl.engine.Engine` (robots.txt
fetched once per host and obeyed, ``concurrency`` and ``per_host`` limits, ``delay`` and
``Crawl-delay``, retries with backoff, the page cap, and the same reading of every answer:
redirect, 4xx/5xx, not HTML, ``noindex`` by meta tag or header, canonical elsewhere) over URLs
it is handed instead of a frontier it discovers. Each URL gets one :class:`Verdict`;
redirect and canonical targets are reported, not fetched.

The engine is reused by subclassing: the frontier (``_take``), the sinks (``_finish``,
``_list``) and link discovery (``_add``, ``_discover``) are replaced, the fetching and
judging are the crawler's, so an audit and a crawl can never disagree about a page.
"""

from __future__ import annotations

import asyncio
import os
import queue
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from ..errors import InvalidURLError
from ..fetch import is_private_host
from ..model import ProblemHandler, log_problem
from ..urls import normalize_url
from .options import CrawlSettings
from .page import PageInfo
from .state import CrawlState
from .stats import CrawlStats

__all__ = ["INDEXABLE", "OUTCOMES", "Verdict", "check_urls"]

#: The outcome of a page a search engine may index: 200, HTML (or a listed type), not
#: ``noindex``, canonical to itself.
INDEXABLE: Final = "indexable"
#: Every outcome of a check: :data:`INDEXABLE`, the crawl's reasons for leaving a fetched
#: page out, and two for URLs that were not requested at all.
OUTCOMES: Final = {
    INDEXABLE: "answered 200 with an indexable page",
    "redirect": "answered with a redirect",
    "http-4xx": "answered 4xx",
    "http-5xx": "answered 5xx (after retries)",
    "http-status": "answered neither 200, a redirect nor an error",
    "noindex": "robots noindex (meta robots, meta googlebot or X-Robots-Tag)",
    "canonical": 'rel="canonical" names another URL',
    "robots-txt": "disallowed by robots.txt (not requested)",
    "content-type": "not HTML, nor a type include_types names",
    "fetch-error": "no answer: connection error, reset or timeout (after retries)",
    "invalid-url": "not a URL that can be requested (not requested)",
    "private-address": "on a loopback, private or link-local address (not requested)",
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one URL answered. ``key`` is the caller's, handed back unchanged.

    ``target`` is where a redirect or a canonical link points (normalised when it can be);
    ``last_modified`` and ``title`` are those of an indexable page.
    """

    key: int
    url: str
    outcome: str
    status: int | None = None
    detail: str | None = None
    target: str | None = None
    last_modified: datetime | None = None
    title: str | None = None

    @property
    def indexable(self) -> bool:
        return self.outcome == INDEXABLE


def _engine_class() -> type[Any]:
    """The checking engine, made on first use: the engine module loads protego and aiohttp."""
    from .engine import Engine, _Answer, _http_date

    class CheckEngine(Engine):
        def __init__(
            self,
            settings: CrawlSettings,
            state: CrawlState,
            stats: CrawlStats,
            stop: threading.Event,
            on_problem: ProblemHandler,
            items: Iterator[tuple[int, str]],
            on_verdict: Callable[[Verdict], None],
        ) -> None:
            super().__init__(settings, state, stats, queue.Queue(1), stop, on_problem)
            self._items = items
            self._on_verdict = on_verdict
            self._urls: dict[int, str] = {}
            self._verdicts: dict[int, Verdict] = {}
            self._judged: int | None = None  # the row _finish saw last (for _add)

        async def _start(self) -> None:
            self.state.claim(self.settings.start_url)

        def _take(self) -> tuple[int, str, int] | None:
            if self.stats.stopped_by is not None:
                return None
            for key, listed in self._items:
                try:
                    url = normalize_url(listed, keep_session_ids=True)
                except InvalidURLError as exc:
                    self._on_verdict(Verdict(key, listed, "invalid-url", detail=exc.message))
                    continue
                host = urlsplit(url).hostname or ""
                if not self._allow_private and is_private_host(host):
                    self._on_verdict(Verdict(key, url, "private-address", detail=host))
                    continue
                self._urls[key] = url
                self.stats.queued += 1
                return key, url, 1  # depth 1: a redirect off scope is no start-URL problem
            return None

        async def _visit(self, row: int, url: str, depth: int) -> None:
            try:
                await super()._visit(row, url, depth)
            finally:
                self._judged = None
                self._urls.pop(row, None)
                self.stats.queued -= 1
                verdict = self._verdicts.pop(row, None)
            if verdict is not None:
                self._on_verdict(verdict)

        def _finish(self, row: int, reason: str, **values: Any) -> None:
            self.stats.exclude(reason)
            self._verdicts[row] = Verdict(
                row, self._urls[row], reason, values.get("status") or None, values.get("detail")
            )
            self._judged = row

        def _add(self, url: str, depth: int, parent_shape: str | None = None) -> None:
            # Called by the judging right after _finish for a redirect or canonical target.
            row = self._judged
            if row is not None and row in self._verdicts:
                verdict = self._verdicts[row]
                detail = verdict.detail
                if verdict.outcome == "redirect":  # the target says the rest
                    detail = f"HTTP {verdict.status}"
                self._verdicts[row] = Verdict(
                    verdict.key, verdict.url, verdict.outcome, verdict.status, detail, url
                )

        def _discover(self, links: list[str], depth: int, parent_shape: str | None) -> None:
            return None

        async def _list(self, row: int, url: str, answer: _Answer, info: PageInfo | None) -> None:
            self.stats.listed += 1
            self._verdicts[row] = Verdict(
                row,
                url,
                INDEXABLE,
                answer.status,
                last_modified=_http_date(answer.header("last-modified")),
                title=info.title if info is not None else None,
            )

    return CheckEngine


def check_urls(
    urls: Iterable[tuple[int, str]],
    settings: CrawlSettings,
    *,
    on_verdict: Callable[[Verdict], None],
    state: str | os.PathLike[str] | None = None,
    on_problem: ProblemHandler = log_problem,
    stats: CrawlStats | None = None,
    stop: threading.Event | None = None,
) -> CrawlStats:
    """Fetch and judge each ``(key, url)`` of ``urls``; ``on_verdict`` gets one
    :class:`Verdict` per URL, in the order the answers come.

    Runs an event loop in the calling thread until every URL is judged (or ``stop`` is set,
    or ``settings.max_time`` passes: ``stats.stopped_by`` then says so). ``urls`` is read
    lazily, a few at a time, and ``on_verdict`` is called in this thread, so both may use
    the caller's SQLite connection. ``settings`` gives the politeness, robots.txt and HTTP
    rules and the start URL (whose host may be a private address); its scope, filters and
    page limits are not applied to the URLs given. ``state`` keeps the robots.txt answers
    (a temporary file by default). Returns the counters.
    """
    engine_class = _engine_class()
    counters = stats or CrawlStats()
    with tempfile.TemporaryDirectory(prefix="sitemapkit-check-") as temp:
        path = Path(temp) / "robots.sqlite" if state is None else Path(state)
        crawl_state = CrawlState(path)
        try:
            engine = engine_class(
                settings,
                crawl_state,
                counters,
                stop or threading.Event(),
                on_problem,
                iter(urls),
                on_verdict,
            )
            asyncio.run(engine.run())
        finally:
            crawl_state.close()
    return counters
