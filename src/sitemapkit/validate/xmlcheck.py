"""The streaming XML checker: one pass of expat over a sitemap, index or feed.

expat gives the line *and* column of every event and keeps memory flat however large the
file; entity declarations, external entities and DTD loading are refused or never enabled.
The handlers are written for speed (a 50 MiB sitemap is about half a million elements):
state lives in a few attributes, dispatch is by depth and a dict lookup, and text is
collected only for the elements whose value is checked.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final
from xml.parsers import expat

from ..errors import ParseError, UnsafeContentError
from ..model import (
    IMAGE_NS,
    MAX_IMAGES_PER_URL,
    MAX_NEWS_URLS,
    NEWS_NS,
    PROTOCOL_084,
    PROTOCOL_09,
    VIDEO_NS,
    XHTML_NS,
    Profile,
)
from ..urls import join_url
from . import extension_values  # noqa: F401  (registers the extension value checks)
from .alternates import Reread
from .extensions import DEPRECATION_RULES, EXTENSION_RULES, MODELS, ROOTS, Model, display_name
from .locations import LocationChecker, Tree
from .report import Collector
from .rules import (
    Finding,
    Severity,
    attribute_checks,
    check_changefreq,
    check_lastmod,
    check_priority,
    value_checks,
)

__all__ = ["CheckedFile", "check_xml"]

_NS_09: Final = PROTOCOL_09.namespace
_NS_084: Final = PROTOCOL_084.namespace
_XSI: Final = "http://www.w3.org/2001/XMLSchema-instance"
_ATOM_10: Final = "http://www.w3.org/2005/Atom"
_ATOM_03: Final = "http://purl.org/atom/ns#"
_MAX_DEPTH: Final = 256
_CACHE_LIMIT: Final = 50_000
_SAME_LASTMOD_MIN: Final = 20
_HTTP_URL: Final = re.compile(r"https?://[^/?#]", re.IGNORECASE)
_ABSOLUTE: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_UTF16_BOMS: Final = (b"\xff\xfe", b"\xfe\xff")
_EXPAT_ENCODINGS: Final = frozenset({"utf-8", "utf8", "utf-16", "iso-8859-1", "us-ascii"})

_CORE: Final = ("loc", "lastmod", "changefreq", "priority")
_VIDEO: Final = f"{VIDEO_NS} video"
_IMAGE: Final = f"{IMAGE_NS} image"
_NEWS: Final = f"{NEWS_NS} news"
_VIDEO_MEDIA: Final = frozenset({f"{VIDEO_NS} content_loc", f"{VIDEO_NS} player_loc"})
_VIDEO_TAG: Final = f"{VIDEO_NS} tag"
_HREFLANG_KEY: Final = f"{{{XHTML_NS}}}link"
_ENTITY_NAMES: Final = {"'": "&apos;", '"': "&quot;", ">": "&gt;"}
_ESCAPING_ERRORS: Final = frozenset(
    expat.errors.codes[message]
    for message in (
        expat.errors.XML_ERROR_INVALID_TOKEN,
        expat.errors.XML_ERROR_UNDEFINED_ENTITY,
        expat.errors.XML_ERROR_BAD_CHAR_REF,
    )
)
_INVALID_TOKEN: Final = expat.errors.codes[expat.errors.XML_ERROR_INVALID_TOKEN]


def _warning_if(legacy: bool) -> Severity | None:
    return Severity.WARNING if legacy else None


class _Stop(Exception):
    """Raised inside a handler to end the parse (refused content)."""

    def __init__(self, rule: str, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.rule, self.message, self.line, self.column = rule, message, line, column


@dataclass(slots=True)
class CheckedFile:
    """What a pass over one file learnt besides its findings."""

    kind: str | None = None
    urls: int = 0
    bytes: int = 0
    children: list[tuple[str, int, int]] = field(default_factory=list)


class _Frame:
    """An open extension element: its model and how far its children got in the sequence."""

    __slots__ = ("column", "count", "line", "media", "model", "plain", "seen")

    def __init__(self, model: Model | None, line: int, column: int) -> None:
        self.model = model
        self.line = line
        self.column = column
        self.count = 0
        self.seen = -1
        self.media = False
        # A leaf whose end needs no more than the E-02 look at its text (set per checker).
        self.plain = model is None


def _expat_reads(encoding: str) -> bool:
    """Whether expat can decode ``encoding``: pyexpat raises on unknown or multi-byte codecs.

    pyexpat asks Python's codec for a 256-byte table, so a name Python does not know, a
    multi-byte codec or a non-text codec ends the parse with an exception, not an XML error.
    """
    if encoding.lower() in _EXPAT_ENCODINGS:
        return True
    try:
        table = bytes(range(256)).decode(encoding, "replace")
    except (LookupError, ValueError):
        return False
    return len(table) == 256


class _Checker:
    def __init__(
        self,
        collector: Collector,
        checked: CheckedFile,
        *,
        location: str | None,
        tree: Tree,
        top_level: bool,
    ) -> None:
        self.collector = collector
        self.add = collector.add
        self.checked = checked
        self.location = location
        self.tree = tree
        self.top_level = top_level
        parser = expat.ParserCreate(namespace_separator=" ")
        parser.buffer_text = True
        parser.buffer_size = 1 << 16
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.XmlDeclHandler = self._xml_declaration
        parser.EntityDeclHandler = self._entity_declaration
        parser.StartElementHandler = self._start_root
        parser.EndElementHandler = self._end
        self.texts: list[str] = []
        parser.CharacterDataHandler = self.texts.append
        self.parser = parser
        _mark_plain_leaves()
        self.declared = False
        self.declared_encoding: str | None = None
        self.chunk = b""
        self.chunk_start = 0
        self.feed_position = (0, 0)
        self.depth = 0
        self.profile: Profile = PROTOCOL_09
        self.legacy = False
        self.ns = _NS_09
        self.root_line = self.root_column = 1
        self.locations: LocationChecker | None = None
        # per <url>/<sitemap>
        self.stage = 0
        self.extended = False
        self.has_loc = False
        self.images = 0
        self.entry_line = self.entry_column = 0
        self.capture = 0
        self.value_line = self.value_column = 0
        self.frames: list[_Frame] = []
        self.page: str | None = None
        self.page_line = self.page_column = 0
        self.links: list[tuple[str, str]] = []
        # per file
        self.alternates = tree.alternates
        self.alternates_file = -1
        #: Opens the file again (set for files on disk; the fast lane's positions need it).
        self.reread: Reread | None = None
        self.hreflang_cache: dict[str, list[Finding]] = {}
        self.news_urls = 0
        self.unknown_namespaces: set[str] = set()
        self.lastmod_cache: dict[str, list[Finding]] = {}
        self.priority_cache: dict[str, list[Finding]] = {}
        self.lastmods = 0
        self.first_lastmod: str | None = None
        self.same_lastmod = True
        self.priorities = 0
        self.first_priority: str | None = None
        self.same_priority = True
        self.feed_link: str | None = None
        self.feed_link_rank = 0
        self.core_names: dict[str, int] = {}
        self.entry_name = ""
        self.max_entries = 0
        self.root_models: dict[str, Model] = {}
        self.index = False
        self.flush_every = 4096

    # -- feeding ----------------------------------------------------------------------------

    def run(self, chunks: Iterable[bytes]) -> None:
        parser = self.parser
        checked = self.checked
        first = True
        try:
            for chunk in chunks:
                if first:
                    first = False
                    if chunk.startswith(b"\xef\xbb\xbf"):
                        self.add("SM-F04", "the file starts with a UTF-8 byte order mark", 1, 1)
                    elif chunk.startswith(_UTF16_BOMS):
                        self.add("SM-F02", "the file is UTF-16, not UTF-8", 1, 1)
                self.chunk, self.chunk_start = chunk, checked.bytes
                checked.bytes += len(chunk)
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
        except expat.ExpatError as error:
            self._parse_error(error)
            return
        except _Stop as stop:
            self.add(stop.rule, stop.message, stop.line, stop.column)
            return
        except UnsafeContentError as error:
            self._limit_stop(error)
            return
        except ParseError as error:
            self.add(
                "SM-F01", error.message, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1
            )
            return
        self._finish()

    def _limit_stop(self, error: UnsafeContentError) -> None:
        rule = "SM-I04" if self.checked.kind == "sitemapindex" else "SM-F05"
        self.add(
            rule,
            f"{error.message}; stopped reading",
            self.parser.CurrentLineNumber,
            self.parser.CurrentColumnNumber + 1,
        )

    def _parse_error(self, error: expat.ExpatError) -> None:
        line, column = error.lineno, error.offset + 1
        message = expat.errors.messages.get(error.code, str(error))
        if error.code == _INVALID_TOKEN and self._bad_utf8_at():
            self.add("SM-F02", "the bytes are not valid UTF-8 here", line, column)
            return
        model = self.frames[-1].model if self.frames else None
        in_text = self.capture or (model is not None and model.text)
        if in_text and error.code in _ESCAPING_ERRORS:
            if self.capture == 1:
                self.add(
                    "SM-L04",
                    f"<loc> holds a raw '&' or '<' ({message}); write &amp; and &lt;",
                    line,
                    column,
                )
            else:
                self.add(
                    "SM-E01",
                    f"a value holds a raw '&' or '<' ({message}); write &amp; and &lt;",
                    line,
                    column,
                )
            return
        self.add("SM-F01", f"not well-formed XML: {message}", line, column)

    def _bad_utf8_at(self) -> bool:
        if self.declared_encoding not in (None, "utf-8", "utf8"):
            return False
        offset = self.parser.ErrorByteIndex - self.chunk_start
        if not 0 <= offset < len(self.chunk):
            return False
        try:
            codecs.getincrementaldecoder("utf-8")().decode(self.chunk[offset : offset + 4])
        except UnicodeDecodeError:
            return True
        return False

    def _xml_declaration(self, version: str | None, encoding: str | None, standalone: int) -> None:
        self.declared = True
        self.declared_encoding = encoding.lower() if encoding else None
        if encoding is None:
            self.add(
                "SM-F03",
                "the XML declaration names no encoding; write "
                '<?xml version="1.0" encoding="UTF-8"?>',
                1,
                1,
            )
        elif not _expat_reads(encoding):
            raise _Stop(
                "SM-F02",
                f"the XML declaration names encoding {encoding!r}, which cannot be read; "
                "sitemaps must be UTF-8",
                1,
                1,
            )
        elif encoding.lower() not in ("utf-8", "utf8"):
            self.add(
                "SM-F02",
                f"the XML declaration names encoding {encoding!r}; sitemaps must be UTF-8",
                1,
                1,
            )

    def _entity_declaration(self, *args: object) -> None:
        raise _Stop(
            "SM-F01",
            "the DOCTYPE declares entities; refused for safety",
            self.parser.CurrentLineNumber,
            self.parser.CurrentColumnNumber + 1,
        )

    def _position(self) -> tuple[int, int]:
        return self.parser.CurrentLineNumber, self.parser.CurrentColumnNumber + 1

    # -- the root ---------------------------------------------------------------------------

    def _start_root(self, name: str, attributes: dict[str, str]) -> None:
        self.depth = 1
        self.texts.clear()
        line, column = self.root_line, self.root_column = self._position()
        if not self.declared:
            self.add(
                "SM-F03",
                'no XML declaration; start with <?xml version="1.0" encoding="UTF-8"?>',
                1,
                1,
            )
        namespace, _, local = name.rpartition(" ")
        parser = self.parser
        if local in ("urlset", "sitemapindex"):
            self.checked.kind = local
            index = self.index = local == "sitemapindex"
            rule = "SM-I01" if index else "SM-U01"
            if namespace == _NS_084:
                self.profile, self.legacy = PROTOCOL_084, True
            elif namespace != _NS_09:
                shown = f"namespace {namespace!r}" if namespace else "no namespace"
                self.add(
                    rule,
                    f"<{local}> has {shown}; it must be {_NS_09!r} (or the 0.84 "
                    f"namespace {_NS_084!r})",
                    line,
                    column,
                )
            self.ns = namespace
            self.entry_name = f"{namespace} {'sitemap' if index else 'url'}".lstrip()
            self.core_names = {
                f"{namespace} {local}".lstrip(): position for position, local in enumerate(_CORE, 1)
            }
            if index:
                del self.core_names[f"{namespace} changefreq".lstrip()]
                del self.core_names[f"{namespace} priority".lstrip()]
            self.max_entries = self.profile.max_sitemaps if index else self.profile.max_urls
            self.locations = LocationChecker(
                self.collector,
                location=self.location,
                tree=self.tree,
                flush_every=self.flush_every,
                index=index,
                legacy=self.legacy,
            )
            if not index and not self.legacy:
                self.root_models = {root: MODELS[root] for root in ROOTS}
            self._check_root_attributes(attributes, index, line, column)
            if self.top_level and self.location:
                self._check_placement("SM-S01", line, column)
            parser.StartElementHandler = self._start_sitemap
        elif (local == "rss" and not namespace) or (
            local == "feed" and namespace in (_ATOM_10, _ATOM_03)
        ):
            self.checked.kind = "rss" if local == "rss" else "atom"
            self.locations = LocationChecker(self.collector, location=self.location, tree=self.tree)
            self.add(
                "SM-D03",
                "a feed lists only recent URLs; it is not a full-site sitemap",
                line,
                column,
            )
            if self.top_level and self.location:
                self._check_placement("SM-S02", line, column)
            parser.StartElementHandler = self._start_feed
            parser.EndElementHandler = self._end_feed
        else:
            self.add(
                "SM-U01",
                f"the root element is <{display_name(name)}>, not <urlset> or "
                "<sitemapindex> (nor an RSS or Atom feed)",
                line,
                column,
            )
            parser.StartElementHandler = self._start_ignored
            parser.EndElementHandler = self._end_ignored

    def _check_root_attributes(
        self, attributes: dict[str, str], index: bool, line: int, column: int
    ) -> None:
        for attribute, value in attributes.items():
            if attribute == f"{_XSI} schemaLocation":
                expected = "siteindex.xsd" if index else "sitemap.xsd"
                pairs = value.split()
                ok = any(
                    pairs[i] == self.ns and pairs[i + 1].endswith(expected)
                    for i in range(0, len(pairs) - 1, 2)
                )
                if not ok:
                    self.add(
                        "SM-V04",
                        f"xsi:schemaLocation {value!r} does not pair {self.ns} with its {expected}",
                        line,
                        column,
                    )
            elif not attribute.startswith(_XSI):
                self._bad_attribute(attribute, line, column)

    def _bad_attribute(self, attribute: str, line: int, column: int) -> None:
        self.add(
            "SM-U05", f"attribute {display_name(attribute)!r} is not allowed here", line, column
        )

    def _check_placement(self, rule: str, line: int, column: int) -> None:
        assert self.location is not None
        match = re.match(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*(/[^?#]*)?", self.location)
        path = (match.group(1) or "/") if match else "/"
        if path.count("/") > 1:
            self.add(
                rule,
                f"{self.location} is not at the server root; it can only list URLs "
                f"under {path[: path.rfind('/') + 1]}",
                line,
                column,
            )

    def _start_ignored(self, name: str, attributes: dict[str, str]) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Stop(
                "SM-F01",
                f"elements nested deeper than {_MAX_DEPTH} levels; refused",
                *self._position(),
            )

    def _end_ignored(self, name: str) -> None:
        self.depth -= 1
        self.texts.clear()

    # -- urlset and sitemapindex ------------------------------------------------------------

    def _start_sitemap(self, name: str, attributes: dict[str, str]) -> None:
        depth = self.depth = self.depth + 1
        texts = self.texts
        if texts:
            if len(texts) == 1 and texts[0].isspace():
                texts.clear()
            else:
                self._stray_text(depth - 1)
        frames = self.frames
        if frames:
            # The common case inline: a plain leaf, next in its parent's sequence.
            frame = frames[-1]
            model = frame.model
            if model is not None and depth <= _MAX_DEPTH:
                fast = model.fast.get(name)
                if fast is not None:
                    step = fast[0]
                    seen = frame.seen
                    if step == seen + 1 and (seen < 0 or frame.count >= model.children[seen][1]):
                        frame.seen = step
                        frame.count = 1
                        frames.append(fast[1])  # type: ignore[arg-type]
                        return
            self._deep(name, attributes, frames)
        elif depth == 3:
            position = self.core_names.get(name)
            if position is not None:
                if position > self.stage and not self.extended and not attributes:
                    self.stage = position
                    self.capture = position
                    if position == 1:
                        self.has_loc = True
                    parser = self.parser
                    self.value_line = parser.CurrentLineNumber
                    self.value_column = parser.CurrentColumnNumber + 1
                    return
                self._core(position, name, attributes)
                return
            model = self.root_models.get(name)
            if model is None:
                self._entry_child(name, attributes)
                return
            self.extended = True
            name = model.name
            if name == _LINK:
                href = attributes.get("href")
                hreflang = attributes.get("hreflang")
                if (
                    href
                    and hreflang
                    and href.startswith(("https://", "http://"))
                    and attributes.get("rel") == "alternate"
                ):
                    findings = self.hreflang_cache.get(hreflang)
                    if findings is None:
                        findings = self._hreflang(hreflang)
                    if findings:
                        self._findings(findings, *self._position())
                    self.links.append((hreflang, href))
                else:
                    self._attributes(model, attributes, *self._position())
                    if href and hreflang and attributes.get("rel") == "alternate":
                        self.links.append((hreflang, href))
                frames.append(_LINK_FRAME)
                return
            parser = self.parser
            line, column = parser.CurrentLineNumber, parser.CurrentColumnNumber + 1
            if name == _IMAGE:
                self.images += 1
                if self.images == MAX_IMAGES_PER_URL + 1:
                    self.add(
                        "SM-IMG-02",
                        f"more than {MAX_IMAGES_PER_URL:,} <image:image> in one <url>",
                        line,
                        column,
                    )
            elif name == _NEWS:
                self.news_urls += 1
                if self.news_urls == MAX_NEWS_URLS + 1:
                    self.add(
                        "SM-NEWS-02",
                        f"more than {MAX_NEWS_URLS:,} news URLs in one "
                        "sitemap; split them and use an index",
                        line,
                        column,
                    )
            frames.append(_Frame(model, line, column))
        elif depth == 2:
            if name == self.entry_name:
                checked = self.checked
                checked.urls += 1
                self.stage = 0
                self.extended = False
                self.has_loc = False
                self.images = 0
                self.page = None
                parser = self.parser
                self.entry_line = parser.CurrentLineNumber
                self.entry_column = parser.CurrentColumnNumber + 1
                if attributes or checked.urls > self.max_entries:
                    self._entry_problems(attributes)
            else:
                self._top_child(name, attributes)
        else:
            self._deep(name, attributes, frames)

    def _entry_problems(self, attributes: dict[str, str]) -> None:
        checked = self.checked
        line, column = self.entry_line, self.entry_column
        if attributes:
            for attribute in attributes:
                self._bad_attribute(attribute, line, column)
        if checked.urls == self.max_entries + 1:
            if checked.kind == "sitemapindex":
                self.add(
                    "SM-I03",
                    f"more than {self.max_entries:,} <sitemap> entries "
                    f"(protocol {self.profile.version})",
                    line,
                    column,
                )
            else:
                self.add("SM-F06", f"more than {self.max_entries:,} <url> entries", line, column)

    def _core(self, position: int, name: str, attributes: dict[str, str]) -> None:
        line = self.value_line = self.parser.CurrentLineNumber
        column = self.value_column = self.parser.CurrentColumnNumber + 1
        self.capture = position
        if attributes:
            for attribute in attributes:
                self._bad_attribute(attribute, line, column)
        stage = self.stage
        if position > stage and not self.extended:
            self.stage = position
            if position == 1:
                self.has_loc = True
            return
        index = self.checked.kind == "sitemapindex"
        local = _CORE[position - 1]
        if position == 1:
            rule = "SM-I02" if index else "SM-U02"
            if self.has_loc:
                self.add(rule, "more than one <loc> in this entry", line, column)
            else:
                rule = "SM-I02" if index else ("SM-U06" if self.extended else "SM-U04")
                self.add(
                    rule,
                    "<loc> must come first",
                    line,
                    column,
                    _warning_if(self.legacy and not self.extended),
                )
            self.has_loc = True
            return
        rule = "SM-I02" if index else "SM-U04"
        if position == stage:
            self.add(rule, f"more than one <{local}> in this entry", line, column)
        elif self.extended:
            self.add(
                "SM-I02" if index else "SM-U06",
                f"<{local}> after extension elements; extensions come after the core elements",
                line,
                column,
            )
        else:
            severity = _warning_if(self.legacy)
            self.add(
                rule,
                f"<{local}> is out of order: the order is "
                f"{', '.join(_CORE[: 4 if not index else 2])}",
                line,
                column,
                severity,
            )

    def _entry_child(self, name: str, attributes: dict[str, str]) -> None:
        namespace, _, local = name.rpartition(" ")
        line, column = self._position()
        index = self.checked.kind == "sitemapindex"
        if namespace == self.ns:
            self.add(
                "SM-I02" if index else "SM-U05",
                f"<{local}> is not an element of the sitemap schema",
                line,
                column,
            )
            self.frames.append(_Frame(None, line, column))
            return
        if not namespace:
            self.add(
                "SM-U06",
                f"<{local}> has no namespace; extension elements need their own",
                line,
                column,
            )
            self.frames.append(_Frame(None, line, column))
            return
        self.extended = True
        if index or self.legacy:
            self._unknown_namespace(namespace, name, line, column)
            self.frames.append(_Frame(None, line, column))
            return
        self._extension_root(name, namespace, attributes, line, column)

    def _unknown_namespace(self, namespace: str, name: str, line: int, column: int) -> None:
        if namespace not in self.unknown_namespaces:
            self.unknown_namespaces.add(namespace)
            where = (
                "in a sitemap index"
                if self.checked.kind == "sitemapindex"
                else "in a 0.84 sitemap"
                if self.legacy
                else ""
            )
            self.add(
                "SM-U07",
                f"<{display_name(name)}>: extension namespace {namespace!r} "
                f"{where or 'is unknown'}; not validated",
                line,
                column,
            )

    def _extension_root(
        self, name: str, namespace: str, attributes: dict[str, str], line: int, column: int
    ) -> None:
        rule = EXTENSION_RULES.get(namespace)
        if rule is None:
            self._unknown_namespace(namespace, name, line, column)
            self.frames.append(_Frame(None, line, column))
            return
        model = MODELS.get(name)
        if name not in ROOTS or model is None:
            self.add(rule, f"<{display_name(name)}> cannot stand directly in <url>", line, column)
            self.frames.append(_Frame(None, line, column))
            return
        self._attributes(model, attributes, line, column)
        self.frames.append(_Frame(model, line, column))

    def _attributes(self, model: Model, attributes: dict[str, str], line: int, column: int) -> None:
        for required in model.required_attributes:
            if not attributes.get(required, "").strip():
                self.add(
                    model.rule,
                    f"<{display_name(model.name)}> needs a {required!r} attribute",
                    line,
                    column,
                )
        if model.rule == "SM-HREF-01":
            self._alternate(attributes, line, column)
        for checked in model.checked_attributes:
            value = attributes.get(checked)
            if value is None or (not value.strip() and checked in model.required_attributes):
                continue  # missing or blank and required: the structural rule said so
            for check in attribute_checks(model.value_key, checked):
                self._findings(check(value, self.page), line, column)
        for deprecated in model.deprecated_attributes:
            if deprecated in attributes:
                namespace = model.name.rpartition(" ")[0]
                self.add(
                    DEPRECATION_RULES[namespace],
                    f"{display_name(model.name)}@{deprecated}"
                    " is deprecated and has no effect since 2022-08-06",
                    line,
                    column,
                )

    def _alternate(self, attributes: dict[str, str], line: int, column: int) -> None:
        rel = attributes.get("rel")
        if rel is not None and rel != "alternate":
            self.add(
                "SM-HREF-01",
                f'<xhtml:link> has rel="{rel}"; hreflang links use rel="alternate"',
                line,
                column,
            )
        href = attributes.get("href", "").strip()
        if href and not href.startswith(("https://", "http://")) and not _HTTP_URL.match(href):
            self.add(
                "SM-HREF-01",
                f"<xhtml:link> href {href[:200]!r} is not a fully-qualified http(s) URL",
                line,
                column,
            )

    def _top_child(self, name: str, attributes: dict[str, str]) -> None:
        namespace, _, local = name.rpartition(" ")
        line, column = self._position()
        index = self.checked.kind == "sitemapindex"
        if index and name == f"{self.ns} url".lstrip():
            self.add(
                "SM-I01",
                "a <sitemapindex> cannot hold <url>; list sitemaps with <sitemap>",
                line,
                column,
            )
        elif namespace == self.ns:
            self.add(
                "SM-I01" if index else "SM-U05",
                f"<{local}> cannot stand in <{self.checked.kind}>",
                line,
                column,
            )
        elif not namespace:
            self.add(
                "SM-U06",
                f"<{local}> has no namespace; extension elements need their own",
                line,
                column,
            )
        elif self.checked.urls:
            self.add(
                "SM-U06",
                f"<{display_name(name)}> after the first entry; extension "
                f"elements of <{self.checked.kind}> must come before it",
                line,
                column,
            )
        elif not index and not self.legacy:
            self._extension_root(name, namespace, attributes, line, column)
            return
        else:
            self._unknown_namespace(namespace, name, line, column)
        self.frames.append(_Frame(None, line, column))

    def _deep(self, name: str, attributes: dict[str, str], frames: list[_Frame]) -> None:
        if self.depth > _MAX_DEPTH:
            raise _Stop(
                "SM-F01",
                f"elements nested deeper than {_MAX_DEPTH} levels; refused",
                *self._position(),
            )
        if not frames:
            # An element inside loc, lastmod, changefreq or priority.
            line, column = self._position()
            if self.depth == 4 and self.capture:
                parent = _CORE[self.capture - 1]
                self.add(
                    "SM-I02" if self.checked.kind == "sitemapindex" else "SM-U05",
                    f"<{display_name(name)}> cannot stand inside <{parent}>",
                    line,
                    column,
                )
                self.capture = 0
            frames.append(_Frame(None, line, column))
            return
        frame = frames[-1]
        model = frame.model
        if model is None:
            frames.append(_IGNORED)
            return
        position = model.index.get(name)
        if position is None:
            line, column = self._position()
            if model.children:
                message = f"<{display_name(name)}> cannot stand inside <{display_name(model.name)}>"
            else:
                message = (
                    f"<{display_name(model.name)}> cannot hold elements; found "
                    f"<{display_name(name)}>"
                )
            self.add(model.rule, message, line, column)
            frames.append(_Frame(None, line, column))
            return
        seen = frame.seen
        if position == seen + 1 and (seen < 0 or frame.count >= model.children[seen][1]):
            frame.seen = position
            frame.count = 1
        else:
            self._sequence_step(frame, model, position, *self._position())
        if name in _VIDEO_MEDIA:
            frame.media = True
        child = MODELS[name]
        if child.special or child.deprecated:
            line, column = self._position()
            if child.deprecated:
                namespace = name.rpartition(" ")[0]
                self.add(
                    DEPRECATION_RULES[namespace],
                    f"<{display_name(name)}> is deprecated and has no effect since 2022-08-06",
                    line,
                    column,
                )
            self._attributes(child, attributes, line, column)
        if child.children:
            frames.append(_Frame(child, *self._position()))
        else:
            frames.append(_LEAF_FRAMES[name])

    def _sequence_step(
        self, frame: _Frame, model: Model, position: int, line: int, column: int
    ) -> None:
        children = model.children
        if position == frame.seen:
            frame.count += 1
            if frame.count > children[position][2]:
                self.add(
                    "SM-VID-14" if children[position][0] == _VIDEO_TAG else model.rule,
                    f"too many <{display_name(children[position][0])}> in "
                    f"<{display_name(model.name)}> (at most {children[position][2]})",
                    line,
                    column,
                )
            return
        if position < frame.seen:
            self.add(
                model.rule,
                f"<{display_name(children[position][0])}> is out of order in "
                f"<{display_name(model.name)}>: it must come before "
                f"<{display_name(children[frame.seen][0])}>",
                line,
                column,
            )
            return
        self._missing(frame, model, frame.seen, position, line, column)
        frame.seen = position
        frame.count = 1

    def _missing(
        self, frame: _Frame, model: Model, seen: int, upto: int, line: int, column: int
    ) -> None:
        children = model.children
        start = seen
        if seen >= 0 and frame.count >= children[seen][1]:
            start = seen + 1
        for position in range(max(start, 0), upto):
            if children[position][1] > (frame.count if position == seen else 0):
                self.add(
                    model.rule,
                    f"<{display_name(model.name)}> lacks <{display_name(children[position][0])}>",
                    line,
                    column,
                )

    def _end(self, name: str) -> None:
        depth = self.depth
        self.depth = depth - 1
        texts = self.texts
        position = self.capture
        if position and depth == 3:
            if texts:
                text = texts[0] if len(texts) == 1 else "".join(texts)
                texts.clear()
            else:
                text = ""
            self.capture = 0
            if "'" in text or '"' in text or ">" in text:
                self._raw_specials(text, self.value_line, self.value_column)
            if position == 1:
                if self.index:
                    self._index_loc(text)
                else:
                    self.page = self.locations.check(text, self.value_line, self.value_column)  # type: ignore[union-attr]
                    self.page_line, self.page_column = self.value_line, self.value_column
            elif position == 2:
                self._lastmod(text)
            elif position == 3:
                self._changefreq(text)
            else:
                self._priority(text)
            return
        frames = self.frames
        if frames:
            frame = frames.pop()
            if frame.plain:
                if texts:
                    text = texts[0] if len(texts) == 1 else "".join(texts)
                    texts.clear()
                    if frame.model is not None and (
                        "'" in text or '"' in text or ">" in text or not frame.model.text
                    ):
                        self._leaf_text(frame.model, text)
                return
            self._end_frame(frame)
        elif depth == 2:
            if texts:
                self._stray_text(2)
            if not self.has_loc:
                self._close_entry()
            if self.links:
                self._record_links()
        elif depth == 1 and texts:
            self._stray_text(1)
        texts.clear()

    def _findings(self, findings: list[Finding], line: int, column: int) -> None:
        for rule, message, severity in findings:
            self.add(rule, message, line, column, severity)

    def _hreflang(self, hreflang: str) -> list[Finding]:
        """HREF-02 on one value, remembered (a site uses a handful of them)."""
        findings: list[Finding] = []
        for check in attribute_checks(_HREFLANG_KEY, "hreflang"):
            findings += check(hreflang, None)
        if len(self.hreflang_cache) > _CACHE_LIMIT:
            self.hreflang_cache.clear()
        self.hreflang_cache[hreflang] = findings
        return findings

    def _record_links(self) -> None:
        """Hand one ``<url>``'s hreflang links to the run's sets (HREF-03)."""
        links, self.links = self.links, []
        if self.page is None:
            return
        if self.alternates_file < 0:
            self.alternates_file = self.alternates.add_file(self.collector.file, self.reread)
        self.alternates.add(
            self.alternates_file,
            self.page,
            self.page_line,
            self.page_column,
            [(hreflang.strip(), href.strip()) for hreflang, href in links],
        )

    def _raw_specials(self, text: str, line: int, column: int) -> None:
        """E-02: the value holds ' " or >; were they escaped in the bytes? (rare path)"""
        chunk = self.chunk
        stop = self.parser.CurrentByteIndex - self.chunk_start
        start = chunk.rfind(b"<", 0, stop) if 0 < stop <= len(chunk) else -1
        if start < 0:
            return
        segment = chunk[start:stop]
        if segment.startswith(b"<![CDATA["):
            return
        quote = 0
        for position, byte in enumerate(segment):
            if quote:
                if byte == quote:
                    quote = 0
            elif byte in (0x22, 0x27):
                quote = byte
            elif byte == 0x3E:
                raw = segment[position + 1 :]
                break
        else:
            return
        for char in ("'", '"', ">"):
            if char in text and char.encode() in raw:
                self.add(
                    "SM-E02",
                    f"raw {char!r} in a value; the protocol escapes it as {_ENTITY_NAMES[char]}",
                    line,
                    column,
                )

    def _index_loc(self, text: str) -> None:
        assert self.locations is not None
        url = self.locations.check(text, self.value_line, self.value_column)
        if len(self.checked.children) <= self.max_entries:
            self.checked.children.append((url, self.value_line, self.value_column))

    def _lastmod(self, text: str) -> None:
        findings = self.lastmod_cache.get(text)
        if findings is None:
            if len(self.lastmod_cache) > _CACHE_LIMIT:
                self.lastmod_cache.clear()
            findings = self.lastmod_cache[text] = check_lastmod(text, self.legacy)
        for rule, message, severity in findings:
            self.add(rule, message, self.value_line, self.value_column, severity)
        self.lastmods += 1
        if self.same_lastmod and text != self.first_lastmod:
            if self.first_lastmod is None:  # M-08 bookkeeping: does any lastmod differ?
                self.first_lastmod = text
            else:
                self.same_lastmod = False

    def _changefreq(self, text: str) -> None:
        for rule, message, severity in check_changefreq(text):
            self.add(rule, message, self.value_line, self.value_column, severity)

    def _priority(self, text: str) -> None:
        findings = self.priority_cache.get(text)
        if findings is None:
            if len(self.priority_cache) > _CACHE_LIMIT:
                self.priority_cache.clear()
            findings = self.priority_cache[text] = check_priority(text)
        for rule, message, severity in findings:
            self.add(rule, message, self.value_line, self.value_column, severity)
        self.priorities += 1
        if self.first_priority is None:
            self.first_priority = text
        elif self.same_priority and text != self.first_priority:
            self.same_priority = False

    def _close_entry(self) -> None:
        if not self.has_loc:
            if self.checked.kind == "sitemapindex":
                self.add("SM-I02", "<sitemap> has no <loc>", self.entry_line, self.entry_column)
            else:
                self.add("SM-U02", "<url> has no <loc>", self.entry_line, self.entry_column)

    def _leaf_text(self, model: Model, text: str) -> None:
        """Text in a plain leaf that needs a look: raw ' " > (E-02), or text where none goes."""
        line, column = self._position()
        if model.text:
            self._raw_specials(text, line, column)
        elif not text.isspace():
            self.add(model.rule, f"<{display_name(model.name)}> cannot hold text", line, column)

    def _end_frame(self, frame: _Frame) -> None:
        model = frame.model
        texts = self.texts
        if model is None:
            texts.clear()
            return
        if texts:
            text = "".join(texts)
            texts.clear()
            line, column = (frame.line, frame.column) if frame.line else self._position()
            if not model.text:
                if not text.isspace():
                    self.add(
                        model.rule, f"<{display_name(model.name)}> cannot hold text", line, column
                    )
            else:
                if "'" in text or '"' in text or ">" in text:
                    self._raw_specials(text, line, column)
                for check in value_checks(model.value_key):
                    for rule, message, severity in check(text, self.legacy):
                        self.add(rule, message, line, column, severity)
        children = model.children
        if children:
            seen = frame.seen
            if (seen >= 0 and frame.count < children[seen][1]) or model.required_after[seen + 1]:
                self._missing(frame, model, seen, len(children), frame.line, frame.column)
            if model.name == _VIDEO and not frame.media:
                self.add(
                    "SM-VID-02",
                    "<video:video> needs <video:content_loc> or <video:player_loc>",
                    frame.line,
                    frame.column,
                )

    def _stray_text(self, depth: int) -> None:
        texts = self.texts
        text = "".join(texts)
        texts.clear()
        if text.isspace():
            return
        line, column = self._position()
        frames = self.frames
        if frames and depth >= 3:
            model = frames[-1].model
            if model is not None and not model.text:
                self.add(model.rule, f"<{display_name(model.name)}> cannot hold text", line, column)
            return
        if depth in (1, 2):
            rule = "SM-U05" if self.checked.kind == "urlset" else "SM-I02"
            if depth == 1 and self.checked.kind == "sitemapindex":
                rule = "SM-I01"
            self.add(rule, f"text {text.strip()[:60]!r} is not allowed here", line, column)

    # -- feeds ------------------------------------------------------------------------------

    def _start_feed(self, name: str, attributes: dict[str, str]) -> None:
        depth = self.depth = self.depth + 1
        self.texts.clear()
        if depth > _MAX_DEPTH:
            raise _Stop(
                "SM-F01",
                f"elements nested deeper than {_MAX_DEPTH} levels; refused",
                *self._position(),
            )
        namespace, _, local = name.rpartition(" ")
        kind = self.checked.kind
        entry_depth = 3 if kind == "rss" else 2
        if depth == entry_depth and local == ("item" if kind == "rss" else "entry"):
            self.checked.urls += 1
            self.entry_line, self.entry_column = self._position()
            self.feed_link = None
            self.feed_link_rank = 0
            if self.checked.urls == self.profile.max_urls + 1:
                self.add(
                    "SM-F06",
                    f"more than {self.profile.max_urls:,} items",
                    self.entry_line,
                    self.entry_column,
                )
        elif depth == entry_depth + 1 and self.entry_line:
            self.value_line, self.value_column = self._position()
            if kind == "rss" and local in ("link", "guid") and not namespace:
                permalink = attributes.get("isPermaLink", "true") != "false"
                self.capture = 1 if local == "link" else (2 if permalink else 0)
            elif kind == "atom" and local == "link":
                rel = attributes.get("rel")
                rank = 3 if rel is None else (2 if rel == "alternate" else 0)
                href = attributes.get("href", "")
                if rank > self.feed_link_rank and href.strip():
                    self.feed_link_rank = rank
                    self.feed_link = href
                    self.feed_position = self.value_line, self.value_column

    def _end_feed(self, name: str) -> None:
        depth = self.depth
        self.depth = depth - 1
        kind = self.checked.kind
        entry_depth = 3 if kind == "rss" else 2
        texts = self.texts
        if depth == entry_depth + 1 and self.capture:
            text = "".join(texts).strip()
            rank = 2 if self.capture == 1 else 1
            if text and rank > self.feed_link_rank:
                self.feed_link_rank = rank
                self.feed_link = text
                self.feed_position = self.value_line, self.value_column
            self.capture = 0
        elif (
            depth == entry_depth
            and self.entry_line
            and (name.rpartition(" ")[2] == ("item" if kind == "rss" else "entry"))
        ):
            self._finish_feed_entry()
            self.entry_line = 0
        texts.clear()

    def _finish_feed_entry(self) -> None:
        assert self.locations is not None
        if self.feed_link is None:
            self.add("SM-D01", "feed item has no usable link", self.entry_line, self.entry_column)
            return
        link = self.feed_link
        line, column = self.feed_position
        if self.location and not _ABSOLUTE.match(link.strip()):
            link = join_url(self.location, link.strip()) or link
        self.locations.check(link, line, column)

    # -- end of file --------------------------------------------------------------------------

    def _finish(self) -> None:
        checked = self.checked
        kind = checked.kind
        line, column = self.root_line, self.root_column
        if kind in ("urlset", "sitemapindex"):
            if checked.urls == 0:
                if kind == "urlset":
                    self.add(
                        "SM-U03", "<urlset> has no <url>", line, column, _warning_if(self.legacy)
                    )
                else:
                    self.add("SM-I01", "<sitemapindex> lists no <sitemap>", line, column)
            if checked.bytes > self.profile.max_bytes:
                self.add(
                    "SM-I04" if kind == "sitemapindex" else "SM-F05",
                    f"the file is {checked.bytes:,} bytes uncompressed; the limit is "
                    f"{self.profile.max_bytes:,} (protocol {self.profile.version})",
                    line,
                    column,
                )
            if kind == "urlset":
                self._uniformity(line, column)
        elif kind in ("rss", "atom") and checked.bytes > self.profile.max_bytes:
            self.add(
                "SM-F05",
                f"the feed is {checked.bytes:,} bytes uncompressed; the limit "
                f"is {self.profile.max_bytes:,}",
                line,
                column,
            )
        if self.locations is not None:
            self.locations.finish()

    def _uniformity(self, line: int, column: int) -> None:
        urls = self.checked.urls
        if (
            urls >= _SAME_LASTMOD_MIN
            and self.lastmods == urls
            and self.same_lastmod
            and self.first_lastmod is not None
            and "T" in self.first_lastmod
        ):
            self.add(
                "SM-M08",
                f"all {urls:,} URLs have lastmod {self.first_lastmod.strip()!r}: "
                "lastmod should be when each page changed, not when the sitemap was built",
                line,
                column,
            )
        if urls >= 2 and self.priorities == urls and self.same_priority:
            assert self.first_priority is not None
            self.add(
                "SM-P03",
                f"all {urls:,} URLs have priority {self.first_priority.strip()}; "
                "a priority only means something relative to others",
                line,
                column,
            )


