"""A crawl's memory, in one SQLite file: every URL seen, the frontier, and what each page was.

One row per distinct normalised URL (the ``UNIQUE`` index is the seen set, so memory stays
flat however big the site). A row is *queued* until its page has been dealt with, then
*done* with its outcome: ``listed`` or the reason it was left out. The frontier is the queued
rows in the order they were found (breadth first). robots.txt bodies and the per-pattern
counters are kept too, so a resumed crawl asks the site for nothing it already answered.

Writes are grouped in transactions committed every half second or so (WAL journal): a crash
loses at most the last moment's pages, which the next run fetches again; a clean stop
(Ctrl-C, a limit, the consumer closing the iterator) commits everything first.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..errors import SitemapError

__all__ = ["CrawlState", "ExcludedURL", "ListedRow"]

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS url (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    depth INTEGER NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    outcome TEXT,
    detail TEXT,
    status INTEGER,
    lastmod TEXT,
    title TEXT,
    extra TEXT
);
CREATE INDEX IF NOT EXISTS url_outcome ON url (outcome) WHERE done = 1;
CREATE TABLE IF NOT EXISTS shape (shape TEXT PRIMARY KEY, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS robots (origin TEXT PRIMARY KEY, status INTEGER, body TEXT);
"""
_VERSION: Final = "1"
#: Outcome of a page that is in the sitemap.
LISTED: Final = "listed"


@dataclass(frozen=True, slots=True)
class ExcludedURL:
    """A URL the crawl met and left out of the sitemap, and why (``reason``)."""

    url: str
    reason: str
    detail: str | None
    status: int | None
    depth: int

    def to_dict(self) -> dict[str, object]:
        return {
            "url": self.url,
            "reason": self.reason,
            "detail": self.detail,
            "status": self.status,
            "depth": self.depth,
        }


@dataclass(frozen=True, slots=True)
class ListedRow:
    url: str
    lastmod: str | None
    title: str | None
    images: tuple[str, ...]
    alternates: tuple[tuple[str, str], ...]


class CrawlState:
    """The SQLite file of one crawl. Not thread-safe: one thread owns a connection."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(self.path, isolation_level="DEFERRED")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise SitemapError(f"{path}: not a crawl state file ({exc})") from exc
        self._known = self.db.cursor()

    def close(self) -> None:
        self.db.commit()
        self.db.close()

    def commit(self) -> None:
        self.db.commit()

    # -- meta -----------------------------------------------------------------------------

    def get(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def claim(self, start_url: str) -> bool:
        """Bind the file to a crawl of ``start_url``; True when it already was (a resume)."""
        owner = self.get("start_url")
        if owner is None:
            self.put("version", _VERSION)
            self.put("start_url", start_url)
            self.commit()
            return False
        if owner != start_url:
            raise SitemapError(
                f"{self.path}: this state file belongs to a crawl of {owner}, not {start_url}"
            )
        return True

    # -- URLs -----------------------------------------------------------------------------

    def is_known(self, url: str) -> bool:
        return self._known.execute("SELECT 1 FROM url WHERE url = ?", (url,)).fetchone() is not None

    def add(
        self, url: str, depth: int, outcome: str | None = None, detail: str | None = None
    ) -> bool:
        """Record a URL seen for the first time: queued, or done with ``outcome``.
        False when it was known already."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO url (url, depth, done, outcome, detail) VALUES (?, ?, ?, ?, ?)",
            (url, depth, 0 if outcome is None else 1, outcome, detail),
        )
        return cursor.rowcount == 1

    def queued(self, after: int, limit: int) -> list[tuple[int, str, int]]:
        """The next queued URLs after row ``after``, in the order they were found."""
        rows = self.db.execute(
            "SELECT id, url, depth FROM url WHERE done = 0 AND id > ? ORDER BY id LIMIT ?",
            (after, limit),
        ).fetchall()
        return [(int(i), str(u), int(d)) for i, u, d in rows]

    def finish(
        self,
        row: int,
        outcome: str,
        *,
        detail: str | None = None,
        status: int | None = None,
        lastmod: str | None = None,
        title: str | None = None,
        images: tuple[str, ...] = (),
        alternates: tuple[tuple[str, str], ...] = (),
    ) -> None:
        extra = None
        if images or alternates:
            extra = json.dumps({"images": images, "alternates": alternates}, ensure_ascii=False)
        self.db.execute(
            "UPDATE url SET done = 1, outcome = ?, detail = ?, status = ?, lastmod = ?, "
            "title = ?, extra = ? WHERE id = ?",
            (outcome, detail, status, lastmod, title, extra, row),
        )

    def counts(self) -> tuple[int, dict[str, int], int]:
        """(pages fetched, URLs done by outcome, URLs queued)."""
        fetched = self.db.execute("SELECT count(*) FROM url WHERE status IS NOT NULL").fetchone()
        by_outcome = dict(
            self.db.execute(
                "SELECT outcome, count(*) FROM url WHERE done = 1 GROUP BY outcome"
            ).fetchall()
        )
        queued = self.db.execute("SELECT count(*) FROM url WHERE done = 0").fetchone()
        return int(fetched[0]), {str(k): int(v) for k, v in by_outcome.items()}, int(queued[0])

    def listed(self, batch: int = 512) -> Iterator[ListedRow]:
        """Every listed page, in the order found (streamed)."""
        after = 0
        while True:
            rows = self.db.execute(
                "SELECT id, url, lastmod, title, extra FROM url "
                "WHERE done = 1 AND outcome = ? AND id > ? ORDER BY id LIMIT ?",
                (LISTED, after, batch),
            ).fetchall()
            if not rows:
                return
            for row_id, url, lastmod, title, extra in rows:
                after = row_id
                images: tuple[str, ...] = ()
                alternates: tuple[tuple[str, str], ...] = ()
                if extra:
                    data = json.loads(extra)
                    images = tuple(data.get("images", ()))
                    alternates = tuple((str(a), str(b)) for a, b in data.get("alternates", ()))
                yield ListedRow(url, lastmod, title, images, alternates)

    def excluded(
        self, *, stopped_by: str | None = None, batch: int = 2048
    ) -> Iterator[ExcludedURL]:
        """Every URL left out, in the order found. Queued URLs count as left out by
        ``stopped_by`` (the limit that ended the crawl) when it is given."""
        after = 0
        while True:
            rows = self.db.execute(
                "SELECT id, url, done, outcome, detail, status, depth FROM url "
                "WHERE id > ? AND (outcome IS NULL OR outcome != ?) ORDER BY id LIMIT ?",
                (after, LISTED, batch),
            ).fetchall()
            if not rows:
                return
            for row_id, url, done, outcome, detail, status, depth in rows:
                after = row_id
                if not done:
                    if stopped_by is None:
                        continue
                    outcome, detail = stopped_by, "not fetched: the crawl stopped first"
                yield ExcludedURL(url, outcome, detail, status or None, depth)

    # -- per-pattern counters and robots.txt ----------------------------------------------

    def shapes(self) -> dict[str, int]:
        return {str(s): int(c) for s, c in self.db.execute("SELECT shape, count FROM shape")}

    def save_shapes(self, counts: dict[str, int]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO shape (shape, count) VALUES (?, ?)", counts.items()
        )

    def robots(self, origin: str) -> tuple[int | None, str] | None:
        row = self.db.execute(
            "SELECT status, body FROM robots WHERE origin = ?", (origin,)
        ).fetchone()
        return None if row is None else (row[0], str(row[1]))

    def save_robots(self, origin: str, status: int | None, body: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO robots (origin, status, body) VALUES (?, ?, ?)",
            (origin, status, body),
        )
