from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import InvalidURLError, URLNormalizer, iri_to_uri, normalize_url
from sitemapkit.urls import (
    MAX_URL_LENGTH,
    host_of,
    join_url,
    remove_session_ids,
    scope_of,
)


@pytest.mark.parametrize(
    ("given_url", "expected"),
    [
        # RFC 3987 3.1: non-ASCII becomes UTF-8 percent-encoding (the protocol's ümlat example)
        ("http://www.example.com/ümlat.php&q=name", "http://www.example.com/%C3%BCmlat.php&q=name"),
        # characters a URI cannot hold
        ('http://e.com/a b"<>\\^`{|}', "http://e.com/a%20b%22%3C%3E%5C%5E%60%7B%7C%7D"),
        # existing %XX kept as is, stray % encoded
        ("http://e.com/50%25/%zz%41%", "http://e.com/50%25/%25zz%41%25"),
        ("http://e.com/%c3%bc", "http://e.com/%c3%bc"),
        # host IDNA-encoded and lower-cased, scheme lower-cased
        ("HTTP://www.ÜMLAT.com/", "http://www.xn--mlat-zra.com/"),
        ("https://Bücher.Example/", "https://xn--bcher-kva.example/"),
        # default port removed, other ports kept
        ("http://e.com:80/", "http://e.com/"),
        ("https://e.com:443/x", "https://e.com/x"),
        ("https://e.com:8443/x", "https://e.com:8443/x"),
        ("http://e.com:0080/", "http://e.com/"),
        # fragment dropped, dot segments resolved, empty path becomes /
        ("http://e.com/a/./b/../c#frag", "http://e.com/a/c"),
        ("http://e.com/a/b/../../../x", "http://e.com/x"),
        ("http://e.com", "http://e.com/"),
        ("http://e.com/a/..", "http://e.com/"),
        # session ids removed, other parameters kept in order
        ("http://e.com/p?PHPSESSID=1&a=2&sid=3&b=4", "http://e.com/p?a=2&b=4"),
        ("http://e.com/p?ASPSESSIONIDQAQ=1&CFID=2&CFTOKEN=3", "http://e.com/p"),
        ("http://e.com/p;jsessionid=ABC123?x=1", "http://e.com/p?x=1"),
        ("http://e.com/p;JSESSIONID=ABC123", "http://e.com/p"),
        ("http://e.com/p?sessionid=9&session_id=8&JSESSIONID=7", "http://e.com/p"),
        ("http://e.com/p?sidebar=1", "http://e.com/p?sidebar=1"),
        # query keeps ? and /, encodes spaces as %20
        ("http://e.com/p?a=b c&d=/e?f", "http://e.com/p?a=b%20c&d=/e?f"),
        # IPv6 literal
        ("http://[2001:DB8::1]:80/x", "http://[2001:db8::1]/x"),
        # surrounding whitespace and embedded newlines (WHATWG strips them)
        ("  http://e.com/a\n/b  ", "http://e.com/a/b"),
    ],
)
def test_normalize_url(given_url: str, expected: str) -> None:
    assert normalize_url(given_url) == expected


def test_keep_session_ids() -> None:
    url = "http://e.com/p;jsessionid=1?PHPSESSID=2"
    assert normalize_url(url, keep_session_ids=True) == url


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("/about", "https://example.com/about"),
        ("docs/a b.html", "https://example.com/shop/docs/a%20b.html"),
        ("../up", "https://example.com/up"),
        ("//cdn.example.com/x", "https://cdn.example.com/x"),
        ("?q=1", "https://example.com/shop/?q=1"),
    ],
)
def test_relative_urls_resolve_against_base(relative: str, expected: str) -> None:
    assert normalize_url(relative, base="https://example.com/shop/") == expected


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("/no-base", "relative"),
        ("ftp://e.com/file", "scheme"),
        ("mailto:someone@e.com", "scheme"),
        ("javascript:alert(1)", "scheme"),
        ("http:no-host", "host"),
        ("http://e.com:99999/", "port"),
        ("http://e.com:abc/", "port"),
        ("http://exa mple.com/", "host"),
        ("http://" + "a" * 64 + ".com/", "host"),
        ("http://e.com/" + "a" * MAX_URL_LENGTH, "too-long"),
        ("http://e.com/\udcff", "invalid"),
    ],
)
def test_normalize_url_refuses(bad: str, reason: str) -> None:
    with pytest.raises(InvalidURLError) as info:
        normalize_url(bad)
    assert info.value.reason == reason


