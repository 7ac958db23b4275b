"""Reader and iter_urls over HTTP on 127.0.0.1: indexes, faults, order, loops, limits, guard."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit import (
    FetchError,
    FetchSettings,
    Problem,
    Reader,
    ReadLimits,
    StrictError,
    URLEntry,
    iter_urls,
)
from tests.fault_server import FaultServer, Route, running

FAST = FetchSettings(connect_timeout=1, read_timeout=1, deadline=5, backoff=0.01, max_backoff=0.5)
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(*locs: str) -> bytes:
    body = "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{body}</urlset>\n'.encode()


def index(*locs: str) -> bytes:
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    head = '<?xml version="1.0" encoding="UTF-8"?>\n'
    return f"{head}<sitemapindex {NS}>\n{body}</sitemapindex>".encode()


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with running() as site:
        yield site


def read_all(source: str, **kwargs: object) -> tuple[list[str], list[Problem], Reader]:
    problems: list[Problem] = []
    settings = kwargs.pop("settings", FAST)
    with Reader(settings=settings, on_problem=problems.append, **kwargs) as reader:  # type: ignore[arg-type]
        locs = [entry.loc for entry in reader.read(source)]
    return locs, problems, reader


def test_index_with_every_kind_of_child(server: FaultServer) -> None:
    plain = urlset("https://e.example/plain")
    server.add("/plain.xml", plain)
    server.add("/mislabelled.xml.gz", urlset("https://e.example/mislabelled"))
    server.add("/gzip-without-name", gzip.compress(urlset("https://e.example/gzip")))
    server.add(
        "/double.xml.gz",
        gzip.compress(gzip.compress(urlset("https://e.example/double"))),
        headers={"Content-Encoding": "gzip"},
    )
    server.add("/feed.rss", b"<rss><channel><item><link>/from-feed</link></item></channel></rss>")
    server.add("/list.txt", b"https://e.example/text1\r\nhttps://e.example/text2\r\n")
    server.add("/soft404.xml", b"<!DOCTYPE html><html><body>Page not found</body></html>")
    server.routes["/flaky.xml"] = [Route(500), Route(200, urlset("https://e.example/flaky"))]
    children = [
        "/plain.xml",
        "/mislabelled.xml.gz",
        "/missing.xml",
        "/gzip-without-name",
        "/double.xml.gz",
        "/soft404.xml",
        "/feed.rss",
        "/list.txt",
        "/flaky.xml",
    ]
    server.add("/index.xml", index(*(server.url(path) for path in children)))
    locs, problems, reader = read_all(server.url("/index.xml"))
    assert locs == [
        "https://e.example/plain",
        "https://e.example/mislabelled",
        "https://e.example/gzip",
        "https://e.example/double",
        server.url("/from-feed"),
        "https://e.example/text1",
        "https://e.example/text2",
        "https://e.example/flaky",
    ]
    assert [str(problem) for problem in problems] == [
        f"{server.url('/missing.xml')}: not found (HTTP 404)",
        f"{server.url('/soft404.xml')}: not a sitemap (HTML page)",
    ]
    assert (reader.stats.files_ok, reader.stats.files_failed, reader.stats.urls) == (8, 2, 8)


def test_entries_name_the_sitemap_they_came_from(server: FaultServer) -> None:
    server.add("/a.xml", urlset("https://e.example/a"))
    server.add("/index.xml", index(server.url("/a.xml")))
    entries = list(iter_urls(server.url("/index.xml"), settings=FAST))
    assert entries == [URLEntry("https://e.example/a")]
    assert entries[0].sitemap == server.url("/a.xml")


def test_output_keeps_index_order_while_fetching_concurrently(server: FaultServer) -> None:
    for i in range(6):
        body = urlset(*(f"https://e.example/{i}/{j}" for j in range(3)))
        server.routes[f"/c{i}.xml"] = Route(200, body, stall=0.4 if i == 0 else 0.0)
    server.add("/index.xml", index(*(server.url(f"/c{i}.xml") for i in range(6))))
    locs, problems, _ = read_all(server.url("/index.xml"))
    assert locs == [f"https://e.example/{i}/{j}" for i in range(6) for j in range(3)]
    assert problems == []


def test_each_sitemap_read_once_and_relative_children_resolved(server: FaultServer) -> None:
    server.add("/shared.xml", urlset("https://e.example/shared"))
    server.add("/left.xml", index("/shared.xml"))
    server.add("/right.xml", index("shared.xml"))
    server.add("/top.xml", index("/left.xml", "/right.xml"))
    locs, problems, _ = read_all(server.url("/top.xml"))
    assert locs == ["https://e.example/shared"]
    assert problems == []
    assert server.hits("/shared.xml") == 1


def test_index_loop_is_reported(server: FaultServer) -> None:
    server.add("/a.xml", index("/b.xml"))
    server.add("/b.xml", index("/a.xml", "/leaf.xml"))
    server.add("/leaf.xml", urlset("https://e.example/leaf"))
    locs, problems, _ = read_all(server.url("/a.xml"))
    assert locs == ["https://e.example/leaf"]
    assert len(problems) == 1
    assert problems[0].source == server.url("/b.xml")
    assert "index loop" in problems[0].message
    assert server.hits("/a.xml") == 1


def test_depth_limit_is_reported(server: FaultServer) -> None:
    for level in range(5):
        server.add(f"/level{level}.xml", index(f"/level{level + 1}.xml"))
    server.add("/level5.xml", urlset("https://e.example/deep"))
    locs, problems, _ = read_all(server.url("/level0.xml"), limits=ReadLimits(max_depth=2))
    assert locs == []
    assert [problem.message for problem in problems] == [
        f"indexes nested deeper than 2 levels; {server.url('/level3.xml')} not read"
    ]
    locs, problems, _ = read_all(server.url("/level0.xml"))
    assert locs == ["https://e.example/deep"]


def test_files_per_run_limit(server: FaultServer) -> None:
    for i in range(5):
        server.add(f"/c{i}.xml", urlset(f"https://e.example/{i}"))
    server.add("/index.xml", index(*(f"/c{i}.xml" for i in range(5))))
    locs, problems, _ = read_all(server.url("/index.xml"), limits=ReadLimits(max_files=3))
    assert locs == ["https://e.example/0", "https://e.example/1"]
    assert ["file limit of 3 reached" in problem.message for problem in problems] == [True]


def test_run_time_limit(server: FaultServer) -> None:
    for i in range(3):
        server.routes[f"/c{i}.xml"] = Route(200, urlset(f"https://e.example/{i}"), stall=0.3)
    server.add("/index.xml", index(*(f"/c{i}.xml" for i in range(3))))
    _locs, problems, _ = read_all(
        server.url("/index.xml"),
        limits=ReadLimits(max_seconds=0.1),
        settings=FetchSettings(concurrency=1, read_timeout=2),
    )
    assert any("run time limit of 0.1 s reached" in problem.message for problem in problems)


def test_truncated_child_yields_entries_and_a_line(server: FaultServer) -> None:
    data = urlset(*(f"https://e.example/{i}" for i in range(4)))
    server.add("/cut.xml", data[: data.index(b"https://e.example/3") + 5])
    server.add("/index.xml", index("/cut.xml"))
    locs, problems, reader = read_all(server.url("/index.xml"))
    assert locs == [f"https://e.example/{i}" for i in range(3)]
    assert problems[0].line == 6
    assert "truncated" in problems[0].message
    assert reader.stats.files_failed == 1


def test_stop_on_error_raises_the_first_problem(server: FaultServer) -> None:
    server.add("/ok.xml", urlset("https://e.example/ok"))
    server.add("/index.xml", index("/ok.xml", "/missing.xml", "/ok2.xml"))
    seen: list[str] = []
    with pytest.raises(FetchError, match="not found"):
        seen.extend(
            e.loc for e in iter_urls(server.url("/index.xml"), settings=FAST, stop_on_error=True)
        )
    assert seen == ["https://e.example/ok"]
    data = b"https://e.example/1\nnot a url\nhttps://e.example/2\n"
    server.add("/list.txt", data)
    with pytest.raises(StrictError, match="not a URL"):
        list(iter_urls(server.url("/list.txt"), settings=FAST, stop_on_error=True))


def test_headers_apply_to_child_requests(server: FaultServer) -> None:
    server.add("/a.xml", urlset("https://e.example/a"))
    server.add("/index.xml", index("/a.xml"))
    settings = FetchSettings(user_agent="audit-bot/2", headers={"Authorization": "Bearer x"})
    list(iter_urls(server.url("/index.xml"), settings=settings))
    assert {
        (r.path, r.headers["user-agent"], r.headers["authorization"]) for r in server.requests
    } == {("/index.xml", "audit-bot/2", "Bearer x"), ("/a.xml", "audit-bot/2", "Bearer x")}


def test_private_children_of_a_local_index_are_refused(server: FaultServer, tmp_path: Path) -> None:
    server.add("/child.xml", urlset("https://e.example/child"))
    local = tmp_path / "index.xml"
    local.write_bytes(index(server.url("/child.xml")))
    locs, problems, _ = read_all(str(local))
    assert locs == []
    assert "refused: 127.0.0.1" in problems[0].message
    assert server.hits("/child.xml") == 0
    locs, problems, _ = read_all(str(local), settings=FetchSettings(allow_private=True))
    assert locs == ["https://e.example/child"]


def test_child_of_a_local_index_named_beyond_the_file_name_limit_is_fetched(
    server: FaultServer, tmp_path: Path
) -> None:
    """Looking for it beside the index raised ENAMETOOLONG and ended the run."""
    name = "/" + "x" * 300 + ".xml"
    server.add(name, urlset("https://e.example/long"))
    local = tmp_path / "index.xml"
    local.write_bytes(index(server.url(name)))
    locs, problems, _ = read_all(str(local), settings=FetchSettings(allow_private=True))
    assert (locs, problems) == (["https://e.example/long"], [])


def test_robots_txt_cannot_point_elsewhere_on_the_users_network(server: FaultServer) -> None:
    # The site is public in this scenario only when its own address is; here the start is
    # on loopback, so its robots.txt may name loopback URLs: that is the user's own choice.
    server.add("/robots.txt", f"Sitemap: {server.url('/s.xml')}\n")
    server.add("/s.xml", urlset("https://e.example/from-robots"))
    locs, problems, _ = read_all(server.url("/"))
    assert locs == ["https://e.example/from-robots"]
    assert problems == []


def test_local_files_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.xml.gz"
    path.write_bytes(gzip.compress(urlset("https://e.example/local")))
    locs, problems, _ = read_all(str(path))
    assert locs == ["https://e.example/local"]
    locs, problems, reader = read_all(str(tmp_path / "missing.xml"))
    assert locs == []
    assert "cannot read" in problems[0].message
    assert reader.stats.files_failed == 1


def test_external_dtd_is_never_fetched(server: FaultServer, tmp_path: Path) -> None:
    dtd = tmp_path / "evil.dtd"
    dtd.write_text("this is not a DTD at all <<<")
    for system_id in (server.url("/evil.dtd"), dtd.as_uri()):
        data = (
            f'<?xml version="1.0"?>\n<!DOCTYPE urlset SYSTEM "{system_id}">\n'
            f"<urlset {NS}><url><loc>https://e.example/x</loc></url></urlset>"
        ).encode()
        server.add("/s.xml", data)
        locs, problems, _ = read_all(server.url("/s.xml"))
        assert locs == ["https://e.example/x"]
        assert problems == []
    assert server.hits("/evil.dtd") == 0


def test_abandoning_a_run_stops_its_workers(server: FaultServer) -> None:
    import threading
    import time

    for i in range(8):
        server.routes[f"/c{i}.xml"] = Route(200, urlset(f"https://e.example/{i}"), stall=0.2)
    server.add("/index.xml", index(*(f"/c{i}.xml" for i in range(8))))
    start = time.monotonic()
    entries = iter_urls(server.url("/index.xml"), settings=FAST)
    first = next(entries)
    entries.close()  # what a `break` out of a for loop does
    assert first.loc == "https://e.example/0"
    assert time.monotonic() - start < 1.5  # the other six files are not waited for
    assert not [t.name for t in threading.enumerate() if t.name.startswith("sitemapkit-")]
