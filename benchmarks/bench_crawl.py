"""Crawling a generated site served over loopback by nginx: sitemapkit against Scrapy.

The site has a home page, N/100 category pages and 100 product pages per category (about
5 KB each, with navigation, related-product links, an image, an external link and a link
into a folder robots.txt disallows). nginx from the system packages serves it on a free
port of 127.0.0.1 with a temporary configuration (installed with apt-get when missing).

Side by side in one run, interleaved, each in its own process, several times (medians):

- ``sitemapkit crawl URL --out DIR -q`` (defaults: 8 requests at once, robots.txt obeyed);
- Scrapy with a CrawlSpider configured the same way: ``CONCURRENT_REQUESTS`` and
  ``CONCURRENT_REQUESTS_PER_DOMAIN`` 8, ``ROBOTSTXT_OBEY``, a ``LinkExtractor`` over
  ``a``/``area``/``frame``/``iframe`` restricted to the host, one item per page, written to
  a JSON Lines feed.

Wall time, CPU time (user + system: steadier on a shared machine) and peak RSS of each
process (``wait4``), pages per second, and ratios. Every run's page count is checked.
``--clients`` instead measures the two asyncio HTTP clients alone (httpx and aiohttp
fetching the same URL list with 8 requests at once), the measurement behind the choice of
httpx.

    .venv/bin/python benchmarks/bench_crawl.py --pages 2000,10000 --runs 3
    .venv/bin/python benchmarks/bench_crawl.py --clients --pages 10000

Only 127.0.0.1 is used; every loop is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
PER_CATEGORY = 100
CONCURRENCY = 8

SCRAPY_SPIDER = """
import scrapy
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class SiteSpider(CrawlSpider):
    name = "site"

    def __init__(self, start, host, netloc, *args, **kwargs):
        self.start_urls = [start]
        self.allowed_domains = [host]
        self.rules = (
            Rule(
                LinkExtractor(
                    allow_domains=[netloc],  # compared with host:port
                    tags=("a", "area", "frame", "iframe"),
                    attrs=("href", "src"),
                ),
                callback="parse_page",
                follow=True,
            ),
        )
        super().__init__(*args, **kwargs)

    def parse_start_url(self, response):
        return self.parse_page(response)

    def parse_page(self, response):
        yield {"url": response.url}
