"""The ``sitemapkit`` command: a thin layer over the library, one command per job.

Exit status: 0 done; 1 the job found errors (``--strict``, validation errors); 2 the job
could not run (bad options, unreadable input). Errors are one line on stderr, never a
traceback.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import gc
import io
import itertools
import json
import operator
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click
from click.core import ParameterSource
from rich.console import Console

# Only what every command (and ``ls``, the one that must start fast) needs is imported here;
# each command imports the rest of its implementation when it runs.
from . import __version__
from ._defaults import DEFAULT_INCLUDE, DEFAULT_PAGE_BYTES, INDEXNOW_ENDPOINT
from .errors import InvalidValueError, SitemapError, StrictError
from .fetch import DEFAULT_MAX_BYTES, FetchSettings
from .model import Problem, URLEntry
from .reader import Reader, ReadLimits, ReadStats

if TYPE_CHECKING:
    from .crawl import CrawlStats
    from .diff import Change
    from .filters import FilterAction, FilterRule
    from .settings import CrawlSource, GenerateResult, GenerateSettings, Source
    from .submit import IndexNowBatch

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


def _timezone(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        from .dates import parse_timezone

        try:
            parse_timezone(value)
        except InvalidValueError as exc:
            raise click.BadParameter(exc.message) from exc
    return value


def _with_progress(entries: Iterable[T], label: str = "generating") -> Iterator[T]:
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


def _shorten(text: str, limit: int = 120) -> str:
    """An example URL cut to fit a summary line (a too-long URL can run to megabytes)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _print_summary(outcome: GenerateResult, problems: int) -> None:
    result = outcome.written
    kind = f"index of {len(result.children):,} sitemaps" if result.is_index else "sitemap"
    stdout.print(f"{result.entry_point}  ({kind}, {result.urls:,} URLs)", markup=False)
    for child in result.children:
        stdout.print(f"  {child}", markup=False)
    size = f"{result.raw_bytes:,} bytes of XML" + (
        f", {result.file_bytes:,} on disk" if result.file_bytes != result.raw_bytes else ""
    )
    stdout.print(f"written: {result.urls:,} URLs, {size}", markup=False)
    for reason, count in sorted(result.skipped.items()):
        examples = ", ".join(
            _shorten(example) for example in result.skipped_examples.get(reason, ())[:3]
        )
        stdout.print(f"left out ({reason}): {count:,}  e.g. {examples}", markup=False)
    for rule, count in outcome.filtered.items():
        stdout.print(f"filtered out ({rule}): {count:,}", markup=False)
    for note, count in sorted(result.notes.items()):
        stdout.print(f"{note}: {count:,}", markup=False)
    if result.news is not None:
        news = result.news
        stdout.print(f"news: {news.entry_point}  ({news.urls:,} URLs)", markup=False)
    if problems:
        stdout.print(f"input problems (rows skipped): {problems:,}")
    if outcome.changes is not None:
        c = outcome.changes
        since = "first run" if c.first_run else "since the last run"
        stdout.print(
            f"{since}: {c.added:,} added, {c.changed:,} changed, {c.removed:,} removed, "
            f"{c.unchanged:,} unchanged",
            markup=False,
        )
    if result.stylesheet is not None:
        stdout.print(f"stylesheet: {result.stylesheet}", markup=False)
    if outcome.html_pages is not None:
        stdout.print(f"HTML site map: {outcome.html_pages:,} pages", markup=False)
    if outcome.robots_changed is not None:
        verb = "updated" if outcome.robots_changed else "already up to date"
        stdout.print(f"robots.txt {verb}: Sitemap: {outcome.sitemap_url}", markup=False)


# Filter rules are ordered, but click gathers each option's values apart; this command
# records the order in which --include-url and --exclude-url were given.
_FILTER_OPTIONS = ("include_url", "exclude_url")
_FILTER_ORDER = "sitemapkit.filter_order"


class _OrderedFiltersCommand(click.Command):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        _values, _rest, order = self.make_parser(ctx).parse_args(args=list(args))
        ctx.meta[_FILTER_ORDER] = [p.name for p in order if p.name in _FILTER_OPTIONS]
        return super().parse_args(ctx, args)


# CLI option name -> GenerateSettings field, for the options that override the config file.
_SETTING_OPTIONS: Mapping[str, str] = {
    "base_url": "base_url",
    "out_dir": "out_dir",
    "gzip": "gzip",
    "max_urls": "max_urls",
    "max_bytes": "max_bytes",
    "name": "name",
    "output_format": "format",
    "protocol": "protocol",
    "keep_session_ids": "keep_session_ids",
    "timezone": "timezone",
    "strict": "strict",
    "quiet": "quiet",
    "robots": "robots",
    "incremental": "incremental",
    "xsl": "xsl",
    "html": "html",
    "html_max_pages": "html_max_pages",
}
_GIVEN = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def _cli_filters(ctx: click.Context, params: Mapping[str, Any]) -> list[FilterRule]:
    from .filters import FilterRule

    remaining = {name: list(params[name]) for name in _FILTER_OPTIONS}
    rules = []
    for name in ctx.meta.get(_FILTER_ORDER, []):
        action: FilterAction = "include" if name == "include_url" else "exclude"
        rules.append(FilterRule(action, remaining[name].pop(0)))
    return rules


def _cli_sources(params: Mapping[str, Any]) -> list[Source]:
    from .settings import AccessLogSource, DirectorySource, SitemapSource, URLListSource
    from .sources.accesslog import DEFAULT_BOT_AGENTS

    # Existing sitemaps first: the first sighting of a URL wins, so their lastmod is kept.
    sources: list[Source] = [SitemapSource(params["sitemaps"])] if params["sitemaps"] else []
    sources += [
        URLListSource((path,), format=params["urls_format"], encoding=params["encoding"])
        for path in params["url_lists"]
    ]
    sources += [
        DirectorySource(
            str(folder),
            include=params["include"] or DEFAULT_INCLUDE,
            exclude=params["exclude"],
            keep_noindex=params["keep_noindex"],
        )
        for folder in params["folders"]
    ]
    if params["access_logs"]:
        default = () if params["keep_bots"] else DEFAULT_BOT_AGENTS
        agents = params["exclude_agent"] or default
        sources.append(
            AccessLogSource(
                params["access_logs"],
                format=params["log_format"],
                encoding=params["encoding"],
                exclude_agents=agents,
                lastmod_from_requests=params["lastmod_from_requests"],
            )
        )
    crawls = params.get("crawl_urls") or ()
    if len(crawls) > 1 and (params["state"] or params["report"]):
        raise click.UsageError("--state and --report go with a single --crawl URL")
    sources += [_crawl_source(url, params) for url in crawls]
    return sources


