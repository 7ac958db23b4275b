"""The value rules of the Google extensions (PROTOCOL.md section 5): lengths, ranges, codes.

Each check is registered on the element (``{namespace}local``) or attribute it reads, so the
streaming checker calls it where that value ends (text) or where its element opens
(attributes). Where the schema has an opinion, the check follows its lexical rules exactly
(``xsd:string`` keeps whitespace, numbers and dates collapse it), so that our verdict and
``xmllint --schema``'s agree; where the protocol asks for more (real ISO codes, time zones,
the news window), the message says so.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Final

from ..model import NEWS_NS, VIDEO_NS, XHTML_NS
from ..urls import host_of, join_url
from .isocodes import COUNTRY_CODES, CURRENCY_CODES
from .rules import (
    WARNING,
    Finding,
    attribute_check,
    check_lastmod,
    current_time,
    value_check,
)

__all__ = ["NEWS_WINDOW", "check_hreflang"]

#: Google News takes articles published in the last two days (PROTOCOL.md 5.3).
NEWS_WINDOW: Final = timedelta(days=2)
MAX_VIDEO_TITLE: Final = 100
MAX_VIDEO_DESCRIPTION: Final = 2_048
MAX_VIDEO_CATEGORY: Final = 256
MAX_VIDEO_DURATION: Final = 28_800
MAX_STOCK_TICKERS: Final = 5


def _video(local: str) -> str:
    return f"{{{VIDEO_NS}}}{local}"


def _news(local: str) -> str:
    return f"{{{NEWS_NS}}}{local}"


def _short(text: str, limit: int = 80) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit] + "…")


# -- lengths (xsd:string maxLength: every character counts, whitespace included) ------------


def _max_length(rule: str, name: str, limit: int) -> None:
    @value_check(_video(name))
    def check(text: str, legacy: bool = False) -> list[Finding]:
        if len(text) <= limit:
            return []
        return [
            (
                rule,
                f"<video:{name}> is {len(text):,} characters long; at most {limit:,} are allowed",
                None,
            )
        ]


_max_length("SM-VID-04", "title", MAX_VIDEO_TITLE)
_max_length("SM-VID-05", "description", MAX_VIDEO_DESCRIPTION)
_max_length("SM-VID-15", "category", MAX_VIDEO_CATEGORY)


# -- numbers (whitespace collapsed, as in xsd:integer and xsd:decimal) -----------------------

_INTEGER: Final = re.compile(r"[+-]?[0-9]+")
_DECIMAL: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def _duration(value: str, what: str) -> list[Finding]:
    text = value.strip()
    if not _INTEGER.fullmatch(text):
        return [("SM-VID-06", f"{what} {_short(text)} is not a whole number of seconds", None)]
    seconds = int(text)
    if seconds < 0 or seconds > MAX_VIDEO_DURATION:
        return [
            (
                "SM-VID-06",
                f"{what} {seconds:,} s is outside 0 to {MAX_VIDEO_DURATION:,} seconds (8 hours)",
                None,
            )
        ]
    if seconds == 0:
        return [("SM-VID-06", f"{what} is 0 s; Google expects 1 to 28,800 seconds", WARNING)]
    return []


@value_check(_video("duration"))
def check_video_duration(text: str, legacy: bool = False) -> list[Finding]:
    """Seconds, 0 to 28,800 (0 a warning)."""
    return _duration(text, "<video:duration>")


@attribute_check(_video("content_segment_loc"), "duration")
def check_segment_duration(value: str, page: str | None) -> list[Finding]:
    return _duration(value, "<video:content_segment_loc> duration")


@value_check(_video("rating"))
def check_rating(text: str, legacy: bool = False) -> list[Finding]:
    value = text.strip()
    if _DECIMAL.fullmatch(value):
        number = Decimal(value)
        if Decimal(0) <= number <= Decimal(5):
            return []
        return [("SM-VID-07", f"<video:rating> {value} is outside 0.0 to 5.0", None)]
    return [("SM-VID-07", f"<video:rating> {_short(value)} is not a decimal number", None)]


def _count(name: str, minimum: int) -> None:
    @value_check(_video(name))
    def check(text: str, legacy: bool = False) -> list[Finding]:
        value = text.strip()
        if _INTEGER.fullmatch(value) and int(value) >= minimum:
            return []
        return [
            (
                "SM-VID-08",
                f"<video:{name}> {_short(value)} is not a whole number from {minimum}",
                None,
            )
        ]


_count("view_count", 0)
_count("season_number", 1)
_count("episode_number", 1)


# -- lists and enumerations (xsd:string: exact, whitespace counts) ---------------------------

_COUNTRY_LIST: Final = re.compile(r"(?:[A-Z]{2}(?: +[A-Z]{2})*)?")
_PLATFORM_LIST: Final = re.compile(r"(?:(?:web|mobile|tv)(?: (?:web|mobile|tv))*)?")
_YES_NO: Final = frozenset({"yes", "Yes", "YES", "no", "No", "NO"})


@value_check(_video("restriction"))
def check_restriction(text: str, legacy: bool = False) -> list[Finding]:
    """Space-separated ISO 3166-1 alpha-2 codes."""
    if not _COUNTRY_LIST.fullmatch(text):
        return [
            (
                "SM-VID-09",
                f"<video:restriction> {_short(text)} is not a list of two-letter capital "
                "country codes separated by spaces",
                None,
            )
        ]
    unknown = [code for code in text.split() if code not in COUNTRY_CODES]
    if unknown:
        hint = " (the United Kingdom is GB)" if "UK" in unknown else ""
        return [
            (
                "SM-VID-09",
                f"<video:restriction> lists {', '.join(unknown[:5])}: not ISO 3166-1 "
                f"alpha-2 country codes{hint}",
                None,
            )
        ]
    return []


@value_check(_video("platform"))
def check_platform(text: str, legacy: bool = False) -> list[Finding]:
    if _PLATFORM_LIST.fullmatch(text):
        return []
    return [
        (
            "SM-VID-11",
            f"<video:platform> {_short(text)} is not a list of web, mobile and tv "
            "separated by single spaces",
            None,
        )
    ]


def _relationship(name: str) -> None:
    @attribute_check(_video(name), "relationship")
    def check(value: str, page: str | None) -> list[Finding]:
        if value in ("allow", "deny"):
            return []
        return [
            (
                "SM-VID-12",
                f'<video:{name}> relationship="{value}" must be "allow" or "deny"',
                None,
            )
        ]


_relationship("restriction")
_relationship("platform")


def _yes_no(value: str, what: str) -> list[Finding]:
    if value in _YES_NO:
        return []
    hint = ""
    if value.strip().lower() in ("true", "1"):
        hint = " (write yes)"
    elif value.strip().lower() in ("false", "0"):
        hint = " (write no)"
    elif value.strip() in _YES_NO:
        hint = f" (write {value.strip()!r}: no spaces around it)"
    return [("SM-VID-13", f"{what} {_short(value)} is not yes or no{hint}", None)]


def _yes_no_element(name: str) -> None:
    @value_check(_video(name))
    def check(text: str, legacy: bool = False) -> list[Finding]:
        return _yes_no(text, f"<video:{name}>")


for _name in ("family_friendly", "requires_subscription", "live"):
    _yes_no_element(_name)


@attribute_check(_video("player_loc"), "allow_embed")
def check_allow_embed(value: str, page: str | None) -> list[Finding]:
    return _yes_no(value, "<video:player_loc> allow_embed")


@attribute_check(_video("price"), "currency")
def check_currency(value: str, page: str | None) -> list[Finding]:
    """ISO 4217: three capital letters, and a current code."""
    if not re.fullmatch(r"[A-Z]{3}", value):
        return [
            (
                "SM-VID-10",
                f"<video:price> currency {_short(value)} is not three capital letters "
                "(an ISO 4217 code such as EUR or USD)",
                None,
            )
        ]
    if value not in CURRENCY_CODES:
        return [
            (
                "SM-VID-10",
                f"<video:price> currency {value!r} is not a current ISO 4217 code",
                None,
            )
        ]
    return []


def _price_enumeration(attribute: str, allowed: tuple[str, ...]) -> None:
    @attribute_check(_video("price"), attribute)
    def check(value: str, page: str | None) -> list[Finding]:
        if value in allowed or (value.lower() in allowed and value == value.upper()):
            return []
        return [
            (
                "SM-VID-10",
                f"<video:price> {attribute} {_short(value)} is not "
                f"{' or '.join(allowed)} (lower or upper case)",
                None,
            )
        ]


_price_enumeration("type", ("purchase", "rent"))
_price_enumeration("resolution", ("sd", "hd"))

_VIDEO_TYPES: Final = ("full", "preview", "clip", "interview", "news", "other")
_ID_TYPES: Final = ("tms:series", "tms:program", "rovi:series", "rovi:program", "freebase", "url")


@value_check(_video("video_type"))
def check_video_type(text: str, legacy: bool = False) -> list[Finding]:
    if text in _VIDEO_TYPES:
        return []
    return [
        (
            "SM-VID-18",
            f"<video:video_type> {_short(text)} is not one of {', '.join(_VIDEO_TYPES)}",
            None,
        )
    ]


@attribute_check(_video("id"), "type")
def check_id_type(value: str, page: str | None) -> list[Finding]:
    if value in _ID_TYPES or not value.strip():  # an empty one is SM-VID-01's
        return []
    return [
        (
            "SM-VID-18",
            f'<video:id> type="{value}" is not one of {", ".join(_ID_TYPES)}',
            None,
        )
    ]


def _same_domain(one: str, other: str) -> bool:
    one, other = one.removeprefix("www."), other.removeprefix("www.")
    return one == other or one.endswith("." + other) or other.endswith("." + one)


@attribute_check(_video("uploader"), "info")
def check_uploader_info(value: str, page: str | None) -> list[Finding]:
    """Google: the info URL must be on the domain of the page (a warning here)."""
    if page is None:
        return []
    url = value.strip()
    joined = join_url(page, url)
    info_host = "" if joined is None else host_of(joined)
    page_host = host_of(page)
    if not info_host or not page_host or _same_domain(info_host, page_host):
        return []
    return [
        (
            "SM-VID-16",
            f"<video:uploader> info {_short(url, 120)} is on {info_host!r}, not on the "
            f"page's domain {page_host!r}",
            None,
        )
    ]


# -- dates ----------------------------------------------------------------------------------


def _date(text: str, label: str, rule: str) -> list[Finding]:
    """W3C date or date-time in the forms the schemas' date | dateTime union accepts."""
    findings: list[Finding] = []
    for lastmod_rule, message, severity in check_lastmod(text):
        if lastmod_rule == "SM-M07":
            continue  # a date in the future is fine here (expiration, premieres)
        level = WARNING if lastmod_rule in ("SM-M05", "SM-M06") else severity
        message = message.replace("lastmod", label, 1).replace("the 0.9 schema", "the schema")
        findings.append((rule, message, level))
    return findings


