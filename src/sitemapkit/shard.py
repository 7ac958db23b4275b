"""Sharded generation: the same sitemap set from one process or from a whole cluster.

Three engine-neutral steps, each a plain function on plain values so any engine (a loop,
Dask, Spark) can run them:

1. **route**: :class:`ShardRouter` normalises each URL and picks its shard from a stable hash
   of the normalised form (BLAKE2b, never Python's salted ``hash()``), so duplicates meet in
   the same shard whatever the partitioning, and every machine agrees.
2. **write**: :func:`write_shard` takes one shard's entries in input order, normalises them
   with the rules and scope of :class:`~sitemapkit.SitemapWriter`, sorts them, drops
   duplicates (the first occurrence wins) and writes the shard's children
   ``{name}-s{shard:04d}-{number:05d}-{hash}.xml.gz`` with the writer's own cutting,
   markup and reproducible gzip. It returns a small picklable :class:`ShardManifest`.
3. **publish**: :class:`ShardedOutput` (the driver) gathers the manifests, writes the index
   last and publishes: atomic renames from a staging folder for a local folder, children
   first and the entry point last on an object store; stale children go afterwards.

The output depends only on the set of input entries, their order and the options: not on the
engine, the partitioning or the number of workers. :func:`write_sharded` runs all three steps
in one process, spilling each shard to a file so memory stays flat.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, tzinfo
from hashlib import blake2b
from itertools import islice
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal, Self

from .compression import FileSink
from .errors import InvalidURLError, LimitError, PublishError, SitemapError, StrictError
from .markup import render_index
from .model import SitemapRef, URLEntry
from .publish import Staging, child_name_pattern
from .storage import RemoteFolder, ShardTarget, is_local, local_path
from .writer import CheckedOptions, SitemapWriter, WriteResult, check_options, child_file_name
from .writer import write_index as write_index_file

__all__ = [
    "ChildFile",
    "Columns",
    "ShardManifest",
    "ShardOptions",
    "ShardRouter",
    "ShardedOutput",
    "ShardedResult",
    "shard_of",
    "shard_stem",
    "shards_of",
    "write_columns",
    "write_shard",
    "write_sharded",
]

_BATCH: Final = 4096
_SPILL_FLUSH: Final = 200_000  # entries buffered in memory before the spill files are appended
_EXAMPLES: Final = 5
_MANIFEST: Final = ".{name}.sitemapkit.json"  # the same published-set manifest as publish.Staging


@dataclass(frozen=True, slots=True)
class ShardOptions:
    """Everything a shard writer needs besides its entries: picklable, checked on creation.

    The writer options mean what they mean for :class:`~sitemapkit.SitemapWriter`;
    ``shards`` is how many shards URLs are spread over (the output depends on it).
    """

    base_url: str
    shards: int = 1
    gzip: bool = True
    max_urls: int | None = None
    max_bytes: int | None = None
    name: str = "sitemap"
    format: Literal["xml", "txt"] = "xml"
    protocol: Literal["0.9", "0.84"] = "0.9"
    keep_session_ids: bool = False
    strict: bool = False
    assume_tz: tzinfo | None = None
    stylesheet: str | None = None
    #: Publish sitemapkit's XSL stylesheet beside the set and link it (as ``xsl`` does for
    #: :class:`~sitemapkit.SitemapWriter`).
    xsl: bool = False
    compress_level: int | None = None

    def __post_init__(self) -> None:
        if self.xsl and self.format != "xml":
            raise SitemapError("a stylesheet (xsl) goes with XML sitemaps, not text ones")
        if isinstance(self.shards, bool) or not 1 <= self.shards <= 50_000:
            raise SitemapError(f"shards must be between 1 and 50,000, not {self.shards!r}")
        self.check()

    @property
    def stylesheet_href(self) -> str | None:
        """What the files' ``xml-stylesheet`` instruction links, if anything."""
        if self.stylesheet is None and self.xsl:
            return self.name + ".xsl"
        return self.stylesheet

    def check(self) -> CheckedOptions:
        return check_options(
            base_url=self.base_url,
            max_urls=self.max_urls,
            max_bytes=self.max_bytes,
            name=self.name,
            format=self.format,
            protocol=self.protocol,
            keep_session_ids=self.keep_session_ids,
        )


