"""A tree's children checked in worker processes give the report a single process gives."""

from __future__ import annotations

import gzip
import importlib
import shutil
from pathlib import Path

import pytest

from sitemapkit import SitemapWriter, URLEntry
from sitemapkit.validate import Report, parallel, validate

PACKAGE = importlib.import_module("sitemapkit.validate")


def tree(folder: Path) -> Path:
    """An index over 6 gzipped children with a bad lastmod, a duplicate across files, a child
    the fast lane gives up on (a comment), a nested index and a missing child."""
    with SitemapWriter(folder / "out", base_url="https://www.example.com/", max_urls=500) as w:
        w.add_all(
            URLEntry(f"https://www.example.com/p/{i}", lastmod=f"2024-01-{1 + i % 28:02d}")
            for i in range(3_000)
        )
    broken = folder / "broken"  # no manifest: the suite's own schema check leaves it alone
    shutil.copytree(folder / "out", broken, ignore=shutil.ignore_patterns(".*"))
    children = sorted(broken.glob("*.xml.gz"))
    first = gzip.decompress(children[0].read_bytes()).decode().splitlines(keepends=True)
    second = gzip.decompress(children[1].read_bytes()).decode().splitlines(keepends=True)
    second[4] = second[4].replace("2024-01", "2024-13")
    second.insert(8, first[3])
    children[1].write_bytes(gzip.compress("".join(second).encode()))
    third = gzip.decompress(children[2].read_bytes()).decode()
    children[2].write_bytes(gzip.compress(third.replace("</url>", "</url><!-- c -->", 1).encode()))
    index = (broken / "sitemap.xml").read_text()
    (broken / "nested.xml").write_text(index)
    extra = "".join(
        f"<sitemap><loc>https://www.example.com/{name}</loc></sitemap>\n"
        for name in ("nested.xml", "gone.xml")
    )
    (broken / "sitemap.xml").write_text(index.replace("</sitemapindex>", extra + "</sitemapindex>"))
    return broken / "sitemap.xml"


def test_workers_and_one_process_write_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tree(tmp_path)
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "workers", lambda: 2)
    started = []
    original = parallel.Prefetch.__init__

    def spy(self: parallel.Prefetch, *args: object) -> None:
        started.append(args)
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel.Prefetch, "__init__", spy)
    together = validate(index, recursive=True, location="https://www.example.com/sitemap.xml")
    assert started, "the children were not checked by workers"
    monkeypatch.setattr(parallel, "MIN_CHILDREN", 10**9)
    alone = validate(index, recursive=True, location="https://www.example.com/sitemap.xml")
    same(together, alone)
    assert {"SM-M02", "SM-L11", "SM-I07", "SM-FETCH-01"} <= together.rules
    assert together.urls == alone.urls > 3_000


def same(one: Report, other: Report) -> None:
    assert [str(issue) for issue in one.issues] == [str(issue) for issue in other.issues]
    assert one.counts == other.counts
    assert one.files == other.files
