"""parse(): every format, broken and hostile input; the fast path agrees with the general one."""

from __future__ import annotations

import gc
import gzip
import resource
import time
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import (
    Alternate,
    Image,
    ParseError,
    Problem,
    ReadLimits,
    SitemapError,
    SitemapRef,
    UnsafeContentError,
    URLEntry,
    iter_urls,
    parse,
)
from sitemapkit.reader import _Extractor, _fast_path_possible, _prepare

DATA = Path(__file__).parent / "data" / "reader"

EXPECTED_09 = [
    URLEntry("https://www.example.com/", "2024-05-01", "daily", 1.0),
    URLEntry(
        "https://www.example.com/catalog?item=12&desc=vacation_hawaii", "2024-05-01T10:30:00+02:00"
    ),
    URLEntry("https://www.example.com/catalog?item=83&desc=vacation_usa", priority=0.3),
]


def read(name: str, **kwargs: object) -> list[object]:
    problems: list[Problem] = []
    entries = list(
        parse(
            (DATA / name).read_bytes(),
            url=f"https://www.example.com/{name}",
            on_problem=problems.append,
            **kwargs,
        )
    )  # type: ignore[arg-type]
    return [*entries, *problems]


def both_paths(data: bytes) -> tuple[list[object], list[object]]:
    """Entries through the fast path and through the general parser."""
    limits = ReadLimits()
    fast_doc = _prepare(data, "x", None, limits)
    assert fast_doc.fast
    slow_doc = _prepare(data, "x", None, limits)
    slow_doc.fast = False
    fast = [e for b in _Extractor(fast_doc, limits, print).batches() for e in b]
    slow = [e for b in _Extractor(slow_doc, limits, print).batches() for e in b]
    return fast, slow


@pytest.mark.parametrize(
    "name", ["urlset-09.xml", "urlset-084.xml", "urlset-nons.xml", "urlset-prefixed.xml"]
)
def test_urlset_namespaces(name: str) -> None:
    assert read(name) == EXPECTED_09


def test_sitemap_field_names_where_the_entry_came_from() -> None:
    entries = list(parse((DATA / "urlset-09.xml").read_bytes(), url="https://x.example/s.xml"))
    assert {entry.sitemap for entry in entries} == {"https://x.example/s.xml"}


def test_cdata_whitespace_comments_and_entities_once() -> None:
    assert read("urlset-cdata.xml") == [
        URLEntry("https://www.example.com/cdata?a=1&b=2"),
        URLEntry("https://www.example.com/spaced", changefreq="weekly"),
        URLEntry("https://www.example.com/once?q=&amp;"),
        URLEntry("https://www.example.com/Charéf"),
    ]


def test_bom_and_whitespace_before_declaration() -> None:
    assert read("urlset-bom-ws.xml") == [URLEntry("https://www.example.com/bom")]


@pytest.mark.parametrize(
    ("name", "loc"),
    [
        ("urlset-latin1.xml", "https://www.example.com/café"),
        ("urlset-utf16.xml", "https://www.example.com/utf16-ü"),
    ],
)
def test_declared_encodings(name: str, loc: str) -> None:
    assert read(name) == [URLEntry(loc)]


def test_extensions_read_into_the_model() -> None:
    page, plain = read("urlset-extensions.xml")
    assert isinstance(page, URLEntry)
    assert page.images == (
        Image("https://www.example.com/a.jpg", caption="A"),
        Image("https://www.example.com/b.jpg"),
        Image("https://www.example.com/c.jpg"),
    )
    (video,) = page.videos
    assert (video.title, video.duration, video.rating, video.view_count) == (
        "Grilling steaks",
        600,
        4.2,
        12345,
    )
    assert video.family_friendly is True
    assert video.requires_subscription is False
    assert (video.restriction, video.restriction_relationship) == ("IE GB US CA", "allow")
    assert video.prices[0].value == "1.99"
    assert video.prices[0].currency == "EUR"
    assert video.uploader_info == "https://www.example.com/users/grillymcgrillerson"
    assert video.tags == ("steak", "meat")
    assert page.news is not None
    assert page.news.publication_name == "The Example Times"
    assert page.news.publication_language == "en"
    assert page.news.keywords == "business, merger"
    assert page.alternates == (
        Alternate("de", "https://www.example.com/de/page"),
        Alternate("en", "https://www.example.com/page"),
    )
    assert plain == URLEntry("https://www.example.com/plain")