@dataclass(frozen=True, slots=True)
class ChildFile:
    """One child sitemap a shard wrote: what the index and the publisher need to know."""

    name: str
    urls: int
    lastmod: str | None
    raw_bytes: int
    file_bytes: int
    sha256: str


@dataclass(frozen=True, slots=True)
class ShardManifest:
    """What :func:`write_shard` wrote for one shard; small and picklable."""

    shard: int
    children: tuple[ChildFile, ...]
    urls: int
    skipped: Mapping[str, int] = field(default_factory=dict)
    skipped_examples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ShardedResult:
    """What a sharded run published; the counterpart of :class:`~sitemapkit.WriteResult`.

    Locations are strings: local paths, or URLs on an fsspec file system.
    """

    out: str
    entry_point: str
    entry_url: str
    children: tuple[str, ...]
    shards: int
    urls: int
    skipped: Mapping[str, int]
    skipped_examples: Mapping[str, tuple[str, ...]]
    raw_bytes: int
    file_bytes: int
    #: The XSL stylesheet published with the set (``xsl=True``): a path or URL.
    stylesheet: str | None = None

    @property
    def is_index(self) -> bool:
        """Always true: a sharded set is an index over its shards' children."""
        return True

    @property
    def files(self) -> tuple[str, ...]:
        """Every file of the published set, entry point first."""
        return (self.entry_point, *self.children)

    @property
    def notes(self) -> Mapping[str, int]:
        """Counts worth reporting that are not URLs left out: none for a sharded set."""
        return {}

    @property
    def news(self) -> None:
        """Sharded sets keep news markup inline: there is no separate news set."""
        return None


def shard_stem(name: str, shard: int) -> str:
    """The file name stem of one shard's children: ``sitemap-s0003``."""
    return f"{name}-s{shard:04d}"


def shard_of(url: str, shards: int) -> int:
    """The shard of a normalised URL: BLAKE2b of its UTF-8 bytes, modulo ``shards``.

    The same on every machine and in every process, unlike ``hash()``.

    >>> shard_of("https://example.com/a", 8) == shard_of("https://example.com/a", 8)
    True
    """
    return shards_of([url], shards)[0]


