from __future__ import annotations

import gzip
import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from sitemapkit import (
    Alternate,
    Image,
    InvalidURLError,
    InvalidValueError,
    LimitError,
    SitemapError,
    SitemapWriter,
    StrictError,
    URLEntry,
    normalize_url,
)
from sitemapkit.model import SITEMAP_NS_084, SITEMAP_NS_09
from tests.oracles import assert_schema_valid, usp_urls

NS = {"sm": SITEMAP_NS_09}
BASE = "https://www.example.com/"


def read_xml(path: Path) -> etree._Element:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return etree.fromstring(data)


def locs(path: Path) -> list[str]:
    return [str(el.text) for el in read_xml(path).iterfind(".//{*}loc")]


def all_urls(out: Path) -> list[str]:
    """The page URLs of the set published in ``out``, following its index."""
    entry = out / "sitemap.xml"
    root = read_xml(entry)
    if etree.QName(root).localname == "urlset":
        return locs(entry)
    children = [out / str(loc).rsplit("/", 1)[1] for loc in locs(entry)]
    return [url for child in children for url in locs(child)]


def test_negative_zero_priority_is_written_as_zero(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/a", priority=-0.0)
        writer.add("/b", priority="-0")  # type: ignore[arg-type]  # as a CSV column gives it
        writer.add("/c", priority=0.5)
    text = (tmp_path / "sitemap.xml").read_text()
    assert text.count("<priority>0.0</priority>") == 2
    assert "-0" not in text


def test_one_file_is_a_plain_urlset(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/", lastmod=date(2024, 5, 1), changefreq="daily", priority=0.8)
        writer.add("/catalog?item=12&desc=vacation_hawaii")
        writer.add("/ümlat.php?q=name", lastmod=datetime(2024, 5, 1, 10, tzinfo=UTC))
    result = writer.result
    assert not result.is_index
    assert result.entry_point == tmp_path / "sitemap.xml"
    assert result.urls == 3
    text = result.entry_point.read_text()
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns=')
    assert "&amp;desc=vacation_hawaii" in text
    assert text.count("<changefreq>") == 1  # never made up
    assert text.count("<priority>") == 1
    assert locs(result.entry_point) == [
        BASE,
        BASE + "catalog?item=12&desc=vacation_hawaii",
        BASE + "%C3%BCmlat.php?q=name",
    ]
    assert_schema_valid(result.entry_point)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".sitemap.sitemapkit.json", "sitemap.xml"]


def test_split_by_count_into_gzipped_children_and_index(tmp_path: Path, serve_dir) -> None:  # type: ignore[no-untyped-def]
    base = serve_dir(tmp_path)
    urls = [f"{base}item/{i}?a=1&b={i % 3}" for i in range(35)]
    with SitemapWriter(tmp_path, base_url=base, max_urls=10) as writer:
        for i, url in enumerate(urls):
            writer.add(url, lastmod=date(2024, 1, 1) + timedelta(days=i))
    result = writer.result
    assert result.is_index
    assert len(result.children) == 4
    index = read_xml(result.entry_point)
    assert etree.QName(index).localname == "sitemapindex"
    child_lastmods = [el.text for el in index.iterfind(".//sm:lastmod", NS)]
    # each child's lastmod is the newest among its URLs, never the write time
    assert child_lastmods == ["2024-01-10", "2024-01-20", "2024-01-30", "2024-02-04"]
    for child in result.children:
        assert child.read_bytes()[:2] == b"\x1f\x8b"
        assert child.name.endswith(".xml.gz")
        assert_schema_valid(child)
    assert_schema_valid(result.entry_point)
    assert all_urls(tmp_path) == urls
    assert usp_urls(base + "sitemap.xml") == urls


def test_split_by_bytes_counts_the_closing_tag(tmp_path: Path) -> None:
    max_bytes = 4096
    with SitemapWriter(tmp_path, base_url=BASE, max_bytes=max_bytes, gzip=False) as writer:
        writer.add_all(f"{BASE}page/{i:04d}/" + "x" * (i % 50) for i in range(400))
    sizes = [child.stat().st_size for child in writer.result.children]
    assert all(size <= max_bytes for size in sizes)
    # tight: each file but the last is full enough that the next entry did not fit
    longest_entry = len(f"<url><loc>{BASE}page/0000/{'x' * 49}</loc></url>\n")
    assert all(size > max_bytes - longest_entry for size in sizes[:-1])
    assert len(all_urls(tmp_path)) == 400
    for child in writer.result.children:
        assert_schema_valid(child)


def test_output_is_reproducible(tmp_path: Path) -> None:
    def run(out: Path) -> dict[str, bytes]:
        with SitemapWriter(out, base_url=BASE, max_urls=100) as writer:
            for i in range(450):
                writer.add(f"/p/{i}", lastmod="2024-05-01T10:00:00Z")
        return {p.name: p.read_bytes() for p in out.iterdir()}

    assert run(tmp_path / "a") == run(tmp_path / "b")


def test_left_out_urls_are_counted_by_reason(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/a")
        writer.add("https://www.example.com/a#fragment")
        writer.add("ftp://www.example.com/file")
        writer.add("https://other.example.com/")
        writer.add("/" + "x" * 2100)
        writer.add("http://www.example.com/insecure")
    result = writer.result
    assert result.urls == 1
    assert result.skipped == {"duplicate": 1, "scheme": 1, "out-of-scope": 2, "too-long": 1}
    assert result.skipped_examples["scheme"] == ("ftp://www.example.com/file",)


def test_strict_refuses_and_publishes_nothing(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/old")
    before = (tmp_path / "sitemap.xml").read_bytes()
    with (
        pytest.raises(StrictError, match="out-of-scope"),
        SitemapWriter(tmp_path, base_url=BASE, strict=True) as writer,
    ):
        writer.add("/new")
        writer.add("https://elsewhere.example/")
    assert (tmp_path / "sitemap.xml").read_bytes() == before
    assert not [p for p in tmp_path.parent.iterdir() if ".sitemapkit-" in p.name and p.is_dir()]


def test_nothing_to_write_keeps_the_old_set(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/old")
    with (
        pytest.raises(SitemapError, match="nothing to write"),
        SitemapWriter(tmp_path, base_url=BASE) as writer,
    ):
        writer.add("mailto:nobody@example.com")
    assert locs(tmp_path / "sitemap.xml") == [BASE + "old"]


def test_republishing_removes_stale_children_and_keeps_unchanged_ones(tmp_path: Path) -> None:
    def run(count: int) -> list[Path]:
        with SitemapWriter(tmp_path, base_url=BASE, max_urls=10) as writer:
            writer.add_all(f"/p/{i:03d}" for i in range(count))
        return list(writer.result.children)

    first = run(35)
    os.utime(first[0], (1_000_000_000, 1_000_000_000))
    second = run(25)
    assert first[:2] == second[:2]  # same content, same name
    assert first[0].stat().st_mtime == 1_000_000_000  # untouched
    assert second[2] != first[2]  # the third child changed
    names = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".gz"))
    assert names == sorted(p.name for p in second)
    # back to one file: every child goes
    run(5)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".sitemap.sitemapkit.json", "sitemap.xml"]


def test_text_format(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path / "one", base_url=BASE, format="txt") as writer:
        writer.add_all(["/a?x=1&y=2", "/b"])
    assert (tmp_path / "one" / "sitemap.txt").read_text() == (f"{BASE}a?x=1&y=2\n{BASE}b\n")
    with SitemapWriter(tmp_path / "many", base_url=BASE, format="txt", max_urls=2) as writer:
        writer.add_all(["/a", "/b", "/c"])
    result = writer.result
    assert result.entry_point.name == "sitemap.xml"
    assert [c.name.endswith(".txt.gz") for c in result.children] == [True, True]
    assert gzip.decompress(result.children[1].read_bytes()) == f"{BASE}c\n".encode()
    assert_schema_valid(result.entry_point)


def test_protocol_084(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url=BASE, protocol="0.84") as writer:
        writer.add("/")
    assert writer.max_bytes == 10_485_760
    assert SITEMAP_NS_084 in (tmp_path / "sitemap.xml").read_text()
    with (
        pytest.raises(LimitError, match="at most 1,000"),
        SitemapWriter(tmp_path, base_url=BASE, protocol="0.84", max_urls=1) as writer,
    ):
        writer.add_all(f"/p{i}" for i in range(1001))
    assert locs(tmp_path / "sitemap.xml") == [BASE]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_urls": 50_001}, "max_urls must be between 1 and 50,000"),
        ({"max_bytes": 52_428_801}, "max_bytes must be between"),
        ({"protocol": "0.84", "max_bytes": 20_000_000}, "protocol 0.84 limit"),
        ({"base_url": "ftp://example.com/"}, "bad base URL"),
        ({"name": "../escape"}, "bad sitemap name"),
    ],
)
def test_bad_options(tmp_path: Path, options: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"base_url": BASE, **options}
    with pytest.raises(InvalidValueError, match=message):
        SitemapWriter(tmp_path, **arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("changefreq", "sometimes", "not one of"),
        ("priority", 1.5, "outside 0.0 to 1.0"),
        ("lastmod", "2005-01-01T18:00:15", "time without a time zone"),
        ("lastmod", "2005-02-30", "impossible"),
    ],
)
def test_bad_values_raise_at_add(tmp_path: Path, field: str, value: object, message: str) -> None:
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/ok")
        with pytest.raises(InvalidValueError, match=message):
            writer.add("/bad", **{field: value})  # type: ignore[arg-type]


