"""Issue 7 in the writer: reciprocal hreflang sets, news sets, extension markup and splitting."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lxml import etree

from sitemapkit import Alternate, Image, News, SitemapWriter, URLEntry, Video
from sitemapkit.model import XHTML_NS

BASE = "https://www.example.com/"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def entries_of(out: Path, name: str = "sitemap") -> dict[str, etree._Element]:
    entry = etree.parse(str(out / f"{name}.xml")).getroot()
    files = [out / f"{name}.xml"]
    if etree.QName(entry).localname == "sitemapindex":
        files = [out / str(loc.text).rsplit("/", 1)[1] for loc in entry.iterfind(".//{*}loc")]
    found = {}
    for path in files:
        data = path.read_bytes()
        root = etree.fromstring(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
        for url in root:
            found[str(url.findtext("{*}loc"))] = url
    return found


def links(url: etree._Element) -> list[tuple[str, str]]:
    return [(str(a.get("hreflang")), str(a.get("href"))) for a in url.iter(f"{{{XHTML_NS}}}link")]


def test_one_sided_alternates_become_reciprocal_sets(tmp_path: Path) -> None:
    en, de, fr = BASE + "en/page", BASE + "de/seite", BASE + "fr/page"
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        writer.add(de)  # a language version written before its set is known
        writer.add(URLEntry(en, lastmod="2024-05-01",
                            alternates=(Alternate("en", en), Alternate("de", de))))  # fmt: skip
        writer.add(URLEntry(fr, alternates=(Alternate("fr", fr), Alternate("en", en),
                                            Alternate("x-default", BASE))))  # fmt: skip
        writer.add(URLEntry(BASE + "other",
                            alternates=(Alternate("en", BASE + "other"),
                                        Alternate("es", "https://example.es/otro"))))  # fmt: skip
    found = entries_of(tmp_path)
    full = [("de", de), ("en", en), ("fr", fr), ("x-default", BASE)]
    for url in (en, de, fr, BASE):  # BASE is in scope and was added for the set
        assert links(found[url]) == full, url
    assert found[en].findtext("{*}lastmod") == "2024-05-01"
    assert links(found[BASE + "other"]) == [("en", BASE + "other"),
                                            ("es", "https://example.es/otro")]  # fmt: skip
    assert "https://example.es/otro" not in found  # other hosts list their own
    assert list(found) == [de, en, fr, BASE + "other", BASE]
    assert writer.result.urls == 5
    assert writer.result.notes == {"hreflang-added": 1}


def test_hreflang_sets_split_by_bytes_with_their_markup(tmp_path: Path) -> None:
    """50,000 URLs with ten alternates each: count-only splitters overflow 50 MiB here."""
    languages = ["en", "de", "fr", "es", "it", "nl", "pt", "sv", "pl", "da"]
    with SitemapWriter(tmp_path, base_url=BASE) as writer:
        for page in range(5_000):
            versions = tuple(Alternate(lang, f"{BASE}{lang}/product-{page:05d}-{'x' * 40}")
                             for lang in languages)  # fmt: skip
            for version in versions:
                writer.add(URLEntry(version.href, alternates=versions))
    result = writer.result
    assert result.urls == 50_000
    assert result.is_index
    sizes = []
    for child in result.children:
        raw = gzip.decompress(child.read_bytes())
        sizes.append(len(raw))
        assert len(raw) <= 52_428_800
        assert raw.count(b"<url>") < 50_000
    assert sum(sizes) > 52_428_800  # it had to split by bytes, not by count


def test_news_go_to_their_own_set_within_two_days(tmp_path: Path) -> None:
    def article(number: int, age: timedelta) -> URLEntry:
        return URLEntry(
            f"{BASE}news/{number}",
            news=News("The Times", "en", (NOW - age).isoformat(), f"Story {number}"),
        )

    with SitemapWriter(tmp_path, base_url=BASE, now=NOW) as writer:
        for number in range(1_500):
            writer.add(article(number, timedelta(hours=1)))
        writer.add(article(9_999, timedelta(days=3)))
        writer.add(BASE + "about")
    result = writer.result
    assert result.news is not None
    assert result.news.entry_point == tmp_path / "sitemap-news.xml"
    assert len(result.news.children) == 2  # at most 1,000 URLs a news sitemap
    news = entries_of(tmp_path, "sitemap-news")
    assert len(news) == 1_500
    assert f"{BASE}news/9999" not in news
    assert result.notes == {"news-too-old": 1}
    main = entries_of(tmp_path)
    assert len(main) == 1_502  # every article is a page too, without news markup
    assert not list(main[f"{BASE}news/1"].iter("{*}news"))


def test_all_extensions_in_one_file(tmp_path: Path) -> None:
    entry = URLEntry(
        BASE + "watch",
        images=(Image(BASE + "a.jpg"), Image(BASE + "b.jpg")),
        videos=(
            Video(
                BASE + "t.jpg",
                "Title",
                "Description",
                content_loc=BASE + "v.mp4",
                duration=60,
                live=False,
            ),
        ),
        alternates=(Alternate("en", BASE + "watch"),),
        news=News("Daily", "en", NOW.isoformat(), "Headline"),
    )
    with SitemapWriter(tmp_path, base_url=BASE, split_news=False, now=NOW) as writer:
        writer.add(entry)
    text = (tmp_path / "sitemap.xml").read_text()
    for prefix in ("image", "video", "news", "xhtml"):
        assert f"xmlns:{prefix}=" in text.split(">", 2)[1]
    assert text.count("<image:image>") == 2