def shards_of(urls: Sequence[str], shards: int) -> list[int]:
    """:func:`shard_of` for a batch, without a Python call per URL."""
    if shards == 1:
        return [0] * len(urls)
    try:
        return [
            int.from_bytes(blake2b(url.encode(), digest_size=8).digest(), "big") % shards
            for url in urls
        ]
    except UnicodeEncodeError:  # a lone surrogate in a URL that will be left out anyway
        return [
            int.from_bytes(
                blake2b(url.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big"
            )
            % shards
            for url in urls
        ]


class _Skips:
    """URLs left out, by reason, with a few examples; raises at once in strict mode."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.counts: dict[str, int] = {}
        self.examples: dict[str, list[str]] = {}

    def add(self, reason: str, url: str, message: str) -> None:
        if self.strict:
            raise StrictError(f"{message} (left out: {reason})")
        self.counts[reason] = self.counts.get(reason, 0) + 1
        examples = self.examples.setdefault(reason, [])
        if len(examples) < _EXAMPLES:
            examples.append(url)


class ShardRouter:
    """Normalise URLs and pick their shards, in batches (the fast path of the writer)."""

    def __init__(self, options: ShardOptions) -> None:
        self.shards = options.shards
        self._normalizer = options.check().normalizer

    def normalize_many(self, urls: Sequence[str]) -> list[str | InvalidURLError]:
        """Each URL normalised, or the error that leaves it out."""
        if self._normalizer.batch_is_normal(urls):
            return list(urls)
        return self._normalizer.normalize_many(urls)

    def route_many(self, urls: Sequence[str]) -> tuple[list[str], list[int]]:
        """Each URL normalised (kept as given when it is left out) and its shard.

        A URL left out still goes to a shard, so that the shard writer counts it.
        """
        results = self.normalize_many(urls)
        routed = [
            url if isinstance(result, InvalidURLError) else result
            for url, result in zip(urls, results, strict=True)
        ]
        return routed, shards_of(routed, self.shards)

    def route(self, url: str) -> int:
        """The shard of one URL (given as in the input)."""
        return self.route_many([url])[1][0]


class _ShardFiles(SitemapWriter):
    """The writer's cutting, markup and gzip, producing one shard's numbered children.

    Every file is a child, gzipped from the start when gzipping; instead of publishing,
    closing names each with the shard's stem and moves it to ``files_dir``.
    """

    def __init__(self, scratch: Path, shard: int, options: ShardOptions) -> None:
        super().__init__(
            scratch / "work",
            base_url=options.base_url,
            gzip=options.gzip,
            max_urls=options.max_urls,
            max_bytes=options.max_bytes,
            name=shard_stem(options.name, shard),
            format=options.format,
            protocol=options.protocol,
            keep_session_ids=options.keep_session_ids,
            assume_tz=options.assume_tz,
            stylesheet=options.stylesheet_href,
            compress_level=options.compress_level,
            split_news=False,  # a news set would have to span the shards: news stays inline
        )
        self.files_dir = scratch / "files"
        self.files_dir.mkdir()
        self.files: list[ChildFile] = []

    _single_file_possible = False  # every child is a child: gzipped from the start
    _trusted_input = True  # write_columns normalised and de-duplicated them
    _reciprocal_hreflang = False  # the versions of a page may lie in other shards

    def _publish(self) -> WriteResult:
        suffix = self._suffix + (".gz" if self.gzip else "")
        for number, child in enumerate(self._children, start=1):
            result = child.result
            name = child_file_name(self.name, number, result.sha256, suffix)
            os.replace(result.path, self.files_dir / name)
            sizes = (result.raw_bytes, result.file_bytes)
            self.files.append(ChildFile(name, child.urls, child.lastmod, *sizes, result.sha256))
        names = [child.name for child in self.files]
        raw = sum(child.raw_bytes for child in self.files)
        written = sum(child.file_bytes for child in self.files)
        return self._make_result("", names, raw, written)


def _deliver(files: Sequence[ChildFile], source: Path, target: ShardTarget) -> None:
    if target.local:
        for child in files:
            os.replace(source / child.name, Path(target.location) / child.name)
        return
    folder = RemoteFolder(target.location, target.storage_options)
    for child in files:
        folder.put_file(child.name, source / child.name, child.file_bytes)


def write_shard(
    entries: Iterable[str | URLEntry], shard: int, *, target: ShardTarget, options: ShardOptions
) -> ShardManifest:
    """Write the children of one shard and say what they are.

    ``entries`` are the shard's URLs or :class:`URLEntry` values in input order (the first
    of duplicates wins), as routed by :class:`ShardRouter`. They are held in memory to be
    sorted: a shard should be a few million URLs at most. Writing the same shard twice
    gives the same files under the same names, so an engine may retry it freely.
    """
    return write_columns(_columns(list(entries)), shard, target=target, options=options)


#: Entries by column: URLs, then lastmods, changefreqs and priorities (None when all are),
#: then the entries with extensions whole, by position.
Columns = tuple[
    list[str],
    list[str | date | datetime | None] | None,
    list[str | None] | None,
    list[float | None] | None,
    dict[int, URLEntry],
]


def _columns(entries: list[str | URLEntry]) -> Columns:
    locs: list[str] = []
    lastmods: list[str | date | datetime | None] = []
    changefreqs: list[str | None] = []
    priorities: list[float | None] = []
    whole: dict[int, URLEntry] = {}
    for position, entry in enumerate(entries):
        if type(entry) is str:
            locs.append(entry)
            lastmods.append(None)
            changefreqs.append(None)
            priorities.append(None)
            continue
        assert isinstance(entry, URLEntry)
        if entry.has_extensions:
            whole[position] = entry
        locs.append(entry.loc)
        lastmods.append(entry.lastmod)
        changefreqs.append(entry.changefreq)
        priorities.append(entry.priority)

    def unless_empty(column: list[Any]) -> list[Any] | None:
        return None if column.count(None) == len(column) else column

    return (
        locs,
        unless_empty(lastmods),
        unless_empty(changefreqs),
        unless_empty(priorities),
        whole,
    )


def _join(batches: Sequence[Columns]) -> Columns:
    """Batches of columns as one, a column staying None when it is empty in every batch."""
    if len(batches) == 1:
        return batches[0]
    locs: list[str] = []
    optional: list[list[Any] | None] = [None, None, None]
    whole: dict[int, URLEntry] = {}
    for batch in batches:
        offset = len(locs)
        for number in range(3):
            column = batch[1 + number]
            if column is not None and optional[number] is None:
                optional[number] = [None] * offset
            target = optional[number]
            if target is not None:
                target += column if column is not None else [None] * len(batch[0])
        locs += batch[0]
        whole.update((offset + position, entry) for position, entry in batch[4].items())
    return (locs, optional[0], optional[1], optional[2], whole)


def _normalize(
    raw: list[str], router: ShardRouter, skips: _Skips
) -> tuple[list[str], list[int] | None]:
    """The URLs kept, normalised, and their positions in ``raw`` (None: all of them)."""
    locs: list[str] = []
    kept: list[int] | None = None
    for start in range(0, len(raw), _BATCH):
        batch = raw[start : start + _BATCH]
        results = router.normalize_many(batch)
        if results == batch:  # the common case: every URL normal already
            locs += batch
            if kept is not None:
                kept += range(start, start + len(batch))
            continue
        if kept is None:
            kept = list(range(start))
        for offset, result in enumerate(results):
            if isinstance(result, InvalidURLError):
                skips.add(result.reason, batch[offset], result.message)
            else:
                locs.append(result)
                kept.append(start + offset)
    return locs, kept


def write_columns(
    columns: Columns, shard: int, *, target: ShardTarget, options: ShardOptions
) -> ShardManifest:
    """:func:`write_shard` for entries given by column, as engines hold them."""
    if not 0 <= shard < options.shards:
        raise SitemapError(f"shard {shard} is outside 0 to {options.shards - 1}")
    raw, lastmods, changefreqs, priorities, whole = columns
    skips = _Skips(options.strict)
    locs, kept = _normalize(raw, ShardRouter(options), skips)
    order = sorted(range(len(locs)), key=locs.__getitem__)  # stable: input order among equals
    files: list[ChildFile] = []
    if order:
        parent = Path(target.location) if target.local else None
        scratch = Path(tempfile.mkdtemp(prefix=f".shard-{shard:04d}-", dir=parent))
        try:
            engine = _ShardFiles(scratch, shard, options)
            try:
                add = engine.add
                previous = None
                for index in order:
                    loc = locs[index]
                    if loc == previous:
                        skips.add("duplicate", loc, f"duplicate URL {loc}")
                        continue
                    previous = loc
                    position = index if kept is None else kept[index]
                    if whole and position in whole:
                        add(replace(whole[position], loc=loc))
                        continue
                    add(
                        loc,
                        lastmod=None if lastmods is None else lastmods[position],
                        changefreq=None if changefreqs is None else changefreqs[position],
                        priority=None if priorities is None else priorities[position],
                    )
            except BaseException:
                engine.abort()
                raise
            engine.close()
            files = engine.files
            _deliver(files, engine.files_dir, target)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return ShardManifest(
        shard=shard,
        children=tuple(files),
        urls=sum(child.urls for child in files),
        skipped=dict(skips.counts),
        skipped_examples={reason: tuple(urls) for reason, urls in skips.examples.items()},
    )


class ShardedOutput:
    """The driver's side of a sharded run: where shards write, and the publishing at the end.

    Opening it on a local folder takes the folder's lock and creates the staging folder, as
    :class:`~sitemapkit.SitemapWriter` does; :attr:`target` tells shard writers where to
    put their children. :meth:`publish` writes the index and makes the set live; leaving
    the ``with`` block on an error, or :meth:`abort`, drops everything and keeps the
    published set as it was.
    """

    def __init__(
        self,
        out: str | os.PathLike[str],
        options: ShardOptions,
        *,
        storage_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.options = options
        self._checked = options.check()
        self._staging: Staging | None = None
        self._remote: RemoteFolder | None = None
        self._scratch: Path | None = None
        self.out = os.fspath(out)
        if is_local(out):
            self._staging = Staging(local_path(out), options.name)
            self.target = ShardTarget(str(self._staging.path), local=True)
        else:
            self._remote = RemoteFolder(self.out, storage_options)
            self.target = ShardTarget(
                self._remote.url, local=False, storage_options=dict(storage_options or {})
            )
        self._done = False

    def scratch_dir(self) -> Path:
        """A private local folder for this run's temporary files (removed when it ends)."""
        if self._staging is not None:
            return Path(tempfile.mkdtemp(prefix=".spill-", dir=self._staging.path))
        self._scratch = Path(tempfile.mkdtemp(prefix="sitemapkit-spill-"))
        return self._scratch

    def publish(self, manifests: Iterable[ShardManifest]) -> ShardedResult:
        """Write the index over every shard's children and make the new set live."""
        if self._done:
            raise RuntimeError("this ShardedOutput is finished")
        gathered = sorted(manifests, key=lambda manifest: manifest.shard)
        shards = [manifest.shard for manifest in gathered]
        if len(set(shards)) != len(shards) or not all(
            0 <= shard < self.options.shards for shard in shards
        ):
            raise SitemapError(f"shard manifests do not match {self.options.shards} shards")
        children = [child for manifest in gathered for child in manifest.children]
        skipped, examples = _merge_skips(gathered)
        if not children:
            described = ", ".join(f"{count:,} {reason}" for reason, count in skipped.items())
            raise SitemapError(
                "nothing to write: no URL was accepted" + (f" ({described})" if described else "")
            )
        profile = self._checked.profile
        if len(children) > profile.max_sitemaps:
            raise LimitError(
                f"{len(children):,} sitemaps would be needed; an index may list at most "
                f"{profile.max_sitemaps:,} (protocol {profile.version})"
            )
        base = self._checked.base_url
        refs = [SitemapRef(loc=base + child.name, lastmod=child.lastmod) for child in children]
        names = [child.name for child in children]
        entry = self.options.name + ".xml"
        extras = self._extra_files()
        if self._staging is not None:
            for extra, content in extras.items():
                sink = FileSink(self._staging.path / extra, gzip=False)
                sink.write(content)
                sink.close()
            write_index_file(
                self._staging.path / entry, profile, refs, stylesheet=self.options.stylesheet_href
            )
            self._staging.publish([*names, *extras], entry)
            where = str(self._staging.out_dir)
            self._finish()
            locations = [os.path.join(where, name) for name in (entry, *names, *extras)]
        else:
            assert self._remote is not None
            index = render_index(profile, refs, stylesheet=self.options.stylesheet_href)
            _publish_remote(
                self._remote, self.options.name, names, entry, index.encode("utf-8"), extras
            )
            self._finish()
            locations = [self._remote.url_of(name) for name in (entry, *names, *extras)]
        return ShardedResult(
            out=self.out,
            entry_point=locations[0],
            entry_url=base + entry,
            children=tuple(locations[1 : 1 + len(names)]),
            shards=self.options.shards,
            urls=sum(child.urls for child in children),
            skipped=skipped,
            skipped_examples=examples,
            raw_bytes=sum(child.raw_bytes for child in children),
            file_bytes=sum(child.file_bytes for child in children),
            stylesheet=locations[-1] if extras else None,
        )

    def _extra_files(self) -> dict[str, bytes]:
        """Files published with the set besides the sitemaps: the stylesheet when asked for."""
        if not self.options.xsl:
            return {}
        from .stylesheet import SITEMAP_XSL

        return {self.options.name + ".xsl": SITEMAP_XSL.encode("utf-8")}

    def _finish(self) -> None:
        self._done = True
        if self._staging is not None:
            self._staging.release()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    def abort(self) -> None:
        """Drop the run: the published set stays as it was (unreferenced uploads may stay)."""
        if not self._done:
            self._finish()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.abort()


