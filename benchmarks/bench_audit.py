"""Auditing a sitemap of a generated site served over loopback by nginx, beside crawling it.

The site and the nginx server are the crawler benchmark's (``bench_crawl.write_site`` and
``start_nginx``, imported, not copied): a home page, N/100 category pages and 100 product
pages per category. Its sitemap lists every page. Side by side in one run, interleaved,
each in its own process, several times (medians):

- ``sitemapkit audit SITE/sitemap.xml --format json --output FILE -q``: validate, read and
  check every listed URL (defaults: 8 requests at once, robots.txt obeyed);
- ``sitemapkit crawl SITE --out DIR -q``: the crawler over the same pages.

Wall time, CPU time (user + system) and peak RSS (``wait4``); URLs checked per second against
pages crawled per second. Every run's count is checked (all pages listed, all checked, all
indexable). Two sizes show whether peak RSS grows with the number of URLs.

    .venv/bin/python benchmarks/bench_audit.py --pages 2000,10000 --runs 3

Only 127.0.0.1 is used; every loop is bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_crawl import BIN, Sample, count_locs, measure, start_nginx, write_site


def write_sitemap(site: Path, base: str) -> int:
    """A sitemap of every page of the site (``index.html`` as its folder); returns the count."""
    urls = []
    for page in sorted(site.rglob("*.html")):
        relative = page.relative_to(site).as_posix()
        if relative.startswith("private/"):
            continue
        urls.append(base + relative.removesuffix("index.html"))
    body = "".join(f"<url><loc>{url}</loc></url>\n" for url in urls)
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n'
    )
    return len(urls)


def run(site_url: str, expected: int, runs: int, work: Path) -> dict[str, list[Sample]]:
    work.mkdir(parents=True, exist_ok=True)
    output = work / "audit.json"
    out = work / "out"
    checking: list[float] = []

    def audited() -> int:
        data = json.loads(output.read_text())
        if data["listed"] != expected or data["indexable"] != expected:
            raise SystemExit(f"audit: {data['listed']} listed, {data['indexable']} indexable")
        checking.append(data["check_seconds"])
        return int(data["checked"])

    tools = {
        "sitemapkit audit": (
            [
                *(str(BIN / "sitemapkit"), "audit", site_url + "sitemap.xml"),
                *("--format", "json", "--output", str(output), "-q"),
            ],
            audited,
        ),
        "sitemapkit crawl": (
            [str(BIN / "sitemapkit"), "crawl", site_url, "--out", str(out), "-q"],
            lambda: count_locs(out),
        ),
    }
    results: dict[str, list[Sample]] = {name: [] for name in tools}
    for _run in range(runs):  # interleaved, so that noise hits both alike
        for name, (command, count) in tools.items():
            shutil.rmtree(out, ignore_errors=True)
            sample = measure(command, count)
            if sample.count != expected:
                raise SystemExit(f"{name}: {sample.count:,} pages, not {expected:,}")
            results[name].append(sample)
    results["checking alone"] = [Sample(seconds, 0.0, 0.0, expected) for seconds in checking]
    return results


def report(pages: int, results: dict[str, list[Sample]]) -> None:
    medians = {
        name: tuple(
            statistics.median(getattr(s, key) for s in samples)
            for key in ("seconds", "cpu", "rss_mib")
        )
        for name, samples in results.items()
    }
    crawl_wall, crawl_cpu, _ = medians["sitemapkit crawl"]
    print(f"\n{pages:,} URLs listed and pages crawled, 8 requests at once, robots.txt obeyed")
    print(
        "| run | time (s) | URLs/s | CPU (s) | CPU ms/URL | peak RSS (MiB) | "
        "speed vs crawl (time) | (CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, (seconds, cpu, rss) in medians.items():
        if name == "checking alone":  # timed inside the audit: no CPU or RSS of its own
            print(
                f"| {name} (in the audit) | {seconds:.2f} | {pages / seconds:,.0f} | | | | "
                f"{crawl_wall / seconds:.2f} | |"
            )
            continue
        print(
            f"| {name} | {seconds:.2f} | {pages / seconds:,.0f} | {cpu:.2f} | "
            f"{cpu / pages * 1000:.2f} | {rss:.0f} | {crawl_wall / seconds:.2f} | "
            f"{crawl_cpu / cpu:.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", default="2000,10000", help="site sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.2f}, runs {args.runs}, medians"
    )
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        root = Path(tmp)
        for pages in (int(size) for size in args.pages.split(",")):
            site = root / f"site-{pages}"
            expected = write_site(site, pages)
            nginx, url = start_nginx(site, root / f"nginx-{pages}")
            try:
                if write_sitemap(site, url) != expected:
                    raise SystemExit("the sitemap does not list every page")
                report(expected, run(url, expected, args.runs, root / f"work-{pages}"))
            finally:
                nginx.terminate()
                nginx.wait(timeout=10)


if __name__ == "__main__":
    main()