def test_changefreq_is_normalised(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/", changefreq=" Daily ")
    assert "<changefreq>daily</changefreq>" in (tmp_path / "sitemap.xml").read_text()


def test_writer_cannot_be_reused(tmp_path: Path) -> None:
    writer = SitemapWriter(tmp_path, base_url=BASE)
    writer.add("/")
    writer.close()
    with pytest.raises(RuntimeError, match="closed"):
        writer.add("/again")


def test_extensions_are_written_and_schema_valid(tmp_path: Path) -> None:
    entry = URLEntry(
        BASE + "en/page",
        lastmod="2024-05-01",
        images=(Image("https://cdn.example.net/ü.jpg"),),
        alternates=(Alternate("en", BASE + "en/page"), Alternate("de", BASE + "de/seite")),
    )
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add(entry)
        writer.add("/plain")
    text = (tmp_path / "sitemap.xml").read_text()
    assert "https://cdn.example.net/%C3%BC.jpg" in text
    assert "xmlns:video" not in text
    assert_schema_valid(tmp_path / "sitemap.xml")


def test_too_many_images(tmp_path: Path) -> None:
    entry = URLEntry(BASE, images=tuple(Image(f"{BASE}{i}.png") for i in range(1001)))
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/")
        with pytest.raises(InvalidValueError, match="1,001 images"):
            writer.add(entry)


def test_a_second_run_on_the_same_folder_waits_its_turn(tmp_path: Path) -> None:
    first = SitemapWriter(tmp_path, base_url=BASE)
    with pytest.raises(SitemapError, match="another sitemapkit run"):
        SitemapWriter(tmp_path, base_url=BASE)
    first.abort()
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add("/")


@given(path=st.text(max_size=30), query=st.text(max_size=30))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_write_then_parse_gives_back_the_encoded_url(tmp_path: Path, path: str, query: str) -> None:
    url = f"{BASE}{path}?{query}"
    try:
        expected = normalize_url(url)
    except InvalidURLError:
        return
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add(url)
    if writer.result.urls:  # a URL that normalises outside the base folder is left out
        assert locs(tmp_path / "sitemap.xml") == [expected]
