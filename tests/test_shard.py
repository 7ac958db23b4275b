"""Sharded generation in one process: routing, the shard writer, the driver, publishing."""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import fsspec
import pytest
from click.testing import CliRunner, Result
from lxml import etree

from sitemapkit import (
    Alternate,
    ChildFile,
    Image,
    LimitError,
    PublishError,
    ShardedOutput,
    ShardManifest,
    ShardOptions,
    ShardRouter,
    SitemapError,
    SitemapWriter,
    StrictError,
    URLEntry,
    normalize_url,
    shard_of,
    write_shard,
    write_sharded,
)
from sitemapkit.cli import cli
from sitemapkit.storage import content_type, upload_options
from tests.oracles import assert_schema_valid, usp_urls

BASE = "https://www.example.com/"
CHILD = r"sitemap-s(\d{4})-(\d{5})-[0-9a-f]{8}\.xml\.gz"


def read_xml(data: bytes) -> etree._Element:
    return etree.fromstring(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)


def locs(data: bytes) -> list[str]:
    return [str(el.text) for el in read_xml(data).iterfind(".//{*}loc")]


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def memory_files(root: str) -> dict[str, bytes]:
    fs = fsspec.filesystem("memory")
    return {str(path).rsplit("/", 1)[1]: fs.cat_file(path) for path in fs.ls(root, detail=False)}


def catalogue(count: int = 3000) -> list[URLEntry]:
    """URLs with lastmods, some attributes, duplicates (differing lastmod) and rejects."""
    entries = [
        URLEntry(
            f"{BASE}item/{i}?colour=red&size={i % 5}",
            lastmod=date(2024, 1, 1) + timedelta(days=i % 200),
            changefreq="daily" if i % 7 == 0 else None,
            priority=0.5 if i % 11 == 0 else None,
        )
        for i in range(count)
    ]
    entries += [URLEntry(f"{BASE}item/{i}?colour=red&size={i % 5}") for i in range(0, count, 9)]
    entries += [URLEntry("ftp://www.example.com/x"), URLEntry("https://other.example.org/")]
    entries += [URLEntry("/relative/ü"), URLEntry(BASE + "item/0?colour=red&size=0#frag")]
    return entries


def test_shard_of_is_the_same_in_every_process() -> None:
    urls = [f"{BASE}p/{i}" for i in range(200)]
    here = [shard_of(url, 7) for url in urls]
    script = (
        "import sys, json; from sitemapkit import shard_of; "
        f"print(json.dumps([shard_of(u, 7) for u in {urls!r}]))"
    )
    for seed in ("1", "2"):
        output = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        assert json.loads(output) == here
    assert set(here) == set(range(7))  # spread over every shard
    assert shard_of(BASE, 1) == 0


def test_router_normalises_before_hashing() -> None:
    router = ShardRouter(ShardOptions(base_url=BASE, shards=16))
    same = ["/a/./b", BASE + "a/b", "HTTPS://WWW.EXAMPLE.COM:443/a/b#x"]
    assert {router.route(url) for url in same} == {shard_of(BASE + "a/b", 16)}
    routed, shards = router.route_many(["ftp://x/", "/c"])
    assert routed == ["ftp://x/", BASE + "c"]  # a reject keeps its text, for the shard to count
    assert shards[1] == shard_of(BASE + "c", 16)


