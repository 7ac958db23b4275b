"""Sharded sitemap generation on Dask: a laptop's LocalCluster or a cluster, any storage.

The job is the three steps of :mod:`sitemapkit.shard` as a Dask graph:

1. each input partition is normalised and routed (a ``_shard`` column from a stable hash of
   the normalised URL, an ``_order`` column keeping the input order across partitions);
2. a shuffle puts shard *k* in output partition *k* (``set_index`` on known divisions);
3. each output partition is sorted back into input order and handed to
   :func:`~sitemapkit.shard.write_shard` on a worker, which writes its children straight to
   the output (a staging folder, or their final names on an object store);

then the driver publishes the index from the gathered manifests. The files are byte for byte
those of ``sitemapkit generate --shards N`` on one machine, however the input is
partitioned and however many workers run.

Needs the ``dask`` extra (``pip install 'sitemapkit[dask]'``); ``import sitemapkit`` never
imports this module.
"""

from __future__ import annotations

import logging
import math
import os
import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime, tzinfo
from typing import TYPE_CHECKING, Any, Final, Literal

import dask
import dask.bag as db
import dask.dataframe as dd
import pandas as pd

from .dates import format_lastmod
from .errors import SitemapError, SourceError, StrictError
from .model import Problem, URLEntry
from .shard import (
    Columns,
    ShardedOutput,
    ShardedResult,
    ShardManifest,
    ShardOptions,
    ShardRouter,
    write_columns,
)
from .sources._common import FieldParser
from .sources.urllist import _detect_format, _entry, _read_jsonl, _read_text
from .storage import ShardTarget

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["connect", "read_urls", "write_sitemaps"]

_COLUMNS: Final = ["loc", "lastmod", "changefreq", "priority", "entry"]
_ROUTED: Final = [*_COLUMNS, "_order", "_shard"]
_ORDER_BITS: Final = 40  # rows per input partition before the order key would overflow
_logger = logging.getLogger("sitemapkit")


def _meta(columns: Sequence[str]) -> pd.DataFrame:
    types = {"priority": "float64", "_order": "int64", "_shard": "int64"}
    return pd.DataFrame({name: pd.Series([], dtype=types.get(name, object)) for name in columns})


