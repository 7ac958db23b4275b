"""validate(): sources, positions, caps, trees, safety and memory."""

from __future__ import annotations

import gzip
import io
import tracemalloc
from pathlib import Path

import pytest

import sitemapkit
from sitemapkit import SitemapWriter, URLEntry
from sitemapkit.errors import SourceError
from sitemapkit.validate import Report, Severity, validate
from sitemapkit.validate.rules import (
    check_changefreq,
    check_lastmod,
    check_loc,
    check_priority,
)

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


def urlset(body: str, namespace: str = SM) -> bytes:
    return f'{DECL}<urlset xmlns="{namespace}">\n{body}</urlset>\n'.encode()


def rules_of(report: Report) -> list[str]:
    return [issue.rule for issue in report.issues]


# -- the value rules, one by one --------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2005-01-01", []),
        ("2005-01-01T18:00:15+00:00", []),
        ("2004-11-23T18:00:15.5Z", []),
        ("  2005-01-01  ", []),
        ("2005", ["SM-M04"]),
        ("2005-01", ["SM-M04"]),
        ("2005-01-01T18:00+00:00", ["SM-M04"]),
        ("2005-01-01T18:00:15", ["SM-M03"]),
        ("2005-13-01", ["SM-M02"]),
        ("2005-02-29", ["SM-M02"]),
        ("2004-02-29", []),
        ("2005-01-01T25:00:00Z", ["SM-M02"]),
        ("2005-01-01T10:00:00+15:00", ["SM-M02"]),
        ("2005-01-01Z", ["SM-M05"]),
        ("2005-01-01+02:00", ["SM-M05"]),
        ("2005-01-01T24:00:00Z", ["SM-M06"]),
        ("2999-01-01", ["SM-M07"]),
        ("01/02/2005", ["SM-M01"]),
        ("2005-1-1", ["SM-M01"]),
        ("2005-01-01 10:00:00Z", ["SM-M01"]),
        ("", ["SM-M01"]),
    ],
)
def test_lastmod_rules(value: str, expected: list[str]) -> None:
    assert [rule for rule, _, _ in check_lastmod(value)] == expected


def test_lastmod_legacy_forms_are_warnings_in_084() -> None:
    [(rule, _, severity)] = check_lastmod("2005-01", legacy=True)
    assert (rule, severity) == ("SM-M04", Severity.WARNING)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("0.5", True),
        (".5", True),
        ("1.", True),
        ("+0.5", True),
        ("0", True),
        ("1.0", True),
        (" 0.3 ", True),
        ("-0.0", True),
        ("5E-1", False),
        ("NaN", False),
        ("1.5", False),
        ("-0.1", False),
        ("", False),
        ("0,5", False),
    ],
)
def test_priority_is_an_xsd_decimal_between_0_and_1(value: str, ok: bool) -> None:
    assert (check_priority(value) == []) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("daily", True),
        ("never", True),
        ("Daily", False),
        (" daily ", False),
        ("sometimes", False),
    ],
)
def test_changefreq_is_exact(value: str, ok: bool) -> None:
    assert (check_changefreq(value) == []) is ok


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://www.example.com/a?b=c&d=%C3%BC#top", []),
        ("HTTP://WWW.EXAMPLE.COM/", []),
        ("http://[::1]:8080/path", []),
        ("/relative/page.html", ["SM-L01"]),
        ("ftp://example.com/file", ["SM-L01"]),
        ("https://www.example.com/" + "a" * 2024, ["SM-L02"]),
        ("https://www.example.com/" + "a" * 2025, ["SM-L02"]),
        ("http://a.b/", ["SM-L02"]),
        ("https://www.example.com/a b", ["SM-L03"]),
        ("https://www.example.com/100%", ["SM-L03"]),
        ("https://www.example.com/{x}", ["SM-L03"]),
        ("https://www.example.com:99999/", ["SM-L03"]),
        ("https://exa mple.com/", ["SM-L03", "SM-L03"]),
        ("https://www.example.com/ümlat.php", ["SM-L05"]),
    ],
)
def test_loc_rules(url: str, expected: list[str]) -> None:
    assert sorted(rule for rule, _, _ in check_loc(url)) == expected