def _merge_skips(
    manifests: Sequence[ShardManifest],
) -> tuple[dict[str, int], dict[str, tuple[str, ...]]]:
    counts: dict[str, int] = {}
    examples: dict[str, list[str]] = {}
    for manifest in manifests:
        for reason, count in manifest.skipped.items():
            counts[reason] = counts.get(reason, 0) + count
        for reason, urls in manifest.skipped_examples.items():
            kept = examples.setdefault(reason, [])
            kept += urls[: _EXAMPLES - len(kept)]
    return counts, {reason: tuple(urls) for reason, urls in examples.items()}


def _publish_remote(
    folder: RemoteFolder,
    name: str,
    children: Sequence[str],
    entry: str,
    index: bytes,
    extras: Mapping[str, bytes],
) -> None:
    """Children are in place already: check them, then switch the entry point, then tidy."""
    present = folder.names()
    missing = [child for child in children if child not in present]
    if missing:
        raise PublishError(
            f"{len(missing):,} children are missing (e.g. {missing[0]}); nothing was published",
            source=folder.url,
        )
    manifest_name = _MANIFEST.format(name=name)
    previous = folder.read_json(manifest_name)
    previous_files = previous.get("files", []) if isinstance(previous, dict) else []
    for extra, content in extras.items():
        folder.put(extra, content)
    folder.put(entry, index)  # the switch: one object written in one request
    files = [*children, *extras, entry]
    folder.put(manifest_name, json.dumps({"files": files}).encode("utf-8"))
    pattern = child_name_pattern(name)
    stale = {found for found in present if pattern.fullmatch(found)}
    stale |= {found for found in previous_files if isinstance(found, str) and "/" not in found}
    folder.remove(stale - set(files))


