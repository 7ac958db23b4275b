"""Children of a local index checked in worker processes, merged in order as if one by one.

A tree of twenty 50,000-URL children is twenty independent files: on a machine with two cores
two of them can be checked at once. Each worker checks one child exactly as the single-process
run would (same :class:`_Run` code, fast lane included) but hands back, instead of touching the
tree-wide state, its findings, its collector's counters and the URLs it saw; the parent merges
them in the children's order, adds the duplicates across the tree and follows nested indexes,
so the report is the one a single process would write. Workers are spawned (never forked) and
at most two jobs per worker are in flight, which bounds the memory of finished, unmerged work.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .report import Issue
from .xmlcheck import CheckedFile

if TYPE_CHECKING:
    from concurrent.futures import Future

__all__ = ["Outcome", "Prefetch", "check_child", "workers"]

#: Children are checked in parallel only when there are this many, and this much to read.
MIN_CHILDREN: Final = 4
MIN_BYTES: Final = 8 << 20


def workers() -> int:
    """How many worker processes a tree may use: the cores this process may run on, up to 2."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return min(cores, 2)


@dataclass(slots=True)
class Outcome:
    """One child checked in a worker, ready to merge."""

    name: str
    checked: CheckedFile
    urls_counted: int
    issues: list[Issue]
    counts: dict[str, int]
    shown: dict[str, int]
    seen: dict[str, int]
    hidden: dict[str, tuple[int, int]]
    urls: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    columns: list[int] = field(default_factory=list)


class Recorder:
    """Stands in for the tree's URL set in a worker: remembers the URLs for the parent."""

    __slots__ = ("columns", "lines", "urls")

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.lines: list[int] = []
        self.columns: list[int] = []

    def add_batch(self, urls: list[str], lines: list[int], columns: list[int]) -> list[int]:
        self.urls.extend(urls)
        self.lines.extend(lines)
        self.columns.extend(columns)
        return []


Job = tuple[str, str, int, bool, bool, bool, str | None]


def check_child(job: Job) -> Outcome:
    """Run in a worker: check one child file, without finishing its collector."""
    from . import _Run

    path, location, max_per_rule, strict, fetch, fast, trusted = job
    run = _Run(
        strict=strict,
        recursive=False,
        fetch=fetch,
        fetcher=None,
        max_per_rule=max_per_rule,
        tree_wide=False,
    )
    if trusted:
        run.fetcher.trust(trusted)
    recorder = Recorder()
    run.tree.seen = recorder  # type: ignore[assignment]
    try:
        checked, collector = run.check_file(
            Path(path), location=location, top_level=False, fast=fast
        )
    finally:
        run.finish()
    report = run.report
    return Outcome(
        name=collector.file,
        checked=checked,
        urls_counted=report.urls,
        issues=report.issues,
        counts=report.counts,
        shown=collector.shown,
        seen=collector.seen,
        hidden=collector.first_hidden,
        urls=recorder.urls,
        lines=recorder.lines,
        columns=recorder.columns,
    )


class Prefetch:
    """Checks the given children in workers, a window ahead of the parent's merging."""

    def __init__(self, jobs: list[tuple[str, Job]], processes: int) -> None:
        self._jobs = deque(jobs)
        self._pending = {key for key, _ in jobs}
        self._window: deque[tuple[str, Future[Outcome]]] = deque()
        # Imported here: multiprocessing costs every `import sitemapkit` otherwise.
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(
            max_workers=processes, mp_context=multiprocessing.get_context("spawn")
        )
        self._limit = 2 * processes
        self._fill()

    def _fill(self) -> None:
        while self._jobs and len(self._window) < self._limit:
            key, job = self._jobs.popleft()
            self._window.append((key, self._pool.submit(check_child, job)))

    def take(self, key: str) -> Outcome | None:
        """The outcome for ``key`` (None if it is not one of the jobs); the outcomes of jobs
        before it, children the parent skipped, are dropped."""
        if key not in self._pending:
            return None
        while self._window:
            ready_key, future = self._window.popleft()
            self._pending.discard(ready_key)
            self._fill()
            if ready_key == key:
                return future.result()
            future.cancel()
        return None  # pragma: no cover - every pending key is in the window or the queue

    def close(self) -> None:
        for _key, future in self._window:
            future.cancel()
        self._pool.shutdown(wait=True, cancel_futures=True)