def test_loc_of_exactly_2048_characters_is_only_a_warning() -> None:
    [(rule, _, severity)] = check_loc("https://www.example.com/" + "a" * 2024)
    assert rule == "SM-L02"
    assert severity is Severity.WARNING
    assert check_loc("https://www.example.com/" + "a" * 2025)[0][2] is None


def test_loc_suggests_the_percent_encoded_form() -> None:
    [(_, message, _)] = check_loc("http://www.example.com/ümlat.php&q=name")
    assert "%C3%BCmlat.php&q=name" in message


# -- positions, report values -----------------------------------------------------------------


def test_line_and_column_point_at_the_element() -> None:
    document = urlset(
        "  <url>\n    <loc>https://www.example.com/</loc>\n"
        "    <changefreq>sometimes</changefreq>\n  </url>\n"
        "  <url>\n      <priority>2</priority>\n  </url>\n"
    )
    report = validate(document)
    found = {(issue.rule, issue.line, issue.column) for issue in report.issues}
    assert ("SM-C01", 5, 5) in found
    assert ("SM-P01", 8, 7) in found
    assert ("SM-U02", 7, 3) in found
    assert report.errors[0].file == "<bytes>"


def test_parse_errors_carry_expat_line_and_column() -> None:
    report = validate(urlset("  <url>\n    <loc>https://www.example.com/?a=1&b=2</loc>\n</url>\n"))
    [issue] = report.errors
    assert (issue.rule, issue.line) == ("SM-L04", 4)
    assert issue.column > 30


@pytest.mark.parametrize("encoding", ["bogus", "shift_jis", "utf-7", "idna", "punycode", "rot13"])
def test_an_encoding_expat_cannot_read_is_a_finding(tmp_path: Path, encoding: str) -> None:
    """pyexpat raises LookupError or ValueError for such names; that must not escape."""
    path = tmp_path / "sitemap.xml"
    path.write_bytes(
        f'<?xml version="1.0" encoding="{encoding}"?>\n<urlset xmlns="{SM}">'
        "<url><loc>https://www.example.com/</loc></url></urlset>\n".encode()
    )
    [issue] = validate(path).errors
    assert (issue.rule, issue.line) == ("SM-F02", 1)
    assert repr(encoding) in issue.message


def test_report_to_dict_has_the_documented_shape() -> None:
    report = validate(
        urlset("  <url><loc>https://www.example.com/</loc><lastmod>2999-01-01</lastmod></url>\n")
    )
    data = report.to_dict()
    assert set(data) == {"valid", "errors", "warnings", "files", "urls"}
    assert data["valid"] is True
    assert data["files"] == 1
    assert data["urls"] == 1
    assert data["warnings"][0] == {
        "rule": "SM-M07",
        "severity": "warning",
        "message": "lastmod '2999-01-01' is in the future",
        "file": "<bytes>",
        "line": 3,
        "column": 43,
    }


def test_strict_turns_warnings_into_failure() -> None:
    document = urlset(
        "  <url><loc>https://www.example.com/</loc><lastmod>2999-01-01</lastmod></url>\n"
    )
    assert validate(document).ok
    assert not validate(document, strict=True).ok


def test_findings_are_capped_per_rule_with_a_count_of_the_rest() -> None:
    body = "".join(
        f"  <url><loc>https://www.example.com/{i}</loc><changefreq>x</changefreq></url>\n"
        for i in range(250)
    )
    report = validate(urlset(body), max_per_rule=10)
    shown = [issue for issue in report.issues if issue.rule == "SM-C01"]
    assert len(shown) == 11
    assert "240 more SM-C01 findings" in shown[-1].message
    assert report.error_count == 250
    assert report.counts["SM-C01/error"] == 250


def test_keeps_going_after_errors() -> None:
    body = "".join(f"  <url><loc>/rel/{i}</loc><priority>9</priority></url>\n" for i in range(3))
    report = validate(urlset(body))
    assert rules_of(report).count("SM-L01") == 3
    assert rules_of(report).count("SM-P01") == 3


# -- sources --------------------------------------------------------------------------------