class _Spill:
    """One file per shard in a local folder: routed entries wait there in input order.

    Batches are pickled by column (lists of strings pickle about ten times faster than
    dataclass instances); entries with extensions travel whole.
    """

    def __init__(self, folder: Path, shards: int) -> None:
        self.folder = folder
        self.buffers: list[list[str | URLEntry]] = [[] for _ in range(shards)]
        self.buffered = 0

    def path(self, shard: int) -> Path:
        return self.folder / f"{shard:05d}.pickle"

    def add_many(self, shards: Sequence[int], entries: Sequence[str | URLEntry]) -> None:
        buffers = self.buffers
        for shard, entry in zip(shards, entries, strict=True):
            buffers[shard].append(entry)
        self.buffered += len(entries)
        if self.buffered >= _SPILL_FLUSH:
            self.flush()

    def flush(self) -> None:
        for shard, buffer in enumerate(self.buffers):
            if buffer:
                with open(self.path(shard), "ab") as file:
                    pickle.dump(_columns(buffer), file, protocol=pickle.HIGHEST_PROTOCOL)
                buffer.clear()
        self.buffered = 0

    def read(self, shard: int) -> Columns:
        """The shard's entries, all batches joined."""
        path = self.path(shard)
        batches: list[Columns] = []
        if path.exists():
            with open(path, "rb") as file:
                while True:
                    try:
                        batches.append(pickle.load(file))  # noqa: S301 - our own file
                    except EOFError:
                        break
            path.unlink()
        return _join(batches)