def _crawl_source(url: str, params: Mapping[str, Any]) -> CrawlSource:
    from .crawl import CrawlSettings
    from .settings import CrawlSource

    types = [t for value in params["include_types"] for t in value.split(",") if t.strip()]
    settings = CrawlSettings(
        url,
        extra_hosts=params["extra_host"],
        seed_sitemaps=params["seed_sitemaps"],
        follow_nofollow=params["follow_nofollow"],
        include_types=tuple(types),
        images=params["images"],
        alternates=params["alternates"],
        max_pages=params["max_pages"],
        max_depth=params["max_depth"],
        max_time=params["max_time"] or None,
        max_page_bytes=params["max_page_bytes"],
        max_per_pattern=params["max_per_pattern"] or None,
        delay=params["delay"],
        max_crawl_delay=params["max_crawl_delay"],
        fetch=_settings({**params, "max_bytes": None}),
    )
    return CrawlSource(
        settings,
        state=None if params["state"] is None else str(params["state"]),
        report=None if params["report"] is None else str(params["report"]),
    )


def generate_settings(ctx: click.Context, params: Mapping[str, Any]) -> GenerateSettings:
    """The one path from options (and ``--config``) to settings: what the user typed wins."""
    from .config import load_settings

    overrides = {
        field: params[option]
        for option, field in _SETTING_OPTIONS.items()
        if ctx.get_parameter_source(option) in _GIVEN
    }
    return load_settings(
        params["config"],
        overrides=overrides,
        sources=_cli_sources(params),
        filters=_cli_filters(ctx, params),
    )


# A crawl fetches 8 pages at a time by default; ls and discover keep 4.
_CRAWL_CONTEXT = {**CONTEXT_SETTINGS, "default_map": {"concurrency": 8, "per_host": 8}}