def _is_missing(value: object) -> bool:
    """None, NaN, pandas' NA or NaT: what an empty cell holds."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and value != value


def _lastmod_text(value: object, assume_tz: tzinfo | None) -> str | None:
    """A lastmod as W3C text (strings are kept as given: the shard writer checks them)."""
    if type(value) is str:
        return value if value.strip() else None
    if _is_missing(value):
        return None
    if isinstance(value, date | datetime):
        return format_lastmod(value, assume_tz=assume_tz)
    raise SitemapError(f"lastmod must be a date, datetime or str, not {type(value).__name__}")


def _text(value: object) -> str | None:
    if type(value) is str:
        return value if value.strip() else None
    if _is_missing(value):
        return None
    text = str(value)
    return text if text.strip() else None


def _priority(value: object) -> float:
    if _is_missing(value) or (isinstance(value, str) and not value.strip()):
        return math.nan
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise SitemapError(f"priority {value!r} is not a number") from exc


def _record(item: object, assume_tz: tzinfo | None) -> tuple[object, ...]:
    """One Bag element as a row of the standard columns."""
    if isinstance(item, str):
        return (item, None, None, math.nan, None)
    if isinstance(item, URLEntry):
        if item.has_extensions:
            return (item.loc, None, None, math.nan, pickle.dumps(item))
        return (
            item.loc,
            _lastmod_text(item.lastmod, assume_tz),
            item.changefreq,
            _priority(item.priority),
            None,
        )
    if isinstance(item, Mapping):
        loc = item.get("loc", item.get("url"))
        if not isinstance(loc, str):
            raise SitemapError(f"a record without a 'loc' text field: {dict(item)!r}")
        return (
            loc,
            _lastmod_text(item.get("lastmod"), assume_tz),
            _text(item.get("changefreq")),
            _priority(item.get("priority")),
            None,
        )
    raise TypeError(f"expected a URL, a URLEntry or a mapping, not {type(item).__name__}")


def _bag_frame(items: Sequence[object], assume_tz: tzinfo | None) -> list[tuple[object, ...]]:
    return [_record(item, assume_tz) for item in items]


def _lastmods(pdf: pd.DataFrame, assume_tz: tzinfo | None) -> list[str | None]:
    """The lastmod column as text; text cells (the usual case) cost no call."""
    if "lastmod" not in pdf.columns:
        return [None] * len(pdf)
    return [
        value if type(value) is str and value.strip() else _lastmod_text(value, assume_tz)
        for value in pdf["lastmod"].tolist()
    ]


def _route(
    pdf: pd.DataFrame,
    options: ShardOptions,
    loc_column: str,
    partition_info: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One input partition as standard columns, normalised, ordered and routed."""
    if loc_column not in pdf.columns:
        raise SitemapError(f"no {loc_column!r} column (found: {', '.join(map(str, pdf.columns))})")
    size = len(pdf)
    if size >= 1 << _ORDER_BITS:
        raise SitemapError(f"an input partition holds {size:,} rows; split it")
    number = 0 if partition_info is None else int(partition_info["number"])
    assume_tz = options.assume_tz

    def column(name: str, convert: Callable[[object], object], empty: object) -> list[object]:
        if name not in pdf.columns:
            return [empty] * size
        return [convert(value) for value in pdf[name].tolist()]

    locs = [value if type(value) is str else str(value) for value in pdf[loc_column].tolist()]
    routed, shards = ShardRouter(options).route_many(locs)
    return pd.DataFrame(
        {
            "loc": pd.Series(routed, dtype=object),
            "lastmod": pd.Series(_lastmods(pdf, assume_tz), dtype=object),
            "changefreq": pd.Series(column("changefreq", _text, None), dtype=object),
            "priority": pd.Series(column("priority", _priority, math.nan), dtype="float64"),
            "entry": pd.Series(column("entry", lambda value: value, None), dtype=object),
            "_order": pd.RangeIndex(size) + (number << _ORDER_BITS),
            "_shard": pd.Series(shards, dtype="int64"),
        }
    )


def _column(group: pd.DataFrame, name: str) -> list[Any] | None:
    """A column's values with every missing one as None; None when all are missing."""
    series = group[name]
    missing = series.isna().to_numpy()
    if missing.all():
        return None
    values: list[Any] = series.tolist()
    if not missing.any():
        return values
    return [None if gap else value for value, gap in zip(values, missing.tolist(), strict=True)]


def _shard_columns(group: pd.DataFrame) -> Columns:
    """The shard's rows as the shard writer's columns, in input order.

    Routing made every lastmod text or missing, so values are taken as they are.
    """
    whole: dict[int, URLEntry] = {}
    blobs = _column(group, "entry")
    if blobs is not None:
        for position, blob in enumerate(blobs):
            if isinstance(blob, bytes):
                entry: URLEntry = pickle.loads(blob)  # noqa: S301 - pickled by _record above
                whole[position] = entry
    return (
        group["loc"].tolist(),
        _column(group, "lastmod"),
        _column(group, "changefreq"),
        _column(group, "priority"),
        whole,
    )


def _write_partition(
    pdf: pd.DataFrame, options: ShardOptions, target: ShardTarget
) -> list[ShardManifest]:
    if pdf.empty:
        return []
    pdf = pdf.sort_values("_order", kind="stable")
    return [
        write_columns(_shard_columns(group), int(shard), target=target, options=options)
        for shard, group in pdf.groupby(level=0, sort=True)
    ]