def test_sitemap_index() -> None:
    assert read("sitemapindex.xml") == [
        SitemapRef("https://www.example.com/sitemap1.xml.gz", "2024-05-01T18:23:17+00:00"),
        SitemapRef("https://www.example.com/sitemap2.xml.gz"),
    ]


def test_text_sitemap() -> None:
    *entries, problem = read("text-sitemap.txt")
    assert entries == [
        URLEntry("https://www.example.com/one"),
        URLEntry("https://www.example.com/two"),
        URLEntry("https://www.example.com/three"),
    ]
    assert isinstance(problem, Problem)
    assert problem.line == 4
    assert "not a URL" in problem.message


def test_rss() -> None:
    *entries, problem = read("rss2.xml")
    assert entries == [
        URLEntry("https://www.example.com/first", "Wed, 01 May 2024 10:00:00 GMT"),
        URLEntry("https://www.example.com/guid-only"),
        URLEntry("https://www.example.com/relative"),
    ]
    assert isinstance(problem, Problem)
    assert "without a link" in problem.message


def test_atom_10_and_03() -> None:
    assert read("atom10.xml") == [
        URLEntry("https://www.example.com/entry/1", "2024-05-01T18:30:02Z"),
        URLEntry("https://www.example.com/entry/2", "2024-05-02T00:00:00Z"),
    ]
    assert read("atom03.xml") == [URLEntry("https://www.example.com/old/1", "2004-05-01T18:30:02Z")]


@pytest.mark.parametrize(
    "wrap",
    [
        lambda d: gzip.compress(d),
        lambda d: gzip.compress(gzip.compress(d))[:0] + gzip.compress(d),
        lambda d: d,
    ],
)
def test_gzip_by_magic_bytes(wrap: object) -> None:
    data = (DATA / "urlset-09.xml").read_bytes()
    assert list(parse(wrap(data))) == EXPECTED_09  # type: ignore[operator]


def test_gzipped_text_sitemap() -> None:
    entries = list(parse(gzip.compress(b"https://a.example/1\nhttps://a.example/2\n")))
    assert [entry.loc for entry in entries] == ["https://a.example/1", "https://a.example/2"]


def test_truncated_file_yields_complete_entries_then_names_the_line() -> None:
    entries: list[object] = []
    with pytest.raises(ParseError) as caught:
        entries.extend(parse((DATA / "truncated.xml").read_bytes(), url="t.xml"))
    assert [entry.loc for entry in entries] == [
        f"https://www.example.com/page-{i}" for i in range(1, 6)
    ]
    assert caught.value.line == 8
    assert str(caught.value).startswith("t.xml:8: XML is truncated or malformed")


def test_truncated_gzip_yields_what_came_out() -> None:
    data = gzip.compress((DATA / "urlset-09.xml").read_bytes() * 1)
    entries: list[object] = []
    with pytest.raises(ParseError):
        entries.extend(parse(data[: len(data) - 30]))
    assert entries
    assert all(isinstance(entry, URLEntry) for entry in entries)


@pytest.mark.parametrize("encoding", ["punycode", "bogus", "rot13"])
def test_declared_encoding_that_cannot_decode_is_a_parse_error(encoding: str) -> None:
    """punycode raises a bare UnicodeError, not UnicodeDecodeError."""
    data = (
        f'<?xml version="1.0" encoding="{encoding}"?><urlset '
        'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>'
        "https://www.example.com/\u00e9</loc></url></urlset>"
    ).encode()
    with pytest.raises(ParseError, match=encoding):
        list(parse(data, url="e.xml"))


