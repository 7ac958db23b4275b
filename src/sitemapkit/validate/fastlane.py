"""The fast lane: canonical sitemaps checked by regular expressions over the decoded text.

What generators write is regular: ``<url><loc>…</loc><lastmod>…</lastmod></url>`` a line, maybe
hreflang links and images. For such a file expat reads only the prologue, the root's start tag
(the full checker's own root handler checks them) and the end tag, while a compiled pattern
takes the entries apart; its character classes admit only well-formed XML, so the entries need
no other parser. Runs of up to 256 clean entries are checked in bulk with C-level passes; a run
with any finding is checked entry by entry with the very methods of the full checker (the same
:class:`_Checker` methods, the same :class:`LocationChecker`), so messages, lines and columns
are the same. Findings go to a scratch collector and reach the report only if the whole file
stayed canonical; on anything else (a comment, an attribute, CDATA, a character reference, CR,
an unknown extension, an extension with value checks registered, a structural error) the lane
gives up and the full checker reads the file from the start. ``tests/test_validate_fastlane.py``
holds both lanes to the same findings on every fixture and on arbitrary values.
"""

from __future__ import annotations

import codecs
import operator
import re
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import replace
from itertools import islice, repeat
from operator import sub
from typing import Final
from xml.parsers import expat

from ..errors import SitemapError
from ..model import CHANGEFREQS, IMAGE_NS, MAX_IMAGES_PER_URL, XHTML_NS
from .locations import _BAD_PERCENT, _CLEAN_URL, _SMALL_LIMIT
from .rules import Finding, check_lastmod, check_priority, checks_namespace
from .xmlcheck import _CACHE_LIMIT, _Checker, _Stop

__all__ = ["run_fast"]

_MAX_CARRY: Final = 1 << 20
_RUN: Final = 256
_IMAGES: Final = MAX_IMAGES_PER_URL
_WHOLE: Final = operator.methodcaller("group")
_GROUPS: Final = operator.methodcaller("groups")
_LOC_START: Final = operator.methodcaller("start", 1)
# What may follow the scheme, host and port in a clean URL (rules.CLEAN_URL).
_URL_TAIL: Final = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?#%\[\]]*"
# Characters XML 1.0 forbids (expat would stop), and CR, which expat turns into LF: values
# holding them go to the full checker. Text between tags is [ \t\n]* by the patterns.
_FORBIDDEN: Final = "\x00-\x08\x0b-\x1f\ufffe\uffff"
_RUN_SPECIAL: Final = re.compile(f"['\">{_FORBIDDEN}]|&(?!amp;)").search
_ROOT: Final = re.compile(
    r"\A(?:<\?xml [^<>]*\?>)?[ \t\n]*(?:<\?xml-stylesheet [^<>]*\?>[ \t\n]*)?"
    r"<urlset((?:[ \t\n]+[A-Za-z:]+=\"[^\"<>&]*\")*)[ \t\n]*>"
)
_DECLARATION: Final = re.compile(r'xmlns(?::([A-Za-z][A-Za-z0-9._-]*))?="([^"]*)"')
_CLOSE: Final = re.compile(r"[ \t\n]*</urlset>[ \t\n]*\Z")
_SPECIAL: Final = re.compile(f"['\">&{_FORBIDDEN}]").search
_GIVE_UP: Final = re.compile(f"['\">{_FORBIDDEN}]|&(?!(?:lt|gt|quot|apos|amp);)").search
_ENTITIES: Final = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"), ("&amp;", "&"))
# The hreflang links of an entry's extension tail (the entry pattern fixed their shape).
_LINKS: Final = re.compile(r':link rel="alternate" hreflang="([^"]*)" href="([^"]*)"').findall


class GiveUp(Exception):
    """The file left the canonical shape: let the full checker read it."""


def _entry_pattern(prefixes: dict[str, str]) -> re.Pattern[str]:
    extensions = []
    for namespace, template in (
        (
            XHTML_NS,
            r'<{p}:link rel="alternate" hreflang="[^"<>&\'{f}]+" href="https?://[^"<>&\'{f}]*"'
            r"[ \t\n]*/>",
        ),
        (IMAGE_NS, r"<{p}:image>[ \t\n]*<{p}:loc>[^<>&'\"{f}]*</{p}:loc>[ \t\n]*</{p}:image>"),
    ):
        prefix = prefixes.get(namespace)
        if prefix is not None and not checks_namespace(namespace):  # else: the full checker
            extensions.append(template.replace("{p}", re.escape(prefix)).replace("{f}", _FORBIDDEN))
    tail = "(?:(?:" + "|".join(extensions) + r")[ \t\n]*)*" if extensions else ""
    # The lookbehind starts a match only where a run of blanks starts: tried from every
    # blank of a long run, [ \t\n]* made finditer quadratic (160 kB of blanks: a minute).
    return re.compile(
        r"(?<![ \t\n])[ \t\n]*<url>[ \t\n]*<loc>([^<]*)</loc>[ \t\n]*"
        r"(?:<lastmod>([^<]*)</lastmod>[ \t\n]*)?"
        r"(?:<changefreq>([^<]*)</changefreq>[ \t\n]*)?"
        r"(?:<priority>([^<]*)</priority>[ \t\n]*)?"
        "(" + tail + ")</url>"
    )


