"""Finding a site's sitemaps: robots.txt first, then well-known paths, then the home page.

:func:`parse_robots_sitemaps` is pure and lenient the way crawlers are: the directive's name
is matched case-insensitively and with the common misspellings, spacing around the colon is
free, comments are stripped, relative URLs are resolved and each URL is kept once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal
from urllib.parse import urlsplit

from .errors import FetchError, SitemapError
from .urls import join_url

if TYPE_CHECKING:
    from .fetch import Fetcher, FetchSettings

__all__ = [
    "WELL_KNOWN_PATHS",
    "DiscoveredSitemap",
    "discover",
    "find_sitemaps",
    "parse_robots_sitemaps",
]

#: Paths tried on every site, in this order (sitemap generators' and CMSs' defaults, feeds).
WELL_KNOWN_PATHS: Final = (
    "/sitemap.xml",
    "/sitemap_index.xml",
    "/sitemap-index.xml",
    "/sitemap.xml.gz",
    "/sitemap_index.xml.gz",
    "/sitemap.txt",
    "/wp-sitemap.xml",
    "/sitemap_news.xml",
    "/sitemap-news.xml",
    "/feed",
    "/rss",
    "/rss.xml",
    "/feed.xml",
    "/atom.xml",
    "/index.xml",
)

FoundBy = Literal["robots.txt", "well-known path", "home page"]

# Names (lower case, without spaces, '-' and '_') that crawlers accept for the directive.
_SITEMAP_NAMES: Final = frozenset(
    {
        "sitemap",
        "sitemaps",
        "sitemapurl",
        "sitemapsurl",
        "sitemapindex",
        "sitmap",
        "sitemp",
        "sitemape",
        "siteamp",
        "sietmap",
        "stemap",
        "xmlsitemap",
        "sitemapxml",
    }
)
_DIRECTIVE = re.compile(
    r"^[ \t]*([A-Za-z][A-Za-z _\-]{0,30}?)[ \t]*(?::|=|[ \t](?=[ \t]*\S))[ \t]*(.*)$"
)
_ROBOTS_LIMIT: Final = 512 * 1024
_HOME_LIMIT: Final = 1 << 20
_SNIFF_LIMIT: Final = 1 << 16


@dataclass(frozen=True, slots=True)
class DiscoveredSitemap:
    """A sitemap URL and how it was found (``detail``: the robots.txt line, the path, ...)."""

    url: str
    found_by: FoundBy
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"url": self.url, "found_by": self.found_by, "detail": self.detail}


def parse_robots_sitemaps(text: str, robots_url: str) -> list[tuple[str, int]]:
    """The ``Sitemap:`` URLs of a robots.txt with their line numbers, each URL once.

    >>> parse_robots_sitemaps("User-agent: *\\nsite-map : /s.xml # main\\n", "https://a.example/robots.txt")
    [('https://a.example/s.xml', 2)]
    """
    found: list[tuple[str, int]] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        match = _DIRECTIVE.match(line)
        if match is None:
            continue
        name = re.sub(r"[ \t_\-]", "", match.group(1)).lower()
        if name not in _SITEMAP_NAMES:
            continue
        value = match.group(2).strip().strip("<>\"'").strip()
        if not value or any(ch.isspace() for ch in value):
            continue
        url = join_url(robots_url, value)
        if url is None or urlsplit(url).scheme.lower() not in {"http", "https"} or url in seen:
            continue
        seen.add(url)
        found.append((url, number))
    return found


def _sitemap_links(html: str) -> list[str]:
    """The ``href`` of every ``<link rel="sitemap">`` of an HTML page."""
    from html.parser import HTMLParser

    hrefs: list[str] = []

    class LinkFinder(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag != "link":
                return
            values = {name.lower(): value or "" for name, value in attrs}
            if "sitemap" in values.get("rel", "").lower().split() and values.get("href"):
                hrefs.append(values["href"].strip())

    finder = LinkFinder(convert_charrefs=True)
    finder.feed(html)
    finder.close()
    return hrefs


def _site_root(site_url: str) -> str:
    try:
        parts = urlsplit(site_url if "://" in site_url else "https://" + site_url)
    except ValueError:
        raise SitemapError(f"not a valid site URL: {site_url!r}") from None
    if parts.scheme.lower() not in {"http", "https"} or not parts.netloc:
        raise SitemapError(f"not an http(s) site URL: {site_url!r}")
    return f"{parts.scheme.lower()}://{parts.netloc}/"


def _looks_like_sitemap(body: bytes, url: str) -> str | None:
    """The format of ``body`` when it is a sitemap, index or feed; None otherwise."""
    from .reader import ReadLimits, _prepare

    try:
        document = _prepare(body, url, url, ReadLimits())
    except SitemapError:
        return None
    if document.kind == "text":
        first = document.data.split(b"\n", 1)[0].strip().lower()
        return "text" if first.startswith((b"http://", b"https://")) else None
    return document.kind


def find_sitemaps(
    site_url: str,
    *,
    settings: FetchSettings | None = None,
    fetcher: Fetcher | None = None,
) -> list[DiscoveredSitemap]:
    """Every sitemap a site announces or serves at a usual place, and how each was found.

    Order: robots.txt ``Sitemap:`` lines, then :data:`WELL_KNOWN_PATHS` that answer with a
    sitemap, index, feed or text sitemap (an HTML "soft 404" does not count), then
    ``<link rel="sitemap">`` in the home page. Each URL appears once. Raises
    :class:`~sitemapkit.FetchError` when the site cannot be reached at all.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .fetch import Fetcher

    root = _site_root(site_url)
    own = fetcher is None
    client = fetcher or Fetcher(settings)
    client.trust_start(root)
    reached: list[bool] = []
    errors: list[FetchError] = []

    def get(url: str, head: int) -> tuple[bytes, str] | None:
        try:
            fetched = client.fetch(url, user_given=True, head=head)
        except FetchError as exc:
            if exc.status is not None:
                reached.append(True)
            else:
                errors.append(exc)
            return None
        except SitemapError:
            reached.append(True)
            return None
        reached.append(True)
        return fetched.body, fetched.final_url

    try:
        workers = max(1, client.settings.per_host)
        with ThreadPoolExecutor(workers, thread_name_prefix="sitemapkit-discover") as pool:
            robots = pool.submit(get, root + "robots.txt", _ROBOTS_LIMIT)
            home = pool.submit(get, root, _HOME_LIMIT)
            probes = [
                (path, pool.submit(get, root + path.lstrip("/"), _SNIFF_LIMIT))
                for path in WELL_KNOWN_PATHS
            ]
            results: list[DiscoveredSitemap] = []
            seen: set[str] = set()

            def add(url: str, found_by: FoundBy, detail: str) -> None:
                if url not in seen:
                    seen.add(url)
                    results.append(DiscoveredSitemap(url, found_by, detail))

            robots_result = robots.result()
            if robots_result is not None:
                text = robots_result[0][:_ROBOTS_LIMIT].decode("utf-8", "replace")
                for url, line in parse_robots_sitemaps(text, robots_result[1]):
                    add(url, "robots.txt", f"robots.txt line {line}")
            for path, future in probes:
                probe = future.result()
                if probe is None:
                    continue
                kind = _looks_like_sitemap(probe[0], probe[1])
                if kind is not None:
                    add(root + path.lstrip("/"), "well-known path", f"{path} ({kind})")
            home_result = home.result()
            if home_result is not None:
                page = home_result[0][:_HOME_LIMIT].decode("utf-8", "replace")
                for href in _sitemap_links(page):
                    linked = join_url(home_result[1], href)
                    if linked is not None and urlsplit(linked).scheme.lower() in {"http", "https"}:
                        add(linked, "home page", '<link rel="sitemap"> in the home page')
    finally:
        if own:
            client.close()
    if not reached and errors:
        raise FetchError(f"cannot reach the site: {errors[0].message}", url=root)
    return results


def discover(
    site_url: str,
    *,
    settings: FetchSettings | None = None,
    fetcher: Fetcher | None = None,
) -> list[str]:
    """The sitemap URLs of a site, most authoritative first (see :func:`find_sitemaps`)."""
    return [item.url for item in find_sitemaps(site_url, settings=settings, fetcher=fetcher)]
