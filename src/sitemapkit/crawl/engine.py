"""The asyncio core of a crawl: workers, politeness, robots.txt, and what each answer means.

One :class:`Engine` runs inside one event loop (the :class:`~sitemapkit.crawl.Crawler`
gives it a thread of its own). ``concurrency`` workers take URLs from the frontier in the
order they were found; a semaphore per host keeps at most ``per_host`` requests on one host
and robots.txt ``Crawl-delay`` (or ``delay``) spaces their starts. Every URL's fate is
written to the :class:`~sitemapkit.crawl.state.CrawlState` as soon as it is known, and
listed pages are handed to the consumer through a bounded queue.

HTTP is aiohttp's: about eight times less CPU per request than ``httpx.AsyncClient`` on
the benchmark site (``BENCHMARKS.md``), which is what a crawl spends its time on. It is
loaded when a crawl runs, never by ``import sitemapkit``. Transport errors map to the
messages and retry decisions of :mod:`sitemapkit.fetch`, and ``Retry-After`` is read the
same way. Redirects are not followed inside a request: the target becomes a URL of the
frontier, so it is scoped, checked against robots.txt and fetched once like any other.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from protego import Protego

from ..discover import parse_robots_sitemaps
from ..errors import InvalidURLError
from ..fetch import (
    _default_user_agent,
    _retry_after,
    backoff_delay,
    is_private_host,
    map_aiohttp_exception,
)
from ..filters import URLFilter
from ..model import Alternate, Image, Problem, ProblemHandler, URLEntry
from ..urls import URLNormalizer, normalize_url
from .options import HTML_TYPES, CrawlSettings, url_shape
from .page import PageInfo, header_directives, link_header_canonical, read_page
from .state import LISTED, CrawlState, ListedRow
from .stats import CrawlStats

if TYPE_CHECKING:
    import aiohttp

__all__ = ["Engine", "entry_from_row"]

_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})
_ROBOTS_BYTES: Final = 512 * 1024
_ROBOTS_HOPS: Final = 5
_RECENT: Final = 50_000
_COMMIT_EVERY: Final = 0.5
_FRONTIER_BATCH: Final = 256
_DISALLOW_ALL: Final = "User-agent: *\nDisallow: /\n"
_DRAIN_BYTES: Final = 64 * 1024


@dataclass(slots=True)
class _Answer:
    status: int = 0
    headers: Any = None
    body: bytes = b""
    truncated: bool = False
    error: str | None = None

    def header_list(self, name: str) -> list[str]:
        return [] if self.headers is None else list(self.headers.getall(name, []))

    def header(self, name: str) -> str:
        return "" if self.headers is None else str(self.headers.get(name, ""))


class _Retry(Exception):
    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.wait = wait


def _http_date(value: str) -> datetime | None:
    """``Last-Modified`` as an aware datetime in UTC; None when absent or unreadable."""
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return None if when.tzinfo is None else when.astimezone(UTC)


def _media_type(content_type: str) -> tuple[str, str | None]:
    media, _, params = content_type.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'") or None
    return media.strip().lower(), charset


def _origin(url: str) -> str:
    """``scheme://host[:port]/`` of a URL already in normal form."""
    return url[: url.index("/", url.index("://") + 3) + 1]


def entry_from_row(row: ListedRow) -> URLEntry:
    return URLEntry(
        row.url,
        lastmod=datetime.fromisoformat(row.lastmod) if row.lastmod else None,
        images=tuple(Image(loc) for loc in row.images),
        alternates=tuple(Alternate(lang, href) for lang, href in row.alternates),
        title=row.title,
    )


