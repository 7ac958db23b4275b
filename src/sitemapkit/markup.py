"""XML text of sitemaps: escaping, the ``<urlset>``/``<sitemapindex>`` envelopes and entries.

Pure string functions: no files, no splitting (that is :mod:`sitemapkit.writer`). Output has
no timestamps or generator comments so that the same input always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from .model import (
    IMAGE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    Alternate,
    Image,
    News,
    Profile,
    SitemapRef,
    URLEntry,
    Video,
)

__all__ = [
    "EXTENSION_PREFIXES",
    "XML_DECLARATION",
    "escape",
    "extension_namespaces",
    "format_priority",
    "render_extensions",
    "render_index",
    "sitemapindex_open",
    "urlset_close",
    "urlset_open",
]

XML_DECLARATION: Final = '<?xml version="1.0" encoding="UTF-8"?>\n'

#: Prefix used for each extension namespace, in the order they are declared.
EXTENSION_PREFIXES: Final = {
    IMAGE_NS: "image",
    VIDEO_NS: "video",
    NEWS_NS: "news",
    XHTML_NS: "xhtml",
}

_ESCAPES: Final = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", '"': "&quot;"}
)


def escape(text: str) -> str:
    """Escape all five XML special characters, as the protocol's table does (E-02).

    >>> escape("a&b<'c'>")
    'a&amp;b&lt;&apos;c&apos;&gt;'
    """
    return text.translate(_ESCAPES)


def format_priority(value: float) -> str:
    """Write a priority with one to four decimals: ``0.5``, ``1.0``, ``0.125``."""
    text = f"{value:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _stylesheet(href: str | None) -> str:
    if href is None:
        return ""
    return f'<?xml-stylesheet type="text/xsl" href="{escape(href)}"?>\n'


def urlset_open(
    profile: Profile, namespaces: Iterable[str] = (), *, stylesheet: str | None = None
) -> str:
    """The XML declaration and the ``<urlset>`` start tag, declaring only ``namespaces``."""
    declarations = "".join(
        f' xmlns:{EXTENSION_PREFIXES[ns]}="{ns}"'
        for ns in EXTENSION_PREFIXES
        if ns in set(namespaces)
    )
    return (
        f"{XML_DECLARATION}{_stylesheet(stylesheet)}"
        f'<urlset xmlns="{profile.namespace}"{declarations}>\n'
    )


def urlset_close() -> str:
    return "</urlset>\n"


def sitemapindex_open(profile: Profile, *, stylesheet: str | None = None) -> str:
    return f'{XML_DECLARATION}{_stylesheet(stylesheet)}<sitemapindex xmlns="{profile.namespace}">\n'


def render_index(
    profile: Profile, refs: Sequence[SitemapRef], *, stylesheet: str | None = None
) -> str:
    """A whole ``<sitemapindex>`` document."""
    parts = [sitemapindex_open(profile, stylesheet=stylesheet)]
    for ref in refs:
        lastmod = f"<lastmod>{ref.lastmod}</lastmod>" if ref.lastmod else ""
        parts.append(f"<sitemap><loc>{escape(ref.loc)}</loc>{lastmod}</sitemap>\n")
    parts.append("</sitemapindex>\n")
    return "".join(parts)


def extension_namespaces(entry: URLEntry) -> set[str]:
    """The extension namespaces ``entry`` needs declared."""
    used = set()
    if entry.images:
        used.add(IMAGE_NS)
    if entry.videos:
        used.add(VIDEO_NS)
    if entry.news is not None:
        used.add(NEWS_NS)
    if entry.alternates:
        used.add(XHTML_NS)
    return used


def _element(prefix: str, name: str, value: object | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        value = "yes" if value else "no"
    return f"<{prefix}:{name}>{escape(str(value))}</{prefix}:{name}>"


def _render_image(image: Image, legacy_fields: bool) -> str:
    parts = ["<image:image>", _element("image", "loc", image.loc)]
    if legacy_fields:
        parts += [
            _element("image", "caption", image.caption),
            _element("image", "geo_location", image.geo_location),
            _element("image", "title", image.title),
            _element("image", "license", image.license),
        ]
    parts.append("</image:image>")
    return "".join(parts)


def _attribute(name: str, value: str | None) -> str:
    return "" if value is None else f' {name}="{escape(value)}"'


def _render_video(video: Video) -> str:
    # Children in the order of the video 1.1 schema's sequence (PROTOCOL.md 5.2).
    parts = [
        "<video:video>",
        _element("video", "thumbnail_loc", video.thumbnail_loc),
        _element("video", "title", video.title),
        _element("video", "description", video.description),
        _element("video", "content_loc", video.content_loc),
        _element("video", "player_loc", video.player_loc),
        _element("video", "duration", video.duration),
        _element("video", "expiration_date", video.expiration_date),
        _element("video", "rating", video.rating),
        *(_element("video", "content_segment_loc", loc) for loc in video.content_segment_locs),
        _element("video", "view_count", video.view_count),
        _element("video", "publication_date", video.publication_date),
        *(_element("video", "tag", tag) for tag in video.tags),
        _element("video", "category", video.category),
        _element("video", "family_friendly", video.family_friendly),
    ]
    if video.restriction is not None:
        relationship = _attribute("relationship", video.restriction_relationship or "allow")
        parts.append(
            f"<video:restriction{relationship}>{escape(video.restriction)}</video:restriction>"
        )
    parts.append(_element("video", "gallery_loc", video.gallery_loc))
    for price in video.prices:
        attributes = (
            _attribute("currency", price.currency)
            + _attribute("type", price.type)
            + _attribute("resolution", price.resolution)
        )
        parts.append(f"<video:price{attributes}>{escape(price.value)}</video:price>")
    parts.append(_element("video", "requires_subscription", video.requires_subscription))
    if video.uploader is not None:
        info = _attribute("info", video.uploader_info)
        parts.append(f"<video:uploader{info}>{escape(video.uploader)}</video:uploader>")
    if video.tvshow is not None:
        show = video.tvshow
        parts += [
            "<video:tvshow>",
            _element("video", "show_title", show.show_title),
            _element("video", "video_type", show.video_type),
            _element("video", "episode_title", show.episode_title),
            _element("video", "season_number", show.season_number),
            _element("video", "episode_number", show.episode_number),
            _element("video", "premier_date", show.premier_date),
            "</video:tvshow>",
        ]
    if video.platform is not None:
        relationship = _attribute("relationship", video.platform_relationship or "allow")
        parts.append(f"<video:platform{relationship}>{escape(video.platform)}</video:platform>")
    parts.append(_element("video", "live", video.live))
    for video_id in video.ids:
        parts.append(
            f'<video:id type="{escape(video_id.type)}">{escape(video_id.value)}</video:id>'
        )
    parts.append("</video:video>")
    return "".join(parts)


def _render_news(news: News) -> str:
    return "".join(
        [
            "<news:news><news:publication>",
            _element("news", "name", news.publication_name),
            _element("news", "language", news.publication_language),
            "</news:publication>",
            _element("news", "access", news.access),
            _element("news", "genres", news.genres),
            _element("news", "publication_date", news.publication_date),
            _element("news", "title", news.title),
            _element("news", "keywords", news.keywords),
            _element("news", "stock_tickers", news.stock_tickers),
            "</news:news>",
        ]
    )


def _render_alternate(alternate: Alternate) -> str:
    return (
        f'<xhtml:link rel="alternate" hreflang="{escape(alternate.hreflang)}" '
        f'href="{escape(alternate.href)}"/>'
    )


def render_extensions(entry: URLEntry, *, legacy_image_fields: bool = False) -> str:
    """The extension elements of one ``<url>``, in schema order after the core elements."""
    return "".join(
        [
            *(_render_alternate(alternate) for alternate in entry.alternates),
            *(_render_image(image, legacy_image_fields) for image in entry.images),
            *(_render_video(video) for video in entry.videos),
            _render_news(entry.news) if entry.news is not None else "",
        ]
    )
