"""Incremental runs: unchanged files stay untouched, and each run knows what it changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lxml import etree

from sitemapkit import GenerateSettings, URLListSource, generate
from sitemapkit.state import RunState, last_changes, state_path

BASE = "https://www.example.com/"


def run(tmp_path: Path, lines: list[str], *, shards: int | None = 4):  # type: ignore[no-untyped-def]
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(line + "\n" for line in lines))
    settings = GenerateSettings(
        base_url=BASE,
        out_dir=tmp_path / "out",
        sources=(URLListSource((str(urls),)),),
        incremental=True,
    )
    return generate(settings, shards=shards)


def index_lastmods(out: Path) -> dict[str, str | None]:
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    return {
        str(child.findtext("{*}loc")).rsplit("/", 1)[1]: child.findtext("{*}lastmod")
        for child in root
    }


def catalogue(changed: int | None = None) -> list[str]:
    return [
        f"{BASE}p/{i} lastmod=2024-{'06' if i == changed else '05'}-{1 + i % 28:02d}"
        for i in range(400)
    ]


def test_a_rerun_rewrites_only_the_changed_child(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run(tmp_path, catalogue())
    assert first.changes is not None
    assert (first.changes.first_run, first.changes.added) == (True, 400)
    before = index_lastmods(out)
    assert len(before) == 4  # one child per shard
    for name in before:
        os.utime(out / name, (1_000_000_000, 1_000_000_000))
    second = run(tmp_path, catalogue(changed=7))
    assert second.changes is not None
    assert (second.changes.changed, second.changes.added, second.changes.unchanged) == (1, 0, 399)
    after = index_lastmods(out)
    kept = set(before) & set(after)
    assert len(kept) == 3  # same names: same bytes
    for name in kept:
        assert (out / name).stat().st_mtime == 1_000_000_000  # untouched
        assert after[name] == before[name]  # and their index lastmod did not move
    (gone,) = set(before) - kept
    (fresh,) = set(after) - kept
    assert after[fresh] == "2024-06-08"  # the changed child's newest lastmod moved
    assert before[gone] != after[fresh]
    assert not (out / gone).exists()
    assert last_changes(out) == [f"{BASE}p/7"]


def test_added_and_removed_urls_and_an_unchanged_rerun(tmp_path: Path) -> None:
    run(tmp_path, catalogue())
    lines = [*catalogue()[1:], f"{BASE}new"]
    result = run(tmp_path, lines)
    assert result.changes is not None
    assert (result.changes.added, result.changes.removed) == (1, 1)
    assert last_changes(tmp_path / "out") == [f"{BASE}new"]
    assert last_changes(tmp_path / "out", kinds=("removed",)) == [f"{BASE}p/0"]
    again = run(tmp_path, lines)
    assert again.changes is not None
    assert (again.changes.added, again.changes.changed, again.changes.removed) == (0, 0, 0)
    assert last_changes(tmp_path / "out") == []


def test_the_shard_count_is_remembered_and_adapts(tmp_path: Path) -> None:
    run(tmp_path, catalogue(), shards=None)  # first run: one shard
    with RunState(state_path(tmp_path / "out")) as state:
        assert state.shards == 1
        assert state.run == 1
    assert RunState.next_shards(1, 120_000) == 8
    assert RunState.next_shards(8, 120_000) == 8
    assert RunState.next_shards(8, 3_000) == 1


def test_no_state_no_changes(tmp_path: Path) -> None:
    from sitemapkit import SitemapError

    with pytest.raises(SitemapError, match="generate --incremental"):
        last_changes(tmp_path)
