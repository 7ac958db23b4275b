"""Fetcher against a real server on 127.0.0.1 with faults on demand."""

from __future__ import annotations

import gzip
import inspect
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator

import httpx
import pytest

from sitemapkit import Fetcher, FetchError, FetchSettings, InvalidValueError, UnsafeContentError
from sitemapkit.fetch import (
    AIOHTTP_EQUIVALENTS,
    EXCEPTION_MESSAGES,
    is_private_address,
    is_private_host,
    map_aiohttp_exception,
    map_exception,
)
from tests.fault_server import FaultServer, Route, running

FAST = FetchSettings(connect_timeout=1, read_timeout=0.5, deadline=5, backoff=0.01, max_backoff=1.0)
BODY = b"https://a.example/1\nhttps://a.example/2\n"


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with running() as site:
        yield site


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(FAST) as client:
        yield client


@pytest.mark.parametrize(
    ("field", "value"),
    [("read_timeout", float("inf")), ("connect_timeout", float("nan")), ("deadline", 0.0),
     ("deadline", float("nan")), ("backoff", float("inf")), ("max_backoff", -1.0)],
)  # fmt: skip
def test_settings_that_are_not_finite_are_refused(field: str, value: float) -> None:
    """--timeout inf raised OverflowError in the socket layer, --timeout nan a ValueError."""
    with pytest.raises(InvalidValueError, match=field):
        FetchSettings(**{field: value})  # type: ignore[arg-type]


def test_plain_get(server: FaultServer, fetcher: Fetcher) -> None:
    url = server.add("/s.txt", BODY)
    fetched = fetcher.fetch(url, user_given=True)
    assert (fetched.status, fetched.body, fetched.final_url) == (200, BODY, url)


def test_500_then_200_is_retried(server: FaultServer, fetcher: Fetcher) -> None:
    server.routes["/flaky"] = [Route(500), Route(503), Route(200, BODY)]
    assert fetcher.fetch(server.url("/flaky"), user_given=True).body == BODY
    assert server.hits("/flaky") == 3


def test_retries_give_up_with_the_status(server: FaultServer) -> None:
    server.add("/down", status=502)
    with (
        Fetcher(FetchSettings(retries=2, backoff=0.01)) as client,
        pytest.raises(FetchError, match="HTTP 502") as caught,
    ):
        client.fetch(server.url("/down"), user_given=True)
    assert caught.value.status == 502
    assert server.hits("/down") == 3


def test_429_honours_retry_after(server: FaultServer, fetcher: Fetcher) -> None:
    server.routes["/busy"] = [Route(429, headers={"Retry-After": "1"}), Route(200, BODY)]
    start = time.monotonic()
    assert fetcher.fetch(server.url("/busy"), user_given=True).body == BODY
    assert time.monotonic() - start >= 0.9


def test_retry_after_past_the_deadline_gives_up_at_once(
    server: FaultServer, fetcher: Fetcher
) -> None:
    server.add("/later", status=429, headers={"Retry-After": "3600"})
    start = time.monotonic()
    with pytest.raises(FetchError, match="Retry-After 3600 s is longer than the wait allowed"):
        fetcher.fetch(server.url("/later"), user_given=True)
    assert time.monotonic() - start < 1


def test_retry_budget_is_shared_by_the_run(server: FaultServer) -> None:
    server.add("/a", status=500)
    server.add("/b", status=500)
    with Fetcher(FetchSettings(retries=5, retry_budget=2, backoff=0.01)) as client:
        for path in ("/a", "/b"):
            with pytest.raises(FetchError):
                client.fetch(server.url(path), user_given=True)
    assert server.hits("/a") + server.hits("/b") == 4


def test_stalling_response_times_out(server: FaultServer, fetcher: Fetcher) -> None:
    server.routes["/stall"] = Route(200, BODY * 100, stall=3)
    start = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        fetcher.fetch(server.url("/stall"), user_given=True)
    assert time.monotonic() - start < 2.5


