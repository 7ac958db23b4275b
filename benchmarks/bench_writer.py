"""Writer throughput: sitemapkit against xml-sitemap-writer, a naive stdlib writer and the limits.

Workload (issue 2): N URLs like https://www.example.com/catalog/item-{i}?color=red&size={i%7}
with a lastmod, written as gzipped children of 50,000 URLs plus an index. Every contender runs
in its own process (so peak RSS is its own), several times; medians are reported.

    python benchmarks/bench_writer.py [--urls 1000000] [--repeat 3] [--rss-sizes 200000,1000000]

Needs the bench extra: pip install -e '.[bench]'.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

BASE = "https://www.example.com/"
LASTMODS = [f"2024-05-{day:02d}" for day in range(1, 29)]


def workload(count: int) -> Iterator[tuple[str, str]]:
    for i in range(count):
        yield f"{BASE}catalog/item-{i}?color=red&size={i % 7}", LASTMODS[i % 28]


def run_sitemapkit(count: int, out: Path, gzip: bool = True) -> int:
    from sitemapkit import SitemapWriter

    with SitemapWriter(out, base_url=BASE, gzip=gzip) as writer:
        add = writer.add
        for url, lastmod in workload(count):
            add(url, lastmod=lastmod)
    return writer.result.raw_bytes


def run_sitemapkit_plain(count: int, out: Path) -> int:
    return run_sitemapkit(count, out, gzip=False)


def run_xml_sitemap_writer(count: int, out: Path) -> int:
    from xml_sitemap_writer import XMLSitemap

    with XMLSitemap(str(out), BASE.rstrip("/")) as sitemap:
        sitemap.URLS_PER_FILE = 50_000
        for url, lastmod in workload(count):
            sitemap.add_url(url[len(BASE) - 1 :], lastmod=lastmod)
    return sum(path.stat().st_size for path in out.iterdir())


def run_naive(count: int, out: Path) -> int:
    """What most hand-written generators do: escape, format, gzip module, split by count."""
    import gzip
    from xml.sax.saxutils import escape

    header = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    files = []
    handle = None
    written = 0
    for i, (url, lastmod) in enumerate(workload(count)):
        if i % 50_000 == 0:
            if handle is not None:
                handle.write("</urlset>\n")
                handle.close()
            files.append(out / f"sitemap-{len(files) + 1}.xml.gz")
            handle = gzip.open(files[-1], "wt", encoding="utf-8")  # noqa: SIM115
            handle.write(header)
        line = f"<url><loc>{escape(url)}</loc><lastmod>{lastmod}</lastmod></url>\n"
        written += len(line)
        assert handle is not None
        handle.write(line)
    if handle is not None:
        handle.write("</urlset>\n")
        handle.close()
    index = "".join(f"<sitemap><loc>{BASE}{f.name}</loc></sitemap>\n" for f in files)
    (out / "sitemap.xml").write_text(f"<sitemapindex>{index}</sitemapindex>")
    return written


def _prebuilt(count: int) -> list[bytes]:
    """The uncompressed children sitemapkit writes for this workload, built in memory."""
    from xml.sax.saxutils import escape

    chunks = []
    for start in range(0, count, 50_000):
        lines = [
            f"<url><loc>{escape(url)}</loc><lastmod>{lastmod}</lastmod></url>\n"
            for url, lastmod in workload(min(count, start + 50_000))
        ][start:]
        chunks.append("".join(lines).encode())
    return chunks


def _limit(count: int, out: Path, compress: Callable[[bytes], bytes] | None) -> tuple[int, float]:
    chunks = _prebuilt(count)
    started = time.perf_counter()
    for number, chunk in enumerate(chunks):
        data = compress(chunk) if compress else chunk
        with open(out / f"child-{number}", "wb") as handle:
            handle.write(data)
    return sum(map(len, chunks)), time.perf_counter() - started


def run_limit_write(count: int, out: Path) -> tuple[int, float]:
    return _limit(count, out, None)


def run_limit_zlib(count: int, out: Path) -> tuple[int, float]:
    import zlib

    return _limit(count, out, lambda data: zlib.compress(data, 6))


def run_limit_isal(count: int, out: Path) -> tuple[int, float]:
    from isal import isal_zlib

    return _limit(count, out, lambda data: isal_zlib.compress(data, 2))


CONTENDERS: dict[str, Callable[..., object]] = {
    "sitemapkit (gzip)": run_sitemapkit,
    "sitemapkit (no gzip)": run_sitemapkit_plain,
    "xml-sitemap-writer 0.7": run_xml_sitemap_writer,
    "naive stdlib (escape + gzip module)": run_naive,
    "limit: write pre-built bytes": run_limit_write,
    "limit: zlib level 6 on pre-built bytes": run_limit_zlib,
    "limit: ISA-L level 2 on pre-built bytes": run_limit_isal,
}


def _peak_rss() -> int:
    """This process's peak RSS in bytes (VmHWM: unlike ru_maxrss, not inherited over exec)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(name: str, count: int) -> None:
    """Run one contender in this process and print its figures as JSON."""
    out = Path(tempfile.mkdtemp(prefix="bench-writer-"))
    # Imports happen before the clock starts: start-up is not what this measures.
    import gzip  # noqa: F401
    import xml.sax.saxutils  # noqa: F401

    import isal.isal_zlib  # noqa: F401
    import xml_sitemap_writer  # noqa: F401

    import sitemapkit  # noqa: F401

    try:
        before = resource.getrusage(resource.RUSAGE_SELF)
        cpu_before = before.ru_utime + before.ru_stime
        started = time.perf_counter()
        outcome = CONTENDERS[name](count, out / "out" if name.startswith("sitemapkit") else out)
        elapsed = time.perf_counter() - started
        if isinstance(outcome, tuple):  # limits time only the part they measure
            raw_bytes, elapsed = outcome
        else:
            raw_bytes = int(outcome)  # type: ignore[call-overload]
        rss = _peak_rss()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu = usage.ru_utime + usage.ru_stime - cpu_before
        if isinstance(outcome, tuple):
            cpu = elapsed  # the limits measure one step; its wall time stands for CPU time
        print(json.dumps({"seconds": elapsed, "cpu": cpu, "bytes": raw_bytes, "rss": rss}))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _ratio(other: dict[str, float] | None, figures: dict[str, float]) -> str:
    """How many times faster than ``other``, by wall time and by CPU time."""
    if other is None:
        return "-"
    return f"{other['seconds'] / figures['seconds']:.2f}x / {other['cpu'] / figures['cpu']:.2f}x"