def _as_frame(data: dd.DataFrame | db.Bag, assume_tz: tzinfo | None) -> dd.DataFrame:
    if isinstance(data, db.Bag):
        rows = data.map_partitions(_bag_frame, assume_tz)
        return rows.to_dataframe(meta=_meta(_COLUMNS))
    if isinstance(data, dd.DataFrame):
        return data
    raise TypeError(f"expected a Dask DataFrame or Bag, not {type(data).__name__}")


def write_sitemaps(
    data: dd.DataFrame | db.Bag,
    *,
    base_url: str,
    out: str | os.PathLike[str],
    shards: int,
    gzip: bool = True,
    max_urls: int | None = None,
    max_bytes: int | None = None,
    name: str = "sitemap",
    format: Literal["xml", "txt"] = "xml",
    protocol: Literal["0.9", "0.84"] = "0.9",
    keep_session_ids: bool = False,
    strict: bool = False,
    assume_tz: tzinfo | None = None,
    stylesheet: str | None = None,
    xsl: bool = False,
    compress_level: int | None = None,
    loc_column: str = "loc",
    storage_options: Mapping[str, Any] | None = None,
    shuffle_method: str | None = None,
) -> ShardedResult:
    """Write the sitemaps of every URL in ``data`` to ``out`` on the current Dask scheduler.

    ``data`` is a Dask DataFrame with a ``loc`` column (``loc_column``) and optionally
    ``lastmod``, ``changefreq`` and ``priority`` columns, or a Bag of URLs, ``URLEntry``
    values or mappings with those keys. ``out`` is a local folder or an fsspec URL
    (``s3://bucket/sitemaps/``); the other options are those of
    :class:`~sitemapkit.SitemapWriter`. Runs on the active ``distributed.Client`` if there
    is one, else on Dask's default scheduler. Nothing is published unless every shard was
    written; the files equal those of :func:`~sitemapkit.shard.write_sharded` with the
    same ``shards``. ``shuffle_method`` goes to Dask (``"p2p"``, ``"tasks"``, ``"disk"``;
    by default P2P on a distributed cluster, which needs workers: on the threaded
    scheduler pass ``"tasks"``).
    """
    options = ShardOptions(
        base_url=base_url,
        shards=shards,
        gzip=gzip,
        max_urls=max_urls,
        max_bytes=max_bytes,
        name=name,
        format=format,
        protocol=protocol,
        keep_session_ids=keep_session_ids,
        strict=strict,
        assume_tz=assume_tz,
        stylesheet=stylesheet,
        xsl=xsl,
        compress_level=compress_level,
    )
    with (
        dask.config.set({"dataframe.convert-string": False}),
        ShardedOutput(out, options, storage_options=storage_options) as output,
    ):
        frame = _as_frame(data, assume_tz)
        column = "loc" if isinstance(data, db.Bag) else loc_column
        routed = frame.map_partitions(_route, options, column, meta=_meta(_ROUTED))
        divisions = [*range(shards), shards - 1]
        by_shard = routed.set_index("_shard", divisions=divisions, shuffle_method=shuffle_method)
        writes = [
            dask.delayed(_write_partition, pure=True)(part, options, output.target)
            for part in by_shard.to_delayed()
        ]
        results = dask.compute(*writes)
        return output.publish(manifest for manifests in results for manifest in manifests)


def _on_problem(strict: bool) -> Callable[[Problem], None]:
    def handle(problem: Problem) -> None:
        if strict:
            raise StrictError(problem.message, source=problem.source, line=problem.line)
        _logger.warning("%s", problem)

    return handle


def _parse_lines(
    lines: Sequence[str], kind: str, source: str, assume_tz: tzinfo | None, strict: bool
) -> list[URLEntry]:
    reader = _read_jsonl if kind == "jsonl" else _read_text
    return list(reader(iter(lines), source, FieldParser(assume_tz), _on_problem(strict)))


