"""``generate --html``: the HTML site map for visitors (sections, titles, escaping, a cap)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sitemapkit import URLEntry, from_directory
from sitemapkit.cli import main
from sitemapkit.htmlmap import HTMLSiteMap
from sitemapkit.sources.directory import html_title


class Outline(HTMLParser):
    """Headings and the links under each, as a reader of the page meets them."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, list[tuple[str, str]]] = {}
        self._tag = ""
        self._href = ""
        self._current = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag = tag
        if tag == "a":
            self._href = dict(attrs).get("href") or ""

    def handle_data(self, data: str) -> None:
        if self._tag == "h2":
            self._current = data
            self.sections[data] = []
        elif self._tag == "a":
            self.sections[self._current].append((self._href, data))

    def handle_endtag(self, tag: str) -> None:
        self._tag = ""


def outline(text: str) -> dict[str, list[tuple[str, str]]]:
    parser = Outline()
    parser.feed(text)
    return parser.sections


def test_pages_grouped_by_section_with_titles_and_escaped() -> None:
    site_map = HTMLSiteMap(base_url="https://example.com/")
    entries = [
        URLEntry("https://example.com/blog/b.html", title='B <post> & "more"'),
        URLEntry("https://example.com/", title="Home page"),
        URLEntry("https://example.com/blog/a.html"),
        URLEntry("https://example.com/about.html", title="About"),
        URLEntry("https://example.com/blog/a.html", title="second sighting, ignored"),
        URLEntry("https://other.example/x.html", title="out of scope"),
        URLEntry("https://example.com/caf%C3%A9/menu.html?x=1&y=<2>", title="Menu"),
    ]
    assert list(site_map.watch(entries)) == entries  # passed through unchanged
    text = site_map.render()
    assert outline(text) == {
        "Home": [
            ("https://example.com/", "Home page"),
            ("https://example.com/about.html", "About"),
        ],
        "blog": [
            ("https://example.com/blog/a.html", "/blog/a.html"),
            ("https://example.com/blog/b.html", 'B <post> & "more"'),
        ],
        "café": [("https://example.com/caf%C3%A9/menu.html?x=1&y=%3C2%3E", "Menu")],
    }
    assert "B &lt;post&gt; &amp; &quot;more&quot;" in text
    assert "other.example" not in text
    assert '<html lang="en">' in text
    assert "<script" not in text


def test_the_shallowest_pages_are_kept_in_bounded_memory() -> None:
    site_map = HTMLSiteMap(base_url="https://example.com/", max_pages=5)
    deep = [URLEntry(f"https://example.com/a/b/c/{i}.html") for i in range(100)]
    shallow = [URLEntry(f"https://example.com/{i}.html") for i in range(4)]
    list(site_map.watch([*deep, URLEntry("https://example.com/"), *shallow]))
    assert len(site_map._pages) < 10  # cut back as it goes, never all 105
    text = site_map.render(total=105)
    links = re.findall(r'<a href="([^"]+)"', text)
    assert links == [
        "https://example.com/",
        "https://example.com/0.html",
        "https://example.com/1.html",
        "https://example.com/2.html",
        "https://example.com/3.html",
    ]
    assert "The 5 main pages of 105" in text


def test_folder_source_reads_titles(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<html><head><title>Welcome\n home</title></head></html>")
    (tmp_path / "latin.html").write_bytes(
        b'<meta charset="iso-8859-1"><title>Caf\xe9 &amp; bar</title>'
    )
    (tmp_path / "untitled.html").write_text("<p>no title")
    titles = {
        entry.loc: entry.title
        for entry in from_directory(tmp_path, base_url="https://example.com/")
    }
    assert titles == {
        "https://example.com/": "Welcome home",
        "https://example.com/latin.html": "Café & bar",
        "https://example.com/untitled.html": None,
    }
    assert html_title(b"<title></title>") is None


def test_generate_html_from_a_folder_and_from_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    (site / "index.html").write_text("<title>Start</title>")
    (site / "docs" / "guide.html").write_text("<title>The guide</title>")
    out = tmp_path / "out"
    args = ["generate", "--base-url", "https://example.com/", "--dir", str(site)]
    main([*args, "--out", str(out), "--html", str(out / "site-map.html")])
    assert "HTML site map: 2 pages" in capsys.readouterr().out
    assert outline((out / "site-map.html").read_text()) == {
        "Home": [("https://example.com/", "Start")],
        "docs": [("https://example.com/docs/guide.html", "The guide")],
    }
    config = tmp_path / "sitemapkit.toml"
    config.write_text(
        'base_url = "https://example.com/"\nout = "public"\nxsl = true\n'
        'html = "public/map.html"\nhtml_max_pages = 1\n'
        f'[[source]]\ntype = "dir"\npath = "{site}"\n'
    )
    main(["generate", "--config", str(config)])
    assert outline((tmp_path / "public" / "map.html").read_text()) == {
        "Home": [("https://example.com/", "Start")]
    }
    assert (tmp_path / "public" / "sitemap.xsl").is_file()