def test_connection_reset_mid_body_is_retried_then_reported(
    server: FaultServer, fetcher: Fetcher
) -> None:
    server.routes["/reset"] = [Route(200, BODY * 1000, reset=True), Route(200, BODY)]
    assert fetcher.fetch(server.url("/reset"), user_given=True).body == BODY
    server.routes["/always-reset"] = Route(200, BODY * 1000, reset=True)
    with pytest.raises(FetchError) as caught:
        fetcher.fetch(server.url("/always-reset"), user_given=True)
    assert caught.value.url == server.url("/always-reset")
    assert server.hits("/always-reset") == FAST.retries + 1


def test_redirects_are_followed(server: FaultServer, fetcher: Fetcher) -> None:
    server.add("/old", status=301, headers={"Location": "/middle"})
    server.add("/middle", status=302, headers={"Location": server.url("/new")})
    server.add("/new", BODY)
    fetched = fetcher.fetch(server.url("/old"), user_given=True)
    assert fetched.body == BODY
    assert fetched.final_url == server.url("/new")
    assert fetched.url == server.url("/old")


def test_redirect_loop_is_an_error(server: FaultServer, fetcher: Fetcher) -> None:
    server.add("/x", status=302, headers={"Location": "/y"})
    server.add("/y", status=302, headers={"Location": "/x"})
    with pytest.raises(FetchError, match="redirect loop"):
        fetcher.fetch(server.url("/x"), user_given=True)


def test_urls_with_a_broken_host_are_fetch_errors(server: FaultServer, fetcher: Fetcher) -> None:
    server.add("/bad-redirect", status=302, headers={"Location": "http://[bad/x"})
    with pytest.raises(FetchError, match="redirect to an invalid URL"):
        fetcher.fetch(server.url("/bad-redirect"), user_given=True)
    with pytest.raises(FetchError, match="not a valid URL") as caught:
        fetcher.fetch("http://[bad/sitemap.xml")
    assert caught.value.url == "http://[bad/sitemap.xml"


def test_url_with_undecodable_argv_bytes_is_a_fetch_error(fetcher: Fetcher) -> None:
    """A shell argument with byte 0xff arrives as '\\udcff'; httpx raised UnicodeEncodeError."""
    with pytest.raises(FetchError, match="bytes that are not UTF-8"):
        fetcher.fetch("http://127.0.0.1:1/sitemap\udcff.xml", user_given=True)


def test_hosts_idna_cannot_encode_are_fetch_errors(server: FaultServer, fetcher: Fetcher) -> None:
    """httpx raised IDNAError/UnicodeError (not InvalidURL) for these, from a redirect too."""
    long_label = "a" * 64 + ".example"
    server.add("/to-xn", status=301, headers={"Location": "http://xn--/sitemap.xml"})
    server.add("/to-long", status=301, headers={"Location": f"http://{long_label}/sitemap.xml"})
    for path in ("/to-xn", "/to-long"):
        with pytest.raises(FetchError, match="invalid host name"):
            fetcher.fetch(server.url(path), user_given=True)
    with pytest.raises(FetchError, match="invalid host name"):
        fetcher.fetch("http://xn--/sitemap.xml", user_given=True)


def test_redirect_limit(server: FaultServer) -> None:
    for hop in range(5):
        server.add(f"/r{hop}", status=307, headers={"Location": f"/r{hop + 1}"})
    server.add("/r5", BODY)
    with (
        Fetcher(FetchSettings(max_redirects=3)) as client,
        pytest.raises(FetchError, match="more than 3 redirects"),
    ):
        client.fetch(server.url("/r0"), user_given=True)
    with Fetcher(FetchSettings(max_redirects=5)) as client:
        assert client.fetch(server.url("/r0"), user_given=True).body == BODY


def test_blocked_reports_status_and_body_start(server: FaultServer, fetcher: Fetcher) -> None:
    server.add(
        "/secret", "<html><body>\n  Access   denied by the firewall </body></html>", status=403
    )
    with pytest.raises(FetchError) as caught:
        fetcher.fetch(server.url("/secret"), user_given=True)
    assert caught.value.status == 403
    assert caught.value.message.startswith("blocked (HTTP 403): <html><body> Access denied")


