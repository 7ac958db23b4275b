"""Reading N URLs from gzipped sitemaps behind an index, served over loopback.

Side by side in one run, each in its own process, several times (medians): ``sitemapkit ls``,
ultimate-sitemap-parser (``SitemapFetcher(...).sitemap().all_pages()``), advertools'
``sitemap_to_df`` (if installed), and a bare ``lxml.etree.iterparse`` loop over the same
files read from disk (no HTTP): the floor. Wall time and peak RSS of each process
(``wait4``), CPU time (user + system, steadier than wall time on a shared machine),
throughput, and ratios against sitemapkit.

    .venv/bin/python benchmarks/bench_reader.py --sizes 200000,1000000 --runs 3

Only 127.0.0.1 is used; every loop is bounded.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PER_CHILD = 50_000
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
BIN = Path(sys.executable).parent

USP_CODE = """
import sys
from usp.fetch_parse import SitemapFetcher
sitemap = SitemapFetcher(sys.argv[1], recursion_level=0).sitemap()
print(sum(1 for _ in sitemap.all_pages()))
"""

ADVERTOOLS_CODE = """
import sys, logging
logging.disable(logging.CRITICAL)
import advertools
frame = advertools.sitemap_to_df(sys.argv[1])
print(int(frame["loc"].notna().sum()))
"""

ITERPARSE_CODE = """
import gzip, sys
from lxml import etree
tag = "{http://www.sitemaps.org/schemas/sitemap/0.9}url"
loc = "{http://www.sitemaps.org/schemas/sitemap/0.9}loc"
count = 0
for path in sys.argv[1:]:
    with gzip.open(path) as handle:
        for _event, element in etree.iterparse(handle, tag=tag):
            if element.findtext(loc):
                count += 1
            element.clear()
print(count)
"""


def write_set(folder: Path, total: int, base: str) -> tuple[str, list[Path]]:
    """``total`` URLs in gzipped children of PER_CHILD URLs each, plus an index."""
    folder.mkdir(parents=True, exist_ok=True)
    children: list[Path] = []
    for number, start in enumerate(range(0, total, PER_CHILD), start=1):
        path = folder / f"sitemap-{number:05d}.xml.gz"
        lines = [f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n']
        for i in range(start, min(total, start + PER_CHILD)):
            lines.append(
                f"<url><loc>https://www.example.com/catalog/category-{i % 97}/product-{i}.html"
                f"</loc><lastmod>2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}</lastmod></url>\n"
            )
        lines.append("</urlset>\n")
        path.write_bytes(gzip.compress("".join(lines).encode(), 6, mtime=0))
        children.append(path)
    index = [f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n']
    index += [
        f"<sitemap><loc>{base}{folder.name}/{child.name}</loc></sitemap>\n" for child in children
    ]
    index.append("</sitemapindex>\n")
    (folder / "sitemap_index.xml").write_text("".join(index))
    return f"{base}{folder.name}/sitemap_index.xml", children


@dataclass
class Sample:
    seconds: float
    cpu: float
    rss_mib: float
    count: int


def measure(command: list[str], out: Path) -> Sample:
    with open(out, "wb") as sink:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    data = out.read_bytes()
    lines = data.count(b"\n")
    count = int(data.strip() or 0) if lines == 1 else lines
    return Sample(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, count)


def available(module: str) -> bool:
    check = [sys.executable, "-c", f"import {module}"]
    return subprocess.run(check, capture_output=True, check=False).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="200000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip", default="", help="comma-separated tools to leave out")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    skip = set(filter(None, args.skip.split(",")))

    with tempfile.TemporaryDirectory(prefix="bench-reader-") as tmp:
        root = Path(tmp)
        handler = functools.partial(_QuietHandler, directory=str(root))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        tools = {
            "sitemapkit ls": lambda url, _files: [str(BIN / "sitemapkit"), "ls", url],
            "ultimate-sitemap-parser": lambda url, _files: [sys.executable, "-c", USP_CODE, url],
            "advertools sitemap_to_df": lambda url, _files: [
                sys.executable,
                "-c",
                ADVERTOOLS_CODE,
                url,
            ],
            "lxml iterparse (local files)": lambda _url, files: [
                sys.executable,
                "-c",
                ITERPARSE_CODE,
                *map(str, files),
            ],
        }
        if not available("advertools"):
            print("advertools is not installed: left out")
            skip.add("advertools sitemap_to_df")
        print(
            f"python {platform.python_version()}, {os.cpu_count()} cores, "
            f"load {os.getloadavg()[0]:.2f}, runs {args.runs}, medians"
        )
        for size in sizes:
            url, files = write_set(root / f"set-{size}", size, base)
            results: dict[str, list[Sample]] = {name: [] for name in tools if name not in skip}
            for _run in range(args.runs):  # interleaved, so that noise hits every tool alike
                for name in results:
                    sample = measure(tools[name](url, files), root / "out.txt")
                    if sample.count != size:
                        raise SystemExit(f"{name} read {sample.count:,} URLs, not {size:,}")
                    results[name].append(sample)
            report(size, len(files), results)
        server.shutdown()


def report(size: int, children: int, results: dict[str, list[Sample]]) -> None:
    medians = {
        name: (
            statistics.median(s.seconds for s in samples),
            statistics.median(s.cpu for s in samples),
            statistics.median(s.rss_mib for s in samples),
        )
        for name, samples in results.items()
    }
    ours_wall, ours_cpu, _ = medians.get("sitemapkit ls", (float("nan"),) * 3)
    print(f"\n{size:,} URLs in {children} gzipped children + index")
    print(
        "| tool | time (s) | URLs/s | CPU (s) | peak RSS (MiB) | sitemapkit is N x faster "
        "(time) | (CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (seconds, cpu, rss) in medians.items():
        print(
            f"| {name} | {seconds:.2f} | {size / seconds:,.0f} | {cpu:.2f} | {rss:.0f} | "
            f"{seconds / ours_wall:.1f} | {cpu / ours_cpu:.1f} |"
        )


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


if __name__ == "__main__":
    main()
