"""Auditing real sites on 127.0.0.1: the crawler's trap site (tests/crawl_site.py) and a
generated folder served by http.server."""

from __future__ import annotations

import csv
import io
import json
import os
import statistics
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import (
    AuditResult,
    FetchSettings,
    InvalidValueError,
    SitemapError,
    SourceError,
    Threshold,
    audit,
)
from sitemapkit.audit import PROBLEM_KINDS, _Reservoir
from sitemapkit.report import write_csv, write_json
from tests import crawl_site
from tests.fault_server import FaultServer, running

HOSTILE = "/q\"'</script><script>window.pwned=1</script>.html"
# Listed path -> (outcome, problem kind or None)
LISTED = {
    "/": ("indexable", None),
    "/about.html": ("indexable", "lastmod-stale"),
    "/private/secret.html": ("robots-txt", "robots-txt"),
    "/noindex-meta.html": ("noindex", "noindex"),
    "/noindex-header.html": ("noindex", "noindex"),
    "/dup.html": ("canonical", "canonical"),
    "/old": ("redirect", "redirect"),
    "/missing.html": ("http-4xx", "http-4xx"),
    "/broken": ("http-5xx", "http-5xx"),
    "/file.pdf": ("content-type", "content-type"),
    "/orphan.html": ("indexable", "lastmod-future"),
    HOSTILE: ("http-4xx", "http-4xx"),
}
LASTMODS = {"/about.html": "2015-01-01", "/orphan.html": "2999-01-01T00:00:00Z"}


def xml_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def urlset(locs: list[tuple[str, str | None]]) -> str:
    entries = "".join(
        f"<url><loc>{xml_text(loc)}</loc>"
        + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "")
        + "</url>\n"
        for loc, lastmod in locs
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{entries}</urlset>\n'
    )


@pytest.fixture
def site() -> Iterator[FaultServer]:
    with running() as server:
        crawl_site.build(server)
        server.add(
            "/sitemap.xml",
            urlset([(server.base + path, LASTMODS.get(path, "2016-01-01")) for path in LISTED]),
            headers={"Content-Type": "application/xml"},
        )
        yield server


def quick() -> FetchSettings:
    return FetchSettings(concurrency=8, per_host=8, retries=1, backoff=0.01)


@pytest.fixture
def audited(site: FaultServer) -> Iterator[AuditResult]:
    with audit(site.url("/"), fetch=quick(), on_problem=lambda _p: None) as result:
        yield result


def test_every_listed_url_is_judged_as_the_crawler_judges_it(
    site: FaultServer, audited: AuditResult
) -> None:
    rows = {row.url: row for row in audited.urls()}
    assert set(rows) == {site.base + path for path in LISTED}
    for path, (outcome, kind) in LISTED.items():
        row = rows[site.base + path]
        assert row.outcome == outcome, path
        assert (kind in row.problems) if kind else not row.problems, (path, row.problems)
    assert rows[site.url("/old")].target == site.url("/new.html")
    assert rows[site.url("/old")].status == 301
    assert rows[site.url("/dup.html")].target == site.url("/original.html")
    assert rows[site.url("/about.html")].last_modified == "2015-10-21T07:28:00+00:00"
    assert rows[site.url("/about.html")].title == "About us"
    assert audited.listed == audited.checked == len(LISTED)
    assert audited.indexable == 3
    assert audited.statuses == {"200": 7, "301": 1, "404": 2, "500": 1, "none": 1}
    assert site.hits("/private/secret.html") == 0  # robots.txt obeyed
    assert site.hits("/new.html") == 0  # targets are reported, not fetched


def test_discovery_validation_and_exit_status(site: FaultServer, audited: AuditResult) -> None:
    (found,) = [s for s in audited.sitemaps if s.found_by]
    assert (found.url, found.found_by, found.urls) == (site.url("/sitemap.xml"), "robots.txt", 12)
    # The hostile URL breaks the protocol (a raw quote): a finding with file, line and column.
    (error,) = audited.validation.errors
    assert (error.rule, error.file, error.line) == ("SM-L03", site.url("/sitemap.xml"), 14)
    assert error.column > 0
    severities = {problem.kind: problem.severity for problem in audited.problems()}
    assert severities["http-4xx"] == "error"
    assert severities["redirect"] == "warning"
    assert audited.measure("not-indexable") == 9
    assert not audited.ok
    assert audited.exit_code == 1
    assert audited.failed == [f"error>0: {audited.error_count} found"]
    assert audited.lastmods == {"2015-01": 1, "2016-01": 10, "2999-01": 1}


