"""Sharded generation on Dask against the single-process writer, from Parquet (issue 8).

Workload: N URLs ``https://www.example.com/catalog/item-{i}?color=red&size={i%7}`` with a
``lastmod`` string, in 20 Parquet files (made once, kept in benchmarks/out/). Contenders, each
in its own process so that peak RSS is its own, side by side in one run:

- ``writer``: :class:`SitemapWriter` fed from ``pyarrow`` record batches (one process);
- ``sharded``: :func:`write_sharded` (``generate --shards S``: spill files, then shard by shard);
- ``dask-1`` / ``dask-2``: :func:`sitemapkit.dask.write_sitemaps` on a fresh LocalCluster of 1 or
  2 single-threaded worker processes (cluster start-up timed apart).

The sharded outputs are checked to be byte-identical. Wall times are medians over
``--repeat`` runs; the machine is shared, so single runs are noisy. Worker task time per URL
(from the Dask task stream of the 1-worker run) gives the projection for 1 billion URLs on
100 workers.

    python benchmarks/bench_dask.py [--urls 10000000] [--shards 20] [--repeat 1]

Needs the dask extra: pip install -e '.[dask]'.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BASE = "https://www.example.com/"
HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
FILES = 20


def make_parquet(count: int) -> Path:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    folder = OUT / f"urls-{count}"
    if (folder / "done").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    per_file = -(-count // FILES)
    for number in range(FILES):
        start = number * per_file
        ids = pa.array(range(start, min(count, start + per_file)), type=pa.int64())
        if len(ids) == 0:
            break
        text = pc.cast(ids, pa.string())
        size = pc.cast(pc.subtract(ids, pc.multiply(pc.divide(ids, 7), 7)), pa.string())
        day = pc.add(pc.subtract(ids, pc.multiply(pc.divide(ids, 28), 28)), 1)
        day = pc.utf8_lpad(pc.cast(day, pa.string()), 2, "0")
        loc = pc.binary_join_element_wise(
            f"{BASE}catalog/item-", text, "?color=red&size=", size, ""
        )
        lastmod = pc.binary_join_element_wise("2024-05-", day, "")
        pq.write_table(
            pa.table({"loc": loc, "lastmod": lastmod}), folder / f"part-{number:02d}.parquet"
        )
    (folder / "done").write_text("")
    return folder


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def digest(folder: Path) -> str:
    hasher = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if path.is_file():
            hasher.update(path.name.encode())
            hasher.update(path.read_bytes())
    return hasher.hexdigest()[:16]


def run_writer(data: Path, out: Path, shards: int) -> dict[str, Any]:
    import pyarrow.parquet as pq

    from sitemapkit import SitemapWriter

    started = time.perf_counter()
    with SitemapWriter(out, base_url=BASE) as writer:
        add = writer.add
        for path in sorted(data.glob("*.parquet")):
            for batch in pq.ParquetFile(path).iter_batches(batch_size=65536):
                for loc, lastmod in zip(
                    batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
                ):
                    add(loc, lastmod=lastmod)
    return {"seconds": time.perf_counter() - started, "urls": writer.result.urls}


def run_sharded(data: Path, out: Path, shards: int) -> dict[str, Any]:
    import pyarrow.parquet as pq

    from sitemapkit import ShardOptions, URLEntry, write_sharded

    def entries():  # type: ignore[no-untyped-def]
        for path in sorted(data.glob("*.parquet")):
            for batch in pq.ParquetFile(path).iter_batches(batch_size=65536):
                locs, lastmods = batch.column(0).to_pylist(), batch.column(1).to_pylist()
                yield from map(URLEntry, locs, lastmods)

    started = time.perf_counter()
    result = write_sharded(entries(), out, ShardOptions(base_url=BASE, shards=shards))
    return {"seconds": time.perf_counter() - started, "urls": result.urls}


def run_dask(data: Path, out: Path, shards: int, workers: int) -> dict[str, Any]:
    import logging

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from sitemapkit.dask import write_sitemaps

    started = time.perf_counter()
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.wait_for_workers(workers)
        startup = time.perf_counter() - started
        frame = dd.read_parquet(str(data / "*.parquet"))
        client.get_task_stream()  # start recording
        started = time.perf_counter()
        result = write_sitemaps(frame, base_url=BASE, out=out, shards=shards)
        seconds = time.perf_counter() - started
        stream = client.get_task_stream()
        busy: dict[str, float] = {}
        for task in stream:
            prefix = str(task["key"][0] if isinstance(task["key"], tuple) else task["key"])
            prefix = prefix.rsplit("-", 1)[0]
            for span in task["startstops"]:
                if span["action"] == "compute":
                    busy[prefix] = busy.get(prefix, 0.0) + span["stop"] - span["start"]
        write_tasks = [
            sum(s["stop"] - s["start"] for s in task["startstops"] if s["action"] == "compute")
            for task in stream
            if str(task["key"]).startswith("_write_partition")
        ]
        worker_rss = client.run(peak_rss_mb)
        worker_cpu = client.run(cpu_seconds)
    return {
        "seconds": seconds,
        "startup": startup,
        "urls": result.urls,
        "worker_rss_mb": sorted(worker_rss.values()),
        "worker_cpu": sum(worker_cpu.values()),
        "busy": busy,
        "write_task_seconds": sorted(write_tasks),
    }


CONTENDERS = {
    "writer": run_writer,
    "sharded": run_sharded,
    "dask-1": lambda data, out, shards: run_dask(data, out, shards, 1),
    "dask-2": lambda data, out, shards: run_dask(data, out, shards, 2),
}


def child(name: str, data: Path, shards: int) -> None:
    out = OUT / f"run-{name}"
    shutil.rmtree(out, ignore_errors=True)
    result = CONTENDERS[name](data, out, shards)
    result["driver_rss_mb"] = peak_rss_mb()
    result["digest"] = digest(out) if name != "writer" else ""
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", type=int, default=10_000_000)
    parser.add_argument("--shards", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", default=",".join(CONTENDERS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, Path(args.data), args.shards)
        return
    data = make_parquet(args.urls)
    names = args.only.split(",")
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for attempt in range(args.repeat):
        for name in names:
            command = [sys.executable, __file__, "--child", name, "--data", str(data)]
            command += ["--shards", str(args.shards)]
            output = subprocess.run(command, capture_output=True, text=True, check=True)
            result = json.loads(output.stdout.strip().splitlines()[-1])
            runs[name].append(result)
            print(f"run {attempt + 1} {name}: {result['seconds']:.1f} s", file=sys.stderr)
    report(args, runs)


def report(args: argparse.Namespace, runs: dict[str, list[dict[str, Any]]]) -> None:
    count = args.urls
    print(
        f"\n{count:,} URLs from {FILES} Parquet files, {args.shards} shards, "
        f"{args.repeat} run(s) each, medians; cores: {os.cpu_count()}\n"
    )
    print(
        "| contender | wall time (s) | URLs/s | peak RSS driver (MB) | peak RSS per worker (MB) |"
    )
    print("|---|---:|---:|---:|---:|")
    median = {name: statistics.median(r["seconds"] for r in rs) for name, rs in runs.items()}
    for name, results in runs.items():
        rss = statistics.median(r["driver_rss_mb"] for r in results)
        workers = results[0].get("worker_rss_mb")
        worker_text = ", ".join(f"{value:,.0f}" for value in workers) if workers else "-"
        print(
            f"| {name} | {median[name]:,.1f} | {count / median[name]:,.0f} | {rss:,.0f} | "
            f"{worker_text} |"
        )
    digests = {r["digest"] for name, rs in runs.items() if name != "writer" for r in rs}
    print(f"\nsharded outputs identical: {len(digests) == 1} ({', '.join(sorted(digests))})")
    if "dask-1" in runs and "dask-2" in runs:
        print(f"dask 2 workers vs 1: {median['dask-1'] / median['dask-2']:.2f}x faster")
    if "writer" in runs:
        for name in runs:
            print(f"{name} / writer wall time: {median[name] / median['writer']:.2f}")
    for name in ("dask-1", "dask-2"):
        if name in runs:
            work = statistics.median(sum(r["busy"].values()) for r in runs[name])
            cpu = statistics.median(r["worker_cpu"] for r in runs[name])
            print(
                f"{name}: worker compute time {work:,.1f} s in {median[name]:,.1f} s of wall "
                f"time ({work / median[name]:.2f} workers busy on average), worker CPU time "
                f"{cpu:,.1f} s (start-up included)"
            )
    if "dask-1" in runs:
        one = runs["dask-1"][0]
        startup = statistics.median(r["startup"] for r in runs["dask-1"])
        busy_total = sum(one["busy"].values())
        per_url = busy_total / count
        writes = one["write_task_seconds"]
        shard_rate = (count / args.shards) / statistics.median(writes)
        print(f"\ndask-1 cluster start-up: {startup:.1f} s (not in the wall time)")
        print(
            "dask-1 worker compute time by task prefix (s): "
            + ", ".join(f"{k} {v:.1f}" for k, v in sorted(one["busy"].items(), key=lambda x: -x[1]))
        )
        print(
            f"worker time per URL, all steps: {per_url * 1e6:.2f} µs; "
            f"write step per shard: median {statistics.median(writes):.1f} s for "
            f"{count // args.shards:,} URLs = {shard_rate:,.0f} URLs/s"
        )
        projected = 1e9 * per_url / 100
        print(
            f"projection, 1,000,000,000 URLs on 100 such workers (linear, storage and network "
            f"not limiting): {projected:,.0f} s = {projected / 60:.1f} min of worker time each"
        )


if __name__ == "__main__":
    main()