def test_not_found(server: FaultServer, fetcher: Fetcher) -> None:
    with pytest.raises(FetchError, match=r"not found \(HTTP 404\)"):
        fetcher.fetch(server.url("/nothing"), user_given=True)


def test_content_encoding_undone_once(server: FaultServer, fetcher: Fetcher) -> None:
    once = gzip.compress(BODY)
    server.add("/ce.txt", once, headers={"Content-Encoding": "gzip"})
    server.add("/double.txt.gz", gzip.compress(once), headers={"Content-Encoding": "gzip"})
    server.add("/deflate.txt", zlib.compress(BODY), headers={"Content-Encoding": "deflate"})
    assert fetcher.fetch(server.url("/ce.txt"), user_given=True).body == BODY
    assert fetcher.fetch(server.url("/double.txt.gz"), user_given=True).body == once
    assert fetcher.fetch(server.url("/deflate.txt"), user_given=True).body == BODY


def test_decompressed_size_cap(server: FaultServer) -> None:
    bomb = gzip.compress(bytes(20 << 20))
    server.add("/bomb", bomb, headers={"Content-Encoding": "gzip"})
    server.add("/big", bytes(3 << 20))
    with Fetcher(FetchSettings(max_bytes=1 << 20)) as client:
        with pytest.raises(UnsafeContentError, match="exceeds the limit"):
            client.fetch(server.url("/bomb"), user_given=True)
        with pytest.raises(FetchError, match="exceeds the limit"):
            client.fetch(server.url("/big"), user_given=True)


def test_user_agent_and_extra_headers_on_every_request(server: FaultServer) -> None:
    server.add("/a", status=302, headers={"Location": "/b"})
    server.add("/b", BODY)
    settings = FetchSettings(user_agent="probe/1.0", headers={"X-Token": "t0k"})
    with Fetcher(settings) as client:
        client.fetch(server.url("/a"), user_given=True)
    assert [(r.headers["user-agent"], r.headers["x-token"]) for r in server.requests] == [
        ("probe/1.0", "t0k"),
        ("probe/1.0", "t0k"),
    ]


def test_default_user_agent_names_us(server: FaultServer, fetcher: Fetcher) -> None:
    fetcher.fetch(server.add("/a", BODY), user_given=True)
    assert server.requests[0].headers["user-agent"].startswith("sitemapkit/")


def test_per_host_limit(server: FaultServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    for i in range(8):
        server.routes[f"/slow{i}"] = Route(200, BODY, stall=0.3)
    with (
        Fetcher(FetchSettings(per_host=2, read_timeout=5)) as client,
        ThreadPoolExecutor(8) as pool,
    ):
        start = time.monotonic()
        list(pool.map(lambda i: client.fetch(server.url(f"/slow{i}"), user_given=True), range(8)))
        elapsed = time.monotonic() - start
    assert elapsed >= 1.1  # 8 requests, 2 at a time, 0.3 s each


def test_private_addresses_refused_for_discovered_urls(
    server: FaultServer, fetcher: Fetcher
) -> None:
    url = server.add("/s.txt", BODY)
    with pytest.raises(FetchError, match=r"refused: 127\.0\.0\.1 is a loopback"):
        fetcher.fetch(url)
    assert server.hits("/s.txt") == 0
    assert fetcher.fetch(url, user_given=True).body == BODY
    with Fetcher(FetchSettings(allow_private=True)) as client:
        assert client.fetch(url).body == BODY


def test_redirect_to_a_private_address_is_refused() -> None:
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}
        )
    )
    with (
        Fetcher(FetchSettings(), transport=transport) as client,
        pytest.raises(FetchError, match=r"refused: 169\.254\.169\.254"),
    ):
        client.fetch("http://93.184.216.34/sitemap.xml", user_given=True)


@pytest.mark.parametrize(
    ("address", "private"),
    [
        ("127.0.0.1", True),
        ("10.1.2.3", True),
        ("172.16.0.1", True),
        ("192.168.1.1", True),
        ("169.254.169.254", True),
        ("100.100.100.200", True),
        ("100.64.0.1", True),
        ("0.0.0.0", True),
        ("::1", True),
        ("fe80::1", True),
        ("fd00:ec2::254", True),
        ("::ffff:10.0.0.1", True),
        ("93.184.216.34", False),
        ("2606:4700::1111", False),
    ],
)
def test_is_private_address(address: str, private: bool) -> None:
    assert is_private_address(address) is private