def write_sharded(
    entries: Iterable[str | URLEntry],
    out: str | os.PathLike[str],
    options: ShardOptions,
    *,
    storage_options: Mapping[str, Any] | None = None,
) -> ShardedResult:
    """Route, write and publish every shard in this process: the single-machine reference.

    Entries are routed to one spill file per shard, then each shard is written in turn, so
    memory holds one shard at a time. The result is byte for byte what
    :func:`sitemapkit.dask.write_sitemaps` publishes with the same shard count.
    """
    with ShardedOutput(out, options, storage_options=storage_options) as output:
        spill = _Spill(output.scratch_dir(), options.shards)
        router = ShardRouter(options)
        iterator = iter(entries)
        while batch := list(islice(iterator, _BATCH)):
            urls = [entry if type(entry) is str else _loc(entry) for entry in batch]
            routed, shards = router.route_many(urls)
            spill.add_many(
                shards, [url if type(e) is str else e for e, url in zip(batch, routed, strict=True)]
            )
        spill.flush()
        manifests = [
            write_columns(spill.read(shard), shard, target=output.target, options=options)
            for shard in range(options.shards)
        ]
        return output.publish(manifests)


def _loc(entry: object) -> str:
    if isinstance(entry, URLEntry):
        return entry.loc
    raise TypeError(f"expected a URL or a URLEntry, not {type(entry).__name__}")