"""


def write_site(root: Path, pages: int) -> int:
    """The site under ``root``; returns the number of pages a crawl should list."""
    categories = max(1, pages // PER_CATEGORY)
    nav = "".join(f'<li><a href="/c/{i}/">Category {i}</a></li>' for i in range(10))
    filler = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12 + "</p>"

    def html(title: str, body: str) -> str:
        return (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            '<link rel="stylesheet" href="/style.css"></head><body><header><a href="/">Home</a>'
            f"<ul>{nav}</ul></header><main><h1>{title}</h1>{body}{filler}{filler}</main>"
            '<footer><a href="/private/admin.html">admin</a> '
            '<a href="https://www.example.org/">partner</a></footer></body></html>\n'
        )

    root.mkdir(parents=True, exist_ok=True)
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    (root / "style.css").write_text("body{font-family:sans-serif}\n")
    home = "".join(f'<a href="/c/{i}/">Category {i}</a> ' for i in range(categories))
    (root / "index.html").write_text(html("Shop", f"<nav>{home}</nav>"))
    for category in range(categories):
        folder = root / "c" / str(category)
        folder.mkdir(parents=True, exist_ok=True)
        links = "".join(
            f'<li><a href="/c/{category}/p{item}.html">Product {item}</a></li>'
            for item in range(PER_CATEGORY)
        )
        (folder / "index.html").write_text(html(f"Category {category}", f"<ul>{links}</ul>"))
        for item in range(PER_CATEGORY):
            related = "".join(
                f'<a href="/c/{(category + k) % categories}/p{(item * 7 + k) % PER_CATEGORY}'
                f'.html">related {k}</a> '
                for k in range(1, 6)
            )
            body = f'<img src="/img/{category}-{item}.jpg" alt=""><p>{related}</p>'
            (folder / f"p{item}.html").write_text(html(f"Product {category}-{item}", body))
    return 1 + categories + categories * PER_CATEGORY


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ensure_nginx() -> str:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if found:
        return found
    print("nginx not found: installing it with apt-get", flush=True)
    prefix = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([*prefix, "apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run([*prefix, "apt-get", "install", "-y", "-qq", "nginx-light"], check=True, env=env)
    return shutil.which("nginx") or "/usr/sbin/nginx"


def start_nginx(site: Path, work: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    work.mkdir(parents=True, exist_ok=True)
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp_paths = "".join(
        f"{name}_temp_path {work}/{name};\n"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    config = work / "nginx.conf"
    config.write_text(
        f"{user}worker_processes 1;\ndaemon off;\npid {work}/nginx.pid;\n"
        f"error_log {work}/error.log;\nevents {{ worker_connections 1024; }}\n"
        f"http {{\n access_log off;\n {temp_paths}"
        " types { text/html html; text/plain txt; text/css css; image/jpeg jpg; }\n"
        " default_type application/octet-stream;\n sendfile on;\n tcp_nodelay on;\n"
        " keepalive_requests 1000000;\n"
        f" server {{ listen 127.0.0.1:{port}; root {site}; index index.html; }}\n}}\n"
    )
    process = subprocess.Popen(
        [ensure_nginx(), "-c", str(config), "-p", str(work)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _attempt in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, f"http://127.0.0.1:{port}/"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit(f"nginx did not start: {(work / 'error.log').read_text()}")


@dataclass
class Sample:
    seconds: float
    cpu: float
    rss_mib: float
    count: int


def measure(command: list[str], count: callable[[], int]) -> Sample:  # type: ignore[valid-type]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    errors = process.stderr.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command[:3]} failed:\n{errors.decode(errors='replace')[-2000:]}")
    return Sample(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, count())


def count_locs(out: Path) -> int:
    import gzip

    total = 0
    for path in out.glob("sitemap*.xml*"):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        if b"<urlset" in data:
            total += data.count(b"<url>")
    return total


def compare(site_url: str, expected: int, runs: int, work: Path) -> dict[str, list[Sample]]:
    work.mkdir(parents=True, exist_ok=True)
    spider = work / "spider.py"
    spider.write_text(SCRAPY_SPIDER)
    host = site_url.split("//", 1)[1].rstrip("/")
    out = work / "out"
    feed = work / "feed.jsonl"
    tools = {
        "sitemapkit crawl": (
            [str(BIN / "sitemapkit"), "crawl", site_url, "--out", str(out), "-q"],
            lambda: count_locs(out),
        ),
        "scrapy": (
            [
                sys.executable,
                "-m",
                "scrapy",
                "runspider",
                str(spider),
                "-a",
                f"start={site_url}",
                "-a",
                f"host={host.split(':')[0]}",
                "-a",
                f"netloc={host}",
                "-O",
                f"{feed}:jsonlines",
                "-s",
                f"CONCURRENT_REQUESTS={CONCURRENCY}",
                "-s",
                f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}",
                "-s",
                "ROBOTSTXT_OBEY=True",
                "-s",
                "LOG_LEVEL=ERROR",
                "-s",
                "TELNETCONSOLE_ENABLED=False",
                "-s",
                "USER_AGENT=scrapy-bench",
            ],
            lambda: len(set(feed.read_text().splitlines())),
        ),
    }
    results: dict[str, list[Sample]] = {name: [] for name in tools}
    for _run in range(runs):  # interleaved, so that noise hits both alike
        for name, (command, count) in tools.items():
            shutil.rmtree(out, ignore_errors=True)
            sample = measure(command, count)
            if sample.count != expected:
                raise SystemExit(f"{name} listed {sample.count:,} pages, not {expected:,}")
            results[name].append(sample)
    return results


def report(pages: int, results: dict[str, list[Sample]]) -> None:
    medians = {
        name: tuple(
            statistics.median(getattr(s, key) for s in samples)
            for key in ("seconds", "cpu", "rss_mib")
        )
        for name, samples in results.items()
    }
    ours_wall, ours_cpu, _ = medians["sitemapkit crawl"]
    print(f"\n{pages:,} pages, {CONCURRENCY} requests at once, robots.txt obeyed")
    print(
        "| tool | time (s) | pages/s | CPU (s) | CPU ms/page | peak RSS (MiB) | "
        "sitemapkit is N x faster (time) | (CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, (seconds, cpu, rss) in medians.items():
        print(
            f"| {name} | {seconds:.2f} | {pages / seconds:,.0f} | {cpu:.2f} | "
            f"{cpu / pages * 1000:.2f} | {rss:.0f} | {seconds / ours_wall:.2f} | "
            f"{cpu / ours_cpu:.2f} |"
        )


async def _fetch_all_httpx(urls: list[str]) -> int:
    import httpx

    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    async with httpx.AsyncClient(limits=limits) as client:
        return await _drain(urls, lambda url: _get_httpx(client, url))


async def _get_httpx(client: object, url: str) -> int:
    response = await client.get(url)  # type: ignore[attr-defined]
    return len(response.content)


async def _fetch_all_aiohttp(urls: list[str]) -> int:
    import aiohttp

    connector = aiohttp.TCPConnector(limit=CONCURRENCY)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def get(url: str) -> int:
            async with session.get(url) as response:
                return len(await response.read())

        return await _drain(urls, get)


async def _drain(urls: list[str], get: object) -> int:
    queue = list(reversed(urls))
    total = 0

    async def worker() -> None:
        nonlocal total
        while queue:
            total += await get(queue.pop())  # type: ignore[operator]

    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    return total


def compare_clients(site_url: str, site: Path, runs: int) -> None:
    urls = [site_url + str(p.relative_to(site)) for p in sorted(site.rglob("*.html"))]
    clients = {"httpx.AsyncClient": _fetch_all_httpx, "aiohttp": _fetch_all_aiohttp}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in clients}
    for _run in range(runs):
        for name, run in clients.items():
            wall, cpu = time.perf_counter(), time.process_time()
            asyncio.run(run(urls))
            samples[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    print(f"\n{len(urls):,} GETs, {CONCURRENCY} at once, bodies read (medians of {runs})")
    print("| client | time (s) | requests/s | CPU (s) | CPU ms/request |")
    print("|---|---:|---:|---:|---:|")
    for name, values in samples.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        print(
            f"| {name} | {wall:.2f} | {len(urls) / wall:,.0f} | {cpu:.2f} | "
            f"{cpu / len(urls) * 1000:.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", default="2000,10000", help="site sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", action="store_true", help="compare httpx and aiohttp")
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.2f}, runs {args.runs}, medians"
    )
    with tempfile.TemporaryDirectory(prefix="bench-crawl-") as tmp:
        root = Path(tmp)
        for pages in (int(size) for size in args.pages.split(",")):
            site = root / f"site-{pages}"
            expected = write_site(site, pages)
            nginx, url = start_nginx(site, root / f"nginx-{pages}")
            try:
                if args.clients:
                    compare_clients(url, site, args.runs)
                else:
                    report(expected, compare(url, expected, args.runs, root / f"work-{pages}"))
            finally:
                nginx.terminate()
                nginx.wait(timeout=10)


if __name__ == "__main__":
    main()
