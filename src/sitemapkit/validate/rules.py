"""The rule registry: every rule of PROTOCOL.md a file can break, and the value checks.

Each rule has a stable ID (``SM-`` + the PROTOCOL.md ID; the Google extension rules of
PROTOCOL.md section 5 carry no ID there and get ``SM-IMG-``, ``SM-VID-``, ``SM-NEWS-``,
``SM-HREF-`` and ``SM-MOB-``), a default severity, a one-line meaning and the sentence of the
protocol behind it. Structural rules are enforced by the streaming checker
(:mod:`sitemapkit.validate.xmlcheck`); value rules are small pure functions registered here
with :func:`value_check`, keyed by the element they read, so new ones slot in without
touching the checker.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Final

from ..model import CHANGEFREQS
from ..urls import iri_to_uri

__all__ = [
    "RULES",
    "Finding",
    "Rule",
    "Severity",
    "check_changefreq",
    "check_lastmod",
    "check_loc",
    "check_priority",
    "value_check",
    "value_checks",
]


class Severity(StrEnum):
    """``error`` breaks the protocol; ``warning`` is best practice or one engine's own rule."""

    ERROR = "error"
    WARNING = "warning"


ERROR: Final = Severity.ERROR
WARNING: Final = Severity.WARNING


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: ID, default severity, what it means and the protocol text behind it."""

    id: str
    severity: Severity
    title: str
    spec: str
    note: str = ""


RULES: dict[str, Rule] = {}


def _rule(rule_id: str, severity: Severity, title: str, spec: str, note: str = "") -> None:
    RULES[rule_id] = Rule(rule_id, severity, title, spec, note)


# -- 2.1 file, encoding, size --------------------------------------------------------------
_rule(
    "SM-F01",
    ERROR,
    "The file is not well-formed XML (or declares entities, which is refused).",
    "F-01: An XML sitemap or index must be well-formed XML 1.0; a parse failure is fatal.",
    "A DOCTYPE that declares entities is refused for safety and reported here.",
)
_rule(
    "SM-F02",
    ERROR,
    "The file is not UTF-8, or its XML declaration names another encoding.",
    "F-02: The bytes must be UTF-8; an XML declaration naming any other encoding is an error "
    "(the same holds for index and text files).",
)
_rule(
    "SM-F03",
    WARNING,
    "No XML declaration with an encoding at the top of the file.",
    'F-03: Start with `<?xml version="1.0" encoding="UTF-8"?>` (every official example does).',
)
_rule(
    "SM-F04",
    WARNING,
    "The file starts with a UTF-8 byte order mark.",
    "F-04: A UTF-8 BOM is legal XML but some consumers mishandle it; flag it, don't reject.",
)
_rule(
    "SM-F05",
    ERROR,
    "The uncompressed sitemap is larger than the protocol allows.",
    "F-05: Uncompressed size ≤ 52,428,800 bytes; legacy/0.84 profile ≤ 10,485,760 bytes.",
)
_rule(
    "SM-F06",
    ERROR,
    "More than 50,000 <url> entries in one sitemap.",
    "F-06: ≤ 50,000 `<url>` per sitemap file (also ≤ 50,000 lines in a text sitemap).",
)
# -- 2.2 urlset / url ----------------------------------------------------------------------
_rule(
    "SM-U01",
    ERROR,
    "The root element is not <urlset> in the sitemap namespace.",
    "U-01: The root must be `urlset` in namespace `http://www.sitemaps.org/schemas/sitemap/0.9` "
    "(or the 0.84 namespace in legacy mode); compare the URI exactly.",
)
_rule("SM-U02", ERROR, "A <url> has no <loc>.", "U-02: Every `<url>` has exactly one `<loc>`.")
_rule(
    "SM-U03",
    ERROR,
    "The <urlset> has no <url> (a warning for 0.84).",
    "U-03: At least one `<url>`: the XSD has `minOccurs=1`. Make it E in strict mode, "
    "W in lenient mode.",
)
_rule(
    "SM-U04",
    ERROR,
    "The children of <url> are out of order or repeated (a warning for 0.84).",
    "U-04: Children of `<url>` come in order `loc, lastmod, changefreq, priority`, each at most "
    "once, then extension elements. The 2006/0.84 XSDs used `xsd:all`, so lenient mode "
    "should give a W.",
)
_rule(
    "SM-U05",
    ERROR,
    "An element, attribute or text the sitemap schema does not declare.",
    "U-05: Undeclared elements in the sitemap namespace (e.g. `<url><title>`).",
)
_rule(
    "SM-U06",
    ERROR,
    "An extension element without a namespace, or in the wrong place.",
    "U-06: Extension elements must be in a namespace other than the sitemap namespace and not "
    "un-namespaced (`##other`). In `urlset` they may only appear before the first `<url>`; "
    "in `<url>`, only after the four core elements.",
)
_rule(
    "SM-U07",
    WARNING,
    "An extension namespace sitemapkit does not know was not validated.",
    "U-07: Validate known namespaces (image, video, news, xhtml, mobile) by the rules of their "
    'XSDs; report unknown namespaces as "not validated" (W), not E.',
)
# -- 2.3 loc -------------------------------------------------------------------------------
_rule(
    "SM-L01",
    ERROR,
    "A <loc> is not an absolute http or https URL.",
    'L-01: Absolute URL starting with the scheme ("must begin with the protocol (such as http)").',
)
_rule(
    "SM-L02",
    ERROR,
    "A <loc> is 2,048 characters or longer, or shorter than 12 (exactly 2,048 is a warning).",
    'L-02: The text says "less than 2,048 characters". The XSD says length 12…2048. So length '
    "> 2048 or < 12 is E, and exactly 2048 is W (text/XSD off by one).",
)
_rule(
    "SM-L03",
    ERROR,
    "A <loc> is not a valid URI: raw space, forbidden character, bad %-escape, bad host or port.",
    "L-03: Must be a valid URI (RFC 3986) or IRI (RFC 3987). libxml2 accepts a literal space "
    "in `anyURI`, so check the syntax in code.",
)
_rule(
    "SM-L04",
    ERROR,
    "A raw & or < inside <loc> makes the file malformed.",
    "L-04: In XML it must be entity-escaped (`&` → `&amp;`, `<` → `&lt;`); an unescaped `&` "
    "makes the file malformed.",
)
_rule(
    "SM-L05",
    ERROR,
    "A <loc> holds raw non-ASCII characters instead of UTF-8 percent-encoding.",
    "L-05: It should be URL-escaped. Non-ASCII becomes UTF-8 percent-encoding: "
    "`…/ümlat.php` → `…/%C3%BCmlat.php`.",
    "PROTOCOL.md rates a raw IRI a warning; issue 4 makes it an error, which wins here.",
)
_rule(
    "SM-L07",
    ERROR,
    "The URLs of one sitemap are on more than one host.",
    "L-07: Every URL in one sitemap is on a single host (e.g. `www.example.com` or "
    "`store.example.com`, not both).",
)
_rule(
    "SM-L08",
    ERROR,
    "A URL lies outside the sitemap's scope (scheme, host, port, folder).",
    "L-08: Scope, when the sitemap's own URL is known. Each URL must use the same scheme, be on "
    "the same host, use the same port and start with the directory of the sitemap.",
)
_rule(
    "SM-L11",
    WARNING,
    "The same <loc> appears twice in a sitemap or in one tree.",
    "L-11: Duplicate `loc` within one sitemap (or across the sitemaps of one index).",
)
# -- 2.4 lastmod ---------------------------------------------------------------------------
_rule(
    "SM-M01",
    ERROR,
    "A <lastmod> is not a W3C Datetime.",
    'M-01: Must parse as a W3C Datetime ("should be in W3C Datetime format").',
)
_rule(
    "SM-M02",
    ERROR,
    "A <lastmod> is an impossible date or time (month 13, February 30).",
    "M-02: Must be a real calendar value (month 13, Feb 30 → error).",
)
_rule(
    "SM-M03",
    ERROR,
    "A <lastmod> time has no time zone.",
    "M-03: A time without a timezone (`2005-01-01T18:00:15`) is an error: W3C requires TZD and "
    'Google reports "invalid date". The 2008 XSD accepts it, so check it explicitly.',
)
_rule(
    "SM-M04",
    ERROR,
    "A <lastmod> uses a W3C form the 0.9 schema rejects (YYYY, YYYY-MM, "
    "hh:mm without seconds; a warning for 0.84).",
    "M-04: W3C-valid forms that the 2008 XSD rejects: `YYYY`, `YYYY-MM`, `YYYY-MM-DDThh:mmTZD`. "
    "Generators must not emit them.",
)
_rule(
    "SM-M05",
    WARNING,
    "A <lastmod> date carries a time zone (xsd:date, not W3C Datetime).",
    "M-05: A date carrying a zone (`2005-01-01Z`, `2005-01-01+02:00`) passes `xsd:date` but is "
    "not W3C Datetime.",
)
_rule(
    "SM-M06",
    WARNING,
    "A <lastmod> uses T24:00:00.",
    "M-06: `T24:00:00` passes libxml2's `xsd:dateTime` (XSD 1.0 end-of-day); normalise or warn.",
)
_rule(
    "SM-M07",
    WARNING,
    "A <lastmod> is in the future.",
    "M-07: A future date: Google stopped reporting it as an error in 2006, but it is suspicious.",
)
_rule(
    "SM-M08",
    WARNING,
    "Every <lastmod> carries the same timestamp: probably the build time.",
    "M-08: lastmod must be the page's last modification, not the sitemap build time "
    "(heuristic: every entry has the same timestamp).",
    "Reported when at least 20 entries all share one timestamp that includes a time.",
)
# -- 2.5 changefreq, priority --------------------------------------------------------------
_rule(
    "SM-C01",
    ERROR,
    "A <changefreq> is not one of the seven values.",
    "C-01: `changefreq` is exactly one of `always, hourly, daily, weekly, monthly, yearly, "
    "never`. The XSD enumeration is case-sensitive and keeps whitespace.",
)
_rule(
    "SM-P01",
    ERROR,
    "A <priority> is not a decimal from 0.0 to 1.0.",
    "P-01: `priority` is an `xsd:decimal` in [0.0, 1.0] inclusive. `.5`, `1.` and `+0.5` are "
    "valid decimals; `5E-1`, `NaN` and `1.5` are not.",
)
_rule(
    "SM-P03",
    WARNING,
    "Every URL has the same priority, which carries no information.",
    'P-03: Every URL at the same priority carries no information ("Setting a priority of 1.0 '
    'for all URLs will not help you").',
)
# -- 2.6 sitemapindex ----------------------------------------------------------------------
_rule(
    "SM-I01",
    ERROR,
    "A <sitemapindex> lists no <sitemap>, or holds a <url>.",
    "I-01: The root must be `sitemapindex` in the 0.9 namespace (or 0.84); it has ≥ 1 "
    "`<sitemap>` (XSD `minOccurs=1`).",
)
_rule(
    "SM-I02",
    ERROR,
    "A <sitemap> entry has no <loc>, or its children are out of order or undeclared.",
    "I-02: Each `<sitemap>` has exactly one `<loc>` and an optional `<lastmod>`, in that order "
    "(2009 XSD), then `##other` extensions.",
)
_rule(
    "SM-I03",
    ERROR,
    "More than 50,000 <sitemap> entries (1,000 for 0.84).",
    'I-03: ≤ 50,000 `<sitemap>` entries ("may not list more than 50,000 Sitemaps"); legacy '
    "(0.84 and the 2006 0.9 XSD) ≤ 1,000.",
)
_rule(
    "SM-I04",
    ERROR,
    "The uncompressed index is larger than the protocol allows.",
    "I-04: Uncompressed size ≤ 52,428,800 bytes (legacy 10,485,760); gzip allowed.",
)
_rule(
    "SM-I05",
    ERROR,
    "An index lists a sitemap on another site.",
    'I-05: An index may only list sitemaps "found on the same site as the Sitemap index file".',
)
_rule(
    "SM-I06",
    WARNING,
    "An index lists a sitemap outside its own folder.",
    "I-06: Google also wants listed sitemaps in the same directory as the index or below.",
)
_rule(
    "SM-I07",
    WARNING,
    "An index lists another index.",
    "I-07: No nesting: an index must not list another index.",
    "PROTOCOL.md rates it E; issue 4 makes nested indexes a warning, which wins here. Seen "
    "only when children are read (--recursive).",
)
# -- 2.7 escaping --------------------------------------------------------------------------
_rule(
    "SM-E01",
    ERROR,
    "A raw & or < in a data value makes the file malformed.",
    "E-01: A literal `&` or `<` in any data value means the XML is not well-formed.",
)
_rule(
    "SM-E02",
    WARNING,
    "A raw ', \" or > in text; the protocol escapes all five characters.",
    "E-02: The protocol's table escapes all five characters. Validators can only see raw "
    "`' \" >` by scanning the bytes: W.",
)
# -- 2.8 location --------------------------------------------------------------------------
_rule(
    "SM-S01",
    WARNING,
    "The sitemap is not at the root of its web server.",
    "S-01: Put the sitemap at the web-server root (e.g. `http://example.com/sitemap.xml`) "
    '("strongly recommended").',
)
_rule(
    "SM-S02",
    WARNING,
    "A text sitemap or feed is not at the root of its web server.",
    "S-02: A text sitemap or feed should sit in the highest-level directory you want crawled, "
    "and must not list URLs from higher directories.",
)
_rule(
    "SM-S03",
    ERROR,
    "A URL on another host, whose robots.txt does not list this sitemap.",
    "S-03: A sitemap on host A may list URLs of host B iff B's `robots.txt` carries "
    "`Sitemap: <that URL on A>`. Without the proof, the URLs fail L-07/L-08.",
)
# -- 2.10 text sitemaps --------------------------------------------------------------------
_rule("SM-T01", ERROR, "A text sitemap is not UTF-8.", "T-01: UTF-8.")
_rule(
    "SM-T02",
    ERROR,
    "A line of a text sitemap holds more than one URL.",
    "T-02: One URL per line; URLs cannot contain embedded newlines.",
)
_rule(
    "SM-T03",
    ERROR,
    "A line of a text sitemap is not a fully specified URL.",
    "T-03: URLs fully specified, including the scheme.",
)
_rule(
    "SM-T04",
    ERROR,
    "A text sitemap has more than 50,000 URLs or 52,428,800 bytes.",
    "T-04: ≤ 50,000 URLs and ≤ 52,428,800 bytes uncompressed (legacy 10MB).",
)
_rule(
    "SM-T05",
    WARNING,
    "A text sitemap holds a comment, header or blank line.",
    "T-05: Nothing but the URL list: no header or footer, no comments. Blank lines are "
    "harmless but W.",
)
# -- 2.11 feeds ----------------------------------------------------------------------------
_rule(
    "SM-D01",
    ERROR,
    "A feed item or entry has no usable link.",
    "D-01: The URL comes from `<link>` (RSS: element text; Atom: `link/@href`).",
    "PROTOCOL.md marks D-01 informative; an item without a link gives no URL, so issue 4 "
    "asks for an error.",
)
_rule(
    "SM-D03",
    WARNING,
    "A feed lists only recent URLs; it is not a full-site sitemap.",
    "D-03: A feed usually lists only recent URLs, so it is not a full-site sitemap.",
)
# -- 2.12 headers --------------------------------------------------------------------------
_rule(
    "SM-V04",
    WARNING,
    "xsi:schemaLocation names the wrong schema.",
    "V-04: `xsi:schemaLocation` is optional, and a wrong one does not change validity; the "
    "validator should use its own built-in rules and never fetch the schemaLocation.",
)
# -- 5 extensions --------------------------------------------------------------------------
_rule(
    "SM-IMG-01",
    ERROR,
    "An image extension element is misplaced, unknown, out of order or lacks <image:loc>.",
    "5.1: Required: `<image:image>` wrapping a required `<image:loc>` (anyURI).",
)
_rule(
    "SM-IMG-02",
    ERROR,
    "More than 1,000 <image:image> in one <url>.",
    "5.1: At most 1,000 `<image:image>` per `<url>`.",
)
_rule(
    "SM-IMG-03",
    WARNING,
    "A deprecated image tag (caption, geo_location, title, license).",
    "5.1: `caption`, `geo_location`, `title` and `license` … were deprecated on 2022-05-06 "
    "and have no effect after 2022-08-06. Flag them with a W.",
)
_rule(
    "SM-VID-01",
    ERROR,
    "A video element is unknown, out of the schema's order, repeated or "
    "missing, or lacks a required attribute.",
    "5.2: The XSD is a strict sequence. Required: `thumbnail_loc`, `title`, `description`; "
    "optional elements in the order listed.",
)
_rule(
    "SM-VID-02",
    ERROR,
    "A <video:video> has neither <video:content_loc> nor <video:player_loc>.",
    '5.2: at least one of `content_loc` / `player_loc`. The XSD cannot express "at least '
    'one", so check it in code.',
)
_rule(
    "SM-VID-03",
    WARNING,
    "A deprecated video tag or attribute.",
    "5.2: Deprecated 2022 (no effect after 2022-08-06): `category`, `player_loc@allow_embed`, "
    "`player_loc@autoplay`, `gallery_loc`, `price`, `tvshow`.",
)
_rule(
    "SM-NEWS-01",
    ERROR,
    "A news element is unknown, out of order, repeated or missing.",
    "5.3: Required, in XSD order: `<news:news>` containing `<news:publication>`; inside it, "
    "`<news:name>` and `<news:language>`; `<news:publication_date>`; `<news:title>`.",
)
_rule(
    "SM-NEWS-02",
    WARNING,
    "More than 1,000 news URLs in one sitemap.",
    "5.3: ≤ 1,000 URLs per news sitemap; split and use an index (W: Google rule).",
)
_rule(
    "SM-HREF-01",
    ERROR,
    'An <xhtml:link> lacks rel="alternate", hreflang or an absolute href, or has content.',
    '5.4: Each `<url>` carries `<xhtml:link rel="alternate" hreflang="<lang>" '
    'href="<absolute URL>"/>`; alternate URLs must be fully qualified.',
)
_rule(
    "SM-MOB-01",
    ERROR,
    "A mobile extension element is unknown or not empty.",
    "5.5: an empty `<mobile:mobile/>` marks a feature-phone URL.",
)
# -- reading a tree ------------------------------------------------------------------------
_rule(
    "SM-FETCH-01",
    ERROR,
    "A sitemap of the tree could not be read or fetched.",
    "I-08: The index `<loc>` may point to an XML sitemap, an RSS/Atom feed or a text file; "
    "validating a tree (--recursive) reads each of them.",
    "Not a PROTOCOL.md rule: a child that cannot be read cannot be checked.",
)


# -- value checks --------------------------------------------------------------------------

#: ``(rule ID, message, severity or None for the rule's default)``
Finding = tuple[str, str, Severity | None]
ValueCheck = Callable[[str, bool], list[Finding]]

_VALUE_CHECKS: dict[str, list[ValueCheck]] = {}


def value_check(element: str) -> Callable[[ValueCheck], ValueCheck]:
    """Register a check of the text of ``element`` (a local name of the sitemap namespace, or
    ``{namespace}local`` for an extension element). A check takes the text and whether the
    file follows the legacy (0.84) profile, and returns its findings."""

    def register(check: ValueCheck) -> ValueCheck:
        _VALUE_CHECKS.setdefault(element, []).append(check)
        return check

    return register


def value_checks(element: str) -> list[ValueCheck]:
    """The checks registered for ``element``."""
    return _VALUE_CHECKS.get(element, [])


def checks_namespace(namespace: str) -> bool:
    """True when a value check is registered for some element of ``namespace``."""
    prefix = f"{{{namespace}}}"
    return any(element.startswith(prefix) for element in _VALUE_CHECKS)


# A loc that matches this and passes the length and %-escape tests needs no closer look.
CLEAN_URL: Final = re.compile(
    r"https?://[A-Za-z0-9.\-]+(?::[0-9]{1,4})?(?:[/?#][A-Za-z0-9\-._~!$&'()*+,;=:@/?#%\[\]]*)?"
)
_BAD_PERCENT: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
# Characters RFC 3986 never allows raw in a URI (besides non-ASCII and controls).
_FORBIDDEN: Final = re.compile(r"[\x00-\x20\"<>\\^`{|}\x7f]")
_HOST: Final = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=%]+|\[[0-9A-Fa-f:.]+\]")


def _describe(char: str) -> str:
    return "a raw space" if char == " " else f"the character {char!r}"


def check_loc(text: str, legacy: bool = False) -> list[Finding]:
    """L-01, L-02, L-03, L-05 on one URL (whitespace around it is ignored, as in xsd:anyURI)."""
    url = text.strip()
    length = len(url)
    if (
        12 <= length < 2048
        and CLEAN_URL.fullmatch(url)
        and ("%" not in url or not _BAD_PERCENT.search(url))
    ):
        return []
    findings: list[Finding] = []
    scheme = _SCHEME.match(url)
    if not url:
        return [("SM-L01", "<loc> is empty", None)]
    if scheme is None:
        findings.append(("SM-L01", f"{_short(url)} is not absolute: it has no scheme", None))
    elif scheme.group(1).lower() not in ("http", "https"):
        findings.append(("SM-L01", f"{_short(url)} is not an http or https URL", None))
    elif not url[scheme.end() :].startswith("//"):
        findings.append(("SM-L01", f"{_short(url)} has no host", None))
    if length > 2048:
        findings.append(
            ("SM-L02", f"URL is {length:,} characters long; it must be less than 2,048", None)
        )
    elif length == 2048:
        findings.append(
            (
                "SM-L02",
                "URL is exactly 2,048 characters long; the protocol says "
                "less than 2,048 (the schema allows it)",
                WARNING,
            )
        )
    elif length < 12:
        findings.append(
            ("SM-L02", f"URL is {length} characters long; the schema's minimum is 12", None)
        )
    if not url.isascii():
        try:
            suggestion = f"; write {_short(iri_to_uri(url))}"
        except ValueError:
            suggestion = ""
        findings.append(
            (
                "SM-L05",
                f"{_short(url)} holds raw non-ASCII characters: they must be "
                f"UTF-8 percent-encoded{suggestion}",
                None,
            )
        )
    forbidden = _FORBIDDEN.search(url)
    if forbidden:
        findings.append(
            (
                "SM-L03",
                f"{_short(url)} holds {_describe(forbidden.group())}, which "
                "must be percent-encoded",
                None,
            )
        )
    bad_percent = _BAD_PERCENT.search(url)
    if bad_percent:
        findings.append(("SM-L03", f"{_short(url)} has a '%' not followed by two hex digits", None))
    if scheme is not None and url[scheme.end() :].startswith("//"):
        findings.extend(_check_authority(url, scheme.end() + 2))
    return findings


def _check_authority(url: str, start: int) -> list[Finding]:
    end = len(url)
    for stop in "/?#":
        position = url.find(stop, start)
        if 0 <= position < end:
            end = position
    authority = url[start:end].rpartition("@")[2]
    if authority.startswith("["):
        host, _, port = authority.partition("]")
        host += "]"
        port = port[1:] if port.startswith(":") else ("x" if port else "")
    else:
        host, _, port = authority.partition(":")
    if not host:
        return [("SM-L01", f"{_short(url)} has an empty host", None)]
    problems: list[Finding] = []
    if host.isascii() and not _HOST.fullmatch(host):
        problems.append(("SM-L03", f"{_short(url)} has an invalid host {host!r}", None))
    if port and (not port.isdigit() or int(port) > 65535):
        problems.append(("SM-L03", f"{_short(url)} has an invalid port {port!r}", None))
    return problems


def _short(text: str, limit: int = 120) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit] + "…")


_W3C: Final = re.compile(
    r"(?P<year>-?\d{4,})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2})"
    r"(?:T(?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?)?"
    r"(?P<zone>Z|[+-]\d{2}:\d{2})?)?)?"
)


def _zone_offset(zone: str) -> timedelta | None:
    if zone == "Z":
        return timedelta(0)
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    if minutes > 59 or hours * 60 + minutes > 14 * 60:
        return None
    offset = timedelta(hours=hours, minutes=minutes)
    return -offset if zone[0] == "-" else offset


def check_lastmod(text: str, legacy: bool = False) -> list[Finding]:
    """M-01 … M-07 on one value (surrounding whitespace is ignored, as in xsd:dateTime)."""
    value = text.strip()
    match = _W3C.fullmatch(value)
    if match is None:
        return [("SM-M01", f"lastmod {_short(value)} is not a W3C Datetime", None)]
    parts = match.groupdict()
    findings: list[Finding] = []
    legacy_severity = WARNING if legacy else None
    has_time = parts["hour"] is not None
    if parts["year"].startswith("-") or len(parts["year"]) > 4:
        return [
            ("SM-M01", f"lastmod {_short(value)} is not a W3C Datetime (four-digit year)", None)
        ]
    if parts["month"] is None or parts["day"] is None:
        findings.append(
            (
                "SM-M04",
                f"lastmod {value!r} (year or year-month only) is W3C but the "
                "0.9 schema rejects it; write YYYY-MM-DD",
                legacy_severity,
            )
        )
    if parts["zone"] is not None and not has_time and parts["day"] is not None:
        findings.append(
            (
                "SM-M05",
                f"lastmod {value!r} is a date with a time zone; W3C Datetime "
                "has zones only on times",
                None,
            )
        )
    if parts["zone"] is not None and parts["day"] is None:
        return [("SM-M01", f"lastmod {_short(value)} is not a W3C Datetime", None)]
    if has_time and parts["second"] is None:
        findings.append(
            (
                "SM-M04",
                f"lastmod {value!r} has no seconds; the 0.9 schema rejects hh:mm, write hh:mm:ss",
                legacy_severity,
            )
        )
    if has_time and parts["zone"] is None:
        findings.append(
            ("SM-M03", f"lastmod {value!r} has a time but no time zone (add Z or ±hh:mm)", None)
        )
    year, month, day = int(parts["year"]), int(parts["month"] or 1), int(parts["day"] or 1)
    zone = _zone_offset(parts["zone"]) if parts["zone"] else timedelta(0)
    if zone is None:
        findings.append(("SM-M02", f"lastmod {value!r} has an impossible time zone offset", None))
        return findings
    try:
        moment = datetime(year, month, day, tzinfo=timezone(zone))
    except ValueError:
        findings.append(("SM-M02", f"lastmod {value!r} is not a real date", None))
        return findings
    if has_time:
        hour, minute = int(parts["hour"]), int(parts["minute"])
        second = int(parts["second"] or 0)
        fraction = parts["fraction"] or ""
        if hour == 24 and minute == 0 and second == 0 and not fraction.strip("0"):
            findings.append(
                ("SM-M06", f"lastmod {value!r} uses 24:00:00; write 00:00:00 of the next day", None)
            )
            hour = 0
            moment += timedelta(days=1)
        if hour > 23 or minute > 59 or second > 59:
            findings.append(("SM-M02", f"lastmod {value!r} is not a real time of day", None))
            return findings
        moment = moment.replace(hour=hour, minute=minute, second=second)
    if moment > datetime.now(UTC) and not any(f[0] == "SM-M02" for f in findings):
        findings.append(("SM-M07", f"lastmod {value!r} is in the future", None))
    return findings


def check_changefreq(text: str, legacy: bool = False) -> list[Finding]:
    """C-01: exact, case-sensitive, no surrounding whitespace (xsd:string enumeration)."""
    if text in CHANGEFREQS:
        return []
    hint = ""
    if text.strip().lower() in CHANGEFREQS:
        hint = f" (write {text.strip().lower()!r}: the value is case- and space-sensitive)"
    return [
        (
            "SM-C01",
            f"changefreq {_short(text)} is not one of always, hourly, daily, weekly, "
            f"monthly, yearly, never{hint}",
            None,
        )
    ]


_DECIMAL: Final = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def check_priority(text: str, legacy: bool = False) -> list[Finding]:
    """P-01: an xsd:decimal lexical form (whitespace collapsed) between 0.0 and 1.0."""
    value = text.strip()
    if not _DECIMAL.fullmatch(value):
        return [("SM-P01", f"priority {_short(value)} is not a decimal number", None)]
    try:
        number = Decimal(value)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        return [("SM-P01", f"priority {_short(value)} is not a decimal number", None)]
    if not Decimal(0) <= number <= Decimal(1):
        return [("SM-P01", f"priority {value} is outside 0.0 to 1.0", None)]
    return []


# The core elements' checks are called directly by the checkers (they are the hot path);
# registering them lists them beside the extension checks that issue 7 adds.
value_check("loc")(check_loc)
value_check("lastmod")(check_lastmod)
value_check("changefreq")(check_changefreq)
value_check("priority")(check_priority)
