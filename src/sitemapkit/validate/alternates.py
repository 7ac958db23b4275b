"""hreflang sets across everything one validation run reads (PROTOCOL.md 5.4, rule HREF-03).

Search engines ignore an hreflang link A → B unless B links back to A, and each language
version should list itself. Whether B links back is only known once B has been read, which
may be in another file of the tree, so every ``<url>`` with links is remembered until the
run ends; then each link A → B whose B is a ``<url>`` with links of its own in the run, and
does not list A, makes A's set not mutual. A link to a URL the run never saw with links is
not judged: its links may be in its HTML, or in another site's sitemap.

Memory stays small and flat per link: only 64-bit fingerprints are kept, in ``array``
columns, never the URLs' text. A URL costs 32 bytes (fingerprint, file, line, column, where
its links start) and a link 12 (the target's fingerprint, an index into the table of the
hreflang values seen); the final pass adds a dictionary of the URLs with links (about 100
bytes each). A tree of 1,000,000 pages in 10 languages (10,000,000 links) takes about
250 MB; the 50,000-URL sitemap with 10 links a URL, about 13 MB. The fingerprint is
``hash()`` of the UTF-8 bytes read as one integer: unlike ``hash()`` of a string it is not
salted, so worker processes (:mod:`sitemapkit.validate.parallel`) compute the same values
and hand their columns back as they are. Two URLs share one with a probability of about
2⁻⁶¹ (it is a residue modulo 2⁶¹ − 1, so a file made on purpose could forge one: the worst
it can do is hide a warning).

Positions may be the fast lane's placeholders (a negative line, see
:func:`sitemapkit.validate.fastlane.run_fast`); they are resolved, by reading the file
once more, only for the URLs that get a finding.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from itertools import accumulate, chain
from operator import itemgetter
from typing import Final

__all__ = ["AlternateSets", "Reread", "fingerprint"]

#: Opens a file again for a second pass (:func:`sitemapkit.validate._reader`).
Reread = Callable[[], AbstractContextManager[Iterable[bytes]]]

RULE: Final = "SM-HREF-03"
_HREFLANG: Final = itemgetter(0)
_HREF: Final = itemgetter(1)
_SHOWN_LANGUAGES: Final = 6


def fingerprint(url: str) -> int:
    """A 64-bit fingerprint of ``url`` that is the same in every process."""
    return hash(int.from_bytes(url.encode()))


class AlternateSets:
    """The ``<url>`` elements with hreflang links of one run, as fingerprints."""

    __slots__ = (
        "_files",
        "_language_ids",
        "_languages",
        "_rereads",
        "columns",
        "files",
        "keys",
        "languages",
        "lines",
        "starts",
        "targets",
    )

    def __init__(self) -> None:
        self._files: list[str] = []
        self._rereads: list[Reread | None] = []
        self._languages: list[str] = []
        self._language_ids: dict[str, int] = {}
        # One row per <url>: its fingerprint, file, position, where its links start.
        self.keys = array("q")
        self.files = array("i")
        self.lines = array("q")
        self.columns = array("i")
        self.starts = array("q")
        # One row per link: the target's fingerprint, the hreflang value's index.
        self.targets = array("q")
        self.languages = array("i")

    def __bool__(self) -> bool:
        return bool(self.keys)

    def add_file(self, name: str, reread: Reread | None = None) -> int:
        """Register a file; its number for :meth:`add`."""
        self._files.append(name)
        self._rereads.append(reread)
        return len(self._files) - 1

    def _language(self, hreflang: str) -> int:
        number = self._language_ids.get(hreflang)
        if number is None:
            number = self._language_ids[hreflang] = len(self._languages)
            self._languages.append(hreflang)
        return number

    def add(
        self, file: int, loc: str, line: int, column: int, links: Iterable[tuple[str, str]]
    ) -> None:
        """Remember one ``<url>`` (its ``loc`` and the ``(hreflang, href)`` of its links)."""
        self.keys.append(fingerprint(loc))
        self.files.append(file)
        self.lines.append(line)
        self.columns.append(column)
        self.starts.append(len(self.targets))
        language = self._language
        for hreflang, href in links:
            self.targets.append(fingerprint(href))
            self.languages.append(language(hreflang))

    def add_batch(
        self,
        file: int,
        locs: list[str],
        lines: list[int],
        links: list[list[tuple[str, str]]],
    ) -> None:
        """:meth:`add` for many ``<url>`` at once (the fast lane's runs); columns are 0."""
        if not locs:
            return
        self.keys.extend(map(hash, map(int.from_bytes, map(str.encode, locs))))
        self.files.extend(array("i", [file]) * len(locs))
        self.lines.extend(lines)
        self.columns.extend(array("i", bytes(len(locs) * self.columns.itemsize)))
        self.starts.extend(accumulate(map(len, links[:-1]), initial=len(self.targets)))
        pairs = list(chain.from_iterable(links))
        self.targets.extend(map(hash, map(int.from_bytes, map(str.encode, map(_HREF, pairs)))))
        ids = self._language_ids
        for value in set(map(_HREFLANG, pairs)) - ids.keys():
            self._language(value)
        self.languages.extend(map(ids.__getitem__, map(_HREFLANG, pairs)))

    # -- rolling back a fast-lane attempt, merging a worker's sets -------------------------

    def checkpoint(self) -> tuple[int, int, int]:
        return len(self._files), len(self.keys), len(self.targets)

    def rollback(self, mark: tuple[int, int, int]) -> None:
        """Forget what was added since ``mark`` (a fast-lane pass that gave up)."""
        files, urls, links = mark
        del self._files[files:], self._rereads[files:]
        for column in (self.keys, self.files, self.lines, self.columns, self.starts):
            del column[urls:]
        del self.targets[links:], self.languages[links:]

    def detached(self) -> AlternateSets:
        """The same sets without the file openers (to send from a worker process)."""
        self._rereads = [None] * len(self._rereads)
        return self

    def absorb(self, other: AlternateSets, name: str, reread: Reread | None) -> None:
        """Take in the sets a worker collected from one file, ``name`` here."""
        if not other:
            return
        file = self.add_file(name, reread)
        offset = len(self.targets)
        self.keys.extend(other.keys)
        self.files.extend(array("i", [file]) * len(other.keys))
        self.lines.extend(other.lines)
        self.columns.extend(other.columns)
        self.starts.extend(array("q", (start + offset for start in other.starts)))
        self.targets.extend(other.targets)
        mapping = [self._language(value) for value in other._languages]
        self.languages.extend(array("i", (mapping[number] for number in other.languages)))

    # -- the verdict -----------------------------------------------------------------------

    def findings(self) -> Iterator[tuple[str, Reread | None, list[tuple[int, int, str]]]]:
        """Per file (in the order they were read): its URLs whose set is not mutual, as
        ``(line, column, message)``."""
        keys, starts, targets = self.keys, self.starts, self.targets
        count = len(keys)
        if not count:
            return
        ends = starts[1:]
        ends.append(len(targets))
        first: dict[int, int] = {}
        for number, key in enumerate(keys):
            first.setdefault(key, number)
        found: dict[int, list[tuple[int, int, str]]] = {}
        for number in range(count):
            own = keys[number]
            start, end = starts[number], ends[number]
            listed = targets[start:end]
            missing = []
            for position in range(start, end):
                target = targets[position]
                if target == own:
                    continue
                partner = first.get(target)
                if partner is not None and own not in targets[starts[partner] : ends[partner]]:
                    missing.append(self._languages[self.languages[position]])
            if missing or own not in listed:
                found.setdefault(self.files[number], []).append(
                    (
                        self.lines[number],
                        self.columns[number],
                        _message(missing, own in listed),
                    )
                )
        for file, items in sorted(found.items()):
            yield self._files[file], self._rereads[file], items


def _message(missing: list[str], lists_itself: bool) -> str:
    parts = []
    if missing:
        shown = ", ".join(missing[:_SHOWN_LANGUAGES])
        if len(missing) > _SHOWN_LANGUAGES:
            shown += f" and {len(missing) - _SHOWN_LANGUAGES:,} more"
        parts.append(
            f"its hreflang alternate{'s' if len(missing) > 1 else ''} {shown} "
            f"{'do' if len(missing) > 1 else 'does'} not link back to it"
        )
    if not lists_itself:
        parts.append("its links do not include the URL itself")
    return "hreflang set not mutual (search engines ignore one-sided links): " + "; ".join(parts)
