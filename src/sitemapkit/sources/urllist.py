"""URL lists: text (one URL a line), CSV/TSV with a header, and JSON Lines.

Text lines may carry sitemap_gen's ``key=value`` attributes after the URL
(``https://example.com/ lastmod=2024-05-01 changefreq=daily priority=0.8``); ``#`` starts a
comment line. CSV, TSV and JSONL use the keys ``loc`` (required; ``url`` is accepted too),
``lastmod``, ``changefreq`` and ``priority``, plus the extension keys of
:mod:`sitemapkit.sources._extensions` (images, videos, news, hreflang alternates). A bad row is
reported and skipped.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from datetime import tzinfo
from pathlib import Path
from typing import Literal

from ..errors import InvalidValueError, SourceError
from ..model import Problem, ProblemHandler, URLEntry, log_problem
from ._common import FieldParser, open_text, source_name
from ._extensions import extension_fields, has_extension_keys

__all__ = ["UrlListFormat", "from_urllist"]

UrlListFormat = Literal["auto", "txt", "csv", "tsv", "jsonl"]

_ATTRIBUTES = ("lastmod", "changefreq", "priority")


def _detect_format(path: str | Path) -> Literal["txt", "csv", "tsv", "jsonl"]:
    name = str(path).lower().removesuffix(".gz")
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".tsv"):
        return "tsv"
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    return "txt"


def from_urllist(
    path: str | Path,
    *,
    format: UrlListFormat = "auto",
    encoding: str = "utf-8",
    assume_tz: tzinfo | None = None,
    on_problem: ProblemHandler = log_problem,
) -> Iterator[URLEntry]:
    """Stream the entries of a URL list; ``path`` ``-`` reads standard input.

    The format comes from the file name (``.txt``, ``.csv``, ``.tsv``, ``.jsonl``, each
    optionally ``.gz``); gzip is recognised by its magic bytes whatever the name.
    """
    kind = _detect_format(path) if format == "auto" else format
    name = source_name(path)
    fields = FieldParser(assume_tz)
    with open_text(path, encoding=encoding) as text:
        if kind == "txt":
            yield from _read_text(text, name, fields, on_problem)
        elif kind == "jsonl":
            yield from _read_jsonl(text, name, fields, on_problem)
        else:
            yield from _read_csv(text, name, fields, on_problem, "\t" if kind == "tsv" else ",")


def _text(record: Mapping[str, object], key: str) -> str | None:
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InvalidValueError(f"{key} {value!r} is not text")


def _entry(record: Mapping[str, object], fields: FieldParser) -> URLEntry:
    loc = record.get("loc", record.get("url"))
    if not isinstance(loc, str) or not loc.strip():
        raise InvalidValueError("no URL (the 'loc' field is missing or empty)")
    priority = record.get("priority")
    if priority is not None and (
        isinstance(priority, bool) or not isinstance(priority, str | int | float)
    ):
        raise InvalidValueError(f"priority {priority!r} is not a number")
    return URLEntry(
        loc.strip(),
        lastmod=fields.lastmod(_text(record, "lastmod")),
        changefreq=fields.changefreq(_text(record, "changefreq")),
        priority=fields.priority(priority),
        **(extension_fields(record) if has_extension_keys(record) else {}),
    )


def _read_text(
    lines: Iterator[str], name: str, fields: FieldParser, on_problem: ProblemHandler
) -> Iterator[URLEntry]:
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if " " not in line and "\t" not in line and "=" not in line:
            yield URLEntry(line)
            continue
        tokens = line.split()
        attributes: dict[str, str] = {}
        while len(tokens) > 1 and tokens[-1].split("=", 1)[0] in _ATTRIBUTES and "=" in tokens[-1]:
            key, _, value = tokens.pop().partition("=")
            attributes[key] = value
        try:
            yield _entry({"loc": " ".join(tokens), **attributes}, fields)
        except InvalidValueError as exc:
            on_problem(Problem(name, number, f"{exc.message}; line skipped"))


def _read_jsonl(
    lines: Iterator[str], name: str, fields: FieldParser, on_problem: ProblemHandler
) -> Iterator[URLEntry]:
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError as exc:
            on_problem(Problem(name, number, f"not JSON ({exc.args[0]}); line skipped"))
            continue
        except RecursionError:  # json recurses once per level of [ or {
            on_problem(Problem(name, number, "JSON nested too deeply; line skipped"))
            continue
        if not isinstance(record, dict):
            on_problem(Problem(name, number, "not a JSON object; line skipped"))
            continue
        try:
            yield _entry(record, fields)
        except InvalidValueError as exc:
            on_problem(Problem(name, number, f"{exc.message}; line skipped"))


def _read_csv(
    text: Iterator[str],
    name: str,
    fields: FieldParser,
    on_problem: ProblemHandler,
    delimiter: str,
) -> Iterator[URLEntry]:
    reader = csv.reader(text, delimiter=delimiter)
    try:
        header = [column.strip().lower() for column in next(reader)]
    except StopIteration:
        return
    except csv.Error as exc:
        raise SourceError(f"bad CSV header: {exc}", source=name, line=1) from exc
    if "loc" not in header and "url" not in header:
        raise SourceError(
            f"the header has no 'loc' column (found: {', '.join(header) or 'nothing'})",
            source=name,
            line=1,
        )
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            on_problem(Problem(name, reader.line_num, f"bad CSV row ({exc}); row skipped"))
            continue
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            on_problem(
                Problem(
                    name,
                    reader.line_num,
                    f"{len(row)} fields where the header has {len(header)}; row skipped",
                )
            )
            continue
        try:
            yield _entry(dict(zip(header, row, strict=True)), fields)
        except InvalidValueError as exc:
            on_problem(Problem(name, reader.line_num, f"{exc.message}; row skipped"))
