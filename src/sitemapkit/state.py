"""Incremental runs: what the last ``generate`` published, kept in SQLite beside the output.

An incremental run writes its URLs in shards chosen by a stable hash (the sharded writer), so
a change to one URL changes only its shard's file: every other child keeps its bytes, its
name and its modification time, and so does its ``<lastmod>`` in the index. The state file
remembers the shard count (kept from run to run, so URLs stay where they are) and a
fingerprint of every URL's fields, so each run knows which URLs it added, changed and
removed; ``sitemapkit submit --changed`` announces the added and changed ones.

The state file is ``OUT/.<name>.sitemapkit.db``; memory stays flat (the comparison runs in
SQLite, a batch at a time).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from hashlib import blake2b
from pathlib import Path
from typing import Final

from .diff import encode_fields
from .errors import PublishError, SitemapError
from .model import URLEntry

__all__ = ["ChangeCounts", "RunState", "last_changes", "state_path"]

#: Shards aim at this many URLs each, well under 50,000 so a shard stays one file as it grows.
TARGET_PER_SHARD: Final = 25_000
_BATCH: Final = 2_000
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS urls (
    loc TEXT PRIMARY KEY, fingerprint BLOB NOT NULL, run INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS changes (
    run INTEGER NOT NULL, position INTEGER NOT NULL, loc TEXT NOT NULL, kind TEXT NOT NULL,
    PRIMARY KEY (run, position)
) WITHOUT ROWID;
"""


def state_path(out_dir: str | os.PathLike[str], name: str = "sitemap") -> Path:
    """Where the state of the set ``name`` published in ``out_dir`` lives."""
    return Path(out_dir) / f".{name}.sitemapkit.db"


@dataclass(frozen=True, slots=True)
class ChangeCounts:
    """What one run changed, compared with the run before."""

    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    first_run: bool = False


def _shards_for(count: int) -> int:
    shards = 1
    while count / shards > TARGET_PER_SHARD:
        shards *= 2
    return shards


class RunState:
    """The state file of one output folder, open for one run."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise PublishError(f"cannot use the state file: {exc}", source=str(path)) from exc

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunState:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: object) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))

    @property
    def run(self) -> int:
        """The number of the last recorded run (0 before the first)."""
        return int(self._meta("run") or 0)

    @property
    def shards(self) -> int | None:
        """The shard count URLs are kept in, or None before the first run."""
        value = self._meta("shards")
        return None if value is None else int(value)

    def record(self, entries: Iterable[URLEntry], *, shards: int) -> ChangeCounts:
        """Compare the entries a run published with the last run's and remember them.

        Runs in one transaction: a run that fails leaves the previous state whole.
        """
        first_run = self._meta("run") is None
        run = self.run + 1
        counts = {"added": 0, "changed": 0, "unchanged": 0}
        position = 0
        db = self._db
        db.execute("BEGIN")
        try:
            db.execute("DELETE FROM changes")
            db.execute("CREATE TEMP TABLE IF NOT EXISTS batch (loc TEXT, fingerprint BLOB)")
            for rows in _batches(entries):
                db.execute("DELETE FROM batch")
                db.executemany("INSERT INTO batch VALUES (?, ?)", rows)
                found = db.execute(
                    "SELECT b.loc, b.fingerprint, u.fingerprint FROM batch b "
                    "LEFT JOIN urls u ON u.loc = b.loc"
                ).fetchall()
                changes = []
                for loc, fingerprint, previous in found:
                    kind = (
                        "added"
                        if previous is None
                        else "unchanged"
                        if previous == fingerprint
                        else "changed"
                    )
                    counts[kind] += 1
                    if kind != "unchanged":
                        changes.append((run, position, loc, kind))
                        position += 1
                db.executemany("INSERT INTO changes VALUES (?, ?, ?, ?)", changes)
                db.execute(
                    "INSERT OR REPLACE INTO urls SELECT loc, fingerprint, ? FROM batch", (run,)
                )
            removed = db.execute(
                "INSERT INTO changes SELECT ?, ? + row_number() OVER (ORDER BY loc), loc, "
                "'removed' FROM urls WHERE run < ?",
                (run, position, run),
            ).rowcount
            db.execute("DELETE FROM urls WHERE run < ?", (run,))
            total = counts["added"] + counts["changed"] + counts["unchanged"]
            self._set_meta("run", run)
            self._set_meta("time", datetime.now(UTC).isoformat(timespec="seconds"))
            self._set_meta("shards", self.next_shards(shards, total))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return ChangeCounts(removed=max(removed, 0), first_run=first_run, **counts)

    @staticmethod
    def next_shards(current: int, count: int) -> int:
        """Keep the shard count unless shards grow past two files' worth or shrink to dust.

        Changing it moves URLs between shards, so every file is written anew once.
        """
        if count / current > 2 * TARGET_PER_SHARD or (current > 1 and count / current < 1_000):
            return _shards_for(count)
        return current

    def changed_urls(self, kinds: Iterable[str] = ("added", "changed")) -> Iterator[str]:
        """The URLs the last run added or changed (or other ``kinds``), in publishing order."""
        wanted = tuple(kinds)
        marks = ", ".join("?" for _ in wanted)
        cursor = self._db.execute(
            f"SELECT loc FROM changes WHERE kind IN ({marks}) ORDER BY position",  # noqa: S608
            wanted,
        )
        while rows := cursor.fetchmany(1000):
            for (loc,) in rows:
                yield loc


def _batches(entries: Iterable[URLEntry]) -> Iterator[list[tuple[str, bytes]]]:
    batch: list[tuple[str, bytes]] = []
    for entry in entries:
        fields = encode_fields(entry).encode("utf-8")
        batch.append((entry.loc, blake2b(fields, digest_size=8).digest()))
        if len(batch) >= _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def last_changes(
    out_dir: str | os.PathLike[str],
    name: str = "sitemap",
    kinds: Iterable[str] = ("added", "changed"),
) -> list[str]:
    """The URLs the last incremental run in ``out_dir`` added or changed (or other ``kinds``)."""
    path = state_path(out_dir, name)
    if not path.is_file():
        raise SitemapError(
            "no incremental state here: run 'sitemapkit generate --incremental' first",
            source=str(out_dir),
        )
    with RunState(path) as state:
        return list(state.changed_urls(kinds))
