"""The ``sitemapkit`` command: a thin layer over the library, one command per job.

Exit status: 0 done; 1 the job found errors (``--strict``, validation errors); 2 the job
could not run (bad options, unreadable input). Errors are one line on stderr, never a
traceback.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import tzinfo
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from rich.console import Console

from . import __version__
from .dates import parse_timezone
from .errors import InvalidValueError, SitemapError, StrictError
from .model import Problem, URLEntry
from .shard import ShardedResult, ShardOptions, write_sharded
from .sources import from_directory, from_urllist
from .sources.directory import DEFAULT_INCLUDE
from .storage import is_local, local_path
from .writer import SitemapWriter, WriteResult

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
T = TypeVar("T")

stderr = Console(stderr=True, highlight=False, soft_wrap=True)
stdout = Console(highlight=False, soft_wrap=True)


class ProblemPrinter:
    """Prints the first problems of a run as warnings and counts the rest."""

    def __init__(self, *, strict: bool, shown: int = 20) -> None:
        self.strict = strict
        self.shown = shown
        self.count = 0

    def __call__(self, problem: Problem) -> None:
        if self.strict:
            raise StrictError(problem.message, source=problem.source, line=problem.line)
        self.count += 1
        if self.count <= self.shown:
            stderr.print(f"warning: {problem}", markup=False)

    def finish(self) -> None:
        if self.count > self.shown:
            stderr.print(f"warning: {self.count - self.shown:,} more problems not shown")


def _timezone(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tzinfo | None:
    if value is None:
        return None
    try:
        return parse_timezone(value)
    except InvalidValueError as exc:
        raise click.BadParameter(exc.message) from exc


def _with_progress(entries: Iterable[T], label: str) -> Iterator[T]:
    """Count entries on a live line on stderr, when stderr is a terminal."""
    if not stderr.is_terminal:
        yield from entries
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=stderr, transient=True) as progress:
        task = progress.add_task(label, total=None)
        iterator = iter(entries)
        count = 0
        while batch := list(itertools.islice(iterator, 10_000)):
            yield from batch
            count += len(batch)
            progress.update(task, description=f"{label}: {count:,} URLs")


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="sitemapkit")
def cli() -> None:
    """Generate, validate, discover and read sitemaps (sitemaps.org 0.9 and Google 0.84)."""


def _print_summary(result: WriteResult | ShardedResult, problems: int) -> None:
    kind = f"index of {len(result.children):,} sitemaps" if result.is_index else "sitemap"
    stdout.print(f"{result.entry_point}  ({kind}, {result.urls:,} URLs)", markup=False)
    for child in result.children:
        stdout.print(f"  {child}", markup=False)
    size = f"{result.raw_bytes:,} bytes of XML" + (
        f", {result.file_bytes:,} on disk" if result.file_bytes != result.raw_bytes else ""
    )
    stdout.print(f"written: {result.urls:,} URLs, {size}", markup=False)
    for reason, count in sorted(result.skipped.items()):
        examples = ", ".join(result.skipped_examples.get(reason, ())[:3])
        stdout.print(f"left out ({reason}): {count:,}  e.g. {examples}", markup=False)
    if problems:
        stdout.print(f"input problems (rows skipped): {problems:,}")


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--base-url",
    required=True,
    metavar="URL",
    help="Where OUT is served; relative URLs resolve against it and every URL must lie under it.",
)
@click.option(
    "--out",
    "out_dir",
    required=True,
    metavar="DIR|URL",
    help="Output folder (created if missing; published atomically), or an fsspec URL "
    "(s3://bucket/path/, gs://..., az://...), which implies --shards.",
)
@click.option(
    "--urls",
    "url_lists",
    multiple=True,
    metavar="FILE",
    help="URL list: .txt, .csv, .tsv or .jsonl, optionally .gz; '-' for stdin. Repeatable.",
)
@click.option(
    "--urls-format",
    type=click.Choice(["auto", "txt", "csv", "tsv", "jsonl"]),
    default="auto",
    show_default=True,
    help="Format of the --urls files.",
)
@click.option(
    "--encoding", default="utf-8", show_default=True, help="Text encoding of the --urls files."
)
@click.option(
    "--dir",
    "folders",
    multiple=True,
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder of static files mapped under --base-url. Repeatable.",
)
@click.option(
    "--include",
    multiple=True,
    metavar="GLOB",
    help=f"Files of --dir to list [default: {', '.join(DEFAULT_INCLUDE)}].",
)
@click.option("--exclude", multiple=True, metavar="GLOB", help="Files of --dir to leave out.")
@click.option(
    "--keep-noindex",
    is_flag=True,
    help="List --dir pages even when they carry a robots noindex meta tag.",
)
@click.option(
    "--gzip/--no-gzip", default=True, show_default=True, help="Compress the children of an index."
)
@click.option(
    "--max-urls",
    type=click.IntRange(1),
    metavar="N",
    help="URLs per file [default: the protocol limit, 50,000].",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(1),
    metavar="N",
    help="Uncompressed bytes per file [default: the protocol limit].",
)
@click.option(
    "--name",
    default="sitemap",
    show_default=True,
    help="File name stem: NAME.xml, NAME-00001-<hash>.xml.gz, ...",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["xml", "txt"]),
    default="xml",
    show_default=True,
    help="XML sitemaps or text sitemaps.",
)
@click.option(
    "--protocol",
    type=click.Choice(["0.9", "0.84"]),
    default="0.9",
    show_default=True,
    help="sitemaps.org 0.9, or Google's older 0.84.",
)
@click.option(
    "--keep-session-ids",
    is_flag=True,
    help="Keep session parameters (PHPSESSID, jsessionid, sid, ...) in URLs.",
)
@click.option(
    "--timezone",
    "assume_tz",
    callback=_timezone,
    metavar="TZ",
    help="Zone for times given without one (UTC, +02:00, Europe/Paris).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Fail (exit 1, nothing published) on any left-out URL or bad input row.",
)
@click.option(
    "--shards",
    type=click.IntRange(1, 50_000),
    metavar="N",
    help="Spread URLs over N shards by a stable hash and write each shard's children apart "
    "(sorted; the same files on one machine and on Dask).",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Run the shards in this process, or on Dask (needs sitemapkit[dask] and --shards).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS|local[:N]",
    help="Dask scheduler for --engine dask: a scheduler address, or a local cluster of N "
    "worker processes [default: local, one per core].",
)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def generate(
    base_url: str,
    out_dir: str,
    url_lists: tuple[str, ...],
    urls_format: Any,
    encoding: str,
    folders: tuple[Path, ...],
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    keep_noindex: bool,
    gzip: bool,
    max_urls: int | None,
    max_bytes: int | None,
    name: str,
    output_format: Any,
    protocol: Any,
    keep_session_ids: bool,
    assume_tz: tzinfo | None,
    strict: bool,
    shards: int | None,
    engine: str,
    scheduler: str | None,
    quiet: bool,
) -> None:
    """Write sitemaps for every URL of the given sources into OUT.

    \b
    sitemapkit generate --base-url https://example.com/ --dir public --out public
    sitemapkit generate --base-url https://example.com/ --urls urls.csv.gz --out public
    """
    if not url_lists and not folders:
        raise click.UsageError("give at least one source: --urls FILE or --dir DIR")
    if engine == "dask" and shards is None:
        raise click.UsageError("--engine dask needs --shards N")
    if scheduler is not None and engine != "dask":
        raise click.UsageError("--scheduler goes with --engine dask")
    problems = ProblemPrinter(strict=strict)
    sources: list[Iterable[URLEntry]] = [
        from_urllist(
            path, format=urls_format, encoding=encoding, assume_tz=assume_tz, on_problem=problems
        )
        for path in url_lists
    ]
    folder_sources = [
        from_directory(
            folder,
            base_url=base_url,
            include=include or DEFAULT_INCLUDE,
            exclude=exclude,
            skip_noindex=not keep_noindex,
            on_problem=problems,
        )
        for folder in folders
    ]
    options = {
        "base_url": base_url,
        "gzip": gzip,
        "max_urls": max_urls,
        "max_bytes": max_bytes,
        "name": name,
        "format": output_format,
        "protocol": protocol,
        "keep_session_ids": keep_session_ids,
        "strict": strict,
        "assume_tz": assume_tz,
    }
    result: WriteResult | ShardedResult
    if engine == "dask":
        assert shards is not None
        result = _generate_on_dask(url_lists, folder_sources, out_dir, shards, scheduler, options)
    else:
        chained = itertools.chain.from_iterable([*sources, *folder_sources])
        entries = chained if quiet else _with_progress(chained, "generating")
        if shards is None and is_local(out_dir):
            with SitemapWriter(local_path(out_dir), **options) as writer:
                writer.add_all(entries)
            result = writer.result
        else:
            result = write_sharded(entries, out_dir, ShardOptions(shards=shards or 1, **options))
    problems.finish()
    if not quiet:
        _print_summary(result, problems.count)


def _generate_on_dask(
    url_lists: tuple[str, ...],
    folder_sources: list[Iterator[URLEntry]],
    out: str,
    shards: int,
    scheduler: str | None,
    options: dict[str, Any],
) -> ShardedResult:
    """Read the URL lists on the cluster (fsspec URLs and globs), the folders here."""
    try:
        import dask.bag as db

        from . import dask as on_dask
    except ImportError as exc:
        raise click.UsageError(
            f"--engine dask needs the dask extra: pip install 'sitemapkit[dask]' ({exc})"
        ) from exc
    if "-" in url_lists:
        raise click.UsageError("--engine dask reads files, not standard input")
    with on_dask.connect(scheduler):
        parts: list[Any] = []
        if url_lists:
            assume_tz, strict = options["assume_tz"], options["strict"]
            parts.append(on_dask.read_urls(url_lists, assume_tz=assume_tz, strict=strict))
        local = [entry for source in folder_sources for entry in source]
        if local:
            parts.append(db.from_sequence(local, partition_size=100_000))
        data = parts[0] if len(parts) == 1 else db.concat([_as_bag(part) for part in parts])
        return on_dask.write_sitemaps(data, out=out, shards=shards, **options)


def _as_bag(data: Any) -> Any:
    import dask.bag as db

    return data if isinstance(data, db.Bag) else data.to_bag(format="dict")


def _fail(message: str, code: int) -> NoReturn:
    stderr.print(f"error: {message}", markup=False)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``sitemapkit`` console script."""
    run: Callable[..., Any] = cli.main
    try:
        run(args=argv, prog_name="sitemapkit", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        _fail("interrupted", 130)
    except SitemapError as exc:
        _fail(str(exc), exc.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}", 2)