@cli.command(cls=_OrderedFiltersCommand, context_settings=_CRAWL_CONTEXT)
@click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Site description (sitemapkit.toml, see 'sitemapkit init'); options given here "
    "override it.",
)
@click.option(
    "--base-url",
    metavar="URL",
    help="Where OUT is served; relative URLs resolve against it and every URL must lie under it.",
)
@click.option(
    "--out",
    "out_dir",
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
    "--encoding",
    default="utf-8",
    show_default=True,
    help="Text encoding of the --urls and --access-log files (logs fall back to latin-1 per line).",
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
    "--sitemap",
    "sitemaps",
    multiple=True,
    metavar="PATH|URL",
    help="An existing sitemap or index whose entries (with their lastmod) become input; "
    "local or remote. Repeatable.",
)
@click.option(
    "--access-log",
    "access_logs",
    multiple=True,
    metavar="FILE",
    help="Web-server access log (Common, Combined or W3C/IIS), plain or gzip; a glob such "
    "as 'logs/access.log*' reads rotated files. Repeatable.",
)
@click.option(
    "--log-format",
    type=click.Choice(["auto", "common", "combined", "w3c"]),
    default="auto",
    show_default=True,
    help="Format of the --access-log files.",
)
@click.option(
    "--exclude-agent",
    multiple=True,
    metavar="REGEX",
    help="Leave out requests whose user agent matches (case-insensitive search); replaces "
    "the default list of bots. Repeatable.",
)
@click.option(
    "--keep-bots",
    is_flag=True,
    help="Do not leave out the default list of bots (--exclude-agent still applies).",
)
@click.option(
    "--lastmod-from-requests",
    is_flag=True,
    help="lastmod of a logged URL = its newest request time (a request is not an edit).",
)
@click.option(
    "--crawl",
    "crawl_urls",
    multiple=True,
    metavar="URL",
    help="Crawl the live site from URL (robots.txt obeyed) and list its indexable pages; "
    "see the crawl options below and 'sitemapkit crawl'. Repeatable.",
)
@click.option(
    "--include-url",
    multiple=True,
    metavar="PATTERN",
    help="Keep URLs matching PATTERN (wildcard over the whole URL; 're:' for a regex). "
    "Rules apply in the order given, the first match decides.",
)
@click.option(
    "--exclude-url",
    multiple=True,
    metavar="PATTERN",
    help="Leave out URLs matching PATTERN (same syntax as --include-url).",
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
    callback=_timezone,
    metavar="TZ",
    help="Zone for times given without one (UTC, +02:00, Europe/Paris).",
)
@click.option(
    "--robots",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="PATH",
    help="robots.txt file to add or update the 'Sitemap:' line in (created if missing).",
)
@click.option(
    "--xsl",
    is_flag=True,
    help="Publish a stylesheet (NAME.xsl) with the sitemaps and link it from each, so a "
    "browser shows them as a table of links.",
)
@click.option(
    "--html",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Also write an HTML site map for visitors: pages grouped by path section, with "
    "their titles.",
)
@click.option(
    "--html-max-pages",
    type=click.IntRange(1),
    default=10_000,
    show_default=True,
    metavar="N",
    help="Pages the --html site map lists at most (the shallowest).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Fail (exit 1, nothing published) on any left-out URL or bad input row.",
)
@click.option(
    "--incremental",
    is_flag=True,
    help="Keep URLs in the shards of the last run (state in OUT/.NAME.sitemapkit.db): "
    "unchanged files are left alone, and 'submit --changed' announces what changed.",
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
def generate(**params: Any) -> None:
    """Write sitemaps for every URL of the given sources into OUT.

    \b
    sitemapkit generate --base-url https://example.com/ --dir public --out public
    sitemapkit generate --base-url https://example.com/ --urls urls.csv.gz --out public
    sitemapkit generate --base-url https://example.com/ --out public \\
        --access-log '/var/log/nginx/access.log*' --exclude-url 're:[?&]replytocom='
    sitemapkit generate --config sitemapkit.toml --robots public/robots.txt
    sitemapkit generate --base-url https://example.com/ --out public \\
        --crawl https://example.com/ --state crawl.sqlite --report excluded.csv
    """
    shards, engine, scheduler = params.pop("shards"), params.pop("engine"), params.pop("scheduler")
    if engine == "dask" and shards is None:
        raise click.UsageError("--engine dask needs --shards N")
    if scheduler is not None and engine != "dask":
        raise click.UsageError("--scheduler goes with --engine dask")
    target = _take_out(params)
    settings = generate_settings(click.get_current_context(), params)
    if engine == "dask":
        assert shards is not None
        _generate(
            settings,
            lambda run_settings, problems, _wrap: _generate_on_dask(
                run_settings, target, shards, scheduler, problems
            ),
        )
    else:
        _generate(settings, shards=shards or (1 if target else None), out=target)


def _take_out(params: dict[str, Any]) -> str | None:
    """Make ``--out`` a local Path in ``params``; an object-store URL is returned instead
    (the settings then hold a placeholder)."""
    from .storage import is_local, local_path

    out: str | None = params["out_dir"]
    remote = out is not None and not is_local(out)
    if out is not None:
        params["out_dir"] = Path(".") if remote else local_path(out)
    return out if remote else None


#: Runs one generate: settings, the problem printer and the progress wrapper in, result out.
Runner = Callable[["GenerateSettings", ProblemPrinter, Any], "GenerateResult"]


def _generate(
    settings: GenerateSettings,
    run: Runner | None = None,
    *,
    shards: int | None = None,
    out: str | None = None,
) -> None:
    """Run ``settings`` with the live displays and print the summary (generate and crawl)."""
    from .settings import CrawlSource
    from .settings import generate as run_generate

    display = _CrawlDisplay(enabled=not settings.quiet and stderr.is_terminal)
    settings = dataclasses.replace(
        settings,
        sources=tuple(
            dataclasses.replace(s, on_progress=display) if isinstance(s, CrawlSource) else s
            for s in settings.sources
        ),
    )
    problems = ProblemPrinter(strict=settings.strict)
    wrap = None if settings.quiet or display.enabled else _with_progress
    try:
        if run is not None:
            outcome = run(settings, problems, wrap)
        else:
            outcome = run_generate(settings, on_problem=problems, wrap=wrap, shards=shards, out=out)
    except KeyboardInterrupt:
        display.close()
        saved = [s.state for s in settings.sources if isinstance(s, CrawlSource) and s.state]
        hint = f"; crawl state saved in {', '.join(saved)}: run again to continue" if saved else ""
        _fail(f"interrupted, nothing published{hint}", 130)
    finally:
        display.close()
    problems.finish()
    if not settings.quiet:
        _print_summary(outcome, problems.count)
        display.print_summary()


def _generate_on_dask(
    settings: GenerateSettings,
    out: str | None,
    shards: int,
    scheduler: str | None,
    problems: ProblemPrinter,
) -> GenerateResult:
    """Read the URL lists on the cluster (fsspec URLs and globs), other sources here."""
    try:
        import dask.bag as db

        from . import dask as on_dask
        from .robots import update_robots_txt
        from .settings import GenerateResult, URLListSource
    except ImportError as exc:
        raise click.UsageError(
            f"--engine dask needs the dask extra: pip install 'sitemapkit[dask]' ({exc})"
        ) from exc
    if settings.filters or any(
        source.filters or source.changefreq is not None or source.priority is not None
        for source in settings.sources
    ):
        raise click.UsageError("--engine dask takes no URL filters or per-source defaults")
    if settings.html is not None:
        raise click.UsageError("--engine dask writes no --html site map")
    lists = [source for source in settings.sources if isinstance(source, URLListSource)]
    if any("-" in source.paths for source in lists):
        raise click.UsageError("--engine dask reads files, not standard input")
    with on_dask.connect(scheduler):
        parts: list[Any] = [
            on_dask.read_urls(
                source.paths,
                format=source.format,
                encoding=source.encoding,
                assume_tz=settings.tzinfo,
                strict=settings.strict,
            )
            for source in lists
        ]
        local = [
            entry
            for source in settings.sources
            if not isinstance(source, URLListSource)
            for entry in source.entries(settings, problems)
        ]
        if local:
            parts.append(db.from_sequence(local, partition_size=100_000))
        if not parts:
            raise click.UsageError("give at least one source")
        data = parts[0] if len(parts) == 1 else db.concat([_as_bag(part) for part in parts])
        options = settings.shard_options(shards)
        written = on_dask.write_sitemaps(
            data,
            out=out or settings.out_dir,
            **{field.name: getattr(options, field.name) for field in dataclasses.fields(options)},
        )
    robots = settings.robots
    changed = None if robots is None else update_robots_txt(robots, written.entry_url)
    return GenerateResult(written, written.entry_url, changed)


def _as_bag(data: Any) -> Any:
    import dask.bag as db

    return data if isinstance(data, db.Bag) else data.to_bag(format="dict")


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("path", default="sitemapkit.toml", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH if it exists.")
def init(path: Path, force: bool) -> None:
    """Write a commented example config to PATH [default: sitemapkit.toml].

    \b
    sitemapkit init && sitemapkit generate --config sitemapkit.toml
    """
    from .config import write_example_config

    written = write_example_config(path, force=force)
    stdout.print(f"wrote {written}: edit it, then run", markup=False)
    stdout.print(f"  sitemapkit generate --config {written}", markup=False)


def _print_batch(batch: IndexNowBatch) -> None:
    stdout.print(f"IndexNow: {batch.urls:,} URLs, {batch.message}", markup=False)


def _submitted_urls(urls: tuple[str, ...], files: tuple[str, ...]) -> Iterable[str] | None:
    if not urls and not files:
        return None
    from .sources import from_urllist

    from_files = (e.loc for f in files for e in from_urllist(f, format="txt"))
    return itertools.chain(urls, from_files)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("urls", nargs=-1, metavar="[URL]...")
@click.option(
    "--urls",
    "url_files",
    multiple=True,
    metavar="FILE",
    help="File of URLs, one a line ('-': stdin).",
)
@click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Take base_url, out and the [submit] table from this config file.",
)
@click.option("--base-url", metavar="URL", help="Where OUT is served (the key file's folder).")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="The published folder: the key file <key>.txt is written here.",
)
@click.option("--key", metavar="KEY", help="IndexNow key [default: the one in OUT, or a new one].")
@click.option(
    "--endpoint", metavar="URL", help=f"IndexNow endpoint [default: {INDEXNOW_ENDPOINT}]."
)
@click.option(
    "--ping",
    "pings",
    multiple=True,
    metavar="TEMPLATE",
    help="Also GET this URL, {sitemap} replaced by the URL-encoded sitemap URL. Repeatable.",
)
@click.option("--sitemap", "sitemap_url", metavar="URL", help="Sitemap URL the pings announce.")
@click.option("--no-key-check", is_flag=True, help="Submit without first fetching the key file.")
@click.option(
    "--changed",
    is_flag=True,
    help="Submit the URLs the last 'generate --incremental' run in OUT added or changed.",
)
@click.option(
    "--name",
    default="sitemap",
    show_default=True,
    help="File name stem of the set whose changes --changed reads.",
)
def submit(urls: tuple[str, ...], url_files: tuple[str, ...], **options: Any) -> None:
    """Announce changed URLs with IndexNow, and ping engines that still take a sitemap ping.

    \b
    sitemapkit submit --base-url https://example.com/ --out public https://example.com/new
    sitemapkit submit --config sitemapkit.toml --urls changed.txt
    sitemapkit submit --config sitemapkit.toml --changed
    """
    from .config import load_submit_settings
    from .state import last_changes
    from .submit import announce, is_retired_ping

    check_key = not options.pop("no_key_check")
    config, pings = options.pop("config"), options.pop("pings")
    changed, name = options.pop("changed"), options.pop("name")
    settings = load_submit_settings(config, overrides={**options, "ping": pings or None})
    wanted = _submitted_urls(urls, url_files)
    if changed:
        wanted = itertools.chain(wanted or (), last_changes(settings.out_dir, name))
    if wanted is None and not settings.ping:
        raise click.UsageError("nothing to do: give URLs, --urls FILE or --ping TEMPLATE")
    for template in settings.ping:
        if is_retired_ping(template):
            stderr.print(f"warning: {template} is a retired ping endpoint", markup=False)
    problems = ProblemPrinter(strict=False)
    done = announce(
        settings, wanted, check_key=check_key, on_problem=problems, on_batch=_print_batch
    )
    problems.finish()
    for ping in done.pings:
        stdout.print(f"ping: HTTP {ping.status} {ping.url}", markup=False)


