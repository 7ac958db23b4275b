"""robots.txt edits: byte-for-byte preservation, idempotence, atomic replacement."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


_LINES = st.sampled_from(
    [
        b"User-agent: *",
        b"Disallow: /x",
        b"# comment \xff\xfe",
        b"",
        b"Sitemap: https://a.example/s.xml",
        b"sitemap:/sitemap.xml",
        b"SITEMAP: http://www.example.com/sitemap.xml",
        b"Allow: /",
    ]
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(_LINES, max_size=12),
    st.sampled_from([b"\n", b"\r\n", b"\r"]),
    st.booleans(),
    st.booleans(),
)
def test_edits_keep_every_other_line_and_are_idempotent(
    tmp_path: Path, lines: list[bytes], eol: bytes, bom: bool, final_eol: bool
) -> None:
    robots = tmp_path / "robots.txt"
    data = (
        (b"\xef\xbb\xbf" if bom else b"") + eol.join(lines) + (eol if final_eol and lines else b"")
    )
    robots.write_bytes(data)
    update_robots_txt(robots, URL)
    after = robots.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") == bom
    ours = {b"sitemap:/sitemap.xml", b"SITEMAP: http://www.example.com/sitemap.xml"}
    before = data.removeprefix(b"\xef\xbb\xbf").splitlines()
    kept = [line for line in before if line not in ours]
    new_lines = after.removeprefix(b"\xef\xbb\xbf").splitlines()
    assert [line for line in new_lines if line != b"Sitemap: " + URL.encode()] == kept
    assert new_lines.count(b"Sitemap: " + URL.encode()) == 1
    assert update_robots_txt(robots, URL) is False
    assert robots.read_bytes() == after