def _unescape(raw: str) -> str:
    """The value as expat gives it; raw ' " > (rule E-02) and character references go to the
    full checker."""
    if _GIVE_UP(raw):
        raise GiveUp
    for entity, char in _ENTITIES:
        raw = raw.replace(entity, char)
    return raw


def _resolve(chunks: Iterable[bytes], offsets: list[int]) -> dict[int, tuple[int, int]]:
    """Line and column (characters, from 1, as expat counts) of character offsets of the
    document, in one pass over it."""
    wanted = sorted(set(offsets))
    found: dict[int, tuple[int, int]] = {}
    decode = codecs.getincrementaldecoder("utf-8")("replace").decode
    line, column, base, index = 1, 0, 0, 0
    for chunk in chunks:
        text = decode(chunk)
        cursor = 0
        while index < len(wanted) and wanted[index] < base + len(text):
            offset = wanted[index] - base
            if text.count("\n", cursor, offset):
                line += text.count("\n", cursor, offset)
                cursor = text.rfind("\n", cursor, offset) + 1
                column = 0
            column += offset - cursor
            cursor = offset
            found[wanted[index]] = (line, column + 1)
            index += 1
        if text.count("\n", cursor):
            line += text.count("\n", cursor)
            cursor = text.rfind("\n", cursor) + 1
            column = 0
        column += len(text) - cursor
        base += len(text)
    return found


def run_fast(
    checker: _Checker,
    chunks: Iterable[bytes],
    reread: Callable[[], AbstractContextManager[Iterable[bytes]]],
) -> bool:
    """Check a canonical ``<urlset>``; False (findings dropped) when it is not canonical.

    Positions are kept as character offsets (a placeholder line ``-1 - offset``) and turned into
    lines and columns at the end, by reading the file once more, only if something was found.
    """
    try:
        _Lane(checker).run(chunks)
    except (GiveUp, expat.ExpatError, _Stop, SitemapError, UnicodeDecodeError):
        return False
    collector = checker.collector
    issues = collector.report.issues
    hidden = collector.first_hidden
    offsets = [-1 - issue.line for issue in issues if issue.line < 0]
    offsets += [-1 - line for line, _ in hidden.values() if line < 0]
    if offsets:
        with reread() as stream:
            places = _resolve(stream, offsets)
        issues[:] = [
            replace(issue, line=places[-1 - issue.line][0], column=places[-1 - issue.line][1])
            if issue.line < 0
            else issue
            for issue in issues
        ]
        for key, (line, _column) in hidden.items():
            if line < 0:
                hidden[key] = places[-1 - line]
    return True


def _never(text: str) -> None:
    return None


def _clean_values(
    values: set[str],
    cache: dict[str, list[Finding]],
    check: Callable[[str, bool], list[Finding]],
    legacy: bool,
) -> bool:
    """True when every value is plain text its check passes (the checker's cache remembers)."""
    for value in values:
        findings = cache.get(value)
        if findings is None:
            if _SPECIAL(value) or len(cache) > _CACHE_LIMIT:
                return False
            findings = cache[value] = check(value, legacy)
        if findings:
            return False
    return True


