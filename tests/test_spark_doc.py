"""docs/spark.md: its example runs on partitions standing in for a Spark RDD."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import cloudpickle
import pytest

from sitemapkit import ShardOptions, URLEntry, write_sharded

REPO = Path(__file__).resolve().parent.parent
BASE = "https://www.example.com/"


def shipped(function: Callable[..., Any]) -> Callable[..., Any]:
    """What an executor receives: the function after a round trip through cloudpickle."""
    result: Callable[..., Any] = cloudpickle.loads(cloudpickle.dumps(function))
    return result


class PartitionedRDD:
    """The five RDD methods the example uses, over lists of partitions, as Spark does them."""

    def __init__(self, partitions: list[list[Any]]) -> None:
        self.partitions = partitions

    def zipWithIndex(self) -> PartitionedRDD:
        counter = iter(range(1 << 62))
        return PartitionedRDD([[(row, next(counter)) for row in part] for part in self.partitions])

    def mapPartitions(self, function: Callable[[Iterator[Any]], Iterable[Any]]) -> PartitionedRDD:
        run = shipped(function)
        return PartitionedRDD([list(run(iter(part))) for part in self.partitions])

    def partitionBy(self, count: int, key: Callable[[Any], int]) -> PartitionedRDD:
        run = shipped(key)
        buckets: list[list[Any]] = [[] for _ in range(count)]
        # Spark makes no promise about the order within a partition after a shuffle.
        for part in reversed(self.partitions):
            for pair in part:
                buckets[run(pair[0]) % count].append(pair)
        return PartitionedRDD(buckets)

    def mapPartitionsWithIndex(
        self, function: Callable[[int, Iterator[Any]], Iterable[Any]]
    ) -> PartitionedRDD:
        run = shipped(function)
        return PartitionedRDD(
            [list(run(index, iter(part))) for index, part in enumerate(self.partitions)]
        )

    def collect(self) -> list[Any]:
        return [row for part in self.partitions for row in part]


def example() -> Callable[..., Any]:
    text = (REPO / "docs" / "spark.md").read_text()
    code = re.findall(r"```python\n(.*?)```", text, re.DOTALL)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/spark.md", "exec"), namespace)
    function: Callable[..., Any] = namespace["write_sitemaps_on_spark"]
    return function


@pytest.mark.parametrize("partition_count", [1, 3, 7])
def test_spark_example_equals_generate_shards(tmp_path: Path, partition_count: int) -> None:
    entries: list[str | URLEntry] = [
        URLEntry(f"{BASE}p/{i}?q={i % 4}", lastmod=date(2024, 1, 1) + timedelta(days=i % 90))
        for i in range(1200)
    ]
    entries += [f"/p/{i}?q={i % 4}" for i in range(0, 1200, 5)]  # duplicates: the first wins
    entries.append("https://elsewhere.example/")
    options = ShardOptions(base_url=BASE, shards=4, max_urls=100)
    reference = write_sharded(entries, tmp_path / "reference", options)
    size = -(-len(entries) // partition_count)
    rdd = PartitionedRDD([entries[start : start + size] for start in range(0, len(entries), size)])
    result = example()(rdd, tmp_path / "spark", options)
    assert result.urls == reference.urls == 1200
    assert result.skipped == {"duplicate": 240, "out-of-scope": 1}
    published = {p.name: p.read_bytes() for p in (tmp_path / "spark").iterdir()}
    assert published == {p.name: p.read_bytes() for p in (tmp_path / "reference").iterdir()}
