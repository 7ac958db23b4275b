"""sitemapkit diff: added, removed and changed URLs, streamed from two sitemap trees."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit import Alternate, Image, SitemapWriter, URLEntry
from sitemapkit.diff import diff_sitemaps

BASE = "https://www.example.com/"


def write(out: Path, entries: list[URLEntry | str], **options: object) -> Path:
    with SitemapWriter(out, base_url=BASE, **options) as writer:  # type: ignore[arg-type]
        writer.add_all(entries)
    return writer.result.entry_point


def test_added_removed_and_changed_fields(tmp_path: Path) -> None:
    old = write(tmp_path / "old", [
        URLEntry(BASE + "same", lastmod="2024-01-01"),
        URLEntry(BASE + "gone"),
        URLEntry(BASE + "dated", lastmod="2024-01-01", priority=0.5),
        URLEntry(BASE + "pictures", images=(Image(BASE + "1.png"),)),
    ], max_urls=2)  # fmt: skip
    new = write(tmp_path / "new", [
        URLEntry(BASE + "fresh"),
        URLEntry(BASE + "same", lastmod="2024-01-01"),
        URLEntry(BASE + "dated", lastmod="2024-02-01", priority=0.5),
        URLEntry(BASE + "pictures", images=(Image(BASE + "2.png"),),
                 alternates=(Alternate("en", BASE + "pictures"),)),
    ])  # fmt: skip
    changes = list(diff_sitemaps(old, new))
    assert [(c.kind, c.loc, c.fields) for c in changes] == [
        ("added", BASE + "fresh", ()),
        ("changed", BASE + "dated", ("lastmod",)),
        ("changed", BASE + "pictures", ("images", "alternates")),
        ("removed", BASE + "gone", ()),
    ]
    assert changes[1].old == {"lastmod": "2024-01-01", "priority": 0.5}
    assert changes[1].new == {"lastmod": "2024-02-01", "priority": 0.5}
    assert changes[2].new["images"] == [{"loc": BASE + "2.png"}]  # type: ignore[index]


def test_duplicates_count_once_and_identical_sets_differ_in_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(f"{BASE}x\n{BASE}y\n{BASE}x\n")
    (tmp_path / "b.txt").write_text(f"{BASE}y\n{BASE}x\n{BASE}y\n")
    assert list(diff_sitemaps(tmp_path / "a.txt", tmp_path / "b.txt")) == []


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", "diff", *args],
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_cli_text_and_jsonl(tmp_path: Path) -> None:
    old = write(tmp_path / "old", [URLEntry(BASE + "a", lastmod="2024-01-01"), BASE + "b"])
    new = write(tmp_path / "new", [URLEntry(BASE + "a", lastmod="2024-03-01"), BASE + "c"])
    result = run(str(old), str(new))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"~ {BASE}a  (lastmod: 2024-01-01 -> 2024-03-01)",
        f"+ {BASE}c",
        f"- {BASE}b",
    ]
    assert result.stderr.strip() == "1 added, 1 removed, 1 changed"
    lines = [
        json.loads(line)
        for line in run(str(old), str(new), "--format", "jsonl").stdout.splitlines()
    ]
    assert lines[0] == {
        "change": "changed",
        "loc": BASE + "a",
        "fields": ["lastmod"],
        "old": {"lastmod": "2024-01-01"},
        "new": {"lastmod": "2024-03-01"},
    }
    same = run(str(old), str(old))
    assert (same.returncode, same.stdout) == (0, "")


def test_cli_unreadable_side(tmp_path: Path) -> None:
    (tmp_path / "new.txt").write_text(f"{BASE}a\n")
    result = run(str(tmp_path / "missing.xml"), str(tmp_path / "new.txt"))
    assert result.returncode == 2
    assert f"+ {BASE}a" in result.stdout
    assert "missing.xml" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("count", [60_000])
def test_memory_stays_flat(tmp_path: Path, count: int) -> None:
    """Two text sitemaps of 60,000 URLs each: the diff holds one batch, not a side."""
    (tmp_path / "old.txt").write_text("".join(f"{BASE}p/{i}\n" for i in range(count)))
    (tmp_path / "new.txt").write_text("".join(f"{BASE}p/{i + 1000}\n" for i in range(count)))
    script = (
        "from sitemapkit.diff import diff_sitemaps\n"
        f"n = sum(1 for _ in diff_sitemaps({str(tmp_path / 'old.txt')!r}, "
        f"{str(tmp_path / 'new.txt')!r}))\n"
        # VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec
        "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
        "print(n, peak.split()[1])"
    )
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout.split()  # fmt: skip
    assert int(output[0]) == 2000
    assert int(output[1]) * 1024 < 120 * 2**20  # peak RSS of the child, in KiB