_IGNORED: Final = _Frame(None, 0, 0)
# Leaves have no state of their own: one shared frame each; messages use the end position.
_LEAF_FRAMES: Final = {
    name: _Frame(model, 0, 0) for name, model in MODELS.items() if not model.children
}
_LINK: Final = f"{XHTML_NS} link"
_LINK_FRAME: Final = _LEAF_FRAMES[_LINK]
for _model in MODELS.values():
    for _child, (_position, _frame) in (
        (child, (model_position, _LEAF_FRAMES[child]))
        for model_position, (child, _, _) in enumerate(_model.children)
        if child in _LEAF_FRAMES
    ):
        _leaf = _frame.model
        assert _leaf is not None
        if not (_leaf.special or _leaf.deprecated or _child in _VIDEO_MEDIA):
            _model.fast[_child] = (_position, _frame)


def _mark_plain_leaves() -> None:
    """A leaf is plain when no value check is registered for it (issue 7 adds some)."""
    for frame in _LEAF_FRAMES.values():
        model = frame.model
        assert model is not None
        frame.plain = not value_checks(model.value_key)


def check_xml(
    chunks: Iterable[bytes],
    collector: Collector,
    *,
    location: str | None = None,
    tree: Tree | None = None,
    top_level: bool = True,
) -> CheckedFile:
    """Check one XML document given as byte chunks; findings go to ``collector``."""
    checked = CheckedFile()
    _Checker(collector, checked, location=location, tree=tree or Tree(), top_level=top_level).run(
        chunks
    )
    return checked