def test_html_page_is_not_a_sitemap() -> None:
    with pytest.raises(ParseError, match=r"not a sitemap \(HTML page\)"):
        list(parse((DATA / "html-page.html").read_bytes()))
    with pytest.raises(ParseError, match=r"not a sitemap \(HTML page\)"):
        list(parse(b"<html><body>soft 404</body></html>"))


def test_other_root_element_is_not_a_sitemap() -> None:
    with pytest.raises(ParseError, match="root element <catalog>"):
        list(parse(b"<catalog><item/></catalog>"))


def test_url_without_loc_and_bad_priority_are_problems() -> None:
    problems: list[Problem] = []
    data = (
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        b"<url><loc>https://a.example/1</loc><priority>high</priority></url>\n"
        b"<url><lastmod>2024-01-01</lastmod></url>\n"
        b"<url><loc>https://a.example/2</loc></url>\n</urlset>"
    )
    entries = list(parse(data, on_problem=problems.append))
    assert entries == [URLEntry("https://a.example/1"), URLEntry("https://a.example/2")]
    assert [(p.line, p.message) for p in problems] == [
        (2, "priority 'high' is not a decimal number; left out"),
        (3, "<url> without <loc>; skipped"),
    ]


def test_entries_per_file_limit() -> None:
    data = b"\n".join(f"https://a.example/{i}".encode() for i in range(10_000))
    with pytest.raises(UnsafeContentError, match="more than 5,000 entries"):
        list(parse(data, limits=ReadLimits(max_entries=5_000)))


def test_fast_path_and_general_parser_agree() -> None:
    urls = "".join(
        f"<url><loc>https://a.example/{i}?x=1&amp;y={i}</loc><lastmod>2024-01-0{i % 9 + 1}"
        f"</lastmod><changefreq>daily</changefreq><priority>0.{i % 10}</priority></url>\n"
        for i in range(20_000)
    )
    data = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset '
        f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}</urlset>'
    ).encode()
    fast, slow = both_paths(data)
    assert len(fast) == 20_000
    assert fast == slow


def test_fast_path_falls_back_midway_without_repeating_entries() -> None:
    head = "".join(f"<url><loc>https://a.example/{i}</loc></url>\n" for i in range(60_000))
    odd = '<url lang="x"><loc>https://a.example/odd</loc></url>\n'
    data = (
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{head}{odd}'
        f"<url><loc>https://a.example/last</loc></url></urlset>"
    ).encode()
    entries = list(parse(data))
    assert len(entries) == 60_002
    assert [entries[-2].loc, entries[-1].loc] == ["https://a.example/odd", "https://a.example/last"]
    assert len({entry.loc for entry in entries}) == 60_002


@pytest.mark.parametrize("enabled", [True, False])
def test_fast_path_leaves_the_garbage_collector_as_it_found_it(enabled: bool) -> None:
    urls = "".join(f"<url><loc>https://a.example/{i}</loc></url>\n" for i in range(3_000))
    odd = '<url lang="x"><loc>https://a.example/odd</loc></url>\n'  # a fallback midway
    data = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}{odd}</urlset>'
    was = gc.isenabled()
    try:
        if not enabled:
            gc.disable()
        states = []
        for _entry in parse(data.encode()):
            states.append(gc.isenabled())
        assert len(states) == 3_001
        assert set(states) == {enabled}  # paused only while a slice is made, not while read
        assert gc.isenabled() is enabled
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


@given(
    st.lists(
        st.sampled_from(
            [b"<", b"!", b"?", b"-", b"[", b"x", b"xmlns", b"<!--", b"<?", b"<![CDATA["]
        )
    ),
    st.integers(0, 40),
)
def test_fast_path_check_finds_what_a_plain_search_finds(parts: list[bytes], start: int) -> None:
    data = b"".join(parts)
    plain = all(data.find(marker, start) < 0 for marker in (b"<![CDATA[", b"<!--", b"<?", b"xmlns"))
    assert _fast_path_possible(data, start) is plain


# -- hostile input ---------------------------------------------------------------------


