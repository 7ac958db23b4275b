"""Crawling a real site on 127.0.0.1 with every trap (tests/crawl_site.py)."""

from __future__ import annotations

import csv
import json
import math
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sitemapkit import (
    Alternate,
    Crawler,
    CrawlSettings,
    FetchSettings,
    FilterRule,
    Image,
    SitemapError,
    crawl,
)
from sitemapkit.model import Problem
from tests import crawl_site
from tests.crawl_site import EXPECTED_EXCLUDED, chain_name, expected_listed, page
from tests.fault_server import FaultServer, running


@pytest.fixture
def site() -> Iterator[FaultServer]:
    with running() as server:
        crawl_site.build(server)
        yield server


def quick_fetch(**changes: object) -> FetchSettings:
    values: dict[str, object] = {"concurrency": 8, "per_host": 8, "retries": 1, "backoff": 0.01}
    values.update(changes)
    return FetchSettings(**values)  # type: ignore[arg-type]


def settings_for(server: FaultServer, **changes: object) -> CrawlSettings:
    values: dict[str, object] = {"fetch": quick_fetch(), "max_per_pattern": 10}
    values.update(changes)
    return CrawlSettings(server.url("/"), **values)  # type: ignore[arg-type]


Run = Callable[..., tuple[Crawler, dict[str, object]]]


@pytest.fixture
def run() -> Iterator[Run]:
    """Crawl to the end; the crawler stays open (for its report) until the test ends."""
    crawlers: list[Crawler] = []

    def start(settings: CrawlSettings, **kwargs: object) -> tuple[Crawler, dict[str, object]]:
        problems: list[Problem] = []
        crawler = Crawler(settings, on_problem=problems.append, **kwargs)  # type: ignore[arg-type]
        crawlers.append(crawler)
        entries = {entry.loc: entry for entry in crawler}
        return crawler, {"entries": entries, "problems": problems}

    yield start
    for crawler in crawlers:
        crawler.close()


def test_lists_exactly_the_indexable_pages(site: FaultServer, run: Run) -> None:
    started = time.monotonic()
    crawler, result = run(settings_for(site))
    entries = result["entries"]
    assert isinstance(entries, dict)
    assert set(entries) == expected_listed(site.base)
    excluded = {item.url: item for item in crawler.excluded()}
    for path, reason in EXPECTED_EXCLUDED.items():
        assert excluded[site.url(path)].reason == reason, path
    assert excluded["http://external.example/page"].reason == "out-of-scope"
    assert excluded[site.url("/dup.html")].detail == site.url("/original.html")
    assert excluded[site.url("/old")].detail == f"to {site.url('/new.html')!r}"
    assert excluded[site.url("/noindex-header.html")].detail == "X-Robots-Tag"
    assert excluded[site.url("/noindex-meta.html")].detail == "meta robots"
    stats = crawler.stats
    assert stats.finished
    assert stats.stopped_by is None
    assert stats.listed == len(entries)
    assert stats.excluded["noindex"] == 3
    assert stats.errors == 1
    assert "max-per-pattern https://" not in stats.limits
    assert any("/calendar/#/#" in message for message in stats.limits.values())
    # a page that stalls does not hold the others up: the crawl is not serial
    assert time.monotonic() - started < 15


def test_never_requests_disallowed_nofollow_or_external_and_each_page_once(
    site: FaultServer,
    run: Run,
) -> None:
    run(settings_for(site))
    paths = Counter(request.path for request in site.requests)
    assert not [path for path in paths if path.startswith("/private/")]
    assert paths["/hidden-nofollow.html"] == 0
    assert paths["/robots.txt"] == 1
    assert paths["/sitemap.xml"] == 0  # seeding from sitemaps is off by default
    assert paths["/about.html"] == 1  # with and without a fragment
    assert paths["/page.html"] == 1  # two session-id spellings, one page
    assert paths["/reset.html"] == 2  # one retry after the connection reset
    assert paths["/broken"] == 2  # and after the 500
    assert {path for path, count in paths.items() if count > 1} == {"/reset.html", "/broken"}
    agents = {request.headers["user-agent"] for request in site.requests}
    assert len(agents) == 1
    assert agents.pop().startswith("sitemapkit/")


