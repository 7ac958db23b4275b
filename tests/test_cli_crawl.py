"""`sitemapkit crawl` and `generate --crawl`: end to end, Ctrl-C and resume included."""

from __future__ import annotations

import csv
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit import CrawlStats, iter_urls
from sitemapkit.cli import _CrawlDisplay, main
from tests import crawl_site
from tests.crawl_site import EXPECTED_EXCLUDED, expected_listed, page
from tests.fault_server import FaultServer, running

FAST = ["--retries", "1", "--timeout", "5"]
SITEMAPKIT = [sys.executable, "-m", "sitemapkit"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def entries_of(sitemap: Path) -> set[tuple[str, str | None]]:
    return {(e.loc, str(e.lastmod) if e.lastmod else None) for e in iter_urls(sitemap)}


@pytest.fixture
def site() -> Iterator[FaultServer]:
    with running() as server:
        crawl_site.build(server)
        yield server


def test_crawl_writes_the_sitemap_report_and_summary(
    site: FaultServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, report = tmp_path / "out", tmp_path / "excluded.csv"
    code, stdout, stderr = run(
        capsys, "crawl", site.url("/"), "--out", str(out), "--report", str(report),
        "--max-per-pattern", "10", *FAST,
    )  # fmt: skip
    assert code == 0, stderr
    assert {loc for loc, _ in entries_of(out / "sitemap.xml")} == expected_listed(site.base)
    with report.open(newline="") as stream:
        reasons = {row["url"]: row["reason"] for row in csv.DictReader(stream)}
    assert all(reasons[site.url(path)] == why for path, why in EXPECTED_EXCLUDED.items())
    assert f"(sitemap, {len(expected_listed(site.base))} URLs)" in stdout
    assert "excluded (noindex): 3" in stdout
    assert "limit reached: --max-per-pattern of 10 reached for" in stdout
    assert "crawled: " in stdout


def test_crawl_filters_steer_the_crawl(
    site: FaultServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "crawl", site.url("/"), "--out", str(tmp_path / "out"), "-q",
        "--exclude-url", "*/calendar/*", "--exclude-url", "re:/chain/ac$", *FAST,
    )  # fmt: skip
    assert (code, err) == (0, "")
    listed = {loc for loc, _ in entries_of(tmp_path / "out" / "sitemap.xml")}
    assert not [url for url in listed if "/calendar/" in url]
    assert [url for url in listed if "/chain/" in url] == [site.url("/chain/ab")]
    assert site.hits("/calendar/2024/1") == 0


def test_generate_combines_a_crawl_with_other_sources_and_a_config(
    site: FaultServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text(site.url("/listed-by-hand.html") + "\n")
    config = tmp_path / "site.toml"
    config.write_text(
        f'base_url = "{site.base}/"\nout = "public"\n\n'
        f'[[source]]\ntype = "crawl"\nurl = "{site.url("/docs/")}"\nstate = "docs.sqlite"\n'
        "max_depth = 3\nconcurrency = 2\nretries = 0\n"
        '[[source.filter]]\naction = "exclude"\npattern = "*/nothing/*"\n'
    )
    code, out, err = run(
        capsys, "generate", "--config", str(config), "--urls", str(urls),
        "--crawl", site.url("/frames.html"), "--max-per-pattern", "5", *FAST,
    )  # fmt: skip
    assert code == 0, err
    listed = {loc for loc, _ in entries_of(tmp_path / "public" / "sitemap.xml")}
    assert listed == {
        site.url("/docs/"),
        site.url("/docs/v2/intro.html"),
        site.url("/listed-by-hand.html"),
        site.url("/frames.html"),
        site.url("/frame-a.html"),
        site.url("/frame-b.html"),
    }
    assert (tmp_path / "docs.sqlite").is_file()  # relative to the config file
    assert out.count("crawled: ") == 2


def test_option_errors_exit_2(
    site: FaultServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "crawl", site.url("/"), "--out", str(tmp_path), "--report", str(tmp_path / "r.txt")
    )
    assert code == 2
    assert "report file must end in .csv or .jsonl" in err
    code, _, err = run(
        capsys, "generate", "--base-url", site.base + "/", "--out", str(tmp_path),
        "--crawl", site.url("/"), "--crawl", site.url("/docs/"), "--state", str(tmp_path / "s"),
    )  # fmt: skip
    assert code == 2
    assert "--state and --report go with a single --crawl URL" in err
    code, _, err = run(capsys, "crawl", "ftp://example.com/", "--out", str(tmp_path))
    assert code == 2
    assert "not an http(s) URL" in err


def test_live_display_text_and_summary(capsys: pytest.CaptureFixture[str]) -> None:
    stats = CrawlStats(fetched=12, queued=3, listed=9, errors=1, excluded={"noindex": 2})
    stats.limits["max-pages"] = "--max-pages of 12 reached"
    stats.stopped_by = "max-pages"
    text = _CrawlDisplay._render(stats)
    assert "fetched 12  queued 3  listed 9  errors 1" in text
    assert "pages/s" in text
    assert "excluded  noindex 2" in text
    display = _CrawlDisplay(enabled=False)
    display(stats)
    display.print_summary()
    out = capsys.readouterr().out
    assert "crawled: 12 pages fetched, 9 listed, 1 errors" in out
    assert "limit reached: --max-pages of 12 reached" in out
    assert "not fetched (max-pages): 3 URLs still queued" in out


def slow_site(server: FaultServer, pages: int = 60) -> None:
    """A tree of slow pages (so that Ctrl-C lands in the middle), some with Last-Modified."""
    server.add("/robots.txt", "User-agent: *\nDisallow: /never/\n")
    for number in range(pages):
        children = [f"/p{child}.html" for child in (2 * number + 1, 2 * number + 2)]
        links = [link for link in children if int(link[2:-5]) < pages] + ["/never/x.html"]
        headers = dict(crawl_site.HTML)
        if number % 3 == 0:
            headers["Last-Modified"] = f"Mon, 0{number % 9 + 1} Jan 2024 10:00:00 GMT"
        path = "/" if number == 0 else f"/p{number}.html"
        server.add(path, page(f"Page {number}", *links), headers=headers, stall=0.04)


def crawl_command(server: FaultServer, out: Path, *extra: str) -> list[str]:
    return [*SITEMAPKIT, "crawl", server.url("/"), "--out", str(out), "-q",
            "--concurrency", "2", *FAST, *extra]  # fmt: skip


def test_interrupted_and_resumed_crawl_gives_the_same_sitemap(tmp_path: Path) -> None:
    state = tmp_path / "crawl.sqlite"
    with running() as server:
        slow_site(server)
        subprocess.run(crawl_command(server, tmp_path / "whole"), check=True, timeout=60)
        whole = entries_of(tmp_path / "whole" / "sitemap.xml")
        assert len(whole) == 60
        assert 0 < sum(1 for _, lastmod in whole if lastmod) < 60

        server.requests.clear()
        command = crawl_command(server, tmp_path / "resumed", "--state", str(state))
        process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        done = 0
        while done < 12 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
            if state.exists():
                try:
                    with sqlite3.connect(f"file:{state}?mode=ro", uri=True) as db:
                        query = "SELECT count(*) FROM url WHERE done = 1 AND status > 0"
                        done = db.execute(query).fetchone()[0]
                except sqlite3.Error:
                    continue
        assert process.poll() is None, "the crawl ended before it could be interrupted"
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
        assert process.returncode == 130
        assert "interrupted, nothing published; crawl state saved in" in stderr
        assert "Traceback" not in stderr
        assert not (tmp_path / "resumed" / "sitemap.xml").exists()

        with sqlite3.connect(state) as db:
            fetched = {row[0] for row in db.execute("SELECT url FROM url WHERE status > 0")}
            assert db.execute("SELECT count(*) FROM url WHERE done = 0").fetchone()[0] > 0
        assert 12 <= len(fetched) < 60
        first_run = [request.path for request in server.requests]
        server.requests.clear()
        subprocess.run(command, check=True, timeout=60)
        second_run = [request.path for request in server.requests]
        assert not {server.url(path) for path in second_run} & fetched  # nothing twice
        assert "/never/x.html" not in first_run + second_run
        assert "/robots.txt" not in second_run  # kept in the state file
        assert entries_of(tmp_path / "resumed" / "sitemap.xml") == whole


def test_ctrl_c_without_state_says_nothing_was_kept(tmp_path: Path) -> None:
    with running() as server:
        slow_site(server)
        process = subprocess.Popen(
            crawl_command(server, tmp_path / "out"), stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 30
        while len(server.requests) < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert stderr.strip() == "error: interrupted, nothing published"


def test_crawl_to_an_object_store_url(
    site: FaultServer, capsys: pytest.CaptureFixture[str]
) -> None:
    import fsspec  # a dev dependency

    code, out, err = run(capsys, "crawl", site.url("/docs/"), "--out", "memory://crawl-out/", *FAST)
    assert code == 0, err
    assert "memory://crawl-out/sitemap.xml" in out
    store = fsspec.filesystem("memory")
    assert any(name.endswith("/sitemap.xml") for name in store.ls("/crawl-out", detail=False))
    store.rm("/crawl-out", recursive=True)


def test_max_crawl_delay_caps_what_robots_txt_asks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running() as server:
        server.add("/robots.txt", "User-agent: *\nCrawl-delay: 99999999\n")
        server.add("/", page("Home", "/a.html", "/b.html"), headers=crawl_site.HTML)
        for name in "ab":
            server.add(f"/{name}.html", page(name), headers=crawl_site.HTML)
        started = time.monotonic()
        code, _, err = run(
            capsys,
            *("crawl", server.url("/"), "--out", str(tmp_path), "-q", *FAST),
            *("--max-crawl-delay", "0.3"),
        )
        elapsed = time.monotonic() - started
    assert code == 0, err
    assert len(entries_of(tmp_path / "sitemap.xml")) == 3
    assert 0.6 <= elapsed < 15  # two waits of 0.3 s between three requests to one host