def _timed(data: bytes) -> tuple[SitemapError, float]:
    start = time.monotonic()
    with pytest.raises(SitemapError) as caught:
        list(parse(data))
    return caught.value, time.monotonic() - start


@pytest.mark.parametrize("name", ["billion-laughs.xml", "xxe-file.xml", "xxe-http.xml"])
def test_doctype_with_entities_is_refused(name: str) -> None:
    error, seconds = _timed((DATA / name).read_bytes())
    assert isinstance(error, UnsafeContentError)
    assert "DOCTYPE declares entities" in str(error)
    assert seconds < 2


def test_quadratic_blowup_is_refused() -> None:
    big = "x" * 100_000
    data = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY a "{big}">]>\n'
        f"<urlset><url><loc>https://a/{'&a;' * 100_000}</loc></url></urlset>"
    ).encode()
    error, seconds = _timed(data)
    assert isinstance(error, UnsafeContentError)
    assert seconds < 2


def test_external_dtd_is_not_loaded() -> None:
    entries = read("external-dtd.xml")
    assert entries == [URLEntry("https://www.example.com/ok")]
    assert "root:" not in repr(entries)


def test_deep_nesting_is_refused_quickly() -> None:
    depth = 200_000
    data = (
        b"<urlset><url><loc>" + b"<a>" * depth + b"x" + b"</a>" * depth + b"</loc></url></urlset>"
    )
    error, seconds = _timed(data)
    assert isinstance(error, UnsafeContentError)
    assert "nested deeper" in str(error)
    assert seconds < 2


def test_gzip_bomb_stops_at_the_cap(tmp_path: Path) -> None:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    parts = [compressor.compress(b"<urlset>")]
    parts += [compressor.compress(zeros) for _ in range(1024)]  # 1 GiB inflated
    parts.append(compressor.flush())
    bomb = b"".join(parts)
    assert len(bomb) < 2_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    error, seconds = _timed(bomb)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert isinstance(error, UnsafeContentError)
    assert "exceeds the limit" in str(error)
    assert seconds < 2
    assert (after - before) < 400_000  # kB: the cap (51 MiB) and its copies, never 1 GiB


def test_size_cap_is_configurable() -> None:
    data = gzip.compress(b"https://a.example/\n" * 10_000)
    with pytest.raises(UnsafeContentError, match="limit of 1,000 bytes"):
        list(parse(data, limits=ReadLimits(max_bytes=1_000)))


@settings(max_examples=300, deadline=2000)
@given(st.binary(max_size=2048))
def test_parse_of_any_bytes_raises_only_our_errors(data: bytes) -> None:
    try:
        for entry in parse(data, on_problem=lambda _p: None):
            assert isinstance(entry, URLEntry | SitemapRef)
    except SitemapError:
        pass