def test_lastmod_title_images_and_alternates(site: FaultServer, run: Run) -> None:
    _crawler, result = run(settings_for(site, images=True, alternates=True))
    entries = result["entries"]
    assert isinstance(entries, dict)
    about = entries[site.url("/about.html")]
    assert about.lastmod == datetime(2015, 10, 21, 7, 28, tzinfo=UTC)
    assert about.title == "About us"
    assert about.images == (
        Image(site.url("/img/team.jpg")),
        Image("https://cdn.example.net/x.png"),
    )
    assert about.alternates == (
        Alternate("en", site.url("/about.html")),
        Alternate("fr", site.url("/fr/about.html")),
    )
    home = entries[site.url("/")]
    assert home.lastmod is None  # no Last-Modified: no lastmod, never the crawl time
    assert home.alternates == (Alternate("de", site.url("/de/")),)
    _crawler, plain = run(settings_for(site))
    plain_entries = plain["entries"]
    assert isinstance(plain_entries, dict)
    assert plain_entries[site.url("/about.html")].images == ()


def test_options_follow_nofollow_include_types_and_filters(site: FaultServer, run: Run) -> None:
    crawler, result = run(
        settings_for(
            site,
            follow_nofollow=True,
            include_types=("application/pdf",),
            filters=(FilterRule("exclude", "*/chain/*"), FilterRule("exclude", "*/calendar/*")),
        )
    )
    entries = result["entries"]
    assert isinstance(entries, dict)
    assert site.url("/hidden-nofollow.html") in entries
    assert site.url("/file.pdf") in entries
    assert not [url for url in entries if "/chain/" in url or "/calendar/" in url]
    assert crawler.stats.excluded["filtered"] == 2
    assert site.hits("/chain/ab") == 0


def test_limits_are_reached_and_reported(site: FaultServer, tmp_path: Path, run: Run) -> None:
    crawler, result = run(settings_for(site, max_depth=5))
    entries = result["entries"]
    assert isinstance(entries, dict)
    chain = [url for url in entries if "/chain/" in url]
    assert len(chain) == 5  # depth 1 to 5
    assert "max-depth" in crawler.stats.limits
    assert site.hits(f"/chain/{chain_name(6)}") == 0

    report = tmp_path / "report.csv"
    limited = list(crawl(site.url("/"), fetch=quick_fetch(), max_pages=5, report=report))
    assert 1 <= len(limited) <= 5
    with report.open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert {"url", "reason", "detail", "status", "depth"} <= set(rows[0])
    assert Counter(row["reason"] for row in rows)["max-pages"] > 10


def test_max_time_and_page_bytes(site: FaultServer, run: Run) -> None:
    site.add("/big.html", page("Big", "/after-big.html") + "x" * 5000, headers=crawl_site.HTML)
    site.add("/after-big.html", page("After"), headers=crawl_site.HTML)
    crawler, result = run(
        CrawlSettings(site.url("/big.html"), fetch=quick_fetch(), max_page_bytes=1024)
    )
    assert site.url("/after-big.html") in result["entries"]  # type: ignore[operator]
    assert crawler.stats.truncated == 1
    assert "max-page-bytes" in crawler.stats.limits

    site.add("/slow-a.html", page("A", "/slow-b.html"), headers=crawl_site.HTML, stall=0.3)
    site.add("/slow-b.html", page("B", "/slow-a.html"), headers=crawl_site.HTML, stall=0.3)
    started = time.monotonic()
    crawler, _ = run(
        CrawlSettings(site.url("/slow-a.html"), fetch=quick_fetch(), max_time=0.2, delay=0.5)
    )
    assert time.monotonic() - started < 5
    assert crawler.stats.stopped_by == "max-time"
    assert "max-time" in crawler.stats.limits


def test_crawl_delay_from_robots_txt_spaces_requests(site: FaultServer) -> None:
    site.add("/robots.txt", "User-agent: *\nCrawl-delay: 0.3\n")
    site.add("/", page("Home", "/a.html", "/b.html", "/c.html"), headers=crawl_site.HTML)
    for name in "abc":
        site.add(f"/{name}.html", page(name), headers=crawl_site.HTML)
    started = time.monotonic()
    entries = list(crawl(site.url("/"), fetch=quick_fetch()))
    assert len(entries) == 4
    assert time.monotonic() - started >= 0.9  # 4 requests, 0.3 s apart


