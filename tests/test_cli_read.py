"""`sitemapkit ls` and `sitemapkit discover`: output formats, problems on stderr, exit codes."""

from __future__ import annotations

import csv
import gc
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit.cli import main
from tests.fault_server import FaultServer, running

DATA = Path(__file__).parent / "data" / "reader"
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
FAST = ["--timeout", "1", "--deadline", "5", "--retries", "0"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with running() as site:
        yield site


def test_ls_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "ls", str(DATA / "urlset-09.xml"))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "https://www.example.com/",
        "https://www.example.com/catalog?item=12&desc=vacation_hawaii",
        "https://www.example.com/catalog?item=83&desc=vacation_usa",
    ]


@pytest.mark.parametrize("source", ["urlset-09.xml", "missing.xml"])
def test_ls_leaves_the_garbage_collector_thresholds_as_they_were(
    capsys: pytest.CaptureFixture[str], source: str
) -> None:
    before = gc.get_threshold()
    code, _out, _err = run(capsys, "ls", str(DATA / source))
    assert code == (0 if source == "urlset-09.xml" else 2)
    assert gc.get_threshold() == before


def test_ls_jsonl_keys(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(DATA / "urlset-extensions.xml")
    code, out, _ = run(capsys, "ls", source, "--format", "jsonl")
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 0
    assert list(first) == [
        "loc",
        "lastmod",
        "changefreq",
        "priority",
        "sitemap",
        "images",
        "videos",
        "news",
        "alternates",
    ]
    assert first["lastmod"] == "2024-05-01"
    assert first["sitemap"] == source
    assert first["images"][0] == {"loc": "https://www.example.com/a.jpg", "caption": "A"}
    assert first["videos"][0]["tags"] == ["steak", "meat"]
    assert first["news"]["publication_name"] == "The Example Times"
    assert first["alternates"][0] == {"hreflang": "de", "href": "https://www.example.com/de/page"}
    assert second == {
        "loc": "https://www.example.com/plain",
        "lastmod": None,
        "changefreq": None,
        "priority": None,
        "sitemap": source,
    }


def test_ls_jsonl_keeps_lastmod_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "ls", str(DATA / "rss2.xml"), "--format", "jsonl")
    assert json.loads(out.splitlines()[0])["lastmod"] == "Wed, 01 May 2024 10:00:00 GMT"


def test_ls_csv(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ls", str(DATA / "urlset-09.xml"), "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0
    assert rows[0] == ["loc", "lastmod", "changefreq", "priority", "sitemap"]
    assert rows[1] == [
        "https://www.example.com/",
        "2024-05-01",
        "daily",
        "1.0",
        str(DATA / "urlset-09.xml"),
    ]
    assert len(rows) == 4


def test_ls_stdin() -> None:
    data = (DATA / "text-sitemap.txt").read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "ls", "-"],
        input=data,
        capture_output=True,
        check=False,
    )
    assert result.returncode == 1  # one line is not a URL
    assert result.stdout.decode().split() == [
        "https://www.example.com/one",
        "https://www.example.com/two",
        "https://www.example.com/three",
    ]
    assert result.stderr.decode().strip() == (
        "error: <stdin>:4: not a URL: 'this is not a url'; skipped"
    )


def test_ls_exit_1_when_some_files_fail(
    server: FaultServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add("/a.xml", f"<urlset {NS}><url><loc>https://e.example/a</loc></url></urlset>")
    server.add("/soft.xml", "<html><body>nope</body></html>")
    server.add(
        "/index.xml",
        f"<sitemapindex {NS}><sitemap><loc>/a.xml</loc></sitemap>"
        "<sitemap><loc>/gone.xml</loc></sitemap>"
        "<sitemap><loc>/soft.xml</loc></sitemap></sitemapindex>",
    )
    code, out, err = run(capsys, "ls", server.url("/index.xml"), *FAST)
    assert code == 1
    assert out == "https://e.example/a\n"
    assert err.splitlines() == [
        f"error: {server.url('/gone.xml')}: not found (HTTP 404)",
        f"error: {server.url('/soft.xml')}: not a sitemap (HTML page)",
    ]


def test_ls_exit_2_when_nothing_could_be_read(
    server: FaultServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "ls", server.url("/missing.xml"), *FAST)
    assert (code, out) == (2, "")
    assert err.strip() == f"error: {server.url('/missing.xml')}: not found (HTTP 404)"
    code, _, err = run(capsys, "ls", str(DATA / "billion-laughs.xml"))
    assert code == 2
    assert "DOCTYPE declares entities (refused as unsafe)" in err


def test_ls_stop_on_error(server: FaultServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.add("/a.xml", f"<urlset {NS}><url><loc>https://e.example/a</loc></url></urlset>")
    server.add(
        "/index.xml",
        f"<sitemapindex {NS}><sitemap><loc>/a.xml</loc></sitemap>"
        "<sitemap><loc>/gone.xml</loc></sitemap>"
        "<sitemap><loc>/a.xml?again</loc></sitemap></sitemapindex>",
    )
    code, out, err = run(capsys, "ls", server.url("/index.xml"), "--stop-on-error", *FAST)
    assert (code, out) == (1, "https://e.example/a\n")
    assert err.strip() == f"error: {server.url('/gone.xml')}: not found (HTTP 404)"


def test_ls_site_root_and_user_agent(
    server: FaultServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add("/sitemap.xml", f"<urlset {NS}><url><loc>https://e.example/a</loc></url></urlset>")
    code, out, _ = run(
        capsys,
        "ls",
        server.url("/"),
        "--user-agent",
        "ua-test/1",
        "--header",
        "X-Audit: yes",
        *FAST,
    )
    assert (code, out) == (0, "https://e.example/a\n")
    assert {r.headers["user-agent"] for r in server.requests} == {"ua-test/1"}
    assert {r.headers["x-audit"] for r in server.requests} == {"yes"}


def test_ls_bad_header_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "ls", "x.xml", "--header", "no colon here")
    assert code == 2
    assert "expected 'Name: value'" in err


def test_discover_text_and_json(server: FaultServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.add("/robots.txt", "Sitemap: /s.xml\n")
    server.add("/sitemap.xml", f"<urlset {NS}></urlset>")
    code, out, _ = run(capsys, "discover", server.url("/"), *FAST)
    assert (code, out.splitlines()) == (0, [server.url("/s.xml"), server.url("/sitemap.xml")])
    code, out, _ = run(capsys, "discover", server.url("/"), "--format", "json", *FAST)
    assert json.loads(out) == [
        {"url": server.url("/s.xml"), "found_by": "robots.txt", "detail": "robots.txt line 1"},
        {
            "url": server.url("/sitemap.xml"),
            "found_by": "well-known path",
            "detail": "/sitemap.xml (urlset)",
        },
    ]


def test_discover_nothing_found(server: FaultServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "discover", server.url("/"), *FAST)
    assert (code, out) == (1, "")
    assert "no sitemap found" in err


def test_ls_progress_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rich.console import Console

    import sitemapkit.cli

    screen = io.StringIO()
    monkeypatch.setattr(
        sitemapkit.cli, "stderr", Console(file=screen, force_terminal=True, width=100)
    )
    code, out, _ = run(capsys, "ls", str(DATA / "urlset-09.xml"))
    assert code == 0
    assert len(out.splitlines()) == 3
    assert "URLs: 3" in screen.getvalue()
