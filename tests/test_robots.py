"""robots.txt edits: byte-for-byte preservation, idempotence, atomic replacement."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sitemapkit import InvalidValueError, update_robots_txt

URL = "https://www.example.com/sitemap.xml"


def test_creates_a_missing_file(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    assert update_robots_txt(robots, URL) is True
    assert robots.read_bytes() == b"Sitemap: https://www.example.com/sitemap.xml\n"
    assert stat.S_IMODE(robots.stat().st_mode) == 0o644


def test_appends_keeping_bom_crlf_comments_and_other_hosts(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    original = (
        b"\xef\xbb\xbf# robots for example.com \xe2\x80\x94 caf\xc3\xa9\r\n"
        b"User-agent: *\r\n"
        b"Disallow: /private/   \r\n"
        b"\r\n"
        b"Sitemap: https://cdn.example.net/sitemap.xml\r\n"
        b"sitemap: https://www.example.com/news-sitemap.xml # the news one\r\n"
        b"Crawl-delay: 5"
    )
    robots.write_bytes(original)
    assert update_robots_txt(robots, URL) is True
    expected = original + b"\r\nSitemap: https://www.example.com/sitemap.xml\r\n"
    assert robots.read_bytes() == expected
    assert update_robots_txt(robots, URL) is False
    assert robots.read_bytes() == expected


def test_updates_our_line_in_place_and_drops_duplicates(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(
        b"User-agent: *\n"
        b"SITEMAP:http://WWW.Example.com:80/sitemap.xml\n"
        b"Disallow: /tmp/\n"
        b"Sitemap: /sitemap.xml\n"
        b"Sitemap: https://other.example.org/sitemap.xml\n"
    )
    assert update_robots_txt(robots, URL) is True
    assert robots.read_bytes() == (
        b"User-agent: *\n"
        b"Sitemap: https://www.example.com/sitemap.xml\n"
        b"Disallow: /tmp/\n"
        b"Sitemap: https://other.example.org/sitemap.xml\n"
    )
    assert update_robots_txt(robots, URL) is False


def test_an_exact_duplicate_is_removed(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(f"Sitemap: {URL}\nUser-agent: *\nSitemap: {URL}".encode())
    assert update_robots_txt(robots, URL) is True
    assert robots.read_bytes() == f"Sitemap: {URL}\nUser-agent: *\n".encode()


def test_keeps_mode_follows_symlinks_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    real = tmp_path / "site" / "robots.txt"
    real.parent.mkdir()
    real.write_bytes(b"User-agent: *\nDisallow:\n")
    os.chmod(real, 0o640)
    link = tmp_path / "robots-link.txt"
    link.symlink_to(real)
    assert update_robots_txt(link, URL) is True
    assert link.is_symlink()
    assert real.read_bytes() == b"User-agent: *\nDisallow:\nSitemap: " + URL.encode() + b"\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["robots.txt"]


def test_bad_url_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidValueError, match="bad sitemap URL"):
        update_robots_txt(tmp_path / "robots.txt", "/sitemap.xml")
    assert not (tmp_path / "robots.txt").exists()
