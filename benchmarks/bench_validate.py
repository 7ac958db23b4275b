"""Validation speed: ``sitemapkit validate`` against ``xmllint --noout --schema``, side by side.

Two workloads, written by ``SitemapWriter`` into ``benchmarks/out/validate/`` (kept between runs):

* one sitemap of 50,000 URLs, about 45 MiB uncompressed: long URLs, hreflang alternates and
  images on every URL (xmllint needs the driver schema that imports every extension);
* a tree of 1,000,000 URLs: an index and 20 gzipped children of 50,000 URLs (xmllint gets the
  children in one invocation and the index in a second; their times are added).

Each contender runs in its own process, alternately, several times; wall time and peak RSS
(``wait4``) are reported as medians, with the ratio sitemapkit / xmllint. sitemapkit runs with
``--location`` (and ``--recursive`` on the tree), so it also checks what xmllint cannot: sizes,
counts, scope, hosts, duplicates across the tree, zone-less times.

    .venv/bin/python benchmarks/bench_validate.py --runs 5
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BASE = "https://www.example.com/"
BIN = Path(sys.executable).parent
OUT = Path(__file__).resolve().parent / "out" / "validate"


def spec_dir() -> Path:
    for candidate in (
        os.environ.get("SITEMAPKIT_SPEC_DIR", ""),
        Path(__file__).resolve().parents[2] / "shared" / "spec",
        "/work/shared/spec",
    ):
        if candidate and (Path(candidate) / "sitemaps-0.9" / "sitemap.xsd").is_file():
            return Path(candidate)
    raise SystemExit("cannot find the shared spec folder (set SITEMAPKIT_SPEC_DIR)")


def write_big_file(folder: Path) -> Path:
    """50,000 URLs with extension markup, about 45 MiB."""
    from sitemapkit import Alternate, Image, SitemapWriter, URLEntry

    target = folder / "sitemap.xml"
    if target.exists():
        return target

    def entries():  # type: ignore[no-untyped-def]
        for i in range(50_000):
            path = (
                f"catalog/department-{i % 97}/category-{i % 1013}/product-{i}-"
                "handmade-solid-oak-dining-table-with-extendable-leaves-and-six-chairs-walnut-finish"
            )
            yield URLEntry(
                f"{BASE}{path}?colour=natural&size={i % 7}",
                lastmod=f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z",
                changefreq="weekly",
                priority=(i % 10) / 10,
                images=tuple(
                    Image(f"https://cdn.example.com/images/{i}/view-{k}-1600x1200.jpg")
                    for k in range(2)
                ),
                alternates=tuple(Alternate(lang, f"{BASE}{lang}/{path}") for lang in ("de", "fr")),
            )

    with SitemapWriter(folder, base_url=BASE, gzip=False) as writer:
        writer.add_all(entries())
    assert not writer.result.children, "the big file must stay one file"
    return target


def write_tree(folder: Path) -> tuple[Path, list[Path]]:
    """1,000,000 URLs: an index and 20 gzipped children (the reader benchmark's URLs)."""
    from sitemapkit import SitemapWriter

    index = folder / "sitemap.xml"
    if not index.exists():
        with SitemapWriter(folder, base_url=BASE, gzip=True) as writer:
            add = writer.add
            for i in range(1_000_000):
                add(
                    f"{BASE}catalog/category-{i % 97}/product-{i}.html",
                    lastmod=f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}",
                )
    children = sorted(path for path in folder.iterdir() if path.name.endswith(".xml.gz"))
    assert len(children) == 20, len(children)
    return index, children


@dataclass
class Sample:
    seconds: float
    cpu: float
    rss_mib: float