def test_is_private_host_names() -> None:
    assert is_private_host("localhost")
    assert is_private_host("metadata.google.internal")
    assert is_private_host("[::1]")
    assert not is_private_host("nonexistent.invalid")


def test_exception_table_covers_every_httpx_exception() -> None:
    names = {
        name
        for name, value in vars(httpx).items()
        if inspect.isclass(value) and issubclass(value, Exception)
    }
    assert names
    assert names <= set(EXCEPTION_MESSAGES), names - set(EXCEPTION_MESSAGES)


def test_aiohttp_table_covers_every_client_error_and_maps_onto_known_messages() -> None:
    import aiohttp

    names = {
        name
        for name, value in vars(aiohttp).items()
        if inspect.isclass(value) and issubclass(value, aiohttp.ClientError)
    }
    assert names
    assert names <= set(AIOHTTP_EQUIVALENTS), names - set(AIOHTTP_EQUIVALENTS)
    assert set(AIOHTTP_EQUIVALENTS.values()) <= set(EXCEPTION_MESSAGES)
    reset = aiohttp.ClientPayloadError("Response payload is not completed")
    assert map_aiohttp_exception(reset) == ("connection lost while reading", True)
    assert map_aiohttp_exception(aiohttp.ServerDisconnectedError())[1] is True
    assert map_aiohttp_exception(ValueError("x")) == ("request failed", False)


def test_map_exception_uses_the_most_specific_entry() -> None:
    request = httpx.Request("GET", "http://127.0.0.1/")
    assert map_exception(httpx.ConnectTimeout("x", request=request)) == (
        "timed out connecting",
        True,
    )
    assert map_exception(httpx.ReadTimeout("x", request=request))[1] is False


def test_connection_refused_is_a_fetch_error() -> None:
    import socket

    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with Fetcher(FAST) as client, pytest.raises(FetchError, match="cannot connect"):
        client.fetch(f"http://127.0.0.1:{port}/sitemap.xml", user_given=True)


def test_import_sitemapkit_does_not_load_httpx() -> None:
    code = (
        "import sys, sitemapkit; print(sorted(m for m in ('httpx', 'click', 'rich') "
        "if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_fetchers_made_in_threads_while_httpx_loads_get_the_whole_module() -> None:
    """Index children make Fetchers in pool threads; one that came while another thread was
    importing httpx took the half-loaded module (AttributeError: no attribute 'Client').
    """
    code = (
        "import threading, time\n"
        "from sitemapkit.fetch import Fetcher\n"
        "errors = []\n"
        "def make(delay):\n"
        "    time.sleep(delay)\n"
        "    try:\n"
        "        Fetcher().close()\n"
        "    except Exception as exc:\n"
        "        errors.append(repr(exc))\n"
        "threads = [threading.Thread(target=make, args=(i * 0.01,)) for i in range(12)]\n"
        "for t in threads: t.start()\n"
        "for t in threads: t.join()\n"
        "print(errors)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_head_reads_only_the_start(server: FaultServer, fetcher: Fetcher) -> None:
    big = b"x" * 500_000
    server.add("/big.txt", big)
    server.add("/big.gz", gzip.compress(big), headers={"Content-Encoding": "gzip"})
    assert fetcher.fetch(server.url("/big.txt"), user_given=True, head=1000).body == big[:1000]
    start = fetcher.fetch(server.url("/big.gz"), user_given=True, head=200).body
    assert start
    assert big.startswith(start)


def test_blocked_body_start_is_decoded_when_gzipped(server: FaultServer, fetcher: Fetcher) -> None:
    server.add(
        "/gz403",
        gzip.compress(b"Forbidden: bots go away"),
        status=401,
        headers={"Content-Encoding": "gzip"},
    )
    with pytest.raises(FetchError, match=r"blocked \(HTTP 401\): Forbidden: bots go away"):
        fetcher.fetch(server.url("/gz403"), user_given=True)