def test_thresholds_decide_the_exit_status(site: FaultServer) -> None:
    loose = ["not-indexable>80%", "http-5xx>1", "validation>1", "SM-L03>1"]
    with audit(site.url("/sitemap.xml"), fetch=quick(), thresholds=loose) as result:
        assert result.ok, result.failed
        assert result.sitemaps[0].found_by == "given"
    strict = [Threshold("not-indexable", 50, percent=True), Threshold("redirect", 0)]
    with audit(site.url("/sitemap.xml"), fetch=quick(), thresholds=strict) as result:
        assert result.failed == [
            "not-indexable>50%: 9 of 12 URLs (75.00 %) are not-indexable",
            "redirect>0: 1 found",
        ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("error>0", Threshold("error", 0)),
        (" not-indexable > 1.5% ", Threshold("not-indexable", 1.5, True)),
        ("sm-m07>10", Threshold("SM-M07", 10)),
    ],
)
def test_threshold_syntax(text: str, expected: Threshold) -> None:
    assert Threshold.parse(text) == expected
    assert Threshold.parse(str(expected)) == expected


@pytest.mark.parametrize("text", ["error", "error>", "nonsense>1", "error>101%", "error<1"])
def test_bad_thresholds_are_refused(text: str) -> None:
    with pytest.raises(InvalidValueError, match="bad threshold"):
        Threshold.parse(text)


def test_a_source_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    """Undecodable argv bytes (surrogates) reached SQLite and raised UnicodeEncodeError."""
    with pytest.raises(InvalidValueError, match="not valid UTF-8"):
        audit(str(tmp_path / "sitemap\udcff.xml"), fetch=quick())


