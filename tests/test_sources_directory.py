from __future__ import annotations

import os
from pathlib import Path

from sitemapkit import Problem, from_directory
from sitemapkit.sources.directory import is_noindex_html

BASE = "https://example.com/"


def page(head: str = "") -> str:
    return f"<html><head>{head}<title>t</title></head><body></body></html>"


def test_folder_becomes_urls(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "docs" / "sub").mkdir(parents=True)
    (site / ".hidden").mkdir()
    (site / "index.html").write_text(page())
    (site / "about.html").write_text(page())
    (site / "docs" / "index.html").write_text(page())
    (site / "docs" / "a b.html").write_text(page())
    (site / "docs" / "über.html").write_text(page())
    (site / "docs" / "50%#1.htm").write_text(page())
    (site / "docs" / "sub" / "guide.pdf").write_bytes(b"%PDF")
    (site / "docs" / "private.html").write_text(
        page('<meta name="ROBOTS" content="NOINDEX, follow">')
    )
    (site / "docs" / "bot.html").write_text(page("<meta content='none' name='googlebot'>"))
    (site / "style.css").write_text("")
    (site / ".hidden" / "x.html").write_text(page())
    (site / ".secret.html").write_text(page())
    os.utime(site / "about.html", (1_700_000_000, 1_700_000_000))
    problems: list[Problem] = []
    entries = list(from_directory(site, base_url=BASE, on_problem=problems.append))
    assert [e.loc for e in entries] == [
        BASE,
        BASE + "about.html",
        BASE + "docs/",
        BASE + "docs/50%25%231.htm",
        BASE + "docs/a%20b.html",
        BASE + "docs/%C3%BCber.html",
        BASE + "docs/sub/guide.pdf",
    ]
    assert entries[1].lastmod is not None
    assert entries[1].lastmod.isoformat() == "2023-11-14T22:13:20+00:00"  # type: ignore[union-attr]
    assert problems == []


def test_include_exclude_and_keep_noindex(tmp_path: Path) -> None:
    (tmp_path / "blog").mkdir()
    (tmp_path / "blog" / "post.html").write_text(page())
    (tmp_path / "blog" / "draft.html").write_text(page('<meta name="robots" content="noindex">'))
    (tmp_path / "data.json").write_text("{}")
    entries = from_directory(
        tmp_path,
        base_url=BASE,
        include=("*.html", "*.json"),
        exclude=("blog/post.*",),
        skip_noindex=False,
    )
    assert [e.loc for e in entries] == [BASE + "data.json", BASE + "blog/draft.html"]


def test_noindex_detection() -> None:
    assert is_noindex_html(b'<meta name="robots" content="noindex">')
    assert is_noindex_html(b"<META NAME=robots CONTENT=none>")
    assert not is_noindex_html(b'<meta name="robots" content="index, follow">')
    assert not is_noindex_html(b'<meta name="description" content="noindex">')
    assert not is_noindex_html(b'<meta name="robots" content="noindexing">')


def test_page_declaring_a_codec_that_cannot_replace_keeps_its_title(tmp_path: Path) -> None:
    """idna refuses errors="replace" and punycode raises a bare UnicodeError."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.html").write_bytes(b'<head><meta charset="idna"><title>Caf\xc3\xa9</title></head>')
    (site / "b.html").write_bytes(b'<head><meta charset="punycode"><title>\x80</title></head>')
    entries = list(from_directory(site, base_url=BASE))
    assert [(e.loc, e.title) for e in entries] == [
        (BASE + "a.html", "Café"),
        (BASE + "b.html", "\ufffd"),
    ]
