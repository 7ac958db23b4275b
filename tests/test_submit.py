"""IndexNow and pings against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sitemapkit import FetchError, InvalidValueError, Problem
from sitemapkit.cli import main
from sitemapkit.submit import (
    INDEXNOW_MESSAGES,
    SubmitSettings,
    announce,
    ensure_indexnow_key,
    generate_indexnow_key,
    is_indexnow_key,
    is_retired_ping,
    ping_sitemap,
    ping_url,
    submit_indexnow,
)


@dataclass
class IndexNowServer:
    """A small IndexNow endpoint: checks the key file like a search engine, records batches.

    ``answers`` is a queue of statuses to give before answering 200 (e.g. [429, 200]).
    """

    server: HTTPServer
    batches: list[dict[str, Any]] = field(default_factory=list)
    answers: list[int | tuple[int, dict[str, str]]] = field(default_factory=list)
    posts: int = 0

    @property
    def endpoint(self) -> str:
        return self.server.url_for("/indexnow")

    def handle(self, request: Request) -> Response:
        self.posts += 1
        if request.headers.get("Content-Type") != "application/json; charset=utf-8":
            return Response("bad content type", status=400)
        body = json.loads(request.get_data())
        if set(body) != {"host", "key", "keyLocation", "urlList"}:
            return Response("bad fields", status=400)
        if self.answers:
            answer = self.answers.pop(0)
            status, headers = answer if isinstance(answer, tuple) else (answer, {})
            return Response("", status=status, headers=headers)
        try:
            with urllib.request.urlopen(body["keyLocation"], timeout=5) as key_file:
                served = key_file.read().decode("utf-8")
        except urllib.error.URLError:
            return Response("key file not found", status=403)
        if served != body["key"]:
            return Response("key mismatch", status=403)
        if not all(url.split("/")[2].split(":")[0] == body["host"] for url in body["urlList"]):
            return Response("foreign URL", status=422)
        self.batches.append(body)
        return Response("", status=200)


@pytest.fixture
def indexnow(httpserver: HTTPServer) -> IndexNowServer:
    fake = IndexNowServer(httpserver)
    httpserver.expect_request("/indexnow", method="POST").respond_with_handler(fake.handle)
    return fake


@pytest.fixture
def site(tmp_path: Path, serve_dir: Callable[[Path], str]) -> tuple[Path, str]:
    """A published folder served on 127.0.0.1, as a web server would serve the sitemaps."""
    out = tmp_path / "public"
    out.mkdir()
    (out / "index.html").write_text("<html></html>")
    return out, serve_dir(out)


def test_keys_are_generated_in_the_allowed_alphabet() -> None:
    keys = {generate_indexnow_key() for _ in range(20)}
    assert len(keys) == 20
    assert all(is_indexnow_key(k) and len(k) == 32 for k in keys)
    assert len(generate_indexnow_key(8)) == 8
    assert is_indexnow_key("a-B-" * 32)
    assert not is_indexnow_key("short")
    assert not is_indexnow_key("x" * 129)
    assert not is_indexnow_key("has_underscore")
    with pytest.raises(InvalidValueError):
        generate_indexnow_key(7)


def test_key_file_is_written_beside_the_sitemaps_and_reused(tmp_path: Path) -> None:
    key = ensure_indexnow_key(tmp_path)
    assert (tmp_path / f"{key}.txt").read_bytes() == key.encode()
    assert ensure_indexnow_key(tmp_path) == key
    (tmp_path / "notes.txt").write_text("not a key file")
    assert ensure_indexnow_key(tmp_path) == key
    assert ensure_indexnow_key(tmp_path, "my-own-key-1234") == "my-own-key-1234"
    with pytest.raises(Exception, match="several IndexNow key files"):
        ensure_indexnow_key(tmp_path)
    with pytest.raises(InvalidValueError):
        ensure_indexnow_key(tmp_path, "bad key!")


def test_batches_of_at_most_10000_urls_with_a_served_key(
    site: tuple[Path, str], indexnow: IndexNowServer
) -> None:
    out, base = site
    key = ensure_indexnow_key(out)
    urls = (f"{base}page-{n}" for n in range(12_345))
    seen: list[int] = []
    result = submit_indexnow(
        urls,
        key=key,
        key_location=f"{base}{key}.txt",
        endpoint=indexnow.endpoint,
        on_batch=lambda batch: seen.append(batch.urls),
    )
    assert [len(b["urlList"]) for b in indexnow.batches] == [10_000, 2_345]
    assert seen == [10_000, 2_345]
    assert result.urls == 12_345
    first = indexnow.batches[0]
    assert first["host"] == "127.0.0.1"
    assert first["key"] == key
    assert first["keyLocation"] == f"{base}{key}.txt"
    assert first["urlList"][0] == f"{base}page-0"
    assert [b.status for b in result.batches] == [200, 200]


def test_429_is_retried_honouring_retry_after(
    site: tuple[Path, str], indexnow: IndexNowServer
) -> None:
    out, base = site
    key = ensure_indexnow_key(out)
    indexnow.answers = [(429, {"Retry-After": "1"}), 503]
    started = time.monotonic()
    result = submit_indexnow(
        [base + "a"], key=key, key_location=f"{base}{key}.txt",
        endpoint=indexnow.endpoint, backoff=0.01,
    )  # fmt: skip
    assert time.monotonic() - started >= 0.95
    assert result.batches[0].attempts == 3
    assert result.batches[0].status == 200
    assert indexnow.posts == 3


def test_retries_are_bounded(site: tuple[Path, str], indexnow: IndexNowServer) -> None:
    out, base = site
    key = ensure_indexnow_key(out)
    indexnow.answers = [500] * 5
    started = time.monotonic()
    with pytest.raises(FetchError, match="gave up after 3 attempts") as caught:
        submit_indexnow(
            [base + "a"], key=key, key_location=f"{base}{key}.txt",
            endpoint=indexnow.endpoint, retries=2, backoff=0.01, max_wait=0.2,
        )  # fmt: skip
    assert time.monotonic() - started < 5
    assert caught.value.status == 500
    assert indexnow.posts == 3


def test_a_retry_after_longer_than_max_wait_stops_at_once(
    site: tuple[Path, str], indexnow: IndexNowServer
) -> None:
    out, base = site
    key = ensure_indexnow_key(out)
    indexnow.answers = [(429, {"Retry-After": "3600"})] + [200] * 5
    started = time.monotonic()
    with pytest.raises(FetchError, match="Retry-After 3600 s is longer") as caught:
        submit_indexnow(
            [base + "a"], key=key, key_location=f"{base}{key}.txt",
            endpoint=indexnow.endpoint, max_wait=0.2,
        )  # fmt: skip
    assert time.monotonic() - started < 5
    assert caught.value.status == 429
    assert indexnow.posts == 1


@pytest.mark.parametrize("status", [400, 403, 422])
def test_documented_refusals_become_clear_errors(
    site: tuple[Path, str], indexnow: IndexNowServer, status: int
) -> None:
    out, base = site
    key = ensure_indexnow_key(out)
    indexnow.answers = [status]
    with pytest.raises(FetchError) as caught:
        submit_indexnow([base + "a"], key=key, key_location=f"{base}{key}.txt",
                        endpoint=indexnow.endpoint)  # fmt: skip
    assert caught.value.status == status
    assert INDEXNOW_MESSAGES[status] in caught.value.message
    assert indexnow.posts == 1


def test_unpublished_key_is_caught_before_submitting(
    site: tuple[Path, str], indexnow: IndexNowServer
) -> None:
    _out, base = site
    key = generate_indexnow_key()
    location = f"{base}{key}.txt"
    with pytest.raises(FetchError, match=r"key file is not served \(HTTP 404\)"):
        submit_indexnow([base + "a"], key=key, key_location=location, endpoint=indexnow.endpoint)
    assert indexnow.posts == 0
    with pytest.raises(FetchError, match="forbidden: the key is not valid"):
        submit_indexnow([base + "a"], key=key, key_location=location,
                        endpoint=indexnow.endpoint, check_key=False)  # fmt: skip


def test_urls_outside_the_key_folder_are_reported_not_sent(
    site: tuple[Path, str], indexnow: IndexNowServer
) -> None:
    out, base = site
    (out / "blog").mkdir()
    key = ensure_indexnow_key(out / "blog")
    problems: list[Problem] = []
    result = submit_indexnow(
        [base + "blog/one", base + "shop/two", "/blog/three", "mailto:x@example.com"],
        key=key, key_location=f"{base}blog/{key}.txt", endpoint=indexnow.endpoint,
        on_problem=problems.append,
    )  # fmt: skip
    assert indexnow.batches[0]["urlList"] == [base + "blog/one", base + "blog/three"]
    assert result.skipped == 2
    assert len(problems) == 2
    assert "outside" in problems[0].message


def test_endpoints_and_redirects_to_hosts_idna_cannot_encode_are_fetch_errors(
    site: tuple[Path, str], httpserver: HTTPServer
) -> None:
    """httpx raises IDNAError (or UnicodeEncodeError for a surrogate) outside HTTPError, even
    for a redirect it does not follow: it parses the Location for ``next_request``.
    """
    out, base = site
    key = ensure_indexnow_key(out)
    httpserver.expect_request("/moved").respond_with_data(
        "", status=301, headers={"Location": "http://xn--/indexnow"}
    )
    for endpoint in (httpserver.url_for("/moved"), "http://xn--/indexnow", base + "\udcff"):
        with pytest.raises(FetchError, match="bad IndexNow endpoint or redirect"):
            submit_indexnow([base + "a"], key=key, key_location=f"{base}{key}.txt",
                            endpoint=endpoint, retries=0, check_key=False)  # fmt: skip
    with pytest.raises(FetchError, match="cannot ping"):
        ping_sitemap("http://xn--/ping?s={sitemap}", base + "sitemap.xml")
    with pytest.raises(FetchError, match="cannot ping"):
        ping_sitemap(httpserver.url_for("/moved") + "?s={sitemap}", base + "sitemap.xml")


def test_ping_templates(httpserver: HTTPServer) -> None:
    sitemap = "https://www.example.com/sitemap.xml?a=1&b=2"
    url = ping_url("https://engine.example/ping?sitemap={sitemap}", sitemap)
    assert url == (
        "https://engine.example/ping?sitemap=https%3A%2F%2Fwww.example.com%2Fsitemap.xml"
        "%3Fa%3D1%26b%3D2"
    )
    with pytest.raises(InvalidValueError, match="needs"):
        ping_url("https://engine.example/ping", sitemap)
    assert is_retired_ping("http://www.google.com/webmasters/sitemaps/ping?sitemap={sitemap}")
    assert is_retired_ping("https://www.google.com/ping?sitemap={sitemap}")
    assert is_retired_ping("http://www.bing.com/ping?sitemap={sitemap}")
    assert not is_retired_ping(httpserver.url_for("/ping?sitemap={sitemap}"))


def test_announce_pings_only_what_is_configured(tmp_path: Path, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/ping", query_string={"sitemap": "https://a.example/s.xml"}
                              ).respond_with_data("ok")  # fmt: skip
    settings = SubmitSettings(
        base_url="https://a.example/",
        out_dir=tmp_path,
        ping=(httpserver.url_for("/ping") + "?sitemap={sitemap}",),
        sitemap_url="https://a.example/s.xml",
    )
    done = announce(settings, None)
    assert done.indexnow is None
    assert [(p.status, p.ok) for p in done.pings] == [(200, True)]
    assert list(tmp_path.iterdir()) == []  # no key file without IndexNow
    httpserver.check_assertions()


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_submit_end_to_end(
    site: tuple[Path, str],
    indexnow: IndexNowServer,
    httpserver: HTTPServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, base = site
    httpserver.expect_request("/ping").respond_with_data("thanks")
    listed = tmp_path / "changed.txt"
    listed.write_text(f"{base}a\n# comment\n{base}b\n")
    argv = ["submit", "--base-url", base, "--out", str(out), "--endpoint", indexnow.endpoint,
            "--urls", str(listed), f"{base}c", "--ping",
            httpserver.url_for("/ping") + "?sitemap={sitemap}"]  # fmt: skip
    code, stdout, stderr = run_cli(argv, capsys)
    assert (code, stderr) == (0, "")
    assert indexnow.batches[0]["urlList"] == [f"{base}c", f"{base}a", f"{base}b"]
    assert "IndexNow: 3 URLs, HTTP 200 OK" in stdout
    assert f"ping: HTTP 200 {httpserver.url_for('/ping')}?sitemap=http%3A%2F%2F127.0.0.1" in stdout
    key_files = [p.name for p in out.glob("*.txt")]
    assert len(key_files) == 1
    assert indexnow.batches[0]["keyLocation"] == base + key_files[0]
    # a second run reuses the key
    assert run_cli(argv, capsys)[0] == 0
    assert indexnow.batches[1]["key"] == indexnow.batches[0]["key"]


def test_cli_submit_reports_refusal_on_one_line(
    site: tuple[Path, str], indexnow: IndexNowServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out, base = site
    indexnow.answers = [422]
    code, _out, err = run_cli(
        ["submit", "--base-url", base, "--out", str(out), "--endpoint", indexnow.endpoint,
         base + "x"], capsys,
    )  # fmt: skip
    assert code == 2
    assert err.startswith(f"error: {indexnow.endpoint}: HTTP 422 unprocessable")
    assert err.count("\n") == 1
    assert run_cli(["submit", "--base-url", base, "--out", str(out)], capsys)[0] == 2


def test_cli_submit_changed_after_an_incremental_run(
    site: tuple[Path, str],
    indexnow: IndexNowServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, base = site
    urls = tmp_path / "urls.txt"

    def generate(lines: str) -> None:
        urls.write_text(lines)
        argv = ["generate", "--base-url", base, "--urls", str(urls), "--out", str(out),
                "--incremental", "-q"]  # fmt: skip
        assert run_cli(argv, capsys)[0] == 0

    generate(f"{base}a lastmod=2024-01-01\n{base}b\n{base}c\n")
    generate(f"{base}a lastmod=2024-02-01\n{base}b\n{base}d\n")
    argv = ["submit", "--base-url", base, "--out", str(out), "--endpoint", indexnow.endpoint,
            "--changed"]  # fmt: skip
    code, _, stderr = run_cli(argv, capsys)
    assert (code, stderr) == (0, "")
    assert indexnow.batches[0]["urlList"] == [f"{base}a", f"{base}d"]