def test_database_that_is_not_an_sqlite_file_is_neither_replaced_nor_used(tmp_path: Path) -> None:
    """--database /dev/null unlinked the device (as root); any document named was deleted."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    document = tmp_path / "notes.txt"
    document.write_text("keep me")
    with pytest.raises(InvalidValueError, match="not a regular file; not replaced"):
        audit("http://127.0.0.1:9/sitemap.xml", database=fifo, fetch=quick())
    with pytest.raises(InvalidValueError, match="not an SQLite file; not replaced"):
        audit("http://127.0.0.1:9/sitemap.xml", database=document, fetch=quick())
    assert fifo.exists()
    assert document.read_text() == "keep me"


def test_database_in_a_missing_folder_is_a_source_error(tmp_path: Path) -> None:
    """sqlite3.OperationalError ('unable to open database file') escaped as a traceback."""
    with pytest.raises(SourceError, match="cannot open the audit database"):
        audit("http://127.0.0.1:9/sitemap.xml", database=tmp_path / "no" / "a.db", fetch=quick())


def test_a_site_without_sitemaps_cannot_be_audited() -> None:
    with running() as server, pytest.raises(SitemapError, match="no sitemap found"):
        audit(server.url("/"), fetch=quick())


def test_lastmod_shared_by_every_entry(tmp_path: Path) -> None:
    stamp = "2024-03-01T12:00:00+00:00"
    locs = [(f"https://www.example.com/p{i}.html", stamp) for i in range(25)]
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset(locs))
    with running() as server:
        # A local file: its URLs are on a host nobody serves; the audit still reads and
        # counts them, checks them (connection refused) and judges the lastmods.
        locs = [(server.url(f"/p{i}.html"), stamp) for i in range(25)]
        sitemap.write_text(urlset(locs))
        with audit(sitemap, fetch=quick(), now=datetime(2024, 1, 1, tzinfo=UTC)) as result:
            (uniform,) = result.problems("lastmod-uniform")
            assert stamp in (uniform.detail or "")
            assert result.problem_counts["lastmod-future"] == 25
            assert result.problem_counts["http-4xx"] == 25


def write_site(root: Path, pages: int, *, linked: int | None = None) -> list[str]:
    """A folder of pages; the home page links the first ``linked`` of them."""
    paths = [f"p/{number}.html" for number in range(pages)]
    (root / "p").mkdir(parents=True)
    for path in paths:
        (root / path).write_text(f"<!doctype html><title>{path}</title><a href='/'>home</a>")
    links = "".join(f'<a href="/{path}">{path}</a>' for path in paths[:linked])
    (root / "index.html").write_text(f"<!doctype html><title>Home</title>{links}")
    return paths


def test_sample_is_reproducible_and_everything_is_still_read(
    tmp_path: Path, serve_dir: Callable[[Path], str]
) -> None:
    site = tmp_path / "site"
    paths = write_site(site, 300)
    base = serve_dir(site)
    (site / "sitemap.xml").write_text(urlset([(base + path, None) for path in paths]))

    def sampled(seed: int) -> set[str]:
        with audit(base + "sitemap.xml", fetch=quick(), sample=40, seed=seed) as result:
            assert (result.listed, result.checked, result.sample) == (300, 40, 40)
            assert result.indexable == 40
            assert result.sitemaps[0].urls == 300
            return {row.url for row in result.urls() if row.outcome is not None}

    first = sampled(7)
    assert len(first) == 40
    assert sampled(7) == first
    assert sampled(8) != first


@given(size=st.integers(1, 30), total=st.integers(0, 400), seed=st.integers(0, 2**32))
@settings(max_examples=60, deadline=None)
def test_reservoir_holds_distinct_rows_whatever_the_batches(
    size: int, total: int, seed: int
) -> None:
    reservoir = _Reservoir(size, seed)
    row = 1
    for batch in (3, 1, 50, 7, 1000):
        last = min(total, row + batch - 1)
        if last >= row:
            reservoir.offer(row, last)
        row = last + 1
    rows = list(reservoir.rows)
    assert len(rows) == min(size, total)
    assert len(set(rows)) == len(rows)
    assert all(1 <= number <= total for number in rows)


def test_reservoir_is_uniform() -> None:
    counts: Counter[int] = Counter()
    for seed in range(2000):
        reservoir = _Reservoir(10, seed)
        reservoir.offer(1, 60)
        reservoir.offer(61, 100)
        counts.update(reservoir.rows)
    # Each of 100 rows is expected 200 times (2,000 samples of 10); sd about 13.4.
    assert len(counts) == 100
    assert all(140 < count < 260 for count in counts.values()), counts
    assert abs(statistics.mean(counts.values()) - 200) < 1e-9


def test_crawl_finds_unlisted_pages_and_orphans(
    tmp_path: Path, serve_dir: Callable[[Path], str]
) -> None:
    site = tmp_path / "site"
    paths = write_site(site, 30, linked=20)  # pages 20 to 29 are linked from nowhere
    base = serve_dir(site)
    listed = [base + path for path in paths[10:]]  # pages 0 to 9 are in no sitemap
    (site / "sitemap.xml").write_text(urlset([(url, None) for url in listed]))
    (site / "robots.txt").write_text(f"Sitemap: {base}sitemap.xml\n")
    with audit(base, fetch=quick(), crawl=True, database=tmp_path / "audit.sqlite") as result:
        assert set(result.unlisted()) == {base, *(base + path for path in paths[:10])}
        orphans = {problem.url for problem in result.problems("orphan")}
        assert orphans == {base + path for path in paths[20:]}
        assert result.crawl is not None
        assert result.crawl_indexable == 21
        assert result.ok  # warnings only
    assert (tmp_path / "audit.sqlite").is_file()  # a database given is kept


def test_json_and_csv_hold_every_row(site: FaultServer, audited: AuditResult) -> None:
    stream = io.StringIO()
    write_json(audited, stream)
    data = json.loads(stream.getvalue())
    assert data["listed"] == 12
    assert data["ok"] is False
    assert {row["url"] for row in data["urls"]} == {site.base + path for path in LISTED}
    assert len(data["problems"]) == sum(audited.problem_counts.values())
    assert data["problems_by_kind"]["noindex"] == {"count": 2, "severity": "error"}
    assert {"SM-L03", "SM-M07"} <= {finding["rule"] for finding in data["validation"]["findings"]}
    stream = io.StringIO()
    write_csv(audited, stream)
    rows = list(csv.DictReader(io.StringIO(stream.getvalue())))
    assert len(rows) == 12
    hostile = next(row for row in rows if "pwned" in row["url"])
    assert hostile["url"] == site.base + HOSTILE
    assert hostile["problems"] == "http-4xx"


def test_every_kind_has_a_known_severity() -> None:
    from sitemapkit.crawl.check import OUTCOMES

    assert {severity for severity, _ in PROBLEM_KINDS.values()} == {"error", "warning"}
    assert set(OUTCOMES) - {"indexable"} <= set(PROBLEM_KINDS)


def test_with_a_crawl_no_page_is_requested_twice(site: FaultServer) -> None:
    with audit(site.url("/"), fetch=quick(), crawl=True, on_problem=lambda _p: None) as result:
        rows = {row.url: row for row in result.urls()}
        for path, (outcome, _kind) in LISTED.items():
            assert rows[site.base + path].outcome == outcome, path
        assert rows[site.url("/old")].target == site.url("/new.html")
        assert rows[site.url("/about.html")].last_modified == "2015-10-21T07:28:00+00:00"
        assert {p.url for p in result.problems("orphan")} == {
            site.url("/orphan.html"),
            site.base + HOSTILE,
        }
    for path in ("/about.html", "/dup.html", "/old", "/missing.html", "/orphan.html"):
        assert site.hits(path) == 1, path
    assert site.hits("/") == 2  # discovery reads the home page for <link rel="sitemap">
    assert site.hits("/private/secret.html") == 0
