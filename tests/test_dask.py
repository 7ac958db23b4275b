"""Sharded generation on a real Dask cluster (two worker processes), byte for byte."""

from __future__ import annotations

import gzip
import logging
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import dask
import dask.bag as db
import dask.dataframe as dd
import fsspec
import pandas as pd
import pytest
from click.testing import CliRunner
from distributed import Client, LocalCluster
from lxml import etree

from sitemapkit import (
    Image,
    PublishError,
    ShardOptions,
    StrictError,
    URLEntry,
    write_sharded,
)
from sitemapkit.cli import cli
from sitemapkit.dask import read_urls, write_sitemaps
from tests.oracles import assert_schema_valid

BASE = "https://www.example.com/"
SHARDS = 3
MAX_URLS = 200


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """One cluster of two worker processes for the whole module: startup costs seconds."""
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def rows(count: int = 2500) -> list[dict[str, str]]:
    """URL list rows: relative and absolute, attributes on some, duplicates and rejects."""
    table = [
        {
            "loc": (f"/item/{i}?size={i % 5}&c=1" if i % 2 else f"{BASE}item/{i}?size={i % 5}&c=1"),
            "lastmod": (date(2024, 1, 1) + timedelta(days=i % 300)).isoformat(),
            "changefreq": "weekly" if i % 13 == 0 else "",
            "priority": "0.3" if i % 17 == 0 else "",
        }
        for i in range(count)
    ]
    table += [
        {"loc": f"{BASE}item/{i}?size={i % 5}&c=1", "lastmod": "", "changefreq": "", "priority": ""}
        for i in range(0, count, 10)
    ]
    table += [
        {"loc": "ftp://www.example.com/f", "lastmod": "", "changefreq": "", "priority": ""},
        {"loc": "https://elsewhere.example/", "lastmod": "", "changefreq": "", "priority": ""},
    ]
    return table


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def memory_files(root: str) -> dict[str, bytes]:
    fs = fsspec.filesystem("memory")
    return {str(p).rsplit("/", 1)[1]: fs.cat_file(p) for p in fs.ls(root, detail=False)}


