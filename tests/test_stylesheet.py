"""``generate --xsl``: the stylesheet published with the set, linked from every file, and
shown by headless Chromium as a table of links (over HTTP: browsers apply XSLT there)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import fsspec
import pytest
from click.testing import CliRunner

from sitemapkit import (
    InvalidValueError,
    ShardOptions,
    SitemapError,
    SitemapWriter,
    write_sharded,
)
from sitemapkit.cli import cli, main
from sitemapkit.stylesheet import SITEMAP_XSL
from tests.browser import Browser, browser

PI = b'<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>'


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with browser() as instance:
        yield instance


def manifest(out: Path) -> list[str]:
    return list(json.loads((out / ".sitemap.sitemapkit.json").read_text())["files"])


def read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def test_the_stylesheet_is_part_of_the_published_set(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with SitemapWriter(out, base_url="https://example.com/", max_urls=2, xsl=True) as writer:
        writer.add_all(f"https://example.com/p{i}" for i in range(5))
    result = writer.result
    assert result.stylesheet == out / "sitemap.xsl"
    assert (out / "sitemap.xsl").read_text() == SITEMAP_XSL
    assert "sitemap.xsl" in manifest(out)
    for path in result.files:  # the index and every child link it
        assert PI in read(path).split(b"\n", 2)[1], path
    # A run without it removes the file with the rest of the old set.
    with SitemapWriter(out, base_url="https://example.com/") as writer:
        writer.add("https://example.com/")
    assert not (out / "sitemap.xsl").exists()
    assert PI not in (out / "sitemap.xml").read_bytes()


def test_text_sitemaps_cannot_link_a_stylesheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(InvalidValueError, match="XML sitemaps"):
        SitemapWriter(tmp_path, base_url="https://example.com/", format="txt", xsl=True)
    (tmp_path / "urls.txt").write_text("https://example.com/\n")
    args = ["--urls", str(tmp_path / "urls.txt"), "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as stopped:
        main(["generate", "--base-url", "https://example.com/", *args, "--format", "txt", "--xsl"])
    assert stopped.value.code == 2
    assert "xsl goes with XML sitemaps" in capsys.readouterr().err


def test_chromium_shows_sitemaps_and_the_index_as_tables(
    tmp_path: Path, serve_dir: Callable[[Path], str], chromium: Browser
) -> None:
    out = tmp_path / "site"
    out.mkdir()
    base = serve_dir(out)
    urls = [f"{base}page-{i}.html?a=1&b=<{i}>" for i in range(7)]
    (tmp_path / "urls.txt").write_text("\n".join(urls) + "\n")
    outcome = CliRunner().invoke(
        cli,
        [
            *("generate", "--base-url", base, "--urls", str(tmp_path / "urls.txt")),
            *("--out", str(out), "--xsl", "--max-urls", "4", "--no-gzip"),
        ],
    )
    assert outcome.exit_code == 0, outcome.output
    assert f"stylesheet: {out / 'sitemap.xsl'}" in outcome.output
    page = chromium.new_page()
    page.navigate(base + "sitemap.xml")
    assert page.evaluate("document.title") == "Sitemap index"
    children = page.evaluate("Array.from(document.querySelectorAll('#sitemaps a'), a => a.href)")
    assert len(children) == 2
    assert all(child.startswith(base + "sitemap-0000") for child in children)
    shown: list[str] = []
    for child in children:
        page.navigate(child)
        assert page.evaluate("document.title") == "Sitemap"
        shown += page.evaluate(
            "Array.from(document.querySelectorAll('#urls td.url a'), a => a.href)"
        )
    assert shown == [url.replace("<", "%3C").replace(">", "%3E") for url in urls]
    assert page.evaluate("document.getElementById('count').textContent") == "3"
    assert [e for e in page.errors if "favicon" not in e] == []


@pytest.mark.parametrize("out", ["local", "memory://sitemaps/test-xsl/"])
def test_sharded_sets_publish_and_link_the_stylesheet(tmp_path: Path, out: str) -> None:
    target = str(tmp_path) if out == "local" else out
    options = ShardOptions(base_url="https://example.com/", shards=2, xsl=True, gzip=False)
    result = write_sharded([f"https://example.com/p/{i}" for i in range(30)], target, options)
    fs, root = fsspec.core.url_to_fs(target)
    assert result.stylesheet is not None
    assert result.stylesheet.endswith("sitemap.xsl")
    assert fs.cat_file(f"{root.rstrip('/')}/sitemap.xsl").decode() == SITEMAP_XSL
    for location in [result.entry_point, *result.children]:
        assert PI in fs.cat_file(fs._strip_protocol(location))
    manifest_files = json.loads(fs.cat_file(f"{root.rstrip('/')}/.sitemap.sitemapkit.json"))
    assert "sitemap.xsl" in manifest_files["files"]
    again = write_sharded(["https://example.com/p/0"], target, replace(options, xsl=False))
    assert again.stylesheet is None
    assert not fs.exists(f"{root.rstrip('/')}/sitemap.xsl")  # removed with the old set


def test_sharded_text_sets_cannot_link_a_stylesheet() -> None:
    with pytest.raises(SitemapError, match="XML sitemaps"):
        ShardOptions(base_url="https://example.com/", format="txt", xsl=True)