def _video_date(name: str) -> None:
    @value_check(_video(name))
    def check(text: str, legacy: bool = False) -> list[Finding]:
        return _date(text, f"<video:{name}>", "SM-VID-17")


for _name in ("expiration_date", "publication_date", "premier_date"):
    _video_date(_name)


def _moment(text: str) -> datetime | None:
    """The instant a valid news date names (a date alone: its midnight UTC), or None."""
    value = text.strip()
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


@value_check(_news("publication_date"))
def check_news_date(text: str, legacy: bool = False) -> list[Finding]:
    """W3C, and published within the last two days (a warning)."""
    findings = _date(text, "<news:publication_date>", "SM-NEWS-04")
    if any(severity is None for _, _, severity in findings):
        return findings
    moment = _moment(text)
    now = current_time()
    if moment is not None and moment < now - NEWS_WINDOW:
        age = now - moment
        findings.append(
            (
                "SM-NEWS-05",
                f"the article was published {age.days:,} days ago ({text.strip()}); news "
                "sitemaps list only the last two days",
                None,
            )
        )
    return findings


# -- news -----------------------------------------------------------------------------------

_LANGUAGE: Final = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}")
_GENRE: Final = "(?:PressRelease|Satire|Blog|OpEd|Opinion|UserGenerated)"
_GENRES: Final = re.compile(f"{_GENRE}(?:, *{_GENRE})*")