def test_an_absurd_crawl_delay_is_capped(site: FaultServer) -> None:
    """Crawl-delay: 99999999 made the crawl sleep for years between two requests."""
    site.add("/robots.txt", "User-agent: *\nCrawl-delay: 99999999\n")
    site.add("/", page("Home", "/a.html", "/b.html"), headers=crawl_site.HTML)
    for name in "ab":
        site.add(f"/{name}.html", page(name), headers=crawl_site.HTML)
    started = time.monotonic()
    entries = list(crawl(site.url("/"), fetch=quick_fetch(), max_crawl_delay=0.2))
    assert len(entries) == 3
    assert 0.4 <= time.monotonic() - started < 10
    assert CrawlSettings(site.url("/")).max_crawl_delay == 60


@pytest.mark.parametrize("delay", [float("inf"), float("nan"), -1.0])
def test_a_delay_that_is_not_a_finite_number_is_refused(delay: float) -> None:
    """--delay inf slept for ever; NaN slipped past the 'delay < 0' check."""
    with pytest.raises(ValueError, match="delay must be >= 0"):
        CrawlSettings("http://127.0.0.1:9/", delay=delay)
    with pytest.raises(ValueError, match="max_crawl_delay must be >= 0"):
        CrawlSettings("http://127.0.0.1:9/", max_crawl_delay=delay)


def test_a_time_limit_of_nan_is_refused_not_taken_as_none() -> None:
    with pytest.raises(ValueError, match="max_time must be positive"):
        CrawlSettings("http://127.0.0.1:9/", max_time=math.nan)


def test_robots_txt_for_another_agent_and_unreachable_robots(site: FaultServer) -> None:
    site.add("/robots.txt", "User-agent: sitemapkit\nDisallow: /about\n\nUser-agent: *\nAllow: /")
    entries = {e.loc for e in crawl(site.url("/"), fetch=quick_fetch(), max_per_pattern=10)}
    assert site.url("/about.html") not in entries
    assert site.hits("/about.html") == 0

    problems: list[Problem] = []
    site.add("/robots.txt", "down", status=503)
    site.requests.clear()
    other = crawl(site.url("/docs/"), fetch=quick_fetch(), on_problem=problems.append)
    assert list(other) == []
    assert [r.path for r in site.requests] == ["/robots.txt", "/robots.txt"]
    assert "nothing on this host crawled" in problems[0].message


def test_seed_sitemaps_from_robots_txt(site: FaultServer) -> None:
    seeded = {e.loc for e in crawl(site.url("/"), fetch=quick_fetch(), seed_sitemaps=True)}
    assert site.url("/orphan.html") in seeded


def test_start_redirecting_out_of_scope_is_reported(site: FaultServer) -> None:
    site.add("/moved/", status=301, headers={"Location": "http://elsewhere.example/"})
    problems: list[Problem] = []
    found = list(crawl(site.url("/moved/"), fetch=quick_fetch(), on_problem=problems.append))
    assert found == []
    assert "redirects outside the crawl's scope" in problems[0].message


def test_consumer_stopping_early_ends_the_crawl_and_resume_fetches_nothing_twice(
    site: FaultServer, tmp_path: Path
) -> None:
    state = tmp_path / "crawl.sqlite"
    settings = settings_for(site)
    first: list[str] = []
    with Crawler(settings, state=state) as crawler:
        for entry in crawler:
            first.append(entry.loc)
            if len(first) == 8:
                break
        assert crawler.stats.stopped_by == "interrupted"
    with sqlite3.connect(state) as db:
        done = {row[0] for row in db.execute("SELECT url FROM url WHERE status IS NOT NULL")}
    site.requests.clear()
    with Crawler(settings, state=state) as crawler:
        second = [entry.loc for entry in crawler]
        assert crawler.stats.resumed
        assert crawler.stats.finished
    assert set(first) <= set(second)  # the saved pages come again, first
    assert set(second) == expected_listed(site.base)
    again = {site.url(request.path) for request in site.requests}
    assert not again & {url.split("?")[0] for url in done}
    site.requests.clear()
    with Crawler(settings, state=state) as crawler:  # a finished crawl: nothing to fetch
        assert {entry.loc for entry in crawler} == set(second)
    assert site.requests == []