class _Lane:
    def __init__(self, checker: _Checker) -> None:
        self.checker = checker
        self.root_seen = False
        self.gave_up = False
        self.prefix: str | None = None
        self.prefix_test: Callable[[str], object] = _never
        parser = checker.parser
        self.start_root = checker._start_root
        parser.StartElementHandler = self._root
        parser.EndElementHandler = None
        parser.CharacterDataHandler = None
        parser.StartNamespaceDeclHandler = self._namespace
        parser.StartDoctypeDeclHandler = self._doctype
        parser.CommentHandler = None
        checker.flush_every = 1 << 62  # tree-wide duplicates only once the file is accepted

    def _root(self, name: str, attributes: dict[str, str]) -> None:
        self.start_root(name, attributes)
        parser = self.checker.parser
        parser.StartElementHandler = None
        parser.EndElementHandler = None
        self.root_seen = True
        if self.checker.checked.kind != "urlset":
            self.gave_up = True

    def _namespace(self, prefix: str | None, uri: str) -> None:
        if self.root_seen:
            self.gave_up = True  # declarations below the root: the patterns assume none

    def _doctype(self, *args: object) -> None:
        self.gave_up = True

    def run(self, chunks: Iterable[bytes]) -> None:
        checker = self.checker
        parser = checker.parser
        checked = checker.checked
        carry = ""
        base = 0  # offset in the document of the buffer's first character
        decode = codecs.getincrementaldecoder("utf-8")("strict").decode
        entry: re.Pattern[str] | None = None
        for chunk in chunks:
            if not checked.bytes and chunk.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
                raise GiveUp
            checked.bytes += len(chunk)
            text = decode(chunk)
            buffer = carry + text if carry else text
            position = 0
            if entry is None:
                # expat reads the prologue and the root's start tag (and _start_root checks
                # them); the entries are proven well-formed by the patterns themselves.
                root = _ROOT.match(buffer)
                if root is None:
                    raise GiveUp
                parser.Parse(buffer[: root.end()].encode(), False)
                if self.gave_up or not self.root_seen or checker.ns == "":
                    raise GiveUp
                prefixes = {
                    uri: prefix for prefix, uri in _DECLARATION.findall(root.group(1)) if prefix
                }
                entry = _entry_pattern(prefixes)
                position = root.end()
            position = self._entries(entry, buffer, position, base)
            carry = buffer[position:]
            base += position
            if len(carry) > _MAX_CARRY:
                raise GiveUp
        if self.gave_up or entry is None or not checked.urls or not _CLOSE.match(carry):
            raise GiveUp
        parser.Parse(carry.encode(), True)  # the end tag, checked by expat too
        checker._finish()

    def _entries(self, entry: re.Pattern[str], buffer: str, position: int, base: int) -> int:
        """Check every complete entry from ``position``; where the next one would start.

        Entries go in runs of up to 256: a run where nothing is wrong is checked with a few
        C-level passes over lists (:meth:`_run`); a run with any finding goes one entry at a
        time (:meth:`_one_by_one`), which reports exactly what the full checker would.
        Positions are placeholders, ``-1 - offset`` (see :func:`run_fast`).
        """
        finder = entry.finditer
        while True:
            run = list(islice(finder(buffer, position), _RUN))
            if not run:
                return position
            end = run[-1].end()
            if run[0].start() != position or end - position != sum(map(len, map(_WHOLE, run))):
                # Something between entries: keep the contiguous ones, stop at the gap.
                contiguous = []
                for found in run:
                    if found.start() != position:
                        break
                    contiguous.append(found)
                    position = found.end()
                if contiguous and not self._run(contiguous, base):
                    self._one_by_one(contiguous, base)
                return position
            if not self._run(run, base):
                self._one_by_one(run, base)
            position = end
            if len(run) < _RUN:
                return position

    def _run(self, run: list[re.Match[str]], base: int) -> bool:
        """Check a run of entries in bulk; False (nothing recorded) when any would have a
        finding, or is not plain enough to tell cheaply."""
        checker = self.checker
        checked = checker.checked
        locations = checker.locations
        assert locations is not None
        count = len(run)
        if checked.urls + count > checker.max_entries:
            return False
        columns = tuple(zip(*map(_GROUPS, run), strict=True))  # loc, lastmod, ..., extensions
        locs = list(columns[0])
        joined = "<".join(locs)  # the patterns keep "<" out of values
        if _RUN_SPECIAL(joined):
            return False
        if "&" in joined:
            joined = joined.replace("&amp;", "&")
            locs = joined.split("<")
        if "%" in joined and _BAD_PERCENT(joined):
            return False
        lengths = list(map(len, locs))
        if min(lengths) < 12 or max(lengths) >= 2048:
            return False
        prefix = locations.scope if locations.scope is not None else locations.origin
        if prefix is None or not self._inside(prefix)(joined):
            return False
        hashes = list(map(hash, locs))
        seen = locations.seen
        if (
            len(seen) + count > _SMALL_LIMIT
            or len(set(hashes)) != count
            or not seen.isdisjoint(hashes)
        ):
            return False
        lastmods = columns[1]
        distinct_lastmods = set(lastmods)
        distinct_lastmods.discard(None)
        if not _clean_values(
            distinct_lastmods, checker.lastmod_cache, check_lastmod, checker.legacy
        ):
            return False
        changefreqs = set(columns[2])
        changefreqs.discard(None)
        if not changefreqs <= CHANGEFREQS:
            return False
        priorities = columns[3]
        distinct_priorities = set(priorities)
        distinct_priorities.discard(None)
        if not _clean_values(
            distinct_priorities, checker.priority_cache, check_priority, checker.legacy
        ):
            return False
        tails = columns[4]
        if any(tails) and max(map(str.count, tails, repeat(":image>"))) > 2 * _IMAGES:
            return False
        links = self._links(tails) if any(tails) else None
        # Nothing to report: record what the one-by-one path would have recorded.
        if links is not None:
            self._record_links(locs, run, links, base)
        seen.update(hashes)
        if locations.tree.seen is not None:
            here = -1 - base + 5
            locations.batch.extend(locs)
            locations.batch_lines.extend(map(sub, repeat(here), map(_LOC_START, run)))
            locations.batch_columns.extend([0] * count)
        checked.urls += count
        if distinct_lastmods:
            checker.lastmods += count - lastmods.count(None)
            if checker.first_lastmod is None:
                checker.first_lastmod = next(value for value in lastmods if value is not None)
            if len(distinct_lastmods) > 1 or checker.first_lastmod not in distinct_lastmods:
                checker.same_lastmod = False
        if distinct_priorities:
            checker.priorities += count - priorities.count(None)
            if checker.first_priority is None:
                checker.first_priority = next(value for value in priorities if value is not None)
            if len(distinct_priorities) > 1 or checker.first_priority not in distinct_priorities:
                checker.same_priority = False
        return True

    def _links(self, tails: tuple[str, ...] | list[str]) -> list[list[tuple[str, str]]]:
        """Each entry's ``(hreflang, href)``; a value with a finding (HREF-02) or a character
        reference sends the file to the full checker."""
        links = [_LINKS(tail) if tail else [] for tail in tails]
        checker = self.checker
        cache = checker.hreflang_cache
        for hreflang in {value for own in links for value, _ in own}:
            findings = cache.get(hreflang)
            if findings is None:
                findings = checker._hreflang(hreflang)
            if findings or "&" in hreflang or "\t" in hreflang or "\n" in hreflang:
                raise GiveUp
        hrefs = "\x00".join(href for own in links for _, href in own)
        if "\t" in hrefs or "\n" in hrefs:
            raise GiveUp  # expat turns them into spaces in attribute values
        return links

    def _record_links(
        self,
        locs: list[str],
        run: list[re.Match[str]],
        links: list[list[tuple[str, str]]],
        base: int,
    ) -> None:
        """Hand the entries with links to the run's hreflang sets, at their ``<loc>``
        (placeholder lines, as for findings)."""
        checker = self.checker
        chosen = [position for position, own in enumerate(links) if own]
        if not chosen:
            return
        if checker.alternates_file < 0:
            checker.alternates_file = checker.alternates.add_file(
                checker.collector.file, checker.reread
            )
        here = -1 - base + 5
        checker.alternates.add_batch(
            checker.alternates_file,
            [locs[position].strip() for position in chosen],
            [here - run[position].start(1) for position in chosen],
            [links[position] for position in chosen],
        )

    def _inside(self, prefix: str) -> Callable[[str], object]:
        """A test that every "<"-separated URL is a clean URL (as the loc fast path means it)
        starting with ``prefix``: one regular expression over the whole run."""
        if prefix != self.prefix:
            self.prefix = prefix
            if _CLEAN_URL(prefix) and prefix.endswith("/"):
                one = re.escape(prefix) + _URL_TAIL
                self.prefix_test = re.compile(f"{one}(?:<{one})*").fullmatch
            else:
                self.prefix_test = _never
        return self.prefix_test

    def _one_by_one(self, run: list[re.Match[str]], base: int) -> None:
        checker = self.checker
        checked = checker.checked
        locations = checker.locations
        assert locations is not None
        check_loc = locations.check
        special = _SPECIAL
        limit = checker.max_entries
        here = -1 - base  # placeholder line of the buffer's first character
        checker.value_column = 0
        for found in run:
            checked.urls += 1
            if checked.urls > limit:
                checker.entry_line = here - found.string.index("<url>", found.start())
                checker.entry_column = 0
                checker._entry_problems({})
            loc, lastmod, changefreq, priority, extensions = found.groups()
            if extensions and extensions.count(":image>") > 2 * MAX_IMAGES_PER_URL:
                raise GiveUp  # SM-IMG-02: the full checker says where
            if special(loc):
                loc = _unescape(loc)
            url = check_loc(loc, here - found.start(1) + 5, 0)
            if extensions:
                links = self._links([extensions])
                if links[0]:
                    self._record_links([url], [found], links, base)
            if lastmod is not None:
                if special(lastmod):
                    lastmod = _unescape(lastmod)
                checker.value_line = here - found.start(2) + 9
                checker._lastmod(lastmod)
            if changefreq is not None:
                checker.value_line = here - found.start(3) + 12
                checker._changefreq(_unescape(changefreq) if special(changefreq) else changefreq)
            if priority is not None:
                checker.value_line = here - found.start(4) + 10
                checker._priority(_unescape(priority) if special(priority) else priority)