def test_gzip_is_sniffed_by_content_not_name(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"  # no .gz suffix, gzip inside
    path.write_bytes(gzip.compress(urlset("  <url><loc>https://www.example.com/</loc></url>\n")))
    report = validate(path)
    assert report.ok
    assert report.urls == 1


def test_binary_stream_source() -> None:
    stream = io.BytesIO(urlset("  <url><loc>https://www.example.com/</loc></url>\n"))
    assert validate(stream).urls == 1


def test_missing_file_raises_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        validate(tmp_path / "nope.xml")


def test_folder_of_sitemaps_checks_each_file_and_duplicates_across_them(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(urlset("  <url><loc>https://www.example.com/x</loc></url>\n"))
    (tmp_path / "b.xml.gz").write_bytes(
        gzip.compress(urlset("  <url><loc>https://www.example.com/x</loc></url>\n"))
    )
    (tmp_path / "c.txt").write_text("https://www.example.com/y\n")
    (tmp_path / "notes.md").write_text("not a sitemap")
    report = validate(tmp_path)
    assert len(report.files) == 3
    assert report.urls == 3
    [duplicate] = [issue for issue in report.issues if issue.rule == "SM-L11"]
    assert duplicate.file.endswith("b.xml.gz")
    assert "another sitemap of this tree" in duplicate.message


def test_child_named_beyond_the_file_name_limit_is_a_finding(tmp_path: Path) -> None:
    """Path.is_file raises ENAMETOOLONG; the whole run ended with 'File name too long'."""
    index = tmp_path / "sitemap.xml"
    long_name = "x" * 300 + ".xml"
    index.write_text(
        f'{DECL}<sitemapindex xmlns="{SM}"><sitemap><loc>https://www.example.com/{long_name}'
        "</loc></sitemap></sitemapindex>\n"
    )
    report = validate(index, recursive=True, fetch=False)
    assert [issue.rule for issue in report.errors] == ["SM-FETCH-01"]
    assert "was not found next to the index" in report.errors[0].message


def test_recursive_local_tree_written_by_the_writer(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url="https://www.example.com/", max_urls=10) as writer:
        writer.add_all(
            URLEntry(f"https://www.example.com/p{i}", lastmod=f"2024-01-{1 + i % 28:02d}")
            for i in range(35)
        )
    index = writer.result.entry_point
    report = validate(index, recursive=True, strict=True)
    assert report.ok, [str(issue) for issue in report.issues]
    assert len(report.files) == 5
    assert report.urls == 35
    assert not validate(index).files[1:]


def test_recursive_tree_finds_duplicates_and_missing_children(tmp_path: Path) -> None:
    child = urlset("  <url><loc>https://www.example.com/same</loc></url>\n")
    (tmp_path / "one.xml").write_bytes(child)
    (tmp_path / "two.xml").write_bytes(child)
    (tmp_path / "index.xml").write_text(
        f'{DECL}<sitemapindex xmlns="{SM}">\n'
        + "".join(
            f"  <sitemap><loc>https://www.example.com/{name}</loc></sitemap>\n"
            for name in ("one.xml", "two.xml", "gone.xml")
        )
        + "</sitemapindex>\n"
    )
    report = validate(tmp_path / "index.xml", recursive=True)
    assert "SM-L11" in report.rules
    [missing] = [issue for issue in report.issues if issue.rule == "SM-FETCH-01"]
    assert (missing.file, missing.line) == (str(tmp_path / "index.xml"), 5)
    assert not report.ok


def test_text_sitemap_rules(tmp_path: Path) -> None:
    path = tmp_path / "urls.txt"
    path.write_bytes(
        b"https://www.example.com/a\n\n# comment\nwww.example.com/b\n"
        b"https://www.example.com/c https://www.example.com/d\n"
        b"https://www.example.com/\xff\n"
    )
    report = validate(path)
    assert [(issue.rule, issue.line) for issue in report.issues] == [
        ("SM-T05", 2),
        ("SM-T05", 3),
        ("SM-T03", 4),
        ("SM-T02", 5),
        ("SM-L05", 6),
        ("SM-T01", 6),
    ]


def test_feeds_need_a_usable_link_per_item() -> None:
    rss = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>\n'
        b'<item><guid isPermaLink="false">abc</guid></item>\n'
        b"<item><link>https://www.example.com/a</link></item>\n"
        b"<item><guid>https://www.example.com/b</guid></item>\n"
        b"</channel></rss>\n"
    )
    report = validate(rss)
    assert report.urls == 3
    assert [(issue.rule, issue.line) for issue in report.errors] == [("SM-D01", 3)]


def test_relative_feed_links_resolve_against_the_location() -> None:
    atom = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="/posts/1"/></entry></feed>'
    )
    assert "SM-L01" in validate(atom).rules
    located = validate(atom, location="https://www.example.com/feed.xml")
    assert located.error_count == 0