_XMLISH = st.lists(
    st.sampled_from(
        [
            "<urlset>",
            "</urlset>",
            "<url>",
            "</url>",
            "<loc>",
            "</loc>",
            "https://a/",
            "&amp;",
            "<![CDATA[x]]>",
            "<!--c-->",
            "<?pi x?>",
            "<sitemapindex>",
            "<sitemap>",
            "&#x41;",
            "&bad;",
            "<!DOCTYPE urlset>",
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
            "<priority>0.5</priority>",
            "<lastmod> 2024 </lastmod>",
            " ",
            "\n",
            "<",
            ">",
            "]]>",
            "<rss><channel><item><link>",
            "<feed xmlns='http://www.w3.org/2005/Atom'><entry>",
            "<link href='/x'/>",
            "\x1f\x8b",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=2000)
@given(_XMLISH)
def test_parse_of_sitemap_like_text_raises_only_our_errors(text: str) -> None:
    try:
        for entry in parse(text.encode(), on_problem=lambda _p: None):
            assert isinstance(entry, URLEntry | SitemapRef)
            assert entry.loc
    except SitemapError:
        pass


_ROW = st.tuples(
    st.text("abcdefgh/?=&<>'\"é \n", min_size=1, max_size=12),
    st.sampled_from(["", "2024-05-01", " 2024-05-01\n", "<lastmod></lastmod>"]),
    st.sampled_from(["", "0.5", "1", "high", " .25 "]),
    st.sampled_from(["<url>", "<url >", "<url>\n  ", '<url a="1">']),
)


@settings(max_examples=150, deadline=2000)
@given(st.lists(_ROW, min_size=1, max_size=30), st.booleans())
def test_fast_and_general_paths_agree_on_generated_sitemaps(
    rows: list[tuple[str, str, str, str]], uniform: bool
) -> None:
    from sitemapkit.markup import escape

    if uniform:
        rows = [(path, rows[0][1], rows[0][2], "<url>") for path, *_ in rows]
    body = "".join(
        f"{opening}<loc>https://a.example/{escape(path)}</loc>"
        + (
            lastmod
            if lastmod.startswith("<")
            else f"<lastmod>{lastmod}</lastmod>"
            if lastmod
            else ""
        )
        + (f"<priority>{priority}</priority>" if priority else "")
        + "</url>\n"
        for path, lastmod, priority, opening in rows
    )
    data = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'.encode()
    limits = ReadLimits()
    document = _prepare(data, "x", None, limits)
    general = _prepare(data, "x", None, limits)
    general.fast = False
    fast_problems: list[Problem] = []
    general_problems: list[Problem] = []
    got = [e for b in _Extractor(document, limits, fast_problems.append).batches() for e in b]
    expected = [
        e for b in _Extractor(general, limits, general_problems.append).batches() for e in b
    ]
    assert got == expected
    assert fast_problems == general_problems


def test_text_sitemap_reports_bad_lines_before_the_first_url() -> None:
    problems: list[Problem] = []
    data = b"# my urls\n\nhttps://a.example/1\nfoo bar\nhttps://a.example/2 extra\n"
    entries = list(parse(data, url="list.txt", on_problem=problems.append))
    assert entries == [URLEntry("https://a.example/1")]
    assert [(p.line, p.message) for p in problems] == [
        (1, "not a URL: '# my urls'; skipped"),
        (4, "not a URL: 'foo bar'; skipped"),
        (5, "not a URL: 'https://a.example/2 extra'; skipped"),
    ]


def test_text_without_any_url_is_not_a_sitemap() -> None:
    with pytest.raises(ParseError, match="no URL on any line"):
        list(parse(b'{"json": "instead"}\n'))


def test_index_children_that_are_not_urls_are_problems(tmp_path: Path) -> None:
    (tmp_path / "good.xml").write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://www.example.com/a</loc></url></urlset>"
    )
    (tmp_path / "index.xml").write_text(
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<sitemap><loc>http://[bad/s.xml</loc></sitemap>"
        "<sitemap><loc>https://www.example.com/good.xml</loc></sitemap></sitemapindex>"
    )
    problems: list[Problem] = []
    entries = list(iter_urls(tmp_path / "index.xml", on_problem=problems.append))
    assert [entry.loc for entry in entries] == ["https://www.example.com/a"]
    assert [problem.message for problem in problems] == [
        "child sitemap 'http://[bad/s.xml' is not a valid http(s) URL; not read"
    ]


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"max_seconds": float("nan")}, "max_seconds must be positive"),
        ({"max_seconds": 0}, "max_seconds must be positive"),
        ({"max_entries": 0}, "max_entries must be at least 1"),
        ({"max_depth": -1}, "max_depth must be at least 0"),
    ],
)
def test_limits_that_would_mean_no_limit_or_nothing_are_refused(
    limits: dict[str, float], message: str
) -> None:
    with pytest.raises(SitemapError, match=message):
        ReadLimits(**limits)  # type: ignore[arg-type]


def test_threads_asking_for_the_fetcher_at_once_share_one() -> None:
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    from sitemapkit import Reader

    barrier = Barrier(8)

    def get(reader: Reader) -> int:
        barrier.wait()
        return id(reader.fetcher)

    with Reader() as reader, ThreadPoolExecutor(8) as pool:
        assert len(set(pool.map(get, [reader] * 8))) == 1
