"""The synchronous face of a crawl: an iterator of listed pages over the asyncio core.

:class:`Crawler` runs the :class:`~sitemapkit.crawl.engine.Engine` in an event loop on a
thread of its own and hands listed pages over a bounded queue, so the consumer (a
:class:`~sitemapkit.SitemapWriter`, a filter chain) sees a plain iterator and back pressure
keeps memory flat. When the consumer stops early, raises, or is interrupted (Ctrl-C arrives
in the main thread, that is, in the consumer), the engine is told to stop, in-flight
requests are cancelled (their URLs stay queued), the state is committed, and the thread is
joined before the exception goes on.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import queue
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import InvalidValueError, SitemapError
from ..model import ProblemHandler, URLEntry, log_problem
from ..publish import check_replaceable
from ..urls import normalize_url
from .options import CrawlSettings
from .state import CrawlState, ExcludedURL
from .stats import CrawlStats

__all__ = ["Crawler", "ProgressHandler", "crawl", "write_report"]

#: Called with the live counters a few times a second, in the consumer's thread.
ProgressHandler = Callable[[CrawlStats], None]

_QUEUE_SIZE = 512
_DONE = object()
_REPORT_FIELDS = ("url", "reason", "detail", "status", "depth")


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def _check_report_path(path: str | os.PathLike[str] | None) -> Path | None:
    if path is None:
        return None
    report = Path(path)
    if report.suffix.lower() not in {".csv", ".jsonl"}:
        raise InvalidValueError(f"report file must end in .csv or .jsonl: {report}")
    return report


def write_report(excluded: Iterator[ExcludedURL], path: str | os.PathLike[str]) -> int:
    """Write excluded URLs to ``path`` (CSV or JSON Lines, by its suffix); returns the count.

    Written beside the target and renamed, so a reader never sees half a report.
    """
    target = _check_report_path(path)
    assert target is not None
    check_replaceable(target)
    partial = target.with_name(target.name + ".part")
    count = 0
    with open(partial, "w", encoding="utf-8", newline="") as stream:
        if target.suffix.lower() == ".csv":
            writer = csv.writer(stream, lineterminator="\n")
            writer.writerow(_REPORT_FIELDS)
            for item in excluded:
                row = item.to_dict()
                writer.writerow(["" if row[k] is None else row[k] for k in _REPORT_FIELDS])
                count += 1
        else:
            for item in excluded:
                stream.write(json.dumps(item.to_dict(), ensure_ascii=False) + "\n")
                count += 1
    os.replace(partial, target)
    return count


class Crawler:
    """One crawl: iterate it for listed pages; afterwards read :attr:`stats` and
    :meth:`excluded`, or :meth:`write_report`.

    :param state: SQLite file keeping the crawl; the same file again resumes it. Without
        one, a temporary file is used and removed by :meth:`close`.
    :param on_problem: receives problems that do not stop the crawl (robots.txt
        unreachable, a start URL redirecting out of scope, an unreadable seed sitemap).
    :param on_progress: receives :attr:`stats` a few times a second while iterating.
    """

    def __init__(
        self,
        settings: CrawlSettings,
        *,
        state: str | os.PathLike[str] | None = None,
        on_problem: ProblemHandler = log_problem,
        on_progress: ProgressHandler | None = None,
        progress_interval: float = 0.25,
    ) -> None:
        self.settings = settings
        self.stats = CrawlStats()
        self.on_problem = on_problem
        self.on_progress = on_progress
        self.progress_interval = progress_interval
        self._temp: tempfile.TemporaryDirectory[str] | None = None
        if state is None:
            self._temp = tempfile.TemporaryDirectory(prefix="sitemapkit-crawl-")
            self.state_path = Path(self._temp.name) / "crawl.sqlite"
        else:
            self.state_path = Path(state)
            self.state_path.parent.mkdir(parents=True, exist_ok=True)
        CrawlState(self.state_path).close()  # a bad file fails here, before any thread
        self._started = False

    def __enter__(self) -> Crawler:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._temp is not None:
            self._temp.cleanup()
            self._temp = None

    def __iter__(self) -> Iterator[URLEntry]:
        return self.entries()

    def entries(self) -> Iterator[URLEntry]:
        """Listed pages as they are found (a resumed crawl first gives the saved ones)."""
        if self._started:
            raise RuntimeError("a Crawler runs once; make a new one (same state) to resume")
        self._started = True
        return self._entries()

    def _entries(self) -> Iterator[URLEntry]:
        output: queue.Queue[object] = queue.Queue(_QUEUE_SIZE)
        stop = threading.Event()
        thread = threading.Thread(
            target=self._run, args=(output, stop), name="sitemapkit-crawl", daemon=True
        )
        thread.start()
        try:
            last = 0.0
            while True:
                try:
                    item = output.get(timeout=self.progress_interval)
                except queue.Empty:
                    item = None
                if self.on_progress is not None and self.stats.elapsed - last >= (
                    self.progress_interval
                ):
                    last = self.stats.elapsed
                    self.on_progress(self.stats)
                if item is None:
                    continue
                if item is _DONE:
                    break
                if isinstance(item, _Failed):
                    raise item.error
                assert isinstance(item, URLEntry)
                yield item
        finally:
            stop.set()
            while thread.is_alive():
                with contextlib.suppress(queue.Empty):  # keep the queue moving
                    output.get(timeout=0.05)
            thread.join()
            if self.on_progress is not None:
                self.on_progress(self.stats)

    def _run(self, output: queue.Queue[object], stop: threading.Event) -> None:
        import asyncio

        from .engine import Engine  # asyncio, httpx and protego load only when crawling

        state = CrawlState(self.state_path)
        try:
            engine = Engine(self.settings, state, self.stats, output, stop, self.on_problem)
            asyncio.run(engine.run())
            result: object = _DONE
        except BaseException as exc:  # handed to the consumer, who raises it
            result = _Failed(exc)
        finally:
            try:
                state.close()
            except Exception as exc:
                result = _Failed(SitemapError(f"{self.state_path}: cannot save: {exc}"))
        while not stop.is_set():
            try:
                output.put(result, timeout=0.05)
                return
            except queue.Full:
                continue

    def excluded(self) -> Iterator[ExcludedURL]:
        """Every URL left out so far, with its reason, in the order found."""
        state = CrawlState(self.state_path)
        try:
            yield from state.excluded(stopped_by=self.stats.stopped_by)
        finally:
            state.close()

    def write_report(self, path: str | os.PathLike[str]) -> int:
        """Write :meth:`excluded` to ``path`` (``.csv`` or ``.jsonl``); returns the count."""
        return write_report(self.excluded(), path)


def crawl(
    start_url: str,
    *,
    state: str | os.PathLike[str] | None = None,
    report: str | os.PathLike[str] | None = None,
    on_problem: ProblemHandler = log_problem,
    on_progress: ProgressHandler | None = None,
    settings: CrawlSettings | None = None,
    **options: Any,
) -> Iterator[URLEntry]:
    """Crawl a site from ``start_url`` and stream the pages a sitemap should list.

    ``options`` are :class:`CrawlSettings` fields (``max_pages=500``, ``images=True``, ...);
    or pass a whole ``settings``. ``state`` keeps the crawl in a SQLite file so that an
    interrupted crawl resumes where it stopped; ``report`` receives every excluded URL with
    its reason when the iterator ends (``.csv`` or ``.jsonl``). Closing the iterator early
    stops the crawl cleanly. Settings are checked at once, before anything is fetched.
    """
    if settings is None:
        settings = CrawlSettings(start_url, **options)
    elif options or settings.start_url != normalize_url(
        start_url, keep_session_ids=settings.keep_session_ids
    ):
        raise TypeError("give either settings or options, and the same start URL in both")
    report_path = _check_report_path(report)
    if state is not None:
        CrawlState(state).close()  # a bad state file fails now, not at the first next()

    def run() -> Iterator[URLEntry]:
        with Crawler(
            settings, state=state, on_problem=on_problem, on_progress=on_progress
        ) as crawler:
            try:
                yield from crawler
            finally:
                if report_path is not None:
                    crawler.write_report(report_path)

    return run()