# -- profiles -------------------------------------------------------------------------------


def test_084_has_its_own_limits_and_milder_order_rules() -> None:
    legacy = "http://www.google.com/schemas/sitemap/0.84"
    body = "  <url><lastmod>2005-01-01</lastmod><loc>https://www.example.com/</loc></url>\n"
    report = validate(urlset(body, legacy))
    [order] = [issue for issue in report.issues if issue.rule == "SM-U04"]
    assert order.severity is Severity.WARNING
    assert report.ok
    padding = "<!--" + "x" * 1000 + "-->\n"
    big = urlset(padding * 10_500 + "  <url><loc>https://www.example.com/</loc></url>\n", legacy)
    assert "SM-F05" in validate(big).rules
    assert (
        "SM-F05"
        not in validate(
            urlset(padding * 10_500 + "  <url><loc>https://www.example.com/</loc></url>\n")
        ).rules
    )


def test_index_limit_is_1000_for_084() -> None:
    legacy = "http://www.google.com/schemas/sitemap/0.84"
    entries = "".join(
        f"<sitemap><loc>https://www.example.com/s{i}.xml</loc></sitemap>\n" for i in range(1_001)
    )
    document = f'{DECL}<sitemapindex xmlns="{legacy}">\n{entries}</sitemapindex>\n'.encode()
    assert "SM-I03" in validate(document).rules


# -- safety ---------------------------------------------------------------------------------


def test_entity_declarations_are_refused() -> None:
    bomb = (
        b'<?xml version="1.0"?>\n<!DOCTYPE urlset [\n<!ENTITY a "aaaaaaaaaa">\n'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&b;</loc>'
        b"</url></urlset>"
    )
    report = validate(bomb)
    [issue] = report.errors
    assert issue.rule == "SM-F01"
    assert "entities" in issue.message
    assert issue.line == 3


def test_external_entities_are_never_loaded(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    document = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset SYSTEM "{secret.as_uri()}">\n'
        f'<urlset xmlns="{SM}"><url><loc>https://www.example.com/</loc></url>'
        "</urlset>"
    ).encode()
    report = validate(document)
    assert all("SECRET" not in issue.message for issue in report.issues)
    assert report.ok


def test_gzip_bomb_stops_at_the_cap_quickly(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xml.gz"
    head = urlset("  <url><loc>https://www.example.com/</loc></url>\n").decode()
    padding = "<!--" + " " * 1_000_000 + "-->\n"
    with gzip.open(path, "wt") as handle:
        handle.write(head.replace("<urlset", padding * 200 + "<urlset", 1))
    assert path.stat().st_size < 1_000_000
    tracemalloc.start()
    report = validate(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    [issue] = report.errors
    assert issue.rule == "SM-F05"
    assert "stopped reading" in issue.message
    assert peak < 32 * 1024 * 1024


def test_deep_nesting_is_refused() -> None:
    document = urlset("<url>" + "<x:a xmlns:x='urn:x'>" * 300 + "</x:a>" * 300 + "</url>")
    assert "SM-F01" in validate(document).rules


def test_memory_stays_flat_on_a_large_file(tmp_path: Path) -> None:
    body = "".join(
        f"  <url><loc>https://www.example.com/catalog/item-{i}?colour=red&amp;size=9</loc>"
        f"<lastmod>2024-05-{1 + i % 28:02d}</lastmod><changefreq>weekly</changefreq>"
        f"<priority>0.{i % 10}</priority></url>\n"
        for i in range(50_000)
    )
    path = tmp_path / "big.xml"
    path.write_bytes(urlset(body))
    assert path.stat().st_size > 8_000_000
    tracemalloc.start()
    report = validate(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert report.ok
    assert report.urls == 50_000
    # The per-file set of URL hashes and the 1 MiB read buffers dominate.
    assert peak < 16 * 1024 * 1024


def test_library_import_stays_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, sitemapkit; bad = [m for m in ('click', 'rich', 'urllib.request', "
        "'httpx', 'requests') if m in sys.modules]; print(bad)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
    assert sitemapkit.validate is validate