def generate(*args: str) -> None:
    result = CliRunner().invoke(cli, ["generate", "--base-url", BASE, "--quiet", *args])
    assert result.exit_code == 0, (result.output, result.exception)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same URL list as CSV and as three Parquet files, and the single-machine output."""
    folder = tmp_path_factory.mktemp("inputs")
    frame = pd.DataFrame(rows())
    frame.to_csv(folder / "urls.csv", index=False)
    parquet = folder / "parquet"
    parquet.mkdir()
    for number, start in enumerate(range(0, len(frame), 1000)):
        frame.iloc[start : start + 1000].to_parquet(parquet / f"part-{number}.parquet")
    reference = folder / "reference"
    generate(
        "--urls",
        str(folder / "urls.csv"),
        "--out",
        str(reference),
        "--shards",
        str(SHARDS),
        "--max-urls",
        str(MAX_URLS),
    )
    return {"csv": folder / "urls.csv", "parquet": parquet, "reference": reference}


@pytest.mark.parametrize("partitions", [1, 4, 9])
def test_dataframe_run_equals_generate_shards(
    client: Client, inputs: dict[str, Path], tmp_path: Path, partitions: int
) -> None:
    frame = dd.read_csv(inputs["csv"], dtype=str, keep_default_na=False)
    frame = frame.repartition(npartitions=partitions)
    result = write_sitemaps(frame, base_url=BASE, out=tmp_path, shards=SHARDS, max_urls=MAX_URLS)
    assert files(tmp_path) == files(inputs["reference"])
    assert result.skipped == {"duplicate": 250, "scheme": 1, "out-of-scope": 1}
    assert result.urls == 2500


def test_parquet_run_is_schema_valid_and_reads_back(
    client: Client, inputs: dict[str, Path], tmp_path: Path
) -> None:
    frame = dd.read_parquet(str(inputs["parquet"] / "*.parquet"))
    result = write_sitemaps(frame, base_url=BASE, out=tmp_path, shards=SHARDS, max_urls=MAX_URLS)
    assert files(tmp_path) == files(inputs["reference"])
    urls: list[str] = []
    for name in files(tmp_path):
        if not name.startswith("."):
            assert_schema_valid(tmp_path / name)
    for child in result.children:
        root = etree.fromstring(gzip.decompress(Path(child).read_bytes()))
        urls += [str(el.text) for el in root.iterfind(".//{*}loc")]
    expected = {
        row["loc"] if row["loc"].startswith(BASE) else BASE + row["loc"][1:]
        for row in rows()
        if row["loc"].startswith((BASE, "/"))
    }
    assert sorted(urls) == sorted(expected)


def test_sql_table_run_equals_generate_shards(
    client: Client, inputs: dict[str, Path], tmp_path: Path
) -> None:
    database = tmp_path / "catalogue.sqlite"
    with sqlite3.connect(database) as connection:
        connection.execute(
            "CREATE TABLE pages (id INTEGER PRIMARY KEY, loc TEXT, lastmod TEXT, "
            "changefreq TEXT, priority TEXT)"
        )
        connection.executemany(
            "INSERT INTO pages (loc, lastmod, changefreq, priority) VALUES (?, ?, ?, ?)",
            [(r["loc"], r["lastmod"], r["changefreq"], r["priority"]) for r in rows()],
        )
    frame = dd.read_sql_table("pages", f"sqlite:///{database}", index_col="id", npartitions=5)
    write_sitemaps(frame, base_url=BASE, out=tmp_path / "out", shards=SHARDS, max_urls=MAX_URLS)
    assert files(tmp_path / "out") == files(inputs["reference"])


def test_bag_of_entries_with_extensions_equals_the_single_run(
    client: Client, tmp_path: Path
) -> None:
    entries = [
        URLEntry(
            f"{BASE}shop/{i}",
            lastmod=datetime(2024, 5, 1, 10, tzinfo=UTC) + timedelta(hours=i),
            images=(Image(f"https://cdn.example.net/{i}/ü.jpg"),) if i % 25 == 0 else (),
        )
        for i in range(600)
    ]
    entries += [f"/shop/{i}" for i in range(0, 600, 7)]  # duplicates, first occurrence wins
    options = ShardOptions(base_url=BASE, shards=4, max_urls=50)
    write_sharded(entries, tmp_path / "reference", options)
    for partitions in (1, 5):
        out = tmp_path / f"bag-{partitions}"
        bag = db.from_sequence(entries, npartitions=partitions)
        write_sitemaps(bag, base_url=BASE, out=out, shards=4, max_urls=50)
        assert files(out) == files(tmp_path / "reference")
    text = b"".join(
        gzip.decompress(data)
        for data in files(tmp_path / "bag-5").values()
        if data[:2] == b"\x1f\x8b"
    )
    assert b"<image:loc>https://cdn.example.net/0/%C3%BC.jpg</image:loc>" in text


def test_cli_engine_dask_reads_parquet_globs(
    client: Client, inputs: dict[str, Path], tmp_path: Path
) -> None:
    address = client.scheduler.address
    generate(
        "--engine",
        "dask",
        "--scheduler",
        address,
        "--shards",
        str(SHARDS),
        "--max-urls",
        str(MAX_URLS),
        "--urls",
        str(inputs["parquet"] / "*.parquet"),
        "--out",
        str(tmp_path / "parquet"),
    )
    assert files(tmp_path / "parquet") == files(inputs["reference"])
    generate(
        "--engine",
        "dask",
        "--scheduler",
        address,
        "--shards",
        str(SHARDS),
        "--max-urls",
        str(MAX_URLS),
        "--urls",
        str(inputs["csv"]),
        "--out",
        str(tmp_path / "csv"),
    )
    assert files(tmp_path / "csv") == files(inputs["reference"])


def test_cli_engine_dask_takes_folders(client: Client, tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    for page in ("index.html", "docs/a.html", "docs/b.html"):
        (site / page).write_text("<html><title>page</title></html>")
    address = client.scheduler.address
    common = ["--shards", "2", "--dir", str(site), "--xsl"]
    generate("--engine", "dask", "--scheduler", address, *common, "--out", str(tmp_path / "dask"))
    generate(*common, "--out", str(tmp_path / "local"))
    assert files(tmp_path / "dask") == files(tmp_path / "local")
    assert len(files(tmp_path / "dask")) >= 4
    assert "sitemap.xsl" in files(tmp_path / "dask")  # every writer option reaches Dask
    refused = CliRunner().invoke(
        cli,
        ["generate", "--base-url", BASE, "--engine", "dask", "--scheduler", address, *common,
         "--out", str(tmp_path / "html"), "--html", str(tmp_path / "map.html")],
    )  # fmt: skip
    assert refused.exit_code == 2
    assert "--engine dask writes no --html site map" in refused.output


def test_read_urls_text_formats(client: Client, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(f"# comment\n{BASE}a lastmod=2024-05-01\n\n/b\n")
    (tmp_path / "b.jsonl").write_text('{"loc": "/c", "priority": 0.5}\nnot json\n')
    bag = read_urls([str(tmp_path / "a.txt"), str(tmp_path / "b.jsonl")])
    entries = bag.compute()
    assert [(e.loc, e.lastmod, e.priority) for e in entries] == [
        (f"{BASE}a", date(2024, 5, 1), None),
        ("/b", None, None),
        ("/c", None, 0.5),
    ]
    with pytest.raises(StrictError, match="not JSON"):
        read_urls([str(tmp_path / "b.jsonl")], strict=True).compute()


def test_memory_filesystem_output(inputs: dict[str, Path]) -> None:
    """memory:// lives in one process: run the graph on threads (P2P shuffles need workers)."""
    frame = dd.read_csv(inputs["csv"], dtype=str, keep_default_na=False).repartition(npartitions=3)
    with dask.config.set(scheduler="threads"):
        result = write_sitemaps(
            frame,
            base_url=BASE,
            out="memory://dask/run",
            shards=SHARDS,
            max_urls=MAX_URLS,
            shuffle_method="tasks",
        )
    assert result.entry_point == "memory://dask/run/sitemap.xml"
    assert memory_files("/dask/run") == files(inputs["reference"])


