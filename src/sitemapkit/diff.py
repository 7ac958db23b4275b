"""Compare two sitemaps (or trees of them): which URLs were added, removed or changed.

Both sides are read with the streaming reader, so they can be paths, URLs, indexes, text
sitemaps or feeds. Memory stays constant however large they are: the old side goes into a
temporary SQLite database (a bounded page cache, the rest on disk) and the new side is
matched against it a batch at a time, with the join done inside SQLite.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .fetch import FetchSettings
from .model import ProblemHandler, URLEntry, log_problem
from .reader import Reader, ReadLimits

__all__ = ["Change", "diff_sitemaps"]

ChangeKind = Literal["added", "removed", "changed"]

#: The fields compared, in the order they are stored.
FIELDS = ("lastmod", "changefreq", "priority", "images", "videos", "news", "alternates")
_SEPARATOR = "\x1f"


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: ``fields`` names what changed for a ``changed`` URL."""

    kind: ChangeKind
    loc: str
    old: dict[str, object] | None = None
    new: dict[str, object] | None = None
    fields: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        result: dict[str, object] = {"change": self.kind, "loc": self.loc}
        if self.fields:
            result["fields"] = list(self.fields)
        if self.old is not None:
            result["old"] = self.old
        if self.new is not None:
            result["new"] = self.new
        return result


def _encode(entry: URLEntry) -> str:
    """The compared fields of an entry as one string (cheap for entries without extensions)."""
    lastmod = entry.lastmod
    if lastmod is not None and not isinstance(lastmod, str):
        lastmod = lastmod.isoformat()
    priority = "" if entry.priority is None else repr(entry.priority)
    parts = [lastmod or "", entry.changefreq or "", priority]
    if entry.images or entry.videos or entry.news is not None or entry.alternates:
        for name in FIELDS[3:]:
            value = getattr(entry, name)
            parts.append(
                json.dumps(_plain(value), sort_keys=True, ensure_ascii=False) if value else ""
            )
    return _SEPARATOR.join(parts)


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items() if v not in (None, ())}
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value


def _decode(data: str) -> dict[str, object]:
    parts = data.split(_SEPARATOR)
    fields: dict[str, object] = {}
    for name, part in zip(FIELDS, parts, strict=False):
        if not part:
            continue
        if name == "priority":
            fields[name] = float(part)
        elif name in FIELDS[3:]:
            fields[name] = json.loads(part)
        else:
            fields[name] = part
    return fields


def _changed_fields(old: str, new: str) -> tuple[str, ...]:
    old_parts, new_parts = old.split(_SEPARATOR), new.split(_SEPARATOR)
    size = len(FIELDS)
    old_parts += [""] * (size - len(old_parts))
    new_parts += [""] * (size - len(new_parts))
    return tuple(name for name, a, b in zip(FIELDS, old_parts, new_parts, strict=True) if a != b)


def _open_database(folder: str) -> sqlite3.Connection:
    database = sqlite3.connect(Path(folder) / "diff.sqlite", isolation_level=None)
    database.executescript(
        """
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        PRAGMA cache_size = -16000;
        PRAGMA temp_store = FILE;
        CREATE TABLE old (
            loc TEXT PRIMARY KEY, position INTEGER NOT NULL, data TEXT NOT NULL,
            seen INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE TABLE batch (position INTEGER PRIMARY KEY, loc TEXT NOT NULL, data TEXT NOT NULL);
        """
    )
    return database


def _batches(reader: Reader, source: str, start: int) -> Iterator[list[tuple[str, int, str]]]:
    position = start
    for batch in reader.read_batches(source):
        rows = []
        for entry in batch:
            rows.append((entry.loc, position, _encode(entry)))
            position += 1
        yield rows


def diff_sitemaps(
    old: str | Path,
    new: str | Path,
    *,
    settings: FetchSettings | None = None,
    limits: ReadLimits | None = None,
    on_problem: ProblemHandler = log_problem,
) -> Iterator[Change]:
    """Stream the differences from ``old`` to ``new``, in constant memory.

    Added and changed URLs come in the order of ``new``, removed ones afterwards in the
    order of ``old``. A URL listed twice on one side counts once (its first entry). Problems
    met while reading (a missing child, a broken file) go to ``on_problem``.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "old.txt").write_text("https://e.com/a\\nhttps://e.com/b\\n")
    >>> _ = (folder / "new.txt").write_text("https://e.com/b\\nhttps://e.com/c\\n")
    >>> [(c.kind, c.loc) for c in diff_sitemaps(folder / "old.txt", folder / "new.txt")]
    [('added', 'https://e.com/c'), ('removed', 'https://e.com/a')]
    """
    with (
        tempfile.TemporaryDirectory(prefix="sitemapkit-diff-") as folder,
        Reader(settings=settings, limits=limits, on_problem=on_problem) as reader,
    ):
        database = _open_database(folder)
        try:
            for rows in _batches(reader, str(old), 0):
                database.executemany(
                    "INSERT OR IGNORE INTO old (loc, position, data) VALUES (?, ?, ?)", rows
                )
            for rows in _batches(reader, str(new), 0):
                yield from _match(database, rows)
            yield from _removed(database)
        finally:
            database.close()


def _match(database: sqlite3.Connection, rows: list[tuple[str, int, str]]) -> Iterable[Change]:
    database.execute("DELETE FROM batch")
    database.executemany("INSERT INTO batch (loc, position, data) VALUES (?, ?, ?)", rows)
    found = database.execute(
        "SELECT b.loc, b.data, o.data, o.seen FROM batch b LEFT JOIN old o ON o.loc = b.loc "
        "ORDER BY b.position"
    ).fetchall()
    changes: list[Change] = []
    taken: set[str] = set()  # first entry wins within this batch too
    for loc, data, old_data, seen in found:
        if seen or loc in taken:
            continue
        taken.add(loc)
        if old_data is None:
            changes.append(Change("added", loc, new=_decode(data)))
        elif old_data != data:
            changes.append(
                Change(
                    "changed",
                    loc,
                    _decode(old_data),
                    _decode(data),
                    _changed_fields(old_data, data),
                )
            )
    database.execute("UPDATE old SET seen = 1 WHERE loc IN (SELECT loc FROM batch)")
    database.execute(
        "INSERT OR IGNORE INTO old (loc, position, data, seen) SELECT loc, -1, data, 1 FROM batch"
    )
    return changes


def _removed(database: sqlite3.Connection) -> Iterator[Change]:
    cursor = database.execute("SELECT loc, data FROM old WHERE seen = 0 ORDER BY position")
    while rows := cursor.fetchmany(1000):
        for loc, data in rows:
            yield Change("removed", loc, old=_decode(data))