class Engine:
    """Crawls into ``state``, putting listed entries on ``output`` until done or ``stop``."""

    def __init__(
        self,
        settings: CrawlSettings,
        state: CrawlState,
        stats: CrawlStats,
        output: queue.Queue[object],
        stop: threading.Event,
        on_problem: ProblemHandler,
    ) -> None:
        self.settings = settings
        self.state = state
        self.stats = stats
        self.output = output
        self.stop = stop
        self.on_problem = on_problem
        self.user_agent = settings.fetch.user_agent or _default_user_agent()
        self._agent = self.user_agent.lower()
        self._filter = URLFilter(settings.filters) if settings.filters else None
        self._normalizer = URLNormalizer(
            scope=settings.scopes[0], keep_session_ids=settings.keep_session_ids
        )
        self._listed_types = settings.listed_types
        self._robots: dict[str, Protego] = {}
        self._robots_locks: dict[str, asyncio.Lock] = {}
        self._delays: dict[str, float] = {}
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._next_start: dict[str, float] = {}
        self._pending: deque[tuple[int, str, int]] = deque()
        self._cursor = 0
        self._in_flight = 0
        self._shapes: dict[str, int] = {}
        self._dirty_shapes: set[str] = set()
        self._recent: dict[str, None] = {}
        self._retry_budget = settings.fetch.retry_budget
        self._last_commit = time.monotonic()
        self._session: aiohttp.ClientSession | None = None
        self._aiohttp: Any = None
        self._url: Any = None
        self._ready: asyncio.Condition | None = None
        self._allow_private = settings.fetch.allow_private or is_private_host(
            urlsplit(settings.start_url).hostname or ""
        )

    # -- the run --------------------------------------------------------------------------

    async def run(self) -> None:
        import aiohttp
        from yarl import URL

        self._aiohttp, self._url = aiohttp, URL
        fetch = self.settings.fetch
        headers = {"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"}
        headers.update(fetch.headers)
        self._ready = asyncio.Condition()
        connector = aiohttp.TCPConnector(
            limit=fetch.concurrency, limit_per_host=fetch.per_host, ttl_dns_cache=300
        )
        async with aiohttp.ClientSession(
            connector=connector,
            headers=headers,
            timeout=aiohttp.ClientTimeout(
                total=None, sock_connect=fetch.connect_timeout, sock_read=fetch.read_timeout
            ),
            auto_decompress=False,  # inflated here, under the page cap
            trust_env=False,
        ) as session:
            self._session = session
            try:
                await self._start()
                workers = [asyncio.create_task(self._worker()) for _ in range(fetch.concurrency)]
                watcher = asyncio.create_task(self._watch(workers))
                await asyncio.wait(workers)
                watcher.cancel()
                for worker in workers:
                    if not worker.cancelled() and worker.exception() is not None:
                        raise worker.exception()  # type: ignore[misc]
            finally:
                self._save()
        if self.stats.stopped_by is None:
            self.stats.finished = True
            self.state.put("finished", "1")
        self.state.commit()

    async def _start(self) -> None:
        start = self.settings.start_url
        resumed = self.state.claim(start)
        self.stats.resumed = resumed
        if resumed:
            fetched, by_outcome, queued = self.state.counts()
            self.stats.fetched = self.stats.fetched_before = fetched
            self.stats.queued = queued
            self.stats.listed = by_outcome.pop(LISTED, 0)
            self.stats.errors = by_outcome.get("fetch-error", 0)
            self.stats.excluded = by_outcome
            self._shapes = self.state.shapes()
            for row in self.state.listed():
                await self._emit(entry_from_row(row))
        else:
            self.state.add(start, 0)
            self.stats.queued = 1
            self.state.commit()
        if self.settings.seed_sitemaps and self.state.get("seeded") is None:
            if await self._seed_from_sitemaps(start):
                self.state.put("seeded", "1")  # else the next run seeds again (adds are idempotent)
            self.state.commit()

    async def _watch(self, workers: list[asyncio.Task[None]]) -> None:
        limit = self.settings.max_time
        deadline = None if limit is None else self.stats.started + limit
        while True:
            reason = None
            if self.stop.is_set():
                reason = "interrupted"
            elif deadline is not None and time.monotonic() > deadline:
                reason = "max-time"
                self.stats.limits["max-time"] = f"--max-time of {limit:g} s reached"
            if reason is not None:
                self.stats.stopped_by = reason
                for worker in workers:
                    worker.cancel()
                return
            await asyncio.sleep(0.05)

    def _save(self) -> None:
        if self._dirty_shapes:
            self.state.save_shapes({s: self._shapes[s] for s in self._dirty_shapes})
            self._dirty_shapes.clear()
        self.state.commit()
        self._last_commit = time.monotonic()

    async def _emit(self, entry: URLEntry) -> None:
        while True:
            try:
                self.output.put_nowait(entry)
                return
            except queue.Full:
                if self.stop.is_set():
                    return
                await asyncio.sleep(0.005)

    # -- the frontier ---------------------------------------------------------------------

    def _take(self) -> tuple[int, str, int] | None:
        if self.stats.stopped_by is not None:
            return None
        limit = self.settings.max_pages
        if limit is not None and self.stats.fetched + self._in_flight >= limit:
            if self._pending or self.state.queued(self._cursor, 1):
                self.stats.stopped_by = "max-pages"
                self.stats.limits["max-pages"] = f"--max-pages of {limit:,} reached"
            return None
        if not self._pending:
            rows = self.state.queued(self._cursor, _FRONTIER_BATCH)
            if rows:
                self._cursor = rows[-1][0]
                self._pending.extend(rows)
        return self._pending.popleft() if self._pending else None

    async def _worker(self) -> None:
        ready = self._ready
        assert ready is not None
        while True:
            async with ready:
                while (item := self._take()) is None:
                    if self._in_flight == 0 or self.stats.stopped_by is not None:
                        ready.notify_all()
                        return
                    await ready.wait()
                self._in_flight += 1
            try:
                await self._visit(*item)
            finally:
                async with ready:
                    self._in_flight -= 1
                    ready.notify_all()
            if time.monotonic() - self._last_commit > _COMMIT_EVERY:
                self._save()

    def _normalize(self, url: str, base: str | None = None) -> str | None:
        try:
            return normalize_url(url, base=base, keep_session_ids=self.settings.keep_session_ids)
        except InvalidURLError:
            return None

    def _allowed(self, url: str) -> bool:
        if self._filter is None:
            return True
        rule = self._filter.decide(url)
        return (rule.action if rule else self._filter.default) == "include"

    def _discover(self, links: list[str], depth: int, parent_shape: str | None) -> None:
        # The writer's own fast path: links already in normal form inside the start scope
        # (most of them) skip the full normalisation; the rest get it.
        results = self._normalizer.normalize_many(links)
        seen_here: set[str] = set()
        for link, result in zip(links, results, strict=True):
            if isinstance(result, InvalidURLError):
                url = self._normalize(link) if result.reason == "out-of-scope" else None
            else:
                url = result
            if url is not None and url not in seen_here:
                seen_here.add(url)
                self._add(url, depth, parent_shape)

    def _add(self, url: str, depth: int, parent_shape: str | None = None) -> None:
        """Queue a URL met for the first time, or record why it is left out."""
        recent = self._recent
        if url in recent:
            return
        if len(recent) >= _RECENT:
            del recent[next(iter(recent))]
        recent[url] = None
        if self.state.is_known(url):
            return
        settings = self.settings
        reason = detail = None
        if not settings.in_scope(url):
            reason = "out-of-scope"
        elif not self._allowed(url):
            reason = "filtered"
        elif settings.max_depth is not None and depth > settings.max_depth:
            reason = "max-depth"
            self.stats.limits["max-depth"] = f"--max-depth of {settings.max_depth} reached"
        elif settings.max_per_pattern is not None and parent_shape is not None:
            shape = url_shape(url)
            if shape == parent_shape:
                count = self._shapes.get(shape, 0)
                if count >= settings.max_per_pattern:
                    reason, detail = "max-per-pattern", shape
                    self.stats.limits[f"max-per-pattern {shape}"] = (
                        f"--max-per-pattern of {settings.max_per_pattern:,} reached for {shape}"
                    )
                else:
                    self._shapes[shape] = count + 1
                    self._dirty_shapes.add(shape)
        self.state.add(url, depth, reason, detail)
        if reason is None:
            self.stats.queued += 1
        else:
            self.stats.exclude(reason)

    async def _seed_from_sitemaps(self, start: str) -> bool:
        """Queue the URLs of the sitemaps named in the start host's robots.txt; False when
        stopped before the end."""
        from ..reader import iter_urls

        origin = _origin(start)
        await self._robots_for(origin)
        saved = self.state.robots(origin)
        text = saved[1] if saved and saved[0] and 200 <= saved[0] < 300 else ""
        for sitemap, _line in parse_robots_sitemaps(text, origin + "robots.txt"):
            host = sitemap.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[0]
            if not self._allow_private and is_private_host(host):
                self.on_problem(
                    Problem(sitemap, None, "not read: on a private address (robots.txt names it)")
                )
                continue
            entries = iter_urls(sitemap, settings=self.settings.fetch, on_problem=self.on_problem)

            def take(batch: int = 1000, entries: Any = entries) -> list[URLEntry]:
                return [entry for _, entry in zip(range(batch), entries, strict=False)]

            while batch := await asyncio.to_thread(take):
                if self.stop.is_set():
                    return False
                for entry in batch:
                    url = self._normalize(entry.loc)
                    if url is not None:
                        self._add(url, 0)
        return True

    # -- robots.txt and politeness --------------------------------------------------------

    async def _robots_for(self, origin: str) -> Protego:
        parsed = self._robots.get(origin)
        if parsed is not None:
            return parsed
        lock = self._robots_locks.setdefault(origin, asyncio.Lock())
        async with lock:
            parsed = self._robots.get(origin)
            if parsed is not None:
                return parsed
            saved = self.state.robots(origin)
            if saved is None:
                saved = await self._fetch_robots(origin)
                self.state.save_robots(origin, *saved)
            status, body = saved
            if status is not None and 200 <= status < 300:
                parsed = Protego.parse(body)
            elif status is not None and 400 <= status < 500:
                parsed = Protego.parse("")  # no robots.txt: everything allowed
            else:
                # RFC 9309 §2.3.1.4: unreachable means complete disallow, as Google does.
                answer = f"HTTP {status}" if status else body or "no answer"
                self.on_problem(
                    Problem(origin + "robots.txt", None, f"{answer}: nothing on this host crawled")
                )
                parsed = Protego.parse(_DISALLOW_ALL)
            delay = float(parsed.crawl_delay(self._agent) or 0.0)
            delay = min(delay, self.settings.max_crawl_delay)
            self._delays[origin] = max(self.settings.delay, delay)
            self._robots[origin] = parsed
            return parsed

    async def _fetch_robots(self, origin: str) -> tuple[int | None, str]:
        url = origin + "robots.txt"
        for _hop in range(_ROBOTS_HOPS + 1):
            answer = await self._fetch(url, limit=_ROBOTS_BYTES, always_read=True)
            if answer.error is not None:
                return None, answer.error
            location = answer.header("location")
            if answer.status in _REDIRECTS and location:
                target = self._normalize(location, base=url)
                if target is None:
                    return 404, ""
                url = target
                continue
            return answer.status, answer.body.decode("utf-8", "replace")
        return 404, ""  # a redirect chain longer than RFC 9309 asks to follow: no rules

    async def _paced(self, origin: str) -> None:
        delay = self._delays.get(origin, self.settings.delay)
        if delay <= 0:
            return
        now = time.monotonic()
        ready = self._next_start.get(origin, 0.0)
        self._next_start[origin] = max(now, ready) + delay
        if ready > now:
            await asyncio.sleep(ready - now)

    # -- one page -------------------------------------------------------------------------

    async def _visit(self, row: int, url: str, depth: int) -> None:
        origin = _origin(url)
        robots = await self._robots_for(origin)
        if not robots.can_fetch(url, self._agent):
            self._finish(row, "robots-txt")
            return
        slot = self._slots.get(origin)
        if slot is None:
            slot = self._slots[origin] = asyncio.Semaphore(self.settings.fetch.per_host)
        async with slot:
            await self._paced(origin)
            answer = await self._fetch(url)
        self.stats.fetched += 1
        await self._judge(row, url, depth, answer)

    def _finish(self, row: int, reason: str, **values: Any) -> None:
        self.state.finish(row, reason, **values)
        self.stats.queued -= 1
        self.stats.exclude(reason)

    async def _judge(self, row: int, url: str, depth: int, answer: _Answer) -> None:
        status = answer.status
        if answer.error is not None:
            self.stats.errors += 1
            self._finish(row, "fetch-error", detail=answer.error, status=0)
            return
        if status in _REDIRECTS:
            location = answer.header("location")
            target = self._normalize(location, base=url) if location else None
            self._finish(row, "redirect", detail=f"to {target or location!r}", status=status)
            if target is not None:
                if depth == 0 and not self.settings.in_scope(target):
                    self.on_problem(
                        Problem(url, None, f"redirects outside the crawl's scope, to {target}")
                    )
                self._add(target, depth)
            return
        if status != 200:
            reason = "http-5xx" if status >= 500 else "http-4xx" if status >= 400 else "http-status"
            self._finish(row, reason, detail=f"HTTP {status}", status=status)
            return
        media, charset = _media_type(answer.header("content-type"))
        if media not in self._listed_types:
            self._finish(row, "content-type", detail=media or "(none)", status=status)
            return
        if answer.truncated:
            self.stats.truncated += 1
            self.stats.limits["max-page-bytes"] = (
                f"--max-page-bytes of {self.settings.max_page_bytes:,} reached: "
                f"{self.stats.truncated:,} pages read in part"
            )
        directives = header_directives(answer.header_list("x-robots-tag"))
        info: PageInfo | None = None
        if media in HTML_TYPES:
            info = read_page(
                answer.body,
                url,
                encoding=charset,
                follow_nofollow=self.settings.follow_nofollow,
                images=self.settings.images,
                alternates=self.settings.alternates,
            )
            if not (info.nofollow or "nofollow" in directives or "none" in directives):
                self._discover(info.links, depth + 1, url_shape(url))
            canonical = info.canonical
        else:
            canonical = link_header_canonical(answer.header_list("link"), url)
        target = self._normalize(canonical) if canonical else None
        if "noindex" in directives or "none" in directives:
            self._finish(row, "noindex", detail="X-Robots-Tag", status=status)
        elif info is not None and info.noindex:
            self._finish(row, "noindex", detail="meta robots", status=status)
        elif target is not None and target != url:
            self._finish(row, "canonical", detail=target, status=status)
            self._add(target, depth)
        else:
            await self._list(row, url, answer, info)

    async def _list(self, row: int, url: str, answer: _Answer, info: PageInfo | None) -> None:
        lastmod = _http_date(answer.header("last-modified"))
        images: list[str] = []
        alternates: list[tuple[str, str]] = []
        if info is not None:
            for link in info.images:
                image = self._normalize(link)
                if image is not None and image not in images and len(images) < 1000:
                    images.append(image)
            for lang, link in info.alternates:
                href = self._normalize(link)
                if href is not None and lang and (lang, href) not in alternates:
                    alternates.append((lang, href))
        title = info.title if info is not None else None
        self.state.finish(
            row,
            LISTED,
            status=answer.status,
            lastmod=lastmod.isoformat() if lastmod else None,
            title=title,
            images=tuple(images),
            alternates=tuple(alternates),
        )
        self.stats.queued -= 1
        if not self._allowed(url):  # only the start URL gets here unfiltered
            self.stats.exclude("filtered")
            return
        self.stats.listed += 1
        await self._emit(
            URLEntry(
                url,
                lastmod=lastmod,
                images=tuple(Image(i) for i in images),
                alternates=tuple(Alternate(lang, href) for lang, href in alternates),
                title=title,
            )
        )

    # -- HTTP -----------------------------------------------------------------------------

    async def _fetch(
        self, url: str, *, limit: int | None = None, always_read: bool = False
    ) -> _Answer:
        """GET ``url`` once it is allowed, retrying what is worth retrying; never raises
        for a network problem (the answer carries it)."""
        fetch = self.settings.fetch
        attempt = 0
        while True:
            try:
                async with asyncio.timeout(fetch.deadline):
                    return await self._get(url, limit, always_read, attempt < fetch.retries)
            except TimeoutError:
                return _Answer(error=f"deadline of {fetch.deadline:g} s passed")
            except _Retry as retry:
                if self._retry_budget <= 0:
                    return _Answer(error=retry.message)
                self._retry_budget -= 1
                delay = backoff_delay(fetch, attempt)
                if retry.wait is not None:
                    if retry.wait > fetch.max_backoff:
                        return _Answer(error=f"{retry.message}; Retry-After is too long")
                    delay = max(delay, retry.wait)
                await asyncio.sleep(delay)
                attempt += 1

    async def _get(self, url: str, limit: int | None, always_read: bool, retry: bool) -> _Answer:
        aiohttp = self._aiohttp
        session = self._session
        assert session is not None
        try:
            async with session.get(self._url(url, encoded=True), allow_redirects=False) as response:
                status = response.status
                if retry and (status == 429 or 500 <= status <= 599):
                    raise _Retry(
                        f"HTTP {status}", _retry_after(response.headers.get("retry-after"))
                    )
                answer = _Answer(status, response.headers)
                media = _media_type(response.headers.get("content-type", ""))[0]
                if always_read or (status == 200 and media in self._listed_types):
                    size = limit or self.settings.max_page_bytes
                    answer.body, answer.truncated = await self._read(response, size)
                    if answer.truncated:
                        response.close()  # the rest is not wanted: drop the connection
                elif (length := response.content_length) is not None and length <= _DRAIN_BYTES:
                    await response.read()  # a small unwanted body: read it, keep the connection
                return answer
        except aiohttp.ClientError as exc:
            message, retried = map_aiohttp_exception(exc)
            text = f"{message} ({exc})" if str(exc) else message
            if retried and retry:
                raise _Retry(text) from exc
            return _Answer(error=text)
        except (ValueError, zlib.error) as exc:
            return _Answer(error=f"unreadable: {exc}")

    async def _read(self, response: aiohttp.ClientResponse, limit: int) -> tuple[bytes, bool]:
        """The body, inflated, cut at ``limit`` bytes (and whether it was cut)."""
        encoding = response.headers.get("content-encoding", "").strip().lower()
        inflater = (
            zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib, told by the header
            if encoding in {"gzip", "x-gzip", "deflate"}
            else None
        )
        parts: list[bytes] = []
        size = 0
        async for chunk in response.content.iter_chunked(1 << 16):
            data = inflater.decompress(chunk, limit - size + 1) if inflater else chunk
            parts.append(data)
            size += len(data)
            if size > limit:
                return b"".join(parts)[:limit], True
        return b"".join(parts), False