@value_check(_news("language"))
def check_news_language(text: str, legacy: bool = False) -> list[Finding]:
    if _LANGUAGE.fullmatch(text):
        return []
    hint = ""
    lowered = text.strip().lower()
    if _LANGUAGE.fullmatch(lowered):
        hint = f" (write {lowered!r})"
    elif _LANGUAGE.fullmatch(lowered.partition("-")[0]):
        hint = f" (write {lowered.partition('-')[0]!r}: only zh-cn and zh-tw carry a region)"
    return [
        (
            "SM-NEWS-03",
            f"<news:language> {_short(text)} is not an ISO 639 code of 2 or 3 lower-case "
            f"letters, zh-cn or zh-tw{hint}",
            None,
        )
    ]


@value_check(_news("access"))
def check_news_access(text: str, legacy: bool = False) -> list[Finding]:
    if text in ("Subscription", "Registration"):
        return []
    return [
        (
            "SM-NEWS-06",
            f"<news:access> {_short(text)} is not Subscription or Registration",
            None,
        )
    ]


@value_check(_news("genres"))
def check_news_genres(text: str, legacy: bool = False) -> list[Finding]:
    if _GENRES.fullmatch(text):
        return []
    return [
        (
            "SM-NEWS-06",
            f"<news:genres> {_short(text)} is not a comma-separated list of PressRelease, "
            "Satire, Blog, OpEd, Opinion, UserGenerated",
            None,
        )
    ]