def measure(name: str, count: int) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", name, "--urls", str(count)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rss-sizes", default="200000,1000000")
    parser.add_argument("--only", help="comma-separated contender names")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.urls)
        return
    names = args.only.split(",") if args.only else list(CONTENDERS)
    print(f"# {args.urls:,} URLs, median of {args.repeat} runs, {os.cpu_count()} CPUs\n")
    results: dict[str, dict[str, float]] = {}
    for _ in range(args.repeat):  # interleave contenders so noise hits all alike
        for name in names:
            figures = measure(name, args.urls)
            for key, value in figures.items():
                results.setdefault(name, {}).setdefault(key, [])  # type: ignore[arg-type]
                results[name][key].append(value)  # type: ignore[attr-defined]
    medians = {n: {k: statistics.median(v) for k, v in f.items()} for n, f in results.items()}  # type: ignore[arg-type]
    peer = medians.get("xml-sitemap-writer 0.7")
    naive = medians.get("naive stdlib (escape + gzip module)")
    print(
        "| writer | URLs/s | MB/s (XML) | CPU s | peak RSS | vs xml-sitemap-writer "
        "(wall / CPU) | vs naive (wall / CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, figures in medians.items():
        rate = args.urls / figures["seconds"]
        mbps = figures["bytes"] / figures["seconds"] / 1e6
        print(
            f"| {name} | {rate:,.0f} | {mbps:.0f} | {figures['cpu']:.2f} | "
            f"{figures['rss'] / 2**20:.0f} MiB | {_ratio(peer, figures)} | "
            f"{_ratio(naive, figures)} |"
        )
    gz, plain = medians.get("sitemapkit (gzip)"), medians.get("sitemapkit (no gzip)")
    if gz and plain:
        print(f"\ngzip cost: {gz['seconds'] / plain['seconds']:.2f}x the uncompressed run")
    sizes = [int(size) for size in args.rss_sizes.split(",") if size]
    if sizes:
        print("\n| URLs | sitemapkit peak RSS | seconds |\n|---:|---:|---:|")
        for size in sizes:
            runs = [measure("sitemapkit (gzip)", size) for _ in range(args.repeat)]
            rss = statistics.median(run["rss"] for run in runs)
            seconds = statistics.median(run["seconds"] for run in runs)
            print(f"| {size:,} | {rss / 2**20:.0f} MiB | {seconds:.1f} |")


if __name__ == "__main__":
    main()