def test_sharded_set_is_an_index_of_sorted_deduplicated_shards(tmp_path: Path) -> None:
    entries = catalogue()
    options = ShardOptions(base_url=BASE, shards=4, max_urls=300)
    result = write_sharded(entries, tmp_path, options)
    published = files(tmp_path)
    index = read_xml(published["sitemap.xml"])
    names = [loc.rsplit("/", 1)[1] for loc in locs(published["sitemap.xml"])]
    assert [os.path.basename(child) for child in result.children] == names
    assert sorted(names) == names  # shard by shard, child by child
    expected: dict[str, URLEntry] = {}
    for entry in entries:  # what SitemapWriter keeps: the first of duplicates
        try:
            loc = normalize_url(entry.loc, base=BASE)
        except ValueError:
            continue
        if loc.startswith(BASE):
            expected.setdefault(loc, entry)
    seen: list[str] = []
    lastmods = [el.text for el in index.iterfind(".//{*}lastmod")]
    for name, child_lastmod in zip(names, lastmods, strict=True):
        shard = int(name.split("-")[1][1:])
        assert_schema_valid(tmp_path / name)
        root = read_xml(published[name])
        urls = [str(el.text) for el in root.iterfind(".//{*}loc")]
        assert urls == sorted(urls)
        assert {shard_of(url, 4) for url in urls} == {shard}
        newest = max(str(el.text) for el in root.iterfind(".//{*}lastmod"))
        assert child_lastmod == newest
        for url_element in root:
            loc = str(url_element.findtext("{*}loc"))
            want = expected[loc]
            want_lastmod = None if want.lastmod is None else str(want.lastmod)
            assert url_element.findtext("{*}lastmod") == want_lastmod
            assert url_element.findtext("{*}changefreq") == want.changefreq
        seen += urls
    assert_schema_valid(tmp_path / "sitemap.xml")
    assert sorted(seen) == sorted(expected)
    assert result.urls == len(expected)
    assert result.skipped == {"duplicate": 335, "scheme": 1, "out-of-scope": 1}
    assert sorted(published) == sorted([".sitemap.sitemapkit.json", "sitemap.xml", *names])


def test_output_does_not_depend_on_the_order_of_distinct_urls(tmp_path: Path) -> None:
    urls = [f"{BASE}p/{i}" for i in range(2000)]
    options = ShardOptions(base_url=BASE, shards=3, max_urls=250)
    write_sharded(urls, tmp_path / "a", options)
    random.Random(8).shuffle(urls)
    write_sharded(urls, tmp_path / "b", options)
    assert files(tmp_path / "a") == files(tmp_path / "b")


def test_shards_written_apart_equal_the_single_run(tmp_path: Path) -> None:
    """The engine-neutral contract: route, write each shard anywhere, publish once."""
    entries = catalogue(1500)
    options = ShardOptions(base_url=BASE, shards=5, max_urls=200)
    write_sharded(entries, tmp_path / "reference", options)
    router = ShardRouter(options)
    by_shard: dict[int, list[URLEntry]] = {}
    for entry in entries:
        by_shard.setdefault(router.route(entry.loc), []).append(entry)
    with ShardedOutput(tmp_path / "apart", options) as output:
        manifests = [
            write_shard(by_shard.get(shard, []), shard, target=output.target, options=options)
            for shard in reversed(range(5))
        ]
        output.publish(manifests)
    assert files(tmp_path / "apart") == files(tmp_path / "reference")
    assert all(isinstance(child, ChildFile) for m in manifests for child in m.children)


def test_memory_filesystem_gets_the_same_files(tmp_path: Path) -> None:
    entries = catalogue(800)
    options = ShardOptions(base_url=BASE, shards=3, max_urls=100)
    write_sharded(entries, tmp_path, options)
    result = write_sharded(entries, "memory://sitemaps/test-same/", options)
    assert result.entry_point == "memory://sitemaps/test-same/sitemap.xml"
    assert memory_files("/sitemaps/test-same") == files(tmp_path)


def test_memory_republish_removes_stale_children_and_keeps_unchanged_ones() -> None:
    out = "memory://sitemaps/test-republish"
    options = ShardOptions(base_url=BASE, shards=2, max_urls=50)
    first = write_sharded([f"{BASE}p/{i:04d}" for i in range(300)], out, options)
    fs = fsspec.filesystem("memory")
    listing = fs.ls("/sitemaps/test-republish", detail=False)
    created = {path: fs.info(path)["created"] for path in listing}
    fs.pipe_file("/sitemaps/test-republish/sitemap-s0001-00009-0badc0de.xml.gz", b"leftover")
    second = write_sharded([f"{BASE}p/{i:04d}" for i in range(280)], out, options)
    kept = set(first.children) & set(second.children)
    assert kept
    assert set(first.children) - kept
    now = memory_files("/sitemaps/test-republish")
    assert sorted(now) == sorted(
        [".sitemap.sitemapkit.json", "sitemap.xml", *(c.rsplit("/", 1)[1] for c in second.children)]
    )
    for child in kept:  # same name, same bytes: never rewritten
        path = "/" + child.removeprefix("memory://")
        assert fs.info(path)["created"] == created[path]