def _headers(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        name, colon, content = value.partition(":")
        if not colon or not name.strip():
            raise click.BadParameter(f"expected 'Name: value', got {value!r}")
        headers[name.strip()] = content.strip()
    return headers


F = TypeVar("F", bound=Callable[..., Any])


def http_options(function: F) -> F:
    """The options every command that fetches shares; they become a FetchSettings."""
    options = [
        click.option(
            "--user-agent",
            metavar="TEXT",
            help="User-Agent of every request [default: sitemapkit/VERSION].",
        ),
        click.option(
            "--header",
            "headers",
            multiple=True,
            metavar="'NAME: VALUE'",
            callback=_headers,
            help="Extra header for every request. Repeatable.",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(0.1),
            default=30.0,
            show_default=True,
            metavar="SECONDS",
            help="Connect and read timeout.",
        ),
        click.option(
            "--deadline",
            type=click.FloatRange(0.1),
            default=120.0,
            show_default=True,
            metavar="SECONDS",
            help="Longest time for one file, retries included.",
        ),
        click.option(
            "--retries",
            type=click.IntRange(0),
            default=3,
            show_default=True,
            help="Retries of a request after a connection error, 429 or 5xx.",
        ),
        click.option(
            "--concurrency",
            type=click.IntRange(1, 64),
            default=4,
            show_default=True,
            help="Requests at the same time (sitemap files, crawled pages).",
        ),
        click.option(
            "--per-host",
            type=click.IntRange(1, 64),
            default=4,
            show_default=True,
            help="Requests at the same time to one host.",
        ),
        click.option(
            "--allow-private",
            is_flag=True,
            help="Follow URLs found in remote content to loopback, private or "
            "link-local addresses.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _settings(options: Mapping[str, Any]) -> FetchSettings:
    return FetchSettings(
        user_agent=options["user_agent"],
        headers=options["headers"],
        connect_timeout=options["timeout"],
        read_timeout=options["timeout"],
        deadline=options["deadline"],
        retries=options["retries"],
        concurrency=options["concurrency"],
        per_host=options["per_host"],
        allow_private=options["allow_private"],
        max_bytes=options.get("max_bytes") or DEFAULT_MAX_BYTES,
    )


def crawl_options(function: F) -> F:
    """The options of a crawl (``crawl`` and ``generate --crawl``); they fill a CrawlSource."""
    options = [
        click.option(
            "--extra-host",
            multiple=True,
            metavar="HOST",
            help="Also crawl this host (or URL prefix) besides the start URL's folder. Repeatable.",
        ),
        click.option(
            "--state",
            type=click.Path(dir_okay=False, path_type=Path),
            metavar="FILE",
            help="Keep the crawl in this SQLite file; the same command again resumes it.",
        ),
        click.option(
            "--report",
            type=click.Path(dir_okay=False, path_type=Path),
            metavar="FILE",
            help="Write every excluded URL and its reason here (.csv or .jsonl).",
        ),
        click.option(
            "--seed-sitemaps",
            is_flag=True,
            help="Also start from the URLs of the sitemaps robots.txt names.",
        ),
        click.option("--follow-nofollow", is_flag=True, help='Follow rel="nofollow" links too.'),
        click.option(
            "--include-types",
            multiple=True,
            metavar="TYPES",
            help="Also list pages of these media types (application/pdf,...). Repeatable.",
        ),
        click.option("--images", is_flag=True, help="Image entries from <img src>."),
        click.option(
            "--alternates",
            is_flag=True,
            help='hreflang alternates from <link rel="alternate" hreflang>.',
        ),
        click.option(
            "--max-pages",
            type=click.IntRange(1),
            default=1_000_000,
            show_default=True,
            metavar="N",
            help="Pages fetched at most.",
        ),
        click.option(
            "--max-depth",
            type=click.IntRange(0),
            default=100,
            show_default=True,
            metavar="N",
            help="Links followed from the start URL at most.",
        ),
        click.option(
            "--max-time",
            type=click.FloatRange(0),
            default=0,
            metavar="SECONDS",
            help="Stop crawling after this long [default: no limit].",
        ),
        click.option(
            "--max-page-bytes",
            type=click.IntRange(1024),
            default=DEFAULT_PAGE_BYTES,
            show_default=True,
            metavar="N",
            help="Bytes of one page read; the rest is not.",
        ),
        click.option(
            "--max-per-pattern",
            type=click.IntRange(0),
            default=1_000,
            show_default=True,
            metavar="N",
            help="URLs of one pattern (digits as #) queued from pages of that pattern: "
            "stops endless calendars and facets. 0: no cap.",
        ),
        click.option(
            "--delay",
            type=click.FloatRange(0),
            default=0.0,
            show_default=True,
            metavar="SECONDS",
            help="Between two requests to one host (robots.txt Crawl-delay wins if longer).",
        ),
        click.option(
            "--max-crawl-delay",
            type=click.FloatRange(0),
            default=60.0,
            show_default=True,
            metavar="SECONDS",
            help="The longest robots.txt Crawl-delay obeyed; a longer one counts as this.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


class _CrawlDisplay:
    """The live counters of crawls on stderr (when enabled), and their summary at the end."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.runs: dict[int, CrawlStats] = {}
        self._live: Any = None

    def __call__(self, stats: CrawlStats) -> None:
        self.runs[id(stats)] = stats
        if not self.enabled:
            return
        if self._live is None:
            from rich.live import Live

            self._live = Live(console=stderr, transient=True, auto_refresh=False)
            self._live.start()
        self._live.update(self._render(stats), refresh=True)

    @staticmethod
    def _render(stats: CrawlStats) -> str:
        minutes, seconds = divmod(int(stats.elapsed), 60)
        line = (
            f"crawling  fetched {stats.fetched:,}  queued {stats.queued:,}  "
            f"listed {stats.listed:,}  errors {stats.errors:,}  "
            f"{stats.pages_per_second:,.1f} pages/s  {minutes}:{seconds:02d}"
        )
        excluded = sorted(stats.excluded.items(), key=lambda item: -item[1])
        if excluded:
            line += "\nexcluded  " + "  ".join(f"{k} {v:,}" for k, v in excluded)
        return line

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def print_summary(self) -> None:
        for stats in self.runs.values():
            resumed = " (resumed)" if stats.resumed else ""
            stdout.print(
                f"crawled{resumed}: {stats.fetched:,} pages fetched, {stats.listed:,} listed, "
                f"{stats.errors:,} errors, {stats.pages_per_second:,.1f} pages/s",
                markup=False,
            )
            for reason, count in sorted(stats.excluded.items(), key=lambda item: -item[1]):
                stdout.print(f"  excluded ({reason}): {count:,}", markup=False)
            if stats.stopped_by is not None and stats.queued:
                stdout.print(
                    f"  not fetched ({stats.stopped_by}): {stats.queued:,} URLs still queued",
                    markup=False,
                )
            for message in stats.limits.values():
                stdout.print(f"  limit reached: {message}", markup=False)


# Options of generate that the crawl shorthand leaves out (the other sources'), and the
# values that stand for them.
_NOT_FOR_CRAWL: Mapping[str, Any] = {
    "config": None,
    "shards": None,
    "engine": "local",
    "scheduler": None,
    "sitemaps": (),
    "url_lists": (),
    "urls_format": "auto",
    "encoding": "utf-8",
    "folders": (),
    "include": (),
    "exclude": (),
    "keep_noindex": False,
    "access_logs": (),
    "log_format": "auto",
    "exclude_agent": (),
    "keep_bots": False,
    "lastmod_from_requests": False,
}


@cli.command(name="crawl", cls=_OrderedFiltersCommand, context_settings=_CRAWL_CONTEXT)
@click.argument("url")
def crawl_command(url: str, **params: Any) -> None:
    """Crawl the site at URL and write the sitemap of its indexable pages into OUT.

    The shorthand of 'generate --crawl URL': --base-url defaults to the folder of URL, and
    --include-url/--exclude-url decide what is crawled. Ctrl-C stops cleanly; with --state
    the same command again continues where it stopped.

    \b
    sitemapkit crawl https://example.com/ --out public
    sitemapkit crawl https://example.com/ --out public --state crawl.sqlite --report out.csv
    """
    from .settings import CrawlSource
    from .urls import scope_of

    ctx = click.get_current_context()
    if ctx.get_parameter_source("base_url") not in _GIVEN:
        params["base_url"] = scope_of(url)
        ctx.set_parameter_source("base_url", ParameterSource.COMMANDLINE)
    target = _take_out(params)
    settings = generate_settings(ctx, {**params, **_NOT_FOR_CRAWL, "crawl_urls": (url,)})
    (source,) = settings.sources
    assert isinstance(source, CrawlSource)
    steered = dataclasses.replace(source.settings, filters=settings.filters)
    crawl_source = dataclasses.replace(source, settings=steered)
    crawl_settings = dataclasses.replace(settings, sources=(crawl_source,), filters=())
    _generate(crawl_settings, shards=1 if target else None, out=target)


def _options_of(decorator: Callable[[Callable[..., None]], Callable[..., None]]) -> list[Any]:
    """The options a decorator adds, in its order, to append to an existing command."""

    def holder() -> None:
        """Only carries the options."""

    return list(reversed(getattr(decorator(holder), "__click_params__", [])))


generate.params.extend([*_options_of(crawl_options), *_options_of(http_options)])
crawl_command.params.extend(
    p for p in generate.params if p.name not in _NOT_FOR_CRAWL and p.name != "crawl_urls"
)


def _plain(value: object) -> object:
    """An extension record as JSON: the fields that are set, at every depth (a video's price,
    tvshow and ids too); tuples as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            item.name: _plain(getattr(value, item.name))
            for item in dataclasses.fields(value)
            if getattr(value, item.name) is not None and getattr(value, item.name) != ()
        }
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _lastmod(value: object) -> str | None:
    if value is None:
        return None
    return value.isoformat() if isinstance(value, date) else str(value)


def entry_to_json(entry: URLEntry) -> dict[str, object]:
    """The JSONL record of ``sitemapkit ls``."""
    record: dict[str, object] = {
        "loc": entry.loc,
        "lastmod": _lastmod(entry.lastmod),
        "changefreq": entry.changefreq,
        "priority": entry.priority,
        "sitemap": entry.sitemap,
    }
    if entry.images:
        record["images"] = _plain(entry.images)
    if entry.videos:
        record["videos"] = _plain(entry.videos)
    if entry.news is not None:
        record["news"] = _plain(entry.news)
    if entry.alternates:
        record["alternates"] = _plain(entry.alternates)
    return record


_LOC = operator.attrgetter("loc")


class _Output:
    """Writes batches of entries in one of the formats of ``ls``."""

    def __init__(self, output_format: str) -> None:
        self.format = output_format
        self.stream = sys.stdout
        self.csv: Any = None
        if output_format == "csv":
            self.csv = csv.writer(self.stream, lineterminator="\n")
            self.csv.writerow(["loc", "lastmod", "changefreq", "priority", "sitemap"])

    def write(self, batch: list[URLEntry]) -> None:
        if not batch:
            return
        if self.format == "text":
            self.stream.write("\n".join(map(_LOC, batch)))
            self.stream.write("\n")
        elif self.format == "jsonl":
            dumps = json.dumps
            self.stream.write(
                "".join([dumps(entry_to_json(entry), ensure_ascii=False) + "\n" for entry in batch])
            )
        else:
            self.csv.writerows(
                [
                    entry.loc,
                    _lastmod(entry.lastmod) or "",
                    entry.changefreq or "",
                    "" if entry.priority is None else entry.priority,
                    entry.sitemap or "",
                ]
                for entry in batch
            )


def _progress(batches: Iterable[list[URLEntry]], stats: ReadStats) -> Iterator[list[URLEntry]]:
    """A live line on stderr (sitemaps read, URLs, errors) when stderr is a terminal."""
    if not stderr.is_terminal:
        yield from batches
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=stderr, transient=True) as progress:
        task = progress.add_task("reading", total=None)
        for batch in batches:
            yield batch
            progress.update(
                task,
                description=(
                    f"sitemaps: {stats.files:,}  URLs: {stats.urls:,}  errors: {stats.problems:,}"
                ),
            )


@contextlib.contextmanager
def _rare_collections(threshold: int = 100_000) -> Iterator[None]:
    """Run the cyclic garbage collector seldom while ``ls`` streams entries.

    Each batch is thousands of new entries, all alive until printed: a young-generation
    collection every 700 allocations (the default) scans them and frees nothing. Entries
    are freed by reference counting as soon as they are printed; cycles are still
    collected, after ``threshold`` net allocations.
    """
    saved = gc.get_threshold()
    gc.set_threshold(max(threshold, saved[0]), *saved[1:])
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def _print_problem(problem: Problem) -> None:
    stderr.print(f"error: {problem}", markup=False)


@cli.command(name="ls", context_settings=CONTEXT_SETTINGS)
@click.argument("source")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "jsonl", "csv"]),
    default="text",
    show_default=True,
    help="One URL a line, JSON lines, or CSV.",
)
@click.option("--stop-on-error", is_flag=True, help="Stop at the first problem.")
@click.option(
    "--max-depth",
    type=click.IntRange(0),
    default=10,
    show_default=True,
    help="Deepest nesting of indexes followed.",
)
@click.option(
    "--max-files",
    type=click.IntRange(1),
    default=10_000,
    show_default=True,
    help="Most files read in one run.",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(1),
    default=DEFAULT_MAX_BYTES,
    show_default=True,
    help="Largest file after decompression.",
)
@click.option(
    "--max-entries",
    type=click.IntRange(1),
    default=500_000,
    show_default=True,
    help="Most entries read from one file.",
)
@click.option(
    "--max-time",
    type=click.FloatRange(0.1),
    default=3600.0,
    show_default=True,
    metavar="SECONDS",
    help="Longest run.",
)
@http_options
def ls_command(
    source: str,
    output_format: str,
    stop_on_error: bool,
    max_depth: int,
    max_files: int,
    max_bytes: int,
    max_entries: int,
    max_time: float,
    **http: Any,
) -> None:
    """Print every URL entry of SOURCE, following indexes.

    SOURCE is a sitemap file (gzip or not), '-' for standard input, a sitemap URL, or a site
    root (its sitemaps are discovered). Exit status: 0 all read, 1 some files had problems,
    2 nothing could be read.

    \b
    sitemapkit ls https://example.com/sitemap_index.xml
    sitemapkit ls https://example.com/ --format jsonl
    """
    limits = ReadLimits(
        max_bytes=max_bytes,
        max_entries=max_entries,
        max_files=max_files,
        max_depth=max_depth,
        max_seconds=max_time,
    )
    settings = _settings({**http, "max_bytes": max_bytes})
    output = _Output(output_format)
    with (
        _rare_collections(),
        Reader(
            limits=limits, settings=settings, on_problem=_print_problem, stop_on_error=stop_on_error
        ) as reader,
    ):
        stats = reader.stats
        try:
            for batch in _progress(reader.read_batches(source), stats):
                output.write(batch)
        except SitemapError as exc:
            sys.stdout.flush()
            _fail(str(exc), 1 if stats.urls or stats.files_ok else 2)
    sys.stdout.flush()
    if stats.problems:
        sys.exit(2 if not stats.files_ok and not stats.urls else 1)


