"""Checks on each listed URL that need more than its text: scope, hosts, duplicates.

Shared by the XML, text and feed checkers. The common case (a clean URL inside the scope,
seen for the first time) costs one regex match, one ``startswith`` and one fingerprint.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from .._fingerprints import FingerprintSet
from ..errors import InvalidURLError
from ..urls import normalize_url, scope_of
from .alternates import AlternateSets
from .report import Collector
from .rules import CLEAN_URL, check_loc

__all__ = [
    "LocationChecker",
    "RobotsLookup",
    "Tree",
    "TreeURLs",
    "normalize_sitemap_url",
    "tree_duplicate",
]

#: ``origin → the Sitemap: URLs its robots.txt lists`` (None: it could not be read).
RobotsLookup = Callable[[str], frozenset[str] | None]

_ORIGIN: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*")
_MAX_PENDING: Final = 1_000
_MAX_HOSTS: Final = 20
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: Per file, URL hashes go in a plain set (fast, a few MB) up to this many, then in a
#: fingerprint set (11 bytes a URL, 8 MiB to start): only oversized files get that far.
_SMALL_LIMIT: Final = 100_000
_TREE_SMALL_LIMIT: Final = 2_000_000
_BATCH: Final = 4096
_CLEAN_URL: Final = CLEAN_URL.fullmatch
_BAD_PERCENT: Final = re.compile(r"%(?![0-9A-Fa-f]{2})").search


def normalize_sitemap_url(url: str) -> str:
    """The form two spellings of one sitemap URL share (for robots.txt comparisons)."""
    try:
        return normalize_url(url, keep_session_ids=True)
    except InvalidURLError:
        return url.strip()


class TreeURLs:
    """The URLs of a whole tree, for duplicates across its files (L-11): their hashes in a
    set (C-speed, about 60 bytes a URL) up to 2,000,000, then a :class:`FingerprintSet`
    (11 bytes a URL) for the rest, so memory stays bounded however large the tree."""

    __slots__ = ("_large", "_small")

    def __init__(self) -> None:
        self._small: set[int] = set()
        self._large: FingerprintSet | None = None

    def add_batch(self, urls: list[str], lines: list[int], columns: list[int]) -> list[int]:
        """Remember ``urls`` (distinct among themselves); the positions of those seen before.
        (``lines`` and ``columns`` are for stand-ins that hand the URLs on elsewhere.)"""
        hashes = list(map(hash, urls))
        small = self._small
        if self._large is None and len(small) + len(hashes) <= _TREE_SMALL_LIMIT:
            if small.isdisjoint(hashes):
                small.update(hashes)
                return []
            repeated = [position for position, value in enumerate(hashes) if value in small]
            small.update(hashes)
            return repeated
        if self._large is None:
            self._large = FingerprintSet()
        fresh = set(self._large.add_many(urls))
        return [
            position
            for position, value in enumerate(hashes)
            if value in small or position not in fresh
        ]


@dataclass(slots=True)
class Tree:
    """What the files of one validation run share: URLs seen, robots.txt answers, hreflang
    sets.

    ``seen`` (tree runs only) takes URLs in batches: the fingerprint set is built for that.
    """

    seen: TreeURLs | None = None
    robots: RobotsLookup | None = None
    robots_cache: dict[str, frozenset[str] | None] = field(default_factory=dict)
    #: Every ``<url>`` with hreflang links, for the mutual-set rule (HREF-03).
    alternates: AlternateSets = field(default_factory=AlternateSets)

    def robots_for(self, origin: str) -> frozenset[str] | None:
        if self.robots is None:
            return None
        if origin not in self.robots_cache:
            self.robots_cache[origin] = self.robots(origin)
        return self.robots_cache[origin]


def tree_duplicate(url: str) -> str:
    """The message of L-11 across files."""
    return f"{url[:200]} is also listed in another sitemap of this tree"


def _parts(url: str) -> tuple[str, str, int | None, str]:
    try:
        split = urlsplit(url)
    except ValueError:  # an unbalanced '[' in the host: the whole authority stands for it
        scheme, _, rest = url.partition("://")
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]
        return scheme.lower(), authority.lower(), None, "/"
    scheme = split.scheme.lower()
    try:
        port = split.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        port = None
    return scheme, (split.hostname or "").lower(), port, split.path or "/"


class LocationChecker:
    """Checks one file's URLs: L-01…L-05 (text), L-07/L-08/S-03 or I-05/I-06 (scope), L-11.

    ``index`` switches the scope rules to those of a sitemap index's children.
    """

    def __init__(
        self,
        collector: Collector,
        *,
        location: str | None,
        tree: Tree,
        index: bool = False,
        legacy: bool = False,
        flush_every: int = _BATCH,
    ) -> None:
        self.flush_every = flush_every
        self.collector = collector
        self.tree = tree
        self.index = index
        self.legacy = legacy
        self.location = location
        self.scope: str | None = None
        self.location_parts: tuple[str, str, int | None, str] | None = None
        if location:
            try:
                self.scope = scope_of(location)
                self.location_parts = _parts(self.scope)
            except InvalidURLError:
                self.scope = None
        self.origin: str | None = None
        self.host: str | None = None
        self.seen: set[int] = set()
        self.large_seen: FingerprintSet | None = None
        self.batch: list[str] = []
        self.batch_lines: list[int] = []
        self.batch_columns: list[int] = []
        self.pending: dict[str, list[tuple[str, int, int]]] = {}
        self.pending_counts: dict[str, int] = {}

    def check(self, text: str, line: int, column: int, *, relaxed_scheme: bool = False) -> str:
        """Check one URL; returns it stripped. ``relaxed_scheme`` skips L-01 (text files say
        T-03 themselves)."""
        url = text.strip()
        absolute = True
        if not (
            12 <= len(url) < 2048 and _CLEAN_URL(url) and ("%" not in url or not _BAD_PERCENT(url))
        ):
            absolute = self._findings(url, line, column, relaxed_scheme)
        if absolute:
            scope = self.scope
            if scope is not None:
                if not url.startswith(scope):
                    self._out_of_scope(url, line, column)
            elif self.origin is None:
                match = _ORIGIN.match(url)
                if match:
                    self.origin = match.group() + "/"
                    self.host = _parts(url)[1]
            elif not url.startswith(self.origin):
                self._other_host(url, line, column)
        fingerprint = hash(url)
        seen = self.seen
        if fingerprint in seen:
            self.collector.add("SM-L11", f"duplicate URL {url[:200]}", line, column)
            return url
        if len(seen) < _SMALL_LIMIT:
            seen.add(fingerprint)
        elif not self._add_large(url):
            self.collector.add("SM-L11", f"duplicate URL {url[:200]}", line, column)
            return url
        if self.tree.seen is not None:
            self.batch.append(url)
            self.batch_lines.append(line)
            self.batch_columns.append(column)
            if len(self.batch) >= self.flush_every:
                self._flush_batch()
        return url

    def _findings(self, url: str, line: int, column: int, relaxed_scheme: bool) -> bool:
        """L-01 … L-05 on a URL off the fast path; False when it is not absolute."""
        absolute = True
        for rule, message, severity in check_loc(url, self.legacy):
            if rule == "SM-L01":
                absolute = False
                if relaxed_scheme:
                    continue
            self.collector.add(rule, message, line, column, severity)
        return absolute

    def _add_large(self, url: str) -> bool:
        if self.large_seen is None:
            self.large_seen = FingerprintSet()
        return self.large_seen.add(url)

    def _flush_batch(self) -> None:
        """Tree-wide duplicates (L-11), a batch at a time."""
        tree_seen = self.tree.seen
        batch = self.batch
        if tree_seen is None or not batch:
            return
        for position in tree_seen.add_batch(batch, self.batch_lines, self.batch_columns):
            self.collector.add(
                "SM-L11",
                tree_duplicate(batch[position]),
                self.batch_lines[position],
                self.batch_columns[position],
            )
        batch.clear()
        self.batch_lines.clear()
        self.batch_columns.clear()

    def _other_host(self, url: str, line: int, column: int) -> None:
        host = _parts(url)[1]
        if host == self.host:
            return
        if self.index:
            self.collector.add(
                "SM-I05",
                f"{url[:200]} is on host {host!r}; the index lists sitemaps on {self.host!r}",
                line,
                column,
            )
        else:
            self.collector.add(
                "SM-L07",
                f"{url[:200]} is on host {host!r}; this sitemap's first URL is on {self.host!r}",
                line,
                column,
            )

    def _out_of_scope(self, url: str, line: int, column: int) -> None:
        assert self.location_parts is not None
        assert self.scope is not None
        scheme, host, port, path = _parts(url)
        own_scheme, own_host, own_port, folder = self.location_parts
        if self.index:
            if host != own_host:
                self.collector.add(
                    "SM-I05",
                    f"{url[:200]} is on host {host!r}, not on the index's site {own_host!r}",
                    line,
                    column,
                )
            elif not path.startswith(folder) or scheme != own_scheme or port != own_port:
                self.collector.add(
                    "SM-I06",
                    f"{url[:200]} is outside the index's folder {self.scope}",
                    line,
                    column,
                )
            return
        if host != own_host:
            self._cross_host(url, host, line, column)
            return
        if scheme != own_scheme:
            reason = f"(a) its scheme is {scheme!r}, the sitemap's is {own_scheme!r}"
        elif port != own_port:
            reason = f"(c) its port is {port}, the sitemap's is {own_port}"
        elif not path.startswith(folder):
            reason = f"(d) it is not under the sitemap's folder {folder}"
        else:
            return  # same place spelled differently (case of the host, default port)
        self.collector.add("SM-L08", f"{url[:200]} is outside {self.scope}: {reason}", line, column)

    def _cross_host(self, url: str, host: str, line: int, column: int) -> None:
        if self.tree.robots is None:
            self.collector.add(
                "SM-L08",
                f"{url[:200]} is outside {self.scope}: (b) it is on "
                f"host {host!r} (cross-submission via robots.txt was not "
                "checked: fetching is off)",
                line,
                column,
            )
            return
        match = _ORIGIN.match(url)
        origin = match.group().lower() if match else host
        count = self.pending_counts.get(origin, 0)
        if count == 0 and len(self.pending_counts) >= _MAX_HOSTS:
            self.collector.add(
                "SM-S03",
                f"{url[:200]} is on host {host!r}: more than "
                f"{_MAX_HOSTS} other hosts, robots.txt not checked",
                line,
                column,
            )
            return
        self.pending_counts[origin] = count + 1
        if count < _MAX_PENDING:
            self.pending.setdefault(origin, []).append((url, line, column))

    def finish(self) -> None:
        """Flush the last batch; settle cross-host URLs: accepted when that host's robots.txt
        lists this sitemap (S-03)."""
        self._flush_batch()
        if not self.pending_counts or self.location is None:
            return
        own = normalize_sitemap_url(self.location)
        for origin, count in self.pending_counts.items():
            listed = self.tree.robots_for(origin)
            if listed is not None and own in listed:
                continue
            why = (
                "its robots.txt could not be read"
                if listed is None
                else "its robots.txt does not list this sitemap"
            )
            for url, line, column in self.pending.get(origin, []):
                self.collector.add(
                    "SM-S03",
                    f"{url[:200]} is on {origin}, and {why} (Sitemap: {self.location})",
                    line,
                    column,
                )
            if count > _MAX_PENDING:
                url, line, column = self.pending[origin][-1]
                self.collector.add(
                    "SM-S03",
                    f"{count - _MAX_PENDING:,} more URLs on {origin} without robots.txt proof",
                    line,
                    column,
                )
