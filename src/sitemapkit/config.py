"""``sitemapkit.toml``: one file describing a whole site, read with :mod:`tomllib`.

The file holds the ``generate`` options as top-level keys, a ``[[source]]`` table per input
(``type`` = ``urls``, ``dir``, ``access_log``, ``sitemap`` or ``crawl``, each with its own
options, defaults and ``[[source.filter]]`` rules), global ``[[filter]]`` rules and a
``[submit]`` table.
``docs/config.md`` lists every key. Relative paths are relative to the config file's folder,
so a run gives the same result from any working directory.

Unknown keys and values of the wrong type are errors that name the key and its line.
:mod:`tomllib` reports no positions for valid TOML, so :class:`_KeyLines` scans the text for
table headers and key assignments and maps each key path to the line that wrote it.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from .crawl.options import DEFAULT_CRAWL_FETCH, CrawlSettings
from .dates import parse_timezone
from .errors import ConfigError, InvalidValueError, SitemapError
from .filters import FilterRule
from .settings import (
    AccessLogSource,
    CrawlSource,
    DirectorySource,
    GenerateSettings,
    SitemapSource,
    Source,
    URLListSource,
)
from .submit import INDEXNOW_ENDPOINT, SubmitSettings

__all__ = [
    "EXAMPLE_CONFIG",
    "ConfigFile",
    "SubmitConfig",
    "load_settings",
    "load_submit_settings",
    "read_config",
    "write_example_config",
]

KeyPath = tuple[str | int, ...]


# -- where each key was written -----------------------------------------------------------

_BARE_OR_QUOTED = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_KEY: Final = re.compile(rf"\s*({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*=")
_KEY_PART: Final = re.compile(_BARE_OR_QUOTED)


def _split_key(text: str) -> tuple[str, ...]:
    parts = []
    for part in _KEY_PART.findall(text):
        if part[0] in "\"'":
            part = part[1:-1]
        parts.append(part)
    return tuple(parts)


def _bracket_depth_change(text: str) -> int:
    """Open minus closed brackets and braces outside strings and comments."""
    depth = 0
    quote = ""
    escaped = False
    for char in text:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return depth


class _KeyLines:
    """Line numbers of table headers and keys, addressed like the parsed document."""

    def __init__(self, text: str) -> None:
        self.lines: dict[KeyPath, int] = {}
        counts: dict[KeyPath, int] = {}
        table: KeyPath = ()
        open_string = ""
        depth = 0
        for number, line in enumerate(text.splitlines(), start=1):
            if open_string:
                if open_string in line:
                    open_string = ""
                continue
            if depth > 0:
                depth += _bracket_depth_change(line)
                continue
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if stripped.startswith("[["):
                path = self._resolve(_split_key(stripped[2:].split("]]", 1)[0]), counts)
                index = counts.get(path, 0)
                counts[path] = index + 1
                table = (*path, index)
                self.lines.setdefault(path, number)
                self.lines[table] = number
                continue
            if stripped.startswith("["):
                table = self._resolve(_split_key(stripped[1:].split("]", 1)[0]), counts)
                self.lines.setdefault(table, number)
                continue
            match = _KEY.match(line)
            if match is None:
                continue
            self.lines.setdefault((*table, *_split_key(match.group(1))), number)
            value = line[match.end() :].lstrip()
            for delimiter in ('"""', "'''"):
                if value.startswith(delimiter) and delimiter not in value[3:]:
                    open_string = delimiter
            if not open_string:
                depth = max(0, _bracket_depth_change(value))

    @staticmethod
    def _resolve(keys: tuple[str, ...], counts: Mapping[KeyPath, int]) -> KeyPath:
        """``[[source.filter]]`` belongs to the latest ``[[source]]``: insert its index."""
        path: KeyPath = ()
        for position, key in enumerate(keys):
            path = (*path, key)
            if position < len(keys) - 1 and path in counts:
                path = (*path, counts[path] - 1)
        return path

    def line_of(self, path: KeyPath) -> int | None:
        """The line of ``path``, or of its nearest written ancestor."""
        for end in range(len(path), 0, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return None


# -- checking values ------------------------------------------------------------------------


class _Bad(Exception):
    """A value of the wrong type or range; the caller adds the key and line."""


def _describe(value: object) -> str:
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array"}
    kind = names.get(type(value), "table" if isinstance(value, dict) else type(value).__name__)
    shown = repr(value) if not isinstance(value, (dict, list)) else ""
    return f"{kind} {shown}".strip()


Check = Callable[[Any], Any]


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise _Bad(f"expected true or false, got {_describe(value)}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad(f"expected a string, got {_describe(value)}")
    return value


def _int(minimum: int) -> Check:
    def check(value: Any) -> int:
        if type(value) is not int:
            raise _Bad(f"expected an integer, got {_describe(value)}")
        if value < minimum:
            raise _Bad(f"must be at least {minimum:,}, not {value:,}")
        return value

    return check


def _number(value: Any) -> float:
    if type(value) not in (int, float):
        raise _Bad(f"expected a number, got {_describe(value)}")
    return float(value)


def _choice(*choices: str) -> Check:
    def check(value: Any) -> str:
        if value not in choices or not isinstance(value, str):
            listed = ", ".join(f'"{c}"' for c in choices)
            raise _Bad(f"expected one of {listed}, got {_describe(value)}")
        return value

    return check


def _str_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _Bad(f"expected an array of strings, got {_describe(value)}")
    return tuple(value)


def _seconds(value: Any) -> float:
    if type(value) not in (int, float) or not 0 <= value < math.inf:  # TOML has nan and inf
        raise _Bad(f"expected a number of seconds (0 or more), got {_describe(value)}")
    return float(value)


def _str_or_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise _Bad(f"expected a string or a non-empty array of strings, got {_describe(value)}")


_TOP: Final[dict[str, Check]] = {
    "base_url": _str,
    "out": _str,
    "gzip": _bool,
    "max_urls": _int(1),
    "max_bytes": _int(1),
    "name": _str,
    "format": _choice("xml", "txt"),
    "protocol": _choice("0.9", "0.84"),
    "keep_session_ids": _bool,
    "timezone": _str,
    "strict": _bool,
    "quiet": _bool,
    "robots": _str,
    "incremental": _bool,
    "xsl": _bool,
    "html": _str,
    "html_max_pages": _int(1),
}
_TABLES: Final = ("source", "filter", "submit")
_SOURCE_COMMON: Final[dict[str, Check]] = {
    "type": _str,
    "changefreq": _str,
    "priority": _number,
}
_SOURCE_TYPES: Final[dict[str, dict[str, Check]]] = {
    "urls": {
        "path": _str_or_list,
        "format": _choice("auto", "txt", "csv", "tsv", "jsonl"),
        "encoding": _str,
    },
    "dir": {
        "path": _str,
        "include": _str_list,
        "exclude": _str_list,
        "index_files": _str_list,
        "keep_noindex": _bool,
    },
    "access_log": {
        "path": _str_or_list,
        "format": _choice("auto", "common", "combined", "w3c"),
        "encoding": _str,
        "exclude_agents": _str_list,
        "skip_extensions": _str_list,
        "lastmod_from_requests": _bool,
    },
    "sitemap": {"path": _str_or_list},
    "crawl": {
        "url": _str,
        "extra_hosts": _str_list,
        "state": _str,
        "report": _str,
        "seed_sitemaps": _bool,
        "follow_nofollow": _bool,
        "include_types": _str_list,
        "images": _bool,
        "alternates": _bool,
        "max_pages": _int(1),
        "max_depth": _int(0),
        "max_time": _seconds,
        "max_page_bytes": _int(1024),
        "max_per_pattern": _int(0),
        "delay": _seconds,
        "max_crawl_delay": _seconds,
        "concurrency": _int(1),
        "per_host": _int(1),
        "user_agent": _str,
        "timeout": _seconds,
        "retries": _int(0),
        "allow_private": _bool,
    },
}
# Keys of a crawl source that are HTTP settings, and their FetchSettings names.
_CRAWL_FETCH_KEYS: Final = {
    "concurrency": "concurrency",
    "per_host": "per_host",
    "user_agent": "user_agent",
    "retries": "retries",
    "allow_private": "allow_private",
}
_FILTER: Final[dict[str, Check]] = {"action": _choice("include", "exclude"), "pattern": _str}
_SUBMIT: Final[dict[str, Check]] = {"key": _str, "endpoint": _str, "ping": _str_list}


@dataclass(frozen=True, slots=True)
class SubmitConfig:
    """The ``[submit]`` table: how ``sitemapkit submit`` announces the site."""

    key: str | None = None
    endpoint: str = INDEXNOW_ENDPOINT
    ping: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """A checked config file: ``values`` are :class:`GenerateSettings` fields it sets."""

    path: Path
    values: Mapping[str, Any]
    sources: tuple[Source, ...]
    filters: tuple[FilterRule, ...]
    submit: SubmitConfig


class _Reader:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.folder = path.parent
        self.keys = _KeyLines(text)

    def error(self, message: str, where: KeyPath) -> ConfigError:
        return ConfigError(message, source=str(self.path), line=self.keys.line_of(where))

    def table(self, data: Any, schema: Mapping[str, Check], where: KeyPath) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.error(f"'{_display(where)}' must be a table", where)
        checked: dict[str, Any] = {}
        for key, value in data.items():
            if key not in schema:
                known = ", ".join(sorted(schema))
                raise self.error(
                    f"unknown key '{_display((*where, key))}' (known here: {known})", (*where, key)
                )
            try:
                checked[key] = schema[key](value)
            except _Bad as exc:
                raise self.error(f"'{_display((*where, key))}': {exc}", (*where, key)) from None
        return checked

    def array(self, data: Any, where: KeyPath) -> list[Any]:
        if not isinstance(data, list):
            raise self.error(
                f"'{_display(where)}' must be written as [[{where[-1]}]] tables", where
            )
        return data

    def path_of(self, text: str) -> str:
        if text == "-" or text.startswith(("http://", "https://")):
            return text
        expanded = os.path.expanduser(text)
        return os.path.normpath(expanded if os.path.isabs(expanded) else self.folder / expanded)

    def filters(self, data: Any, where: KeyPath) -> tuple[FilterRule, ...]:
        rules = []
        for index, item in enumerate(self.array(data, where)):
            spot = (*where, index)
            values = self.table(item, _FILTER, spot)
            for required in ("action", "pattern"):
                if required not in values:
                    raise self.error(f"[[{_display(where)}]] has no '{required}'", spot)
            try:
                rules.append(FilterRule(values["action"], values["pattern"]))
            except InvalidValueError as exc:
                raise self.error(exc.message, (*spot, "pattern")) from None
        return tuple(rules)

    def source(self, data: Any, index: int) -> Source:
        spot: KeyPath = ("source", index)
        if not isinstance(data, dict):
            raise self.error("each [[source]] must be a table", spot)
        kind = data.get("type")
        if kind is None:
            raise self.error(
                "[[source]] has no 'type' (urls, dir, access_log, sitemap or crawl)", spot
            )
        if kind not in _SOURCE_TYPES:
            raise self.error(
                f"unknown source type {_describe(kind)} (urls, dir, access_log, sitemap or crawl)",
                (*spot, "type"),
            )
        schema = {**_SOURCE_COMMON, **_SOURCE_TYPES[kind], "filter": lambda value: value}
        values = self.table(data, schema, spot)
        required = "url" if kind == "crawl" else "path"
        if required not in values:
            raise self.error(f"[[source]] of type {kind} has no '{required}'", spot)
        rules = self.filters(values.pop("filter"), (*spot, "filter")) if "filter" in values else ()
        values.pop("type")
        try:
            if kind == "crawl":
                return self.crawl_source(values, rules)
            if kind == "dir":
                values["path"] = self.path_of(values["path"])
                return DirectorySource(**values, filters=rules)
            values["paths"] = tuple(self.path_of(p) for p in values.pop("path"))
            if kind == "urls":
                return URLListSource(**values, filters=rules)
            if kind == "sitemap":
                return SitemapSource(**values, filters=rules)
            return AccessLogSource(**values, filters=rules)
        except InvalidValueError as exc:
            key = next((k for k in values if k in exc.message), "url")
            raise self.error(exc.message, (*spot, key)) from None
        except SitemapError as exc:  # an unusable start URL
            raise self.error(exc.message, (*spot, "url")) from None

    def crawl_source(self, checked: dict[str, Any], rules: tuple[FilterRule, ...]) -> CrawlSource:
        values = dict(checked)  # the caller's copy names the keys in error messages
        fetch = {
            _CRAWL_FETCH_KEYS[k]: values.pop(k) for k in list(values) if k in _CRAWL_FETCH_KEYS
        }
        if "timeout" in values:
            fetch["connect_timeout"] = fetch["read_timeout"] = values.pop("timeout")
        source = {
            k: values.pop(k) for k in ("state", "report", "changefreq", "priority") if k in values
        }
        for key in ("state", "report"):
            if key in source:
                source[key] = self.path_of(source[key])
        for key in ("max_time", "max_per_pattern"):
            if values.get(key) == 0:
                values[key] = None  # 0 switches the limit off
        for key in ("extra_hosts", "include_types"):
            if key in values:
                values[key] = tuple(values[key])
        settings = CrawlSettings(
            values.pop("url"),
            **values,
            filters=rules,
            fetch=replace(DEFAULT_CRAWL_FETCH, **fetch),
        )
        return CrawlSource(settings, **source)

    def read(self, document: dict[str, Any]) -> ConfigFile:
        top = {key: value for key, value in document.items() if key not in _TABLES}
        values = self.table(top, _TOP, ())
        for key in ("out", "robots", "html"):
            if key in values:
                values[key] = Path(self.path_of(values[key]))
        if "out" in values:
            values["out_dir"] = values.pop("out")
        if "timezone" in values:
            try:
                parse_timezone(values["timezone"])
            except InvalidValueError as exc:
                raise self.error(exc.message, ("timezone",)) from None
        sources = tuple(
            self.source(item, index)
            for index, item in enumerate(self.array(document.get("source", []), ("source",)))
        )
        filters = self.filters(document.get("filter", []), ("filter",))
        submit_values = self.table(document.get("submit", {}), _SUBMIT, ("submit",))
        submit = SubmitConfig(
            key=submit_values.get("key"),
            endpoint=submit_values.get("endpoint", INDEXNOW_ENDPOINT),
            ping=submit_values.get("ping", ()),
        )
        return ConfigFile(self.path, values, sources, filters, submit)


def _display(path: KeyPath) -> str:
    return ".".join(str(part) for part in path if isinstance(part, str))


_TOML_POSITION: Final = re.compile(r"\(at line (\d+), column \d+\)")


def read_config(path: str | os.PathLike[str]) -> ConfigFile:
    """Read and check a config file; raises :class:`~sitemapkit.ConfigError` naming the line."""
    config_path = Path(path)
    try:
        text = config_path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError("not UTF-8 text", source=str(path)) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", source=str(path)) from exc
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        position = _TOML_POSITION.search(message)
        line = int(position.group(1)) if position else None
        message = _TOML_POSITION.sub("", message).strip()
        raise ConfigError(f"not valid TOML: {message}", source=str(path), line=line) from exc
    return _Reader(config_path, text).read(document)


def load_settings(
    config: str | os.PathLike[str] | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
    sources: Sequence[Source] = (),
    filters: Iterable[FilterRule] = (),
) -> GenerateSettings:
    """The settings of one run: the config file's, then ``overrides`` (the CLI's options).

    ``sources`` are run after the file's; ``filters`` are tried before the file's global
    rules, so the command line has the last word either way.
    """
    values: dict[str, Any] = {}
    file_sources: tuple[Source, ...] = ()
    file_filters: tuple[FilterRule, ...] = ()
    if config is not None:
        loaded = read_config(config)
        values.update(loaded.values)
        file_sources, file_filters = loaded.sources, loaded.filters
    values.update(overrides or {})
    for key, option in (("base_url", "--base-url"), ("out_dir", "--out")):
        if not values.get(key):
            hint = f" or '{'out' if key == 'out_dir' else key}' in the config file"
            raise SitemapError(f"missing {option}{hint if config is not None else ''}")
    all_sources = (*file_sources, *sources)
    if not all_sources:
        raise SitemapError(
            "give at least one source: --urls FILE, --dir DIR, --access-log FILE, "
            "--sitemap PATH or --crawl URL"
        )
    return GenerateSettings(sources=all_sources, filters=(*filters, *file_filters), **values)


def load_submit_settings(
    config: str | os.PathLike[str] | None = None, *, overrides: Mapping[str, Any] | None = None
) -> SubmitSettings:
    """The settings of ``sitemapkit submit``: ``base_url``, ``out`` and ``name`` from the
    config's top level, ``key``, ``endpoint`` and ``ping`` from its ``[submit]`` table, then
    ``overrides`` (the CLI's options)."""
    values: dict[str, Any] = {}
    if config is not None:
        loaded = read_config(config)
        values = {k: loaded.values[k] for k in ("base_url", "out_dir") if k in loaded.values}
        if "name" in loaded.values and loaded.values.get("base_url"):
            base = loaded.values["base_url"].rstrip("/") + "/"
            values["sitemap_url"] = f"{base}{loaded.values['name']}.xml"
        values.update(key=loaded.submit.key, endpoint=loaded.submit.endpoint)
        values["ping"] = loaded.submit.ping
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    for key, option in (("base_url", "--base-url"), ("out_dir", "--out")):
        if not values.get(key):
            raise SitemapError(f"missing {option}" + (" or its config key" if config else ""))
    return SubmitSettings(**values)


EXAMPLE_CONFIG: Final = """\
# sitemapkit.toml: describes a whole site for `sitemapkit generate --config sitemapkit.toml`.
# Every key is explained in docs/config.md. Paths are relative to this file's folder.
# Options given on the command line override the values here.

# Where the output folder is served. Every URL must lie under it.
base_url = "https://www.example.com/"
# The output folder (created if missing, published atomically).
out = "public"

# Output options (these are the defaults).
gzip = true               # compress the children of an index
#max_urls = 50000         # URLs per file (default: the protocol limit)
#max_bytes = 52428800     # uncompressed bytes per file (default: the protocol limit)
name = "sitemap"          # file name stem: sitemap.xml, sitemap-00001-<hash>.xml.gz, ...
format = "xml"            # "xml" or "txt"
protocol = "0.9"          # "0.9" (sitemaps.org) or "0.84" (Google's older namespace)
keep_session_ids = false  # keep PHPSESSID, jsessionid, sid, ... in URLs
#timezone = "UTC"         # zone for times given without one
strict = false            # fail (exit 1, nothing published) on any left-out URL or bad row
quiet = false             # print nothing but errors
# Add or update the Sitemap: line of this robots.txt after each run.
#robots = "public/robots.txt"
# Keep URLs in the shards of the last run (state in out/.sitemap.sitemapkit.db): unchanged
# files are left alone, and `sitemapkit submit --changed` announces what changed.
incremental = false
#xsl = true                # publish sitemap.xsl with the set: browsers show sitemaps as tables
#html = "public/site-map.html"  # an HTML site map for visitors, pages grouped by section
#html_max_pages = 10000    # pages the HTML site map lists at most (the shallowest)

# Sources are read in order; each URL is listed once (the first sighting wins).
# changefreq and priority are defaults for entries that do not carry their own.

[[source]]
type = "dir"              # a folder of static files, mapped under base_url
path = "public"
include = ["*.html", "*.htm", "*.pdf"]
exclude = ["drafts/*"]
index_files = ["index.html", "index.htm"]
keep_noindex = false      # list pages with <meta name="robots" content="noindex"> anyway
changefreq = "weekly"
priority = 0.5

# Uncomment (remove the leading '#') to use these sources too.
#[[source]]
#type = "urls"             # a URL list: .txt, .csv, .tsv or .jsonl, optionally .gz
#path = "urls.txt"         # one path, or an array of paths; "-" reads standard input
#format = "auto"
#encoding = "utf-8"
#priority = 0.8

#[[source]]
#type = "access_log"       # web-server logs: Common, Combined or W3C Extended (IIS)
#path = ["/var/log/nginx/access.log", "/var/log/nginx/access.log.*.gz"]  # globs allowed
#format = "auto"           # "auto", "common", "combined" or "w3c"
#encoding = "utf-8"        # lines that are not valid in it are read as latin-1
#lastmod_from_requests = false  # lastmod = newest request time (a request is no edit)
#exclude_agents = ["bot\\\\b", "crawl", "spider"]  # regexes; default: a list of common bots
#skip_extensions = ["css", "js", "png", "jpg", "gif", "ico", "svg", "woff2", "xml", "txt"]
#[[source.filter]]         # rules for this source only, tried before the global ones
#action = "exclude"
#pattern = "re:[?&]replytocom="

#[[source]]
#type = "sitemap"          # existing sitemaps or indexes, local or remote, kept with their lastmod
#path = ["old/sitemap.xml", "https://www.example.com/sitemap-news.xml"]

#[[source]]
#type = "crawl"            # a live site, crawled from url (robots.txt obeyed)
#url = "https://www.example.com/"
#state = "crawl.sqlite"    # keep the crawl here: an interrupted crawl resumes
#report = "excluded.csv"   # every URL left out, with its reason (.csv or .jsonl)
#max_pages = 100000
#max_depth = 100
#max_per_pattern = 1000    # URLs of one pattern found from pages of that pattern; 0: no cap
#concurrency = 8
#delay = 0                 # seconds between requests to one host (Crawl-delay wins if longer)
#max_crawl_delay = 60      # the longest robots.txt Crawl-delay obeyed, in seconds
#images = false            # image entries from <img src>
#alternates = false        # hreflang alternates from <link rel="alternate" hreflang>

# Global filters: tried in order, the first matching rule decides. A pattern is a wildcard
# over the whole normalised URL (case-sensitive, * crosses /) or, after "re:", a regular
# expression searched anywhere. URLs matching no rule are kept, unless every rule is an
# include rule.
[[filter]]
action = "exclude"
pattern = "*~"

[[filter]]
action = "exclude"
pattern = "re:/\\\\.[^/]*"      # hidden files and folders

# How `sitemapkit submit` announces changed URLs (IndexNow) and pings sitemaps.
[submit]
#key = "0123456789abcdef0123456789abcdef"  # default: the <key>.txt in `out`, or a new one
endpoint = "https://api.indexnow.org/indexnow"
ping = []                 # URL templates with {sitemap}, for engines that still take a ping
"""


def write_example_config(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Write :data:`EXAMPLE_CONFIG` to ``path``; an existing file is kept unless ``force``."""
    target = Path(path)
    if target.exists() and not force:
        raise ConfigError("already exists (use --force to replace it)", source=str(path))
    from .publish import write_file_atomically

    write_file_atomically(target, EXAMPLE_CONFIG.encode("utf-8"))
    return target
