"""Discovery: the lenient robots.txt reader, well-known paths, <link rel="sitemap">."""

from __future__ import annotations

import gzip
import socket
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import DiscoveredSitemap, FetchError, FetchSettings, discover, find_sitemaps
from sitemapkit.discover import WELL_KNOWN_PATHS, parse_robots_sitemaps
from tests.fault_server import FaultServer, running

ROBOTS = "https://www.example.com/robots.txt"
FAST = FetchSettings(connect_timeout=1, read_timeout=1, deadline=5, retries=0)


def test_robots_sitemap_lines_leniently() -> None:
    text = (
        "\ufeffUser-agent: *\n"
        "Disallow: /private\n"
        "Sitemap: https://www.example.com/sitemap.xml\n"
        "SITEMAP:https://www.example.com/upper.xml\n"
        "  sitemap  :   https://www.example.com/spaced.xml   # trailing comment\n"
        "Site-map: https://www.example.com/dash.xml\n"
        "sitemaps: https://www.example.com/plural.xml\n"
        "Sitmap: https://www.example.com/typo.xml\n"
        "Sitemap: /relative.xml\n"
        "Sitemap: <https://www.example.com/angled.xml>\n"
        "# Sitemap: https://www.example.com/commented-out.xml\n"
        "Sitemap: https://www.example.com/sitemap.xml\n"
        "Sitemap: ftp://www.example.com/not-http.xml\n"
        "Sitemap https://www.example.com/no-colon.xml\n"
        "Sitemap:\n"
        "Crawl-delay: 10\n"
    )
    assert parse_robots_sitemaps(text, ROBOTS) == [
        ("https://www.example.com/sitemap.xml", 3),
        ("https://www.example.com/upper.xml", 4),
        ("https://www.example.com/spaced.xml", 5),
        ("https://www.example.com/dash.xml", 6),
        ("https://www.example.com/plural.xml", 7),
        ("https://www.example.com/typo.xml", 8),
        ("https://www.example.com/relative.xml", 9),
        ("https://www.example.com/angled.xml", 10),
        ("https://www.example.com/no-colon.xml", 14),
    ]


def test_robots_with_crlf_and_other_hosts() -> None:
    text = "Sitemap: https://cdn.example.net/s.xml\r\nSitemap: https://www.example.com/a.xml\r\n"
    assert [url for url, _ in parse_robots_sitemaps(text, ROBOTS)] == [
        "https://cdn.example.net/s.xml",
        "https://www.example.com/a.xml",
    ]


def test_robots_ignores_other_directives_with_sitemap_values() -> None:
    text = "Disallow: /sitemap.xml\nAllow: /sitemap_index.xml\nUser-agent: sitemap\n"
    assert parse_robots_sitemaps(text, ROBOTS) == []


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with running() as site:
        yield site


def test_find_sitemaps_in_order_with_how(server: FaultServer) -> None:
    server.add("/robots.txt", "User-agent: *\nSitemap: /from-robots.xml\nSitemap: /sitemap.xml\n")
    urlset = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>'
    server.add("/sitemap.xml", urlset)  # also listed in robots.txt: reported once
    server.add("/sitemap.xml.gz", gzip.compress(urlset))
    server.add("/sitemap_index.xml", "<html><body>soft 404</body></html>")  # 200, but HTML
    server.add("/sitemap.txt", "https://www.example.com/a\n")
    server.add("/feed", '<feed xmlns="http://www.w3.org/2005/Atom"></feed>')
    server.add("/rss", "Welcome! This is our RSS page.\n")  # text that is not a sitemap
    server.add(
        "/",
        '<html><head><link rel="sitemap" type="application/xml" '
        'href="/from-link.xml"><link rel="stylesheet" href="/s.css"></head></html>',
    )
    found = find_sitemaps(server.url("/"), settings=FAST)
    assert found == [
        DiscoveredSitemap(server.url("/from-robots.xml"), "robots.txt", "robots.txt line 2"),
        DiscoveredSitemap(server.url("/sitemap.xml"), "robots.txt", "robots.txt line 3"),
        DiscoveredSitemap(
            server.url("/sitemap.xml.gz"), "well-known path", "/sitemap.xml.gz (urlset)"
        ),
        DiscoveredSitemap(server.url("/sitemap.txt"), "well-known path", "/sitemap.txt (text)"),
        DiscoveredSitemap(server.url("/feed"), "well-known path", "/feed (atom)"),
        DiscoveredSitemap(
            server.url("/from-link.xml"), "home page", '<link rel="sitemap"> in the home page'
        ),
    ]
    assert discover(server.url("/anything/here"), settings=FAST) == [item.url for item in found]
    probed = {request.path for request in server.requests}
    assert {"/robots.txt", "/"} | set(WELL_KNOWN_PATHS) <= probed


def test_site_without_sitemaps(server: FaultServer) -> None:
    assert find_sitemaps(server.url("/"), settings=FAST) == []


def test_unreachable_site_is_an_error() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with pytest.raises(FetchError, match="cannot reach the site"):
        find_sitemaps(f"http://127.0.0.1:{port}/", settings=FAST)


def test_site_url_must_be_http() -> None:
    from sitemapkit import SitemapError

    with pytest.raises(SitemapError, match="not an http"):
        find_sitemaps("ftp://example.com/")


@settings(max_examples=200, deadline=2000)
@given(st.text(max_size=500))
def test_robots_parser_never_fails_and_keeps_only_http(text: str) -> None:
    found = parse_robots_sitemaps("Sitemap: /a.xml\n" + text, ROBOTS)
    assert found[0] == ("https://www.example.com/a.xml", 1)
    assert all(url.lower().startswith(("http://", "https://")) for url, _ in found)
    assert len({url for url, _ in found}) == len(found)


def test_robots_lines_naming_no_valid_url_are_skipped() -> None:
    text = "Sitemap: http://[bad/sitemap.xml\nSitemap: //[x/s.xml\nSitemap: /ok.xml\n"
    assert [url for url, _ in parse_robots_sitemaps(text, ROBOTS)] == [
        "https://www.example.com/ok.xml"
    ]