def measure(commands: list[list[str]], env: dict[str, str]) -> Sample:
    """Run the commands one after the other; total wall time, largest peak RSS."""
    total = 0.0
    cpu = 0.0
    peak = 0.0
    for command in commands:
        start = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
        )
        _pid, status, usage = os.wait4(process.pid, 0)
        total += time.perf_counter() - start
        assert process.stderr is not None
        errors = process.stderr.read().decode(errors="replace")
        process.stderr.close()
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit(f"{command[0]} failed ({code}):\n{errors[-2000:]}")
        peak = max(peak, usage.ru_maxrss / 1024)
        cpu += usage.ru_utime + usage.ru_stime  # includes its worker processes, once reaped
    return Sample(total, cpu, peak)


def compare(
    name: str, ours: list[list[str]], theirs: list[list[str]], runs: int, env: dict[str, str]
) -> str:
    mine: list[Sample] = []
    xmllint: list[Sample] = []
    for _ in range(runs):
        mine.append(measure(ours, env))
        xmllint.append(measure(theirs, env))
    ours_time = statistics.median(sample.seconds for sample in mine)
    their_time = statistics.median(sample.seconds for sample in xmllint)
    ours_cpu = statistics.median(sample.cpu for sample in mine)
    their_cpu = statistics.median(sample.cpu for sample in xmllint)
    ours_rss = statistics.median(sample.rss_mib for sample in mine)
    their_rss = statistics.median(sample.rss_mib for sample in xmllint)
    every = ", ".join(f"{s.seconds:.2f}" for s in mine)
    every_theirs = ", ".join(f"{s.seconds:.2f}" for s in xmllint)
    print(f"{name}: sitemapkit runs {every}; xmllint runs {every_theirs}", file=sys.stderr)
    return (
        f"| {name} | {ours_time:.2f} s | {their_time:.2f} s | {ours_time / their_time:.2f}x "
        f"| {ours_cpu:.2f} s | {their_cpu:.2f} s | {ours_rss:.0f} MiB | {their_rss:.0f} MiB |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--only", choices=["file", "tree"])
    args = parser.parse_args()
    spec = spec_dir()
    env = {**os.environ, "XML_CATALOG_FILES": str(spec / "samples" / "catalog.xml")}
    sitemapkit = str(BIN / "sitemapkit")
    lint = ["xmllint", "--noout", "--nonet", "--schema"]
    rows = []
    if args.only in (None, "file"):
        folder = args.out / "file"
        folder.mkdir(parents=True, exist_ok=True)
        big = write_big_file(folder)
        size = big.stat().st_size
        rows.append(
            compare(
                f"50,000 URLs + extensions, {size / 2**20:.1f} MiB",
                [[sitemapkit, "validate", "--location", f"{BASE}sitemap.xml", str(big)]],
                [[*lint, str(spec / "samples" / "all-local.xsd"), str(big)]],
                args.runs,
                env,
            )
        )
    if args.only in (None, "tree"):
        folder = args.out / "tree"
        folder.mkdir(parents=True, exist_ok=True)
        index, children = write_tree(folder)
        rows.append(
            compare(
                "1,000,000 URLs: index + 20 gzipped children",
                [
                    [
                        sitemapkit,
                        "validate",
                        "--recursive",
                        "--location",
                        f"{BASE}sitemap.xml",
                        str(index),
                    ]
                ],
                [
                    [*lint, str(spec / "sitemaps-0.9" / "siteindex.xsd"), str(index)],
                    [*lint, str(spec / "sitemaps-0.9" / "sitemap.xsd"), *map(str, children)],
                ],
                args.runs,
                env,
            )
        )
    version = subprocess.run(
        ["xmllint", "--version"], capture_output=True, text=True, check=False
    ).stderr.splitlines()[0]
    print(
        f"Python {platform.python_version()}, {version}, {os.cpu_count()} cores, "
        f"medians of {args.runs} runs\n"
    )
    print(
        "| workload | sitemapkit validate | xmllint --schema | ratio | sitemapkit CPU "
        "| xmllint CPU | sitemapkit RSS | xmllint RSS |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