def test_remote_publish_refuses_an_index_naming_a_missing_child() -> None:
    out = "memory://sitemaps/test-missing"
    options = ShardOptions(base_url=BASE, shards=1)
    write_sharded([BASE + "old"], out, options)
    before = memory_files("/sitemaps/test-missing")
    ghost = ChildFile("sitemap-s0000-00001-00000000.xml.gz", 1, None, 10, 10, "0" * 64)
    with ShardedOutput(out, options) as output, pytest.raises(PublishError, match="missing"):
        output.publish([ShardManifest(0, (ghost,), 1)])
    assert memory_files("/sitemaps/test-missing") == before


def test_local_republish_and_back_to_unsharded(tmp_path: Path) -> None:
    options = ShardOptions(base_url=BASE, shards=3, max_urls=40)
    first = write_sharded([f"/p/{i:03d}" for i in range(200)], tmp_path, options)
    kept = Path(first.children[0])
    os.utime(kept, (1_000_000_000, 1_000_000_000))
    (tmp_path / "sitemap-s0002-00077-0badc0de.xml.gz").write_bytes(b"left by a killed run")
    second = write_sharded([f"/p/{i:03d}" for i in range(190)], tmp_path, options)
    assert kept.stat().st_mtime == 1_000_000_000  # unchanged child untouched
    children = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".gz"))
    assert children == sorted(os.path.basename(c) for c in second.children)
    with SitemapWriter(tmp_path, base_url=BASE) as writer:  # the plain writer tidies them too
        writer.add("/only")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".sitemap.sitemapkit.json", "sitemap.xml"]


def test_one_child_is_still_an_index_and_text_format(tmp_path: Path) -> None:
    result = write_sharded(["/a", "/b"], tmp_path / "xml", ShardOptions(base_url=BASE))
    assert os.path.basename(result.children[0]).startswith("sitemap-s0000-00001-")
    assert locs((tmp_path / "xml" / "sitemap.xml").read_bytes()) == [
        BASE + os.path.basename(result.children[0])
    ]
    text = write_sharded(
        ["/b?x=1&y=2", "/a"], tmp_path / "txt", ShardOptions(base_url=BASE, format="txt")
    )
    child = Path(text.children[0])
    assert child.name.endswith(".txt.gz")
    assert gzip.decompress(child.read_bytes()) == f"{BASE}a\n{BASE}b?x=1&y=2\n".encode()
    assert_schema_valid(Path(text.entry_point))


def test_extensions_survive_sharding(tmp_path: Path) -> None:
    entry = URLEntry(BASE + "shop", images=(Image("https://cdn.example.net/ü.jpg"),))
    result = write_sharded([entry, "/plain"], tmp_path, ShardOptions(base_url=BASE, shards=2))
    texts = [gzip.decompress(Path(c).read_bytes()).decode() for c in result.children]
    assert any("<image:loc>https://cdn.example.net/%C3%BC.jpg</image:loc>" in t for t in texts)
    for child in result.children:
        assert_schema_valid(Path(child))


def test_strict_and_empty_runs_publish_nothing(tmp_path: Path) -> None:
    options = ShardOptions(base_url=BASE, shards=2)
    write_sharded(["/old"], tmp_path, options)
    before = files(tmp_path)
    with pytest.raises(StrictError, match="out-of-scope"):
        write_sharded(["/new", "https://elsewhere.example/"], tmp_path, replace_strict(options))
    with pytest.raises(SitemapError, match="nothing to write: no URL was accepted \\(1 scheme\\)"):
        write_sharded(["mailto:x@example.com"], tmp_path, options)
    assert files(tmp_path) == before
    assert not [p for p in tmp_path.parent.iterdir() if ".sitemapkit-" in p.name and p.is_dir()]


def replace_strict(options: ShardOptions) -> ShardOptions:
    from dataclasses import replace

    return replace(options, strict=True)