def test_children_the_driver_cannot_see_are_never_indexed(
    client: Client, inputs: dict[str, Path]
) -> None:
    """Each worker process has its own memory://: the driver finds no child and stops."""
    frame = dd.read_csv(inputs["csv"], dtype=str, keep_default_na=False)
    with pytest.raises(PublishError, match="children are missing"):
        write_sitemaps(frame, base_url=BASE, out="memory://dask/unseen", shards=SHARDS)
    assert not fsspec.filesystem("memory").exists("/dask/unseen/sitemap.xml")


def test_strict_error_on_a_worker_publishes_nothing(client: Client, tmp_path: Path) -> None:
    write_sitemaps(db.from_sequence(["/old"]), base_url=BASE, out=tmp_path, shards=2)
    before = files(tmp_path)
    bag = db.from_sequence(["/a", "/b", "https://elsewhere.example/"], npartitions=2)
    with pytest.raises(StrictError, match="out-of-scope"):
        write_sitemaps(bag, base_url=BASE, out=tmp_path, shards=2, strict=True)
    assert files(tmp_path) == before


def test_worker_killed_mid_run_keeps_the_published_set(tmp_path: Path) -> None:
    """Its own cluster, told to give up on a task whose worker dies, so that the kill fails
    the run (instead of Dask retrying it elsewhere) and the shared cluster stays whole."""
    out = tmp_path / "out"
    old_urls = [f"/old/{i}" for i in range(500)]
    new_urls = [f"/new/{i:05d}" for i in range(6000)]
    options = {"base_url": BASE, "out": out, "shards": 8, "max_urls": 10}
    errors: list[BaseException] = []
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        ) as cluster,
        Client(cluster) as own,
    ):
        write_sitemaps(db.from_sequence(old_urls, npartitions=2), **options)  # type: ignore[arg-type]
        old = files(out)
        pids = own.run(os.getpid)
        assert len(pids) == 2

        def run() -> None:
            try:
                bag = db.from_sequence(new_urls, npartitions=4)
                write_sitemaps(bag, **options)  # type: ignore[arg-type]
            except Exception as exc:
                errors.append(exc)

        runner = threading.Thread(target=run)
        runner.start()
        deadline = time.monotonic() + 60
        staged = f".{out.name}.sitemap.sitemapkit-*/sitemap-s*.xml.gz"
        while not list(tmp_path.glob(staged)) and time.monotonic() < deadline:
            time.sleep(0.002)
        assert list(tmp_path.glob(staged)), "the run never reached the shard writers"
        for pid in pids.values():  # both workers die while shards are being written
            os.kill(pid, signal.SIGKILL)
        runner.join(timeout=120)
        assert not runner.is_alive()
        assert errors, "the run survived its workers"
        assert files(out) == old  # the complete old set, every child it names still there
        own.wait_for_workers(2, timeout=120)  # the nannies restart them
        write_sitemaps(db.from_sequence(new_urls, npartitions=3), **options)  # type: ignore[arg-type]
    reference = ShardOptions(base_url=BASE, shards=8, max_urls=10)
    assert write_sharded(new_urls, tmp_path / "reference", reference).urls == 6000
    assert files(out) == files(tmp_path / "reference")
    assert not [p for p in tmp_path.iterdir() if ".sitemapkit-" in p.name and p.is_dir()]
