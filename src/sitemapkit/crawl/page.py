"""What a crawler needs from one fetched page: links to follow and whether to list it.

:func:`read_page` parses the (size-capped) body once with ``lxml.html`` and collects the
links of ``<a href>``, ``<area href>``, ``<frame src>`` and ``<iframe src>`` resolved against
``<base href>``, the canonical URL, the title, images and hreflang alternates. The robots
``noindex`` meta tag is read by :func:`~sitemapkit.sources.directory.is_noindex_html`, the
same test the folder source applies; :func:`header_directives` reads ``X-Robots-Tag``.
Nothing here normalises URLs: the crawler does that, exactly as the writer does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from lxml import etree
from lxml import html as lxml_html

from ..sources.directory import is_noindex_html
from ..urls import join_url

__all__ = ["PageInfo", "header_directives", "link_header_canonical", "read_page"]

_LINK_TAGS: Final = {"a": "href", "area": "href", "frame": "src", "iframe": "src"}
_ROBOT_NAMES: Final = frozenset({"robots", "googlebot"})
# X-Robots-Tag directives whose own value holds a colon: not a user-agent prefix.
_VALUED_DIRECTIVES: Final = frozenset(
    {"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"}
)
_HEAD_END = re.compile(rb"</head\s*>|<body[\s>]", re.IGNORECASE)
_HEAD_LIMIT: Final = 256 * 1024
_LINK_CANONICAL = re.compile(r"""<\s*([^>]*)\s*>\s*;[^,]*\brel\s*=\s*"?canonical\b""", re.I)
_PARSERS: dict[str | None, lxml_html.HTMLParser] = {}


@dataclass(slots=True)
class PageInfo:
    """The parts of an HTML page a crawl uses; URLs are absolute but not yet normalised."""

    links: list[str] = field(default_factory=list)
    noindex: bool = False
    nofollow: bool = False
    canonical: str | None = None
    title: str | None = None
    images: list[str] = field(default_factory=list)
    alternates: list[tuple[str, str]] = field(default_factory=list)


def header_directives(values: Iterable[str], agents: frozenset[str] = _ROBOT_NAMES) -> set[str]:
    """The ``X-Robots-Tag`` directives that apply to us: unprefixed ones and those for
    ``robots`` or ``googlebot`` (the same audience as the meta tags we honour).

    >>> sorted(header_directives(["noarchive", "otherbot: noindex", "googlebot: nofollow"]))
    ['noarchive', 'nofollow']
    """
    found: set[str] = set()
    for value in values:
        agent: str | None = None
        for part in value.split(","):
            directive = part.strip().lower()
            name, colon, rest = directive.partition(":")
            if colon and name.strip() not in _VALUED_DIRECTIVES:
                agent, directive = name.strip(), rest.strip()
            if directive and (agent is None or agent in agents):
                found.add(directive)
    return found


def link_header_canonical(values: Iterable[str], url: str) -> str | None:
    """The target of a ``Link: <...>; rel="canonical"`` header (how PDFs name theirs).

    >>> link_header_canonical(['<https://a.example/doc.pdf>; rel="canonical"'], "https://a.example/x")
    'https://a.example/doc.pdf'
    """
    for value in values:
        match = _LINK_CANONICAL.search(value)
        if match:
            return join_url(url, str(match.group(1)).strip())
    return None


def _origin(url: str) -> str:
    """``scheme://authority`` of an absolute URL (empty when there is none)."""
    scheme_end = url.find("://")
    if scheme_end < 0:
        return ""
    path_start = url.find("/", scheme_end + 3)
    return url if path_start < 0 else url[:path_start]


def _joiner(base: str) -> Callable[[str], str | None]:
    """``urljoin(base, href)`` with shortcuts for the two forms most links take: absolute
    URLs and absolute paths. Anything unusual goes to ``urljoin``; normalisation follows
    either way, so dot segments and fragments are dealt with there."""
    origin = _origin(base)

    def join(href: str) -> str | None:
        if href.startswith(("http://", "https://")):
            return href
        if origin and href.startswith("/") and not href.startswith("//"):
            return origin + href
        return join_url(base, href)

    return join


def _parser(encoding: str | None) -> lxml_html.HTMLParser:
    parser = _PARSERS.get(encoding)
    if parser is None:
        parser = lxml_html.HTMLParser(
            encoding=encoding, remove_comments=True, remove_pis=True, no_network=True
        )
        _PARSERS[encoding] = parser
    return parser


def _robots_meta(content: str) -> set[str]:
    return {part.strip().lower() for part in content.split(",")}


def read_page(
    body: bytes,
    url: str,
    *,
    encoding: str | None = None,
    follow_nofollow: bool = False,
    images: bool = False,
    alternates: bool = False,
) -> PageInfo:
    """Parse ``body`` (the page at ``url``) into a :class:`PageInfo`.

    Links with ``rel="nofollow"`` are left out unless ``follow_nofollow``; a robots meta tag
    with ``nofollow`` or ``none`` sets :attr:`PageInfo.nofollow` (the caller decides).

    >>> page = read_page(b'<base href="/d/"><a href="x.html#top">x</a><title> T </title>',
    ...                  "https://a.example/p")
    >>> page.links, page.title
    (['https://a.example/d/x.html#top'], 'T')
    """
    head = _HEAD_END.search(body, 0, _HEAD_LIMIT)
    info = PageInfo(noindex=is_noindex_html(body[: head.end() if head else _HEAD_LIMIT]))
    try:
        root = lxml_html.document_fromstring(body, parser=_parser(encoding))
    except (etree.ParserError, ValueError, LookupError):
        try:  # an unknown or wrong declared encoding: let libxml2 guess
            root = lxml_html.document_fromstring(body, parser=_parser(None))
        except (etree.ParserError, ValueError):
            return info  # empty or not HTML at all
    base = url
    for element in root.iter("base"):
        href = element.get("href")
        if href and href.strip():
            base = join_url(url, href.strip()) or url
            break
    join = _joiner(base)
    for element in root.iter("a", "area", "frame", "iframe", "link", "meta", "img", "title"):
        tag = element.tag
        attribute = _LINK_TAGS.get(tag) if isinstance(tag, str) else None
        if attribute is not None:
            target = element.get(attribute)
            if not target:
                continue
            if not follow_nofollow and "nofollow" in (element.get("rel") or "").lower().split():
                continue
            link = join(target.strip())
            if link is not None:
                info.links.append(link)
        elif tag == "link":
            rel = (element.get("rel") or "").lower().split()
            href = (element.get("href") or "").strip()
            if not href:
                continue
            if "canonical" in rel and info.canonical is None:
                info.canonical = join_url(base, href)
            elif (
                alternates
                and "alternate" in rel
                and element.get("hreflang")
                and (alternate := join_url(base, href)) is not None
            ):
                info.alternates.append((element.get("hreflang", "").strip(), alternate))
        elif tag == "meta":
            if (element.get("name") or "").strip().lower() in _ROBOT_NAMES:
                directives = _robots_meta(element.get("content") or "")
                if "nofollow" in directives or "none" in directives:
                    info.nofollow = True
        elif tag == "img":
            source = (element.get("src") or "").strip() if images else ""
            if source and (image := join_url(base, source)) is not None:
                info.images.append(image)
        elif tag == "title" and info.title is None:
            text = " ".join("".join(map(str, element.itertext())).split())
            info.title = text or None
    return info
