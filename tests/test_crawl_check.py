"""``crawl.check.check_urls``: the crawler's engine over given URLs, on the trap site."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from sitemapkit import CrawlSettings, FetchSettings
from sitemapkit.crawl.check import INDEXABLE, Verdict, check_urls
from tests import crawl_site
from tests.fault_server import FaultServer, running


@pytest.fixture
def site() -> Iterator[FaultServer]:
    with running() as server:
        crawl_site.build(server)
        yield server


def settings(start: str) -> CrawlSettings:
    return CrawlSettings(start, fetch=FetchSettings(concurrency=4, per_host=4, retries=0))


def test_one_verdict_per_url_with_the_callers_key(site: FaultServer) -> None:
    urls = [
        (10, site.url("/about.html#team")),
        (11, site.url("/old")),
        (12, "not a URL"),
        (13, site.url("/page.html?PHPSESSID=abc&x=1")),
    ]
    verdicts: list[Verdict] = []
    stats = check_urls(urls, settings(site.url("/")), on_verdict=verdicts.append)
    by_key = {verdict.key: verdict for verdict in verdicts}
    assert sorted(by_key) == [10, 11, 12, 13]
    assert by_key[10].url == site.url("/about.html")  # fetched as a crawler would
    assert by_key[10].indexable
    assert by_key[10].title == "About us"
    assert (by_key[11].outcome, by_key[11].target) == ("redirect", site.url("/new.html"))
    assert by_key[12].outcome == "invalid-url"
    # Session ids are kept: what is listed is what is checked.
    assert by_key[13].url == site.url("/page.html?PHPSESSID=abc&x=1")
    assert by_key[13].outcome == INDEXABLE
    assert (stats.fetched, stats.listed, stats.queued) == (3, 2, 0)
    assert site.hits("/robots.txt") == 1


def test_private_addresses_are_not_requested_for_a_public_site(site: FaultServer) -> None:
    verdicts: list[Verdict] = []
    check_urls(
        [(1, site.url("/"))], settings("https://www.example.com/"), on_verdict=verdicts.append
    )
    assert [(v.outcome, v.detail) for v in verdicts] == [("private-address", "127.0.0.1")]
    assert site.requests == []


def test_stop_ends_the_run_early(site: FaultServer) -> None:
    stop = threading.Event()
    verdicts: list[Verdict] = []

    def record(verdict: Verdict) -> None:
        verdicts.append(verdict)
        stop.set()

    urls = [(n, site.url(f"/chain/{crawl_site.chain_name(n % 30 + 1)}?n={n}")) for n in range(500)]
    stats = check_urls(urls, settings(site.url("/")), on_verdict=record, stop=stop)
    assert stats.stopped_by == "interrupted"
    assert 1 <= len(verdicts) < 100