def _parse_rows(
    pdf: pd.DataFrame, source: str, assume_tz: tzinfo | None, strict: bool
) -> list[URLEntry]:
    fields = FieldParser(assume_tz)
    handle = _on_problem(strict)
    pdf = pdf.rename(columns=lambda column: str(column).strip().lower())
    if "loc" not in pdf.columns and "url" not in pdf.columns:
        raise SourceError("the header has no 'loc' column", source=source, line=1)
    entries: list[URLEntry] = []
    for record in pdf.to_dict("records"):
        try:
            entries.append(_entry(record, fields))
        except SitemapError as exc:  # a row's line number is lost once the file is split
            handle(Problem(source, None, f"{exc.message}; row skipped"))
    return entries


def read_urls(
    paths: Sequence[str],
    *,
    format: Literal["auto", "txt", "csv", "tsv", "jsonl", "parquet"] = "auto",
    encoding: str = "utf-8",
    assume_tz: tzinfo | None = None,
    strict: bool = False,
    blocksize: int = 64 << 20,
    storage_options: Mapping[str, Any] | None = None,
) -> dd.DataFrame | db.Bag:
    """Read URL lists as a Dask collection: local paths, fsspec URLs or globs.

    Parquet (``*.parquet``) becomes a DataFrame read as it is; text, CSV, TSV and JSON
    Lines (optionally ``.gz``) become a Bag of :class:`~sitemapkit.URLEntry` parsed by the
    rules of :func:`~sitemapkit.from_urllist`, a bad row logged and skipped (an error when
    ``strict``).
    """
    if not paths:
        raise SitemapError("no input given")
    options = dict(storage_options or {})
    kinds = {_kind(path, format) for path in paths}
    if kinds == {"parquet"}:
        return dd.read_parquet(list(paths), storage_options=options)
    bags: list[db.Bag] = []
    for path in paths:
        kind = _kind(path, format)
        if kind == "parquet":
            frame = dd.read_parquet(path, storage_options=options)
            bags.append(frame.to_bag(format="dict"))
        elif kind in ("csv", "tsv"):
            frame = dd.read_csv(
                path,
                sep="\t" if kind == "tsv" else ",",
                dtype=str,
                keep_default_na=False,
                encoding=encoding,
                blocksize=None if path.endswith(".gz") else blocksize,
                storage_options=options,
            )
            parts = frame.to_delayed()
            bags.append(
                db.from_delayed(
                    [dask.delayed(_parse_rows)(part, path, assume_tz, strict) for part in parts]
                )
            )
        else:
            lines = db.read_text(
                path,
                blocksize=None if path.endswith(".gz") else blocksize,
                encoding=encoding,
                storage_options=options,
            )
            bags.append(lines.map_partitions(_parse_lines, kind, path, assume_tz, strict))
    return bags[0] if len(bags) == 1 else db.concat(bags)


def _kind(path: str, format: str) -> str:
    if format != "auto":
        return format
    if path.lower().removesuffix("/").endswith((".parquet", ".pq")):
        return "parquet"
    return _detect_format(path)


@contextmanager
def connect(scheduler: str | None = None) -> Iterator[Client]:
    """A ``distributed.Client`` for ``local``, ``local:N`` (N worker processes) or an address.

    A local cluster is started for the block and shut down after it.
    """
    from distributed import Client, LocalCluster

    spec = scheduler or "local"
    if spec == "local" or spec.startswith("local:"):
        _, _, count = spec.partition(":")
        try:
            workers = int(count) if count else os.cpu_count() or 1
        except ValueError:
            raise SitemapError(f"bad scheduler {spec!r}: local:N takes a number") from None
        if workers < 1:
            raise SitemapError(f"bad scheduler {spec!r}: at least one worker")
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # a free port: 8787 may be taken
                silence_logs=logging.ERROR,  # shuffle progress is logged as warnings
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = Client(spec, timeout="30s")
    except OSError as exc:
        raise SitemapError(f"cannot reach the Dask scheduler {spec}: {exc}") from exc
    with client:
        yield client