@cli.command(name="discover", context_settings=CONTEXT_SETTINGS)
@click.argument("site")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="One URL a line, or JSON saying how each was found.",
)
@http_options
def discover_command(site: str, output_format: str, **http: Any) -> None:
    """Find the sitemaps of SITE: robots.txt, then well-known paths, then the home page.

    Exit status: 0 sitemaps found, 1 none found, 2 the site could not be reached.

    \b
    sitemapkit discover https://example.com/
    sitemapkit discover example.com --format json
    """
    from .discover import find_sitemaps

    found = find_sitemaps(site, settings=_settings(http))
    if output_format == "json":
        click.echo(json.dumps([item.to_dict() for item in found], indent=2))
    else:
        for item in found:
            click.echo(item.url)
    if not found:
        _fail(f"{site}: no sitemap found", 1)


def _describe_change(change: Change) -> str:
    if change.kind == "added":
        return f"+ {change.loc}"
    if change.kind == "removed":
        return f"- {change.loc}"
    old, new = change.old or {}, change.new or {}
    details = ", ".join(
        f"{name}: {old.get(name, '-')} -> {new.get(name, '-')}"
        if name in ("lastmod", "changefreq", "priority")
        else f"{name} changed"
        for name in change.fields
    )
    return f"~ {change.loc}  ({details})"


