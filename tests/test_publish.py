"""Atomic publishing, proven by killing real ``sitemapkit generate`` processes."""

from __future__ import annotations

import gzip
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lxml import etree

from sitemapkit import PublishError
from sitemapkit.publish import child_name_pattern, write_file_atomically

BASE = "https://www.example.com/"


def parse(path: Path) -> etree._Element:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)  # raises on a truncated file
    return etree.fromstring(data)  # raises on a partial document


def published_urls(out: Path) -> list[str]:
    """Every page URL of the published set, reading each file completely."""
    root = parse(out / "sitemap.xml")
    locs = [str(el.text) for el in root.iterfind(".//{*}loc")]
    if etree.QName(root).localname == "urlset":
        return locs
    urls: list[str] = []
    for loc in locs:
        child = parse(out / loc.rsplit("/", 1)[1])
        urls += [str(el.text) for el in child.iterfind(".//{*}loc")]
    return urls


def generate(url_list: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sitemapkit",
            "generate",
            "--base-url",
            BASE,
            "--urls",
            str(url_list),
            "--out",
            str(out),
            "--max-urls",
            "1000",
            "--quiet",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_sigkill_at_any_moment_leaves_the_old_set_or_the_new_set(tmp_path: Path) -> None:
    sets = {}
    for name, count in (("a", 30_000), ("b", 24_000)):
        urls = [f"{BASE}{name}/{i}" for i in range(count)]
        (tmp_path / f"{name}.txt").write_text("\n".join(urls) + "\n")
        sets[name] = urls
    out = tmp_path / "public"
    started = time.monotonic()
    assert generate(tmp_path / "a.txt", out).wait(timeout=60) == 0
    duration = time.monotonic() - started
    current = "a"
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    outcomes = {"old": 0, "new": 0}
    for attempt in range(40):
        if attempt >= 12 and outcomes["old"] and outcomes["new"]:
            break
        target = "b" if current == "a" else "a"
        process = generate(tmp_path / f"{target}.txt", out)
        # kill anywhere from start-up to past the end; later attempts reach further, so a
        # slow, busy machine still sees both outcomes
        time.sleep(rng.uniform(0.05, duration * (1.1 + attempt / 10)))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        urls = published_urls(out)
        assert urls in (sets["a"], sets["b"]), f"mixture after kill {attempt} (seed {seed})"
        if urls == sets[target]:
            outcomes["new"] += 1
            current = target
        else:
            outcomes["old"] += 1
        # no partial file is ever visible, referenced or not
        for path in out.iterdir():
            if not path.name.startswith("."):
                parse(path)
    assert outcomes["old"] > 0, f"no kill landed before publishing (seed {seed})"
    assert outcomes["new"] > 0, f"no run finished before its kill (seed {seed})"
    # a finished run tidies what killed runs left behind
    assert generate(tmp_path / "b.txt", out).wait(timeout=60) == 0
    assert published_urls(out) == sets["b"]
    pattern = child_name_pattern("sitemap")
    children = sorted(p.name for p in out.iterdir() if pattern.fullmatch(p.name))
    referenced = sorted(
        str(el.text).rsplit("/", 1)[1] for el in parse(out / "sitemap.xml").iterfind(".//{*}loc")
    )
    assert children == referenced
    assert not [p for p in tmp_path.iterdir() if p.is_dir() and ".sitemapkit-" in p.name]


def test_a_target_that_is_not_a_regular_file_is_not_replaced(tmp_path: Path) -> None:
    """The rename turned /dev/null (as root: --html, --robots, --report /dev/null) or a FIFO
    into a plain file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(PublishError, match="not a regular file; not replaced"):
        write_file_atomically(fifo, b"data")
    assert fifo.is_fifo()
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]
