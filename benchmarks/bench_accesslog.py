"""Access-log reading speed and memory, streaming versus lastmod_from_requests.

Writes a synthetic Combined log (LINES lines over DISTINCT URLs, one line in ten from a bot,
one in twenty a 404), then reads it in a fresh process per run and reports the median wall
time and the peak resident memory above a baseline process that only imports sitemapkit.

    python benchmarks/bench_accesslog.py [LINES] [DISTINCT] [RUNS]
"""

from __future__ import annotations

import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import resource, sys, time
from sitemapkit import from_access_log
mode, path = sys.argv[1], sys.argv[2]
if mode == "baseline":
    print(0, 0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    sys.exit()
started = time.perf_counter()
count = sum(1 for _ in from_access_log(path, base_url="https://www.example.com/",
                                       lastmod_from_requests=mode == "lastmod"))
print(count, time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"
BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def write_log(path: Path, lines: int, distinct: int) -> None:
    rng = random.Random(5)
    with open(path, "w", encoding="utf-8") as log:
        for n in range(lines):
            page = rng.randrange(distinct)
            status = 404 if n % 20 == 0 else 200
            agent = BOT if n % 10 == 0 else AGENT
            second = n % 60
            log.write(
                f"198.51.100.{n % 250} - - [10/Oct/2024:13:55:{second:02d} +0000] "
                f'"GET /catalog/item-{page}?ref=home HTTP/1.1" {status} 5120 '
                f'"https://www.example.com/" "{agent}"\n'
            )


def run(mode: str, path: Path) -> tuple[int, float, int]:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path)], capture_output=True, text=True, check=True
    )
    count, seconds, maxrss_kib = result.stdout.split()
    return int(count), float(seconds), int(maxrss_kib)


def main() -> None:
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    distinct = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "access.log"
        started = time.perf_counter()
        write_log(path, lines, distinct)
        size = path.stat().st_size
        print(
            f"log: {lines:,} lines, {size / 2**20:,.0f} MiB, {distinct:,} distinct URLs "
            f"(written in {time.perf_counter() - started:.1f} s)"
        )
        baseline = min(run("baseline", path)[2] for _ in range(runs))
        for mode in ("stream", "lastmod"):
            results = [run(mode, path) for _ in range(runs)]
            urls = results[0][0]
            seconds = statistics.median(r[1] for r in results)
            extra = statistics.median(r[2] for r in results) - baseline
            print(
                f"{mode:8} {urls:,} URLs  {seconds:6.2f} s  {lines / seconds:,.0f} lines/s  "
                f"+{extra / 1024:,.0f} MiB RSS  ({extra * 1024 / max(urls, 1):,.0f} bytes/URL)"
            )
    print(f"peak RSS of this driver: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss:,} KiB")


if __name__ == "__main__":
    main()