def _xsd_word(text: str) -> bool:
    """``\\w+`` of XML Schema regular expressions: no punctuation, separator or control."""
    return bool(text) and all(unicodedata.category(char)[0] not in "PZC" for char in text)


@value_check(_news("stock_tickers"))
def check_stock_tickers(text: str, legacy: bool = False) -> list[Finding]:
    """At most five ``EXCHANGE:SYMBOL``, separated by a comma and optional spaces."""
    if not text:
        return []
    tickers = re.split(r", *", text)
    malformed = []
    for ticker in tickers:
        exchange, colon, symbol = ticker.partition(":")
        if not (colon and _xsd_word(exchange) and _xsd_word(symbol)):
            malformed.append(ticker)
    if malformed:
        return [
            (
                "SM-NEWS-07",
                f"<news:stock_tickers> {_short(malformed[0])} is not written EXCHANGE:SYMBOL "
                "(tickers are separated by a comma and optional spaces)",
                None,
            )
        ]
    if len(tickers) > MAX_STOCK_TICKERS:
        return [
            (
                "SM-NEWS-07",
                f"<news:stock_tickers> lists {len(tickers)} tickers; at most "
                f"{MAX_STOCK_TICKERS} are allowed",
                None,
            )
        ]
    return []


# -- hreflang -------------------------------------------------------------------------------

# RFC 5646 language tags (the "langtag" production), with an ISO 639 language of two or three
# letters: the registry has no longer language subtags, and grandfathered tags are not taken.
_LANGTAG: Final = re.compile(
    r"(?P<language>[a-z]{2,3}(?:-[a-z]{3}){0,3})"
    r"(?:-(?P<script>[a-z]{4}))?"
    r"(?:-(?P<region>[a-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*"
    r"(?:-[0-9a-wy-z](?:-[a-z0-9]{2,8})+)*"
    r"(?:-x(?:-[a-z0-9]{1,8})+)?",
    re.IGNORECASE,
)


def check_hreflang(value: str, page: str | None = None) -> list[Finding]:
    """A BCP 47 language tag (with an assigned ISO 3166-1 region, if any) or ``x-default``.

    >>> check_hreflang("en-GB"), check_hreflang("x-default")
    ([], [])
    >>> [rule for rule, _, _ in check_hreflang("en_US") + check_hreflang("en-UK")]
    ['SM-HREF-02', 'SM-HREF-02']
    """
    value = value.strip()  # xsd:language collapses whitespace
    if value.lower() == "x-default":
        return []
    match = _LANGTAG.fullmatch(value)
    if match is None:
        hint = " (write a hyphen, not an underscore)" if "_" in value else ""
        return [
            (
                "SM-HREF-02",
                f"hreflang {_short(value)} is not a language code such as en, en-GB or "
                f"zh-Hant, nor x-default{hint}",
                None,
            )
        ]
    region = match.group("region")
    if region and region.isalpha() and region.upper() not in COUNTRY_CODES:
        hint = " (the United Kingdom is GB)" if region.upper() == "UK" else ""
        return [
            (
                "SM-HREF-02",
                f"hreflang {value!r}: {region!r} is not an ISO 3166-1 alpha-2 region{hint}",
                None,
            )
        ]
    return []


attribute_check(f"{{{XHTML_NS}}}link", "hreflang")(check_hreflang)