def test_state_file_of_another_crawl_or_not_sqlite_is_refused(
    site: FaultServer, tmp_path: Path
) -> None:
    state = tmp_path / "crawl.sqlite"
    list(crawl(site.url("/docs/"), fetch=quick_fetch(), state=state))
    with pytest.raises(SitemapError, match="belongs to a crawl of"):
        list(crawl(site.url("/"), fetch=quick_fetch(), state=state))
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(SitemapError, match="not a crawl state file"):
        crawl(site.url("/"), state=junk)


def test_report_jsonl_lists_every_excluded_url(site: FaultServer, tmp_path: Path) -> None:
    report = tmp_path / "excluded.jsonl"
    list(crawl(site.url("/"), fetch=quick_fetch(), max_per_pattern=10, report=report))
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    reasons = {row["url"]: row["reason"] for row in rows}
    for path, reason in EXPECTED_EXCLUDED.items():
        assert reasons[site.url(path)] == reason
    assert not set(reasons) & expected_listed(site.base)
    with pytest.raises(ValueError, match=r"\.csv or \.jsonl"):
        crawl(site.url("/"), report=tmp_path / "report.txt")


def test_report_onto_a_fifo_is_refused_not_replaced(site: FaultServer, tmp_path: Path) -> None:
    """The .part file was renamed over it (over /dev/null too, as root)."""
    fifo = tmp_path / "excluded.csv"
    os.mkfifo(fifo)
    with pytest.raises(SitemapError, match="not a regular file; not replaced"):
        list(crawl(site.url("/"), fetch=quick_fetch(), report=fifo))
    assert fifo.is_fifo()


def test_settings_are_checked_at_once() -> None:
    with pytest.raises(ValueError, match="max_pages"):
        crawl("http://127.0.0.1:9/", max_pages=0)
    with pytest.raises(TypeError):
        crawl("http://127.0.0.1:9/", settings=CrawlSettings("http://127.0.0.1:9/"), images=True)
    settings = CrawlSettings("HTTP://127.0.0.1:80/a/b.html", extra_hosts=("cdn.example",))
    assert settings.scopes == ("http://127.0.0.1/a/", "http://cdn.example/")
    assert settings.in_scope("http://cdn.example/x")
    assert not settings.in_scope("http://127.0.0.1/")


def test_extra_host_is_crawled_with_its_own_robots_txt(site: FaultServer) -> None:
    with running() as other:
        other.add("/robots.txt", "User-agent: *\nDisallow: /no/\n")
        other.add("/shop/", page("Shop", "/shop/item.html", "/no/x.html"), headers=crawl_site.HTML)
        other.add("/shop/item.html", page("Item"), headers=crawl_site.HTML)
        site.add("/", page("Home", other.url("/shop/")), headers=crawl_site.HTML)
        host = other.base.split("//", 1)[1]
        alone = {e.loc for e in crawl(site.url("/"), fetch=quick_fetch())}
        assert alone == {site.url("/")}
        assert other.requests == []
        both = {e.loc for e in crawl(site.url("/"), fetch=quick_fetch(), extra_hosts=(host,))}
        assert both == {site.url("/"), other.url("/shop/"), other.url("/shop/item.html")}
        assert other.hits("/robots.txt") == 1
        assert other.hits("/no/x.html") == 0


def test_gzip_bodies_bombs_and_retry_after(site: FaultServer, run: Run) -> None:
    import gzip

    from tests.fault_server import Route

    packed = gzip.compress(page("Zipped", "/bomb.html", "/busy.html").encode())
    bomb = gzip.compress(b"<html><title>Bomb</title>" + b" " * 5_000_000)
    site.add("/zipped.html", packed, headers={**crawl_site.HTML, "Content-Encoding": "gzip"})
    site.add("/bomb.html", bomb, headers={**crawl_site.HTML, "Content-Encoding": "gzip"})
    html = {**crawl_site.HTML}
    site.routes["/busy.html"] = [
        Route(429, b"slow down", {"Retry-After": "0"}),
        Route(200, page("Busy").encode(), html),
    ]
    crawler, result = run(
        CrawlSettings(site.url("/zipped.html"), fetch=quick_fetch(), max_page_bytes=100_000)
    )
    entries = result["entries"]
    assert isinstance(entries, dict)
    assert set(entries) == {site.url(p) for p in ("/zipped.html", "/bomb.html", "/busy.html")}
    assert entries[site.url("/bomb.html")].title == "Bomb"  # read up to the cap, no further
    assert crawler.stats.truncated == 1
    assert site.hits("/busy.html") == 2