@cli.command(name="diff", context_settings=CONTEXT_SETTINGS)
@click.argument("old")
@click.argument("new")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "jsonl"]),
    default="text",
    show_default=True,
    help="Lines '+ URL', '- URL', '~ URL (what changed)', or one JSON object a line.",
)
@http_options
def diff_command(old: str, new: str, output_format: str, **http: Any) -> None:
    """Show the URLs added, removed and changed from OLD to NEW, in constant memory.

    OLD and NEW are anything `sitemapkit ls` reads: files, URLs, indexes, '-'. Exit status:
    0 no difference, 1 differences, 2 a side could not be read completely (the differences
    found are still printed).

    \b
    sitemapkit diff old/sitemap.xml public/sitemap.xml
    sitemapkit diff https://example.com/sitemap.xml public/sitemap.xml --format jsonl
    """
    from .diff import diff_sitemaps

    problems = 0

    def count(problem: Problem) -> None:
        nonlocal problems
        problems += 1
        _print_problem(problem)

    totals = {"added": 0, "removed": 0, "changed": 0}
    for change in diff_sitemaps(old, new, settings=_settings(http), on_problem=count):
        totals[change.kind] += 1
        if output_format == "jsonl":
            click.echo(json.dumps(change.to_dict(), ensure_ascii=False))
        else:
            click.echo(_describe_change(change))
    summary = ", ".join(f"{count:,} {kind}" for kind, count in totals.items())
    stderr.print(f"{summary}", markup=False)
    sys.stdout.flush()
    if problems:
        sys.exit(2)
    if any(totals.values()):
        sys.exit(1)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option(
    "--location",
    metavar="URL",
    help="Public URL of the sitemap (of the folder, for a folder); turns on the scope rules.",
)
@click.option(
    "--recursive",
    is_flag=True,
    help="Also check every sitemap an index lists, and duplicates across the tree.",
)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "junit", "sarif"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--fetch/--no-fetch",
    default=None,
    help="Allow network access for children and robots.txt [default: only for URL sources].",
)
@click.option(
    "--max-per-rule",
    type=click.IntRange(0),
    default=100,
    show_default=True,
    metavar="N",
    help="Findings shown per rule and file (0: all); the rest are counted.",
)
def validate(
    sources: tuple[str, ...],
    location: str | None,
    recursive: bool,
    strict: bool,
    output_format: str,
    fetch: bool | None,
    max_per_rule: int,
) -> None:
    """Check sitemaps against every rule of the protocol, with line and column.

    SOURCE is a file, a .gz file, a folder of sitemaps, a URL, or - for stdin. Exit status:
    0 valid (warnings allowed), 1 errors (or warnings with --strict), 2 could not run.

    \b
    sitemapkit validate public/sitemap.xml --location https://example.com/sitemap.xml
    sitemapkit validate https://example.com/sitemap.xml --recursive --format sarif
    """
    from .validate import format_report
    from .validate import validate as run_validate
    from .validate.report import merge

    if location is not None and len(sources) > 1:
        raise click.UsageError("--location names one sitemap: give a single SOURCE with it")
    reports = [
        run_validate(
            source,
            location=location,
            recursive=recursive,
            strict=strict,
            fetch=fetch,
            max_per_rule=max_per_rule,
        )
        for source in sources
    ]
    report = merge(reports, strict=strict)
    click.echo(format_report(report, output_format), nl=False)
    if output_format == "text":
        stderr.print(report.summary(), markup=False)
    if not report.ok:
        raise click.exceptions.Exit(1)