def test_length_limit_is_counted_after_encoding() -> None:
    # 700 'ü' are 700 characters as an IRI but 4,200 once percent-encoded.
    with pytest.raises(InvalidURLError, match="once encoded"):
        normalize_url("http://e.com/" + "ü" * 700)
    longest = "http://e.com/" + "a" * (MAX_URL_LENGTH - len("http://e.com/"))
    assert normalize_url(longest) == longest


def test_iri_to_uri_changes_nothing_else() -> None:
    assert (
        iri_to_uri("HTTP://Ex.com:80/a/../ü?x=ü#ü")
        == "HTTP://Ex.com:80/a/../%C3%BC?x=%C3%BC#%C3%BC"
    )


def test_remove_session_ids() -> None:
    assert remove_session_ids("a=1&PHPSESSID=x&b") == "a=1&b"


def test_scope_of() -> None:
    assert scope_of("http://example.com/catalog/sitemap.xml") == "http://example.com/catalog/"
    assert scope_of("http://www.example.com:100/sitemap.xml") == "http://www.example.com:100/"
    assert scope_of("https://example.com/a/b/?x=/y/") == "https://example.com/a/b/"


def test_normalizer_scope_is_the_protocols_location_rule() -> None:
    # PROTOCOL.md L-08: a sitemap at http://example.com/catalog/ lists only that folder.
    normalizer = URLNormalizer("http://example.com/catalog/")
    assert normalizer.normalize("page1.php") == "http://example.com/catalog/page1.php"
    for outside in (
        "http://example.com/images/",
        "https://example.com/catalog/page1.php",
        "http://example.com:8080/catalog/",
        "http://www.example.com/catalog/",
        "http://example.com/catalogue",
    ):
        with pytest.raises(InvalidURLError) as info:
            normalizer.normalize(outside)
        assert info.value.reason == "out-of-scope"


def test_normalize_many_mixes_fast_and_slow_paths() -> None:
    normalizer = URLNormalizer("https://example.com/")
    urls = [
        "https://example.com/a?x=1&y=2",
        "/relative",
        "https://EXAMPLE.com/upper",
        "https://other.com/",
        "https://example.com/p?sid=1&k=v",
        "https://example.com/p?",
        "https://example.com/%zz",
        "https://example.com/a/../b",
    ]
    results = normalizer.normalize_many(urls)
    assert results[:3] == [
        "https://example.com/a?x=1&y=2",
        "https://example.com/relative",
        "https://example.com/upper",
    ]
    assert isinstance(results[3], InvalidURLError)
    assert results[4:] == [
        "https://example.com/p?k=v",
        "https://example.com/p",
        "https://example.com/%25zz",
        "https://example.com/b",
    ]


url_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@given(path=url_text, query=url_text)
@settings(max_examples=400)
def test_normalisation_is_idempotent(path: str, query: str) -> None:
    try:
        once = normalize_url(f"https://example.com/{path}?{query}")
    except InvalidURLError:
        return
    assert normalize_url(once) == once
    assert once.isascii()


@given(path=url_text, query=url_text)
@settings(max_examples=400)
def test_fast_path_agrees_with_full_normalisation(path: str, query: str) -> None:
    normalizer = URLNormalizer("https://example.com/")
    url = f"https://example.com/{path}?{query}"
    try:
        expected: str | None = normalizer.normalize(url)
    except InvalidURLError:
        expected = None
    batch = normalizer.normalize_many([url, "https://example.com/ok"])
    got = batch[0] if isinstance(batch[0], str) else None
    assert got == expected
    if expected is not None:
        assert normalizer.normalize_many([expected] * 3) == [expected] * 3


@pytest.mark.parametrize(
    ("base", "reference"),
    [
        ("https://example.com/", "//[bad/x"),
        ("https://example.com/", "http://[bad/x"),
        ("https://example.com/", "http://bad]/x"),
        ("http://[bad/", "page.html"),
    ],
)
def test_a_bracket_in_a_host_is_an_invalid_url_not_a_crash(base: str, reference: str) -> None:
    assert join_url(base, reference) is None
    assert host_of(base + reference) in {"", "example.com"}
    with pytest.raises(InvalidURLError):
        normalize_url(reference, base=base)


def test_join_url_and_host_of_on_ordinary_urls() -> None:
    assert join_url("https://example.com/a/b", "../c?d=1") == "https://example.com/c?d=1"
    assert host_of("https://Example.COM:8080/x") == "example.com"
    assert host_of("https://[::1]:8080/x") == "::1"