def test_too_many_children_for_one_index(tmp_path: Path) -> None:
    options = ShardOptions(base_url=BASE, shards=3, protocol="0.84", max_urls=1)
    with pytest.raises(LimitError, match="at most 1,000"):
        write_sharded([f"/p/{i}" for i in range(1001)], tmp_path, options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"shards": 0}, "shards must be between 1 and 50,000"),
        ({"max_urls": 50_001}, "max_urls must be between 1 and 50,000"),
        ({"base_url": "ftp://example.com/"}, "bad base URL"),
        ({"name": "../escape"}, "bad sitemap name"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(SitemapError, match=message):
        ShardOptions(**{"base_url": BASE, **options})  # type: ignore[arg-type]


def test_content_types_for_object_stores() -> None:
    assert content_type("sitemap.xml") == "application/xml"
    assert content_type("sitemap-s0000-00001-1a2b3c4d.xml.gz") == "application/gzip"
    assert content_type("sitemap-s0000-00001-1a2b3c4d.txt.gz") == "application/gzip"
    assert content_type("sitemap.txt") == "text/plain; charset=utf-8"
    assert upload_options("s3", "a.xml.gz") == {"ContentType": "application/gzip"}
    assert upload_options("gcs", "a.xml") == {"content_type": "application/xml"}
    assert upload_options("memory", "a.xml") == {}


def test_usp_reads_a_sharded_set(tmp_path: Path, serve_dir) -> None:  # type: ignore[no-untyped-def]
    base = serve_dir(tmp_path)
    urls = [f"{base}p/{i}" for i in range(120)]
    write_sharded(urls, tmp_path, ShardOptions(base_url=base, shards=3, max_urls=25))
    assert sorted(usp_urls(base + "sitemap.xml")) == sorted(urls)


def run_cli(*args: str) -> Result:
    return CliRunner().invoke(cli, ["generate", "--base-url", BASE, *args])


def test_cli_shards_prints_the_set_and_equals_the_library(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"/p/{i} lastmod=2024-05-0{1 + i % 9}\n" for i in range(500)))
    result = run_cli(
        "--urls", str(urls), "--out", str(tmp_path / "cli"), "--shards", "3", "--max-urls", "100"
    )
    assert result.exit_code == 0, result.output
    assert f"{tmp_path / 'cli' / 'sitemap.xml'}  (index of " in result.output
    assert "written: 500 URLs" in result.output
    entries = [URLEntry(f"/p/{i}", lastmod=date(2024, 5, 1 + i % 9)) for i in range(500)]
    options = ShardOptions(base_url=BASE, shards=3, max_urls=100)
    write_sharded(entries, tmp_path / "library", options)
    assert files(tmp_path / "cli") == files(tmp_path / "library")


def test_cli_object_store_url_implies_shards(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("/a\n/b\n")
    result = run_cli("--urls", str(urls), "--out", "memory://cli/out", "--quiet")
    assert result.exit_code == 0, result.output
    names = sorted(memory_files("/cli/out"))
    assert names[0] == ".sitemap.sitemapkit.json"
    assert re.fullmatch(CHILD, names[1])
    assert names[2] == "sitemap.xml"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "dask"], "--engine dask needs --shards N"),
        (["--scheduler", "local:2"], "--scheduler goes with --engine dask"),
        (["--engine", "dask", "--shards", "2", "--urls", "-"], "reads files, not standard input"),
        (["--shards", "0"], "0 is not in the range"),
    ],
)
def test_cli_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("/a\n")
    extra = [] if "--urls" in args else ["--urls", str(urls)]
    result = run_cli(*extra, *args, "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "out" / "sitemap.xml").exists()


def test_hreflang_links_are_written_as_given_once_per_url(tmp_path: Path) -> None:
    """A page's versions may land in other shards: no completion, no URL twice."""
    versions = ("en", "de", "fr")
    entries = [
        URLEntry(
            f"{BASE}{lang}/page-{i}",
            alternates=tuple(Alternate(other, f"{BASE}{other}/page-{i}") for other in versions),
        )
        for i in range(40)
        for lang in versions
    ]
    result = write_sharded(entries, tmp_path, ShardOptions(base_url=BASE, shards=4, max_urls=25))
    seen: list[str] = []
    for child in result.children:
        assert_schema_valid(Path(child))
        root = read_xml(Path(child).read_bytes())
        for url in root:
            seen.append(str(url.findtext("{*}loc")))
            links = url.findall("{http://www.w3.org/1999/xhtml}link")
            assert [link.get("hreflang") for link in links] == list(versions)
    assert sorted(seen) == sorted(entry.loc for entry in entries)