_SHOWN = 20


def _threshold(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> Any:
    from .audit import Threshold

    try:
        return tuple(Threshold.parse(value) for value in values)
    except InvalidValueError as exc:
        raise click.BadParameter(exc.message) from exc


class _AuditProgress:
    """One live line on stderr (when it is a terminal) saying what the audit is doing."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.status: Any = None

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        text = f"{stage} {done:,}" + (f" of {total:,}" if total else "")
        if self.status is None:
            self.status = stderr.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None


def _print_audit(result: Any, report: Path | None) -> None:
    sample = f" (a sample of {result.sample:,}, seed {result.seed})" if result.sample else ""
    files = sum(1 for s in result.sitemaps if s.urls)
    stdout.print(
        f"audited {result.source}: {files:,} sitemap files, {result.listed:,} URLs listed "
        f"({result.duplicates:,} duplicate entries), {result.checked:,} checked{sample}, "
        f"{result.indexable:,} indexable",
        markup=False,
    )
    if result.crawl is not None:
        stdout.print(
            f"crawled: {result.crawl.fetched:,} pages fetched, "
            f"{result.crawl_indexable or 0:,} indexable",
            markup=False,
        )
    for number, problem in enumerate(result.problems()):
        if number == _SHOWN:
            rest = sum(result.problem_counts.values()) - _SHOWN
            stdout.print(f"  ... {rest:,} more problems (see --report or --format)")
            break
        detail = f"  ({problem.detail})" if problem.detail else ""
        stdout.print(f"{problem.severity} {problem.kind} {problem.url}{detail}", markup=False)
    for issue in result.validation.issues[:_SHOWN]:
        stdout.print(str(issue), markup=False)
    for kind, count in result.problem_counts.items():
        stdout.print(f"  {kind}: {count:,}", markup=False)
    stdout.print(f"validation: {result.validation.summary()}", markup=False)
    for note in result.notes:
        stdout.print(f"note: {note}", markup=False)
    if report is not None:
        stdout.print(f"report: {report}", markup=False)
    for line in result.failed:
        stdout.print(f"FAILED {line}", markup=False)


@cli.command(name="audit", context_settings=_CRAWL_CONTEXT)
@click.argument("source", metavar="SITE_OR_SITEMAP")
@click.option(
    "--crawl",
    is_flag=True,
    help="Also crawl the site: indexable pages no sitemap lists, listed pages no link reaches.",
)
@click.option(
    "--sample",
    type=click.IntRange(1),
    metavar="N",
    help="Check a random sample of N listed URLs (every URL is still read and counted).",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of --sample: the same sitemaps and seed give the same sample.",
)
@click.option(
    "--report",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the report as one self-contained HTML file.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "csv"]),
    default="text",
    show_default=True,
    help="Standard output: a summary, or all the data as JSON or CSV (one row per URL).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the --format output to FILE instead of standard output.",
)
@click.option(
    "--fail-on",
    multiple=True,
    metavar="KIND>N[%]",
    callback=_threshold,
    help="Fail (exit 1) when more than N (or N % of the URLs checked) are of KIND: a problem "
    "kind, error, warning, not-indexable, validation or a rule ID. Repeatable; replaces the "
    "default error>0.",
)
@click.option(
    "--database",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Keep the per-URL results in this SQLite file [default: a temporary file].",
)
@click.option(
    "--max-pages",
    type=click.IntRange(1),
    default=1_000_000,
    show_default=True,
    metavar="N",
    help="Pages --crawl fetches at most.",
)
@click.option(
    "--max-time",
    type=click.FloatRange(0),
    default=0,
    metavar="SECONDS",
    help="Longest crawl, and longest checking [default: no limit].",
)
@click.option(
    "--delay",
    type=click.FloatRange(0),
    default=0.0,
    show_default=True,
    metavar="SECONDS",
    help="Between two requests to one host (robots.txt Crawl-delay wins if longer).",
)
@click.option(
    "--include-types",
    multiple=True,
    metavar="TYPES",
    help="Media types that count as indexable besides HTML (application/pdf,...). Repeatable.",
)
@click.option(
    "--max-page-bytes",
    type=click.IntRange(1024),
    default=DEFAULT_PAGE_BYTES,
    show_default=True,
    metavar="N",
    help="Bytes of one page read; the rest is not.",
)
@click.option(
    "--max-per-rule",
    type=click.IntRange(0),
    default=100,
    show_default=True,
    metavar="N",
    help="Validation findings kept per rule and file (0: all); the rest are counted.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors and failures.")
@http_options
def audit_command(
    source: str,
    crawl: bool,
    sample: int | None,
    seed: int,
    report: Path | None,
    output_format: str,
    output: Path | None,
    fail_on: tuple[Any, ...],
    database: Path | None,
    max_pages: int,
    max_time: float,
    delay: float,
    include_types: tuple[str, ...],
    max_page_bytes: int,
    max_per_rule: int,
    quiet: bool,
    **http: Any,
) -> None:
    """Check what the sitemaps of SITE_OR_SITEMAP list against what the site serves.

    SITE_OR_SITEMAP is a site (its sitemaps are discovered), a sitemap URL, or a local
    sitemap file. Every listed URL is checked over HTTP with the crawler's rules. Exit
    status: 0 no threshold passed (by default: no error), 1 a threshold passed, 2 the audit
    could not run.

    \b
    sitemapkit audit https://example.com/ --report report.html
    sitemapkit audit https://example.com/sitemap.xml --sample 1000 --fail-on 'not-indexable>1%'
    sitemapkit audit https://example.com/ --crawl --format csv --output urls.csv
    """
    from .audit import audit
    from .report import write_csv, write_json

    types = tuple(t.strip() for value in include_types for t in value.split(",") if t.strip())
    progress = _AuditProgress(enabled=not quiet and stderr.is_terminal)
    problems = ProblemPrinter(strict=False, shown=0 if quiet else 20)
    try:
        result = audit(
            source,
            crawl=crawl,
            sample=sample,
            seed=seed,
            fetch=_settings(http),
            delay=delay,
            include_types=types,
            max_page_bytes=max_page_bytes,
            max_pages=max_pages,
            max_time=max_time or None,
            thresholds=fail_on,
            database=database,
            max_per_rule=max_per_rule,
            on_problem=problems,
            on_progress=progress,
        )
    finally:
        progress.close()
    with result:
        if report is not None:
            result.write_html(report)
        if output_format != "text":
            write = write_json if output_format == "json" else write_csv
            if output is None:
                write(result, sys.stdout)
                sys.stdout.flush()
            else:
                from .publish import check_replaceable

                check_replaceable(output)
                partial = output.with_name(f".{output.name}.part")
                with open(partial, "w", encoding="utf-8", newline="") as stream:
                    write(result, stream)
                os.replace(partial, output)  # never half a file where it is expected
        if output_format == "text" and not quiet:
            _print_audit(result, report)
        else:
            for line in result.failed:
                stderr.print(f"FAILED {line}", markup=False)
        problems.finish()
    if not result.ok:
        sys.exit(1)


def _fail(message: str, code: int) -> NoReturn:
    stderr.print(f"error: {message}", markup=False)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``sitemapkit`` console script."""
    run: Callable[..., Any] = cli.main
    for stream in (sys.stdout, sys.stderr):
        # A lone surrogate (a JSON "\\ud800" escape, undecodable argv bytes) in a URL or name
        # that is echoed must be shown escaped, not end the run with UnicodeEncodeError.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        code = run(args=argv, prog_name="sitemapkit", standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)  # click returns (not raises) an Exit's code outside standalone mode
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
