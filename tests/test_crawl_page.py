"""Reading one page for a crawl: links, robots directives, canonical, title, extensions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.crawl import url_shape
from sitemapkit.crawl.page import header_directives, link_header_canonical, read_page

URL = "https://example.com/dir/page.html"


def test_links_from_every_tag_under_base_href() -> None:
    body = b"""<html><head><base href="https://example.com/other/"></head><body>
    <a href="a.html">a</a> <a href=" /abs.html ">abs</a> <a>no href</a>
    <map><area href="area.html"></map>
    <frameset><frame src="frame.html"></frameset>
    <iframe src="//cdn.example.com/embed"></iframe>
    <a href="skip.html" rel="external NoFollow">skip</a>
    <link rel="stylesheet" href="style.css"><script src="app.js"></script>
    </body></html>"""
    info = read_page(body, URL)
    assert info.links == [
        "https://example.com/other/a.html",
        "https://example.com/abs.html",
        "https://example.com/other/area.html",
        "https://example.com/other/frame.html",
        "https://cdn.example.com/embed",
    ]
    assert read_page(body, URL, follow_nofollow=True).links[-1] == (
        "https://example.com/other/skip.html"
    )


def test_robots_meta_canonical_and_title() -> None:
    body = b"""<head><title>  Two
    words </title><meta name="GoogleBot" content="NOINDEX">
    <meta name="robots" content="nofollow"><link rel="canonical" href="/c.html">
    <link rel="canonical" href="/second.html"></head><body>"""
    info = read_page(body, URL)
    assert info.noindex
    assert info.nofollow
    assert info.canonical == "https://example.com/c.html"
    assert info.title == "Two words"
    plain = read_page(b"<p>hello <a href='x'>x</a>", URL)
    assert (plain.noindex, plain.nofollow, plain.canonical, plain.title) == (
        False,
        False,
        None,
        None,
    )
    assert read_page(b'<meta name="robots" content="none">', URL).nofollow


def test_images_and_alternates_only_when_asked() -> None:
    body = (
        b'<link rel="alternate" hreflang="de" href="/de/page.html">'
        b'<link rel="alternate" type="application/rss+xml" href="/feed">'
        b'<img src="i.png"><img src=""><img>'
    )
    info = read_page(body, URL, images=True, alternates=True)
    assert info.images == ["https://example.com/dir/i.png"]
    assert info.alternates == [("de", "https://example.com/de/page.html")]
    assert read_page(body, URL).images == []
    assert read_page(body, URL).alternates == []


def test_declared_encodings_good_and_bad() -> None:
    latin = "<title>Caf\u00e9</title>".encode("latin-1")
    assert read_page(latin, URL, encoding="iso-8859-1").title == "Caf\u00e9"
    assert read_page(b"<title>x</title>", URL, encoding="no-such-codec").title == "x"
    assert read_page(b"", URL).links == []


def test_x_robots_tag_directives() -> None:
    assert header_directives(["noindex, nofollow"]) == {"noindex", "nofollow"}
    assert header_directives(["otherbot: noindex", "unavailable_after: 25 Jun 2010"]) == {
        "unavailable_after: 25 jun 2010"
    }
    assert header_directives(["googlebot: noindex"]) == {"noindex"}
    assert header_directives(["max-snippet: 20, NONE"]) == {"max-snippet: 20", "none"}


def test_link_header_canonical() -> None:
    values = ['<https://example.com/a.css>; rel="preload"', '</doc.pdf>; rel="canonical"']
    assert link_header_canonical(values, URL) == "https://example.com/doc.pdf"
    assert link_header_canonical(["<x>; rel=next"], URL) is None


def test_url_shape_groups_numbers_and_queries() -> None:
    assert url_shape("https://e.com/cal/2024/05?d=1") == url_shape("https://e.com/cal/1999/12?x")
    assert url_shape("https://e.com/cal/2024/05") != url_shape("https://e.com/cal/2024/05?d=1")
    assert url_shape("http://10.0.0.1:8080") == "http://10.0.0.1:8080"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_read_page_never_raises_on_any_bytes(body: bytes) -> None:
    info = read_page(body, URL, images=True, alternates=True)
    assert all(isinstance(link, str) for link in info.links)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abc/.?#:%", max_size=12), max_size=8))
def test_every_href_becomes_an_absolute_link(hrefs: list[str]) -> None:
    body = "".join(f'<a href="./x{href}">.</a>' for href in hrefs).encode()
    info = read_page(body, URL)
    assert len(info.links) == len(hrefs)
    assert all(link.startswith("https://example.com/") for link in info.links)


def test_links_that_cannot_be_urls_are_dropped() -> None:
    body = b"""<html><head><base href="//[broken/">
    <link rel="canonical" href="//[bad/">
    <link rel="alternate" hreflang="de" href="//[bad/de"></head><body>
    <a href="//[bad/a">a</a> <a href="ok.html">ok</a> <img src="//[bad/i.png">
    </body></html>"""
    info = read_page(body, URL, images=True, alternates=True)
    assert info.links == ["https://example.com/dir/ok.html"]
    assert info.canonical is None
    assert info.alternates == []
    assert info.images == []
