"""An audit as a page people read, and as JSON and CSV for programs.

:func:`write_html` writes one self-contained file: summary cards, four charts drawn as inline
SVG (URLs per sitemap, HTTP status mix, lastmod over time, problem kinds), a table of problem
URLs that sorts and filters in the page, and the validation findings. It needs no network:
no external script, font, style sheet or image, and a Content-Security-Policy that lets only
its own inline script (pinned by hash) run. Every value from the audited site is hostile
input and is escaped; only ``http(s)`` URLs become links.

:func:`write_json` and :func:`write_csv` stream the same data: the summary and every
problem and URL (JSON), one row per URL (CSV).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import os
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, Final

from .publish import write_file_atomically

if TYPE_CHECKING:
    from .audit import AuditResult

__all__ = ["HTML_ROWS", "summary", "write_csv", "write_html", "write_json"]

#: Problem rows the HTML table holds at most (errors first); JSON and CSV hold all.
HTML_ROWS: Final = 5_000
_FINDING_ROWS: Final = 1_000
_BAR_ROWS: Final = 20
_TARGETS: Final = ("redirect", "canonical")  # kinds whose detail is a URL
_CSV_FIELDS: Final = (
    "url",
    "sitemap",
    "lastmod",
    "outcome",
    "status",
    "target",
    "detail",
    "last_modified",
    "title",
    "problems",
)
_SEVERITY_COLOURS: Final = {"error": "#cf222e", "warning": "#bf8700"}
_STATUS_COLOURS: Final = {
    "2": "#1a7f37",
    "3": "#0969da",
    "4": "#bc4c00",
    "5": "#cf222e",
}


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def summary(result: AuditResult) -> dict[str, Any]:
    """The audit without its per-URL rows, as JSON-ready values."""
    from .audit import PROBLEM_KINDS

    return {
        "source": result.source,
        "started": result.started.isoformat(timespec="seconds"),
        "seconds": round(result.seconds, 3),
        "check_seconds": round(result.check_seconds, 3),
        "ok": result.ok,
        "failed": result.failed,
        "thresholds": [str(threshold) for threshold in result.thresholds],
        "notes": result.notes,
        "listed": result.listed,
        "entries": result.entries,
        "duplicates": result.duplicates,
        "checked": result.checked,
        "sample": result.sample,
        "seed": result.seed,
        "indexable": result.indexable,
        "errors": result.error_count,
        "warnings": result.warning_count,
        "sitemaps": [
            {"url": s.url, "found_by": s.found_by, "detail": s.detail, "urls": s.urls}
            for s in result.sitemaps
        ],
        "outcomes": result.outcomes,
        "statuses": result.statuses,
        "lastmods": result.lastmods,
        "problems_by_kind": {
            kind: {"count": count, "severity": PROBLEM_KINDS[kind][0]}
            for kind, count in result.problem_counts.items()
        },
        "crawl": None
        if result.crawl is None
        else {
            "fetched": result.crawl.fetched,
            "indexable": result.crawl_indexable,
            "stopped_by": result.crawl.stopped_by,
        },
        "validation": {
            "errors": result.validation.error_count,
            "warnings": result.validation.warning_count,
            "files": len(result.validation.files),
            "findings": [issue.to_dict() for issue in result.validation.issues],
        },
    }


def write_json(result: AuditResult, stream: IO[str]) -> None:
    """The summary, then ``problems`` and ``urls`` arrays, written as they are read."""
    head = json.dumps(summary(result), ensure_ascii=False, indent=1)
    stream.write(head[: head.rindex("}")].rstrip() + ',\n "problems": [')
    for number, problem in enumerate(result.problems()):
        stream.write(("\n  " if number == 0 else ",\n  ") + json.dumps(problem.to_dict()))
    stream.write('\n ],\n "urls": [')
    for number, row in enumerate(result.urls()):
        text = json.dumps(row.to_dict(), ensure_ascii=False)
        stream.write(("\n  " if number == 0 else ",\n  ") + text)
    stream.write("\n ]\n}\n")


def write_csv(result: AuditResult, stream: IO[str]) -> None:
    """One row per listed URL, then one per unlisted page (with ``crawl``)."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(_CSV_FIELDS)
    for row in result.urls():
        values = row.to_dict()
        values["problems"] = " ".join(row.problems)
        writer.writerow(["" if values[k] is None else values[k] for k in _CSV_FIELDS])
    for url in result.unlisted():
        writer.writerow([url, "", "", "", "", "", "", "", "", "unlisted"])


# -- charts ------------------------------------------------------------------------------


def _short(text: str, size: int = 38) -> str:
    return text if len(text) <= size else "…" + text[-(size - 1) :]


def _bars(chart_id: str, title: str, rows: Sequence[tuple[str, int, str]]) -> str:
    """A horizontal bar chart: one labelled bar per row (label, value, colour)."""
    if not rows:
        return _empty(chart_id, title)
    width, label_width, bar_height, gap = 560, 220, 18, 6
    top = max(value for _label, value, _colour in rows) or 1
    height = len(rows) * (bar_height + gap) + gap
    marks = []
    for number, (label, value, colour) in enumerate(rows):
        y = gap + number * (bar_height + gap)
        length = max(1.0, (width - label_width - 70) * value / top) if value else 0.0
        marks.append(
            f"<g><title>{_e(label)}: {value:,}</title>"
            f'<text x="{label_width - 8}" y="{y + 13}" text-anchor="end">{_e(_short(label))}</text>'
            f'<rect class="mark" x="{label_width}" y="{y}" width="{length:.1f}" '
            f'height="{bar_height}" rx="2" fill="{colour}"/>'
            f'<text x="{label_width + length + 6:.1f}" y="{y + 13}">{value:,}</text></g>'
        )
    return _figure(chart_id, title, width, height, "".join(marks))


def _columns(chart_id: str, title: str, rows: Sequence[tuple[str, int]]) -> str:
    """A column chart over time: one column per period, a label on some of them."""
    if not rows:
        return _empty(chart_id, title)
    width, height, bottom, left = 560, 220, 28, 40
    top = max(value for _label, value in rows) or 1
    step = (width - left - 10) / len(rows)
    every = max(1, len(rows) // 8)
    marks = [
        f'<text x="{left - 6}" y="16" text-anchor="end">{top:,}</text>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" '
        'stroke="#d1d9e0"/>',
    ]
    for number, (label, value) in enumerate(rows):
        size = (height - bottom - 12) * value / top
        x = left + number * step
        marks.append(
            f'<g><title>{_e(label)}: {value:,}</title><rect class="mark" x="{x + step * 0.1:.1f}" '
            f'y="{height - bottom - size:.1f}" width="{max(step * 0.8, 1):.1f}" '
            f'height="{max(size, 1):.1f}" fill="#0969da"/></g>'
        )
        if number % every == 0:
            marks.append(
                f'<text x="{x + step / 2:.1f}" y="{height - 10}" text-anchor="middle">'
                f"{_e(label)}</text>"
            )
    return _figure(chart_id, title, width, height, "".join(marks))


def _figure(chart_id: str, title: str, width: int, height: int, marks: str) -> str:
    return (
        f'<figure class="chart" id="{chart_id}"><figcaption>{_e(title)}</figcaption>'
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" aria-label="{_e(title)}">'
        f"{marks}</svg></figure>"
    )


def _empty(chart_id: str, title: str) -> str:
    return (
        f'<figure class="chart" id="{chart_id}"><figcaption>{_e(title)}</figcaption>'
        '<p class="empty">Nothing to show.</p></figure>'
    )


def _lastmod_periods(months: dict[str, int], now: str) -> list[tuple[str, int]]:
    """Months (years when the dates span more than five years) up to ``now`` (a
    ``YYYY-MM``), and one column for every date after it."""
    future = sum(count for key, count in months.items() if key > now)
    past = {key: count for key, count in months.items() if key <= now}
    rows: list[tuple[str, int]] = []
    if past:
        first, last = min(past), max(past)
        year, month = int(first[:4]), int(first[5:7])
        if (int(last[:4]) - year) * 12 + int(last[5:7]) - month < 60:
            while f"{year:04d}-{month:02d}" <= last:
                key = f"{year:04d}-{month:02d}"
                rows.append((key, past.get(key, 0)))
                year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        else:
            years: dict[str, int] = {}
            for key, count in past.items():
                years[key[:4]] = years.get(key[:4], 0) + count
            rows = [(str(y), years.get(str(y), 0)) for y in range(year, int(last[:4]) + 1)]
    if future:
        rows.append(("future", future))
    return rows


def _charts(result: AuditResult) -> str:
    from .audit import PROBLEM_KINDS

    files = sorted((s for s in result.sitemaps if s.urls), key=lambda s: -s.urls)
    sitemap_rows = [(s.url, s.urls, "#0969da") for s in files[:_BAR_ROWS]]
    if len(files) > _BAR_ROWS:
        rest = sum(s.urls for s in files[_BAR_ROWS:])
        sitemap_rows.append((f"{len(files) - _BAR_ROWS:,} more sitemaps", rest, "#8c959f"))
    status_rows = [
        (
            "not requested or no answer" if status == "none" else f"HTTP {status}",
            count,
            _STATUS_COLOURS.get(status[0], "#8c959f"),
        )
        for status, count in result.statuses.items()
    ]
    problem_rows = [
        (kind, count, _SEVERITY_COLOURS[PROBLEM_KINDS[kind][0]])
        for kind, count in result.problem_counts.items()
    ]
    return (
        '<section class="charts">'
        + _bars("chart-sitemaps", "URLs per sitemap", sitemap_rows)
        + _bars("chart-status", "HTTP status of the URLs checked", status_rows)
        + _columns(
            "chart-lastmod",
            "lastmod over time",
            _lastmod_periods(result.lastmods, result.started.strftime("%Y-%m")),
        )
        + _bars("chart-problems", "Problems by kind", problem_rows)
        + "</section>"
    )


# -- the page ----------------------------------------------------------------------------

_STYLE: Final = """
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
       margin: 0 auto; max-width: 78rem; padding: 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
.muted, figcaption, .note { color: var(--muted); }
.verdict { padding: .6rem .9rem; border-radius: 6px; margin: 1rem 0; font-weight: 600; }
.verdict.pass { background: #dafbe1; color: #116329; }
.verdict.fail { background: #ffebe9; color: #a40e26; }
.verdict ul { margin: .3rem 0 0; font-weight: normal; }
.cards { display: grid; gap: .75rem;
         grid-template-columns: repeat(auto-fill, minmax(10.5rem, 1fr)); }
.card { border: 1px solid var(--line); border-radius: 8px; padding: .7rem .9rem; background: #fff; }
.card .value { font-size: 1.6rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .label { color: var(--muted); font-size: .85rem; }
.card.error .value { color: #cf222e; } .card.warning .value { color: #9a6700; }
.kinds { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .75rem; padding: 0; }
.kinds li { list-style: none; border: 1px solid var(--line); border-radius: 999px;
            padding: .1rem .6rem; font-size: .85rem; }
.kinds li.error { border-color: #ff818266; background: #ffebe9; }
.kinds li.warning { border-color: #d4a72c66; background: #fff8c5; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(30rem, 1fr)); gap: 1rem;
          margin-top: 1.5rem; }
figure.chart { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: .75rem; }
figure.chart svg { display: block; font-size: 11px; fill: var(--fg); }
p.empty { color: var(--muted); }
.controls { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; margin: .5rem 0; }
input[type=search], select { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line);
                             border-radius: 6px; }
input[type=search] { min-width: 22rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line);
         vertical-align: top; }
th { background: var(--bg); position: sticky; top: 0; }
th button { all: unset; cursor: pointer; font-weight: 600; }
th[aria-sort=ascending] button::after { content: " ▲"; }
th[aria-sort=descending] button::after { content: " ▼"; }
td.url { word-break: break-all; min-width: 18rem; }
td.sev-error { color: #cf222e; font-weight: 600; } td.sev-warning { color: #9a6700; }
a { color: #0969da; }
footer { margin-top: 2rem; color: var(--muted); font-size: .85rem; }
"""

# Sorting (every table with class "sortable") and filtering (the problem table); no data
# lives in the script, so nothing from the audited site is ever parsed as code.
_SCRIPT: Final = """
(function () {
  "use strict";
  function text(row, index) { return row.cells[index].textContent.trim(); }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.tHead.querySelectorAll("th").forEach(function (th, index) {
      var button = th.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        table.tHead.querySelectorAll("th").forEach(function (other) {
          other.removeAttribute("aria-sort");
        });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var numeric = th.dataset.type === "number";
        var rows = Array.prototype.slice.call(table.tBodies[0].rows);
        rows.sort(function (a, b) {
          var x = text(a, index), y = text(b, index);
          var order = numeric ? (parseFloat(x) || 0) - (parseFloat(y) || 0)
                              : x.localeCompare(y);
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
      });
    });
  });
  var table = document.getElementById("problems");
  if (!table) { return; }
  var query = document.getElementById("filter");
  var kind = document.getElementById("kind");
  var shown = document.getElementById("shown");
  function apply() {
    var needle = query.value.trim().toLowerCase();
    var wanted = kind.value;
    var count = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var visible = (!wanted || row.dataset.kind === wanted) &&
        (!needle || row.textContent.toLowerCase().indexOf(needle) !== -1);
      row.hidden = !visible;
      if (visible) { count += 1; }
    });
    shown.textContent = count.toLocaleString("en");
  }
  query.addEventListener("input", apply);
  kind.addEventListener("change", apply);
  apply();
})();
"""


def _link(url: str | None) -> str:
    if not url:
        return ""
    if url.lower().startswith(("http://", "https://")):
        return f'<a href="{_e(url)}" rel="nofollow noopener noreferrer">{_e(url)}</a>'
    return _e(url)


def _card(label: str, value: int | str, note: str = "", kind: str = "") -> str:
    shown = f"{value:,}" if isinstance(value, int) else value
    extra = f'<div class="note">{_e(note)}</div>' if note else ""
    return (
        f'<div class="card {kind}"><div class="value">{_e(shown)}</div>'
        f'<div class="label">{_e(label)}</div>{extra}</div>'
    )


def _cards(result: AuditResult) -> str:
    from .audit import PROBLEM_KINDS

    checked_note = (
        f"a sample of {result.sample:,} (seed {result.seed})" if result.sample is not None else ""
    )
    share = f"{100 * result.indexable / result.checked:.1f} % of checked" if result.checked else ""
    validation = result.validation.error_count + result.validation.warning_count
    cards = [
        _card("URLs listed", result.listed, f"{result.duplicates:,} duplicate entries"),
        _card("URLs checked", result.checked, checked_note),
        _card("indexable", result.indexable, share),
        _card("errors", result.error_count, "", "error" if result.error_count else ""),
        _card("warnings", result.warning_count, "", "warning" if result.warning_count else ""),
        _card("sitemap files", sum(1 for s in result.sitemaps if s.urls)),
        _card("validation findings", validation),
    ]
    if result.crawl is not None:
        cards.append(
            _card(
                "pages crawled", result.crawl.fetched, f"{result.crawl_indexable or 0:,} indexable"
            )
        )
    kinds = "".join(
        f'<li class="{PROBLEM_KINDS[kind][0]}" title="{_e(PROBLEM_KINDS[kind][1])}">'
        f"{_e(kind)} <strong>{count:,}</strong></li>"
        for kind, count in result.problem_counts.items()
    )
    return f'<section class="cards" id="cards">{"".join(cards)}</section>' + (
        f'<ul class="kinds" id="kinds" aria-label="Problems by kind">{kinds}</ul>' if kinds else ""
    )


def _problem_table(result: AuditResult) -> str:
    rows = []
    total = sum(result.problem_counts.values())
    for number, problem in enumerate(result.problems()):
        if number >= HTML_ROWS:
            break
        rows.append(
            f'<tr data-kind="{_e(problem.kind)}"><td class="sev-{_e(problem.severity)}">'
            f"{_e(problem.severity)}</td><td>{_e(problem.kind)}</td>"
            f'<td class="url">{_link(problem.url)}</td><td class="url">'
            f"{_link(problem.detail) if problem.kind in _TARGETS else _e(problem.detail)}"
            f'</td><td class="url">{_link(problem.sitemap)}</td></tr>'
        )
    options = "".join(
        f'<option value="{_e(kind)}">{_e(kind)} ({count:,})</option>'
        for kind, count in result.problem_counts.items()
    )
    cut = (
        f'<p class="note">The first {HTML_ROWS:,} of {total:,} problems are shown, errors first; '
        "the JSON and CSV outputs hold all of them.</p>"
        if total > HTML_ROWS
        else ""
    )
    return (
        '<section id="problem-urls"><h2>Problem URLs</h2>'
        '<div class="controls"><label for="filter">Filter</label>'
        '<input type="search" id="filter" placeholder="URL, kind or detail">'
        '<label for="kind">Kind</label><select id="kind"><option value="">all kinds</option>'
        f'{options}</select><span class="muted"><span id="shown">{len(rows):,}</span> of '
        f"{len(rows):,} rows shown</span></div>{cut}"
        '<table id="problems" class="sortable"><thead><tr>'
        '<th scope="col"><button type="button">Severity</button></th>'
        '<th scope="col"><button type="button">Kind</button></th>'
        '<th scope="col"><button type="button">URL</button></th>'
        '<th scope="col"><button type="button">Detail</button></th>'
        '<th scope="col"><button type="button">Sitemap</button></th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def _findings_table(result: AuditResult) -> str:
    report = result.validation
    issues = report.issues[:_FINDING_ROWS]
    if not issues:
        return (
            '<section id="validation"><h2>Validation findings</h2>'
            f'<p class="muted">No finding in {len(report.files):,} files.</p></section>'
        )
    rows = "".join(
        f'<tr><td class="sev-{_e(issue.severity.value)}">{_e(issue.severity.value)}</td>'
        f'<td>{_e(issue.rule)}</td><td class="url">{_e(issue.file)}</td>'
        f"<td>{issue.line}</td><td>{issue.column}</td><td>{_e(issue.message)}</td></tr>"
        for issue in issues
    )
    counted = report.error_count + report.warning_count
    note = (
        f'<p class="note">{counted:,} findings ({report.error_count:,} errors, '
        f"{report.warning_count:,} warnings) in {len(report.files):,} files; each rule shows its "
        "first findings per file.</p>"
    )
    return (
        f'<section id="validation"><h2>Validation findings</h2>{note}'
        '<table id="findings" class="sortable"><thead><tr>'
        '<th scope="col"><button type="button">Severity</button></th>'
        '<th scope="col"><button type="button">Rule</button></th>'
        '<th scope="col"><button type="button">File</button></th>'
        '<th scope="col" data-type="number"><button type="button">Line</button></th>'
        '<th scope="col" data-type="number"><button type="button">Column</button></th>'
        '<th scope="col"><button type="button">Message</button></th>'
        f"</tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _verdict(result: AuditResult) -> str:
    notes = "".join(f"<li>{_e(note)}</li>" for note in result.notes)
    if result.ok:
        limits = ", ".join(str(t) for t in result.thresholds)
        body = f"Passed: no threshold reached ({_e(limits)})."
        listed = f"<ul>{notes}</ul>" if notes else ""
        return f'<div class="verdict pass" id="verdict">{body}{listed}</div>'
    failed = "".join(f"<li>{_e(line)}</li>" for line in result.failed)
    return f'<div class="verdict fail" id="verdict">Failed:<ul>{failed}{notes}</ul></div>'


def render_html(result: AuditResult) -> str:
    """The report as one HTML document (see :func:`write_html`)."""
    from . import __version__

    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    page = io.StringIO()
    page.write(
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="robots" content="noindex">'
        f"<title>Sitemap audit: {_e(result.source)}</title><style>{_STYLE}</style></head><body>"
        f'<header><h1>Sitemap audit</h1><div class="muted">{_link(result.source)} · '
        f"{_e(result.started.strftime('%Y-%m-%d %H:%M UTC'))} · {result.seconds:,.1f} s</div>"
        "</header>"
    )
    page.write(_verdict(result))
    page.write(_cards(result))
    page.write(_charts(result))
    page.write(_problem_table(result))
    page.write(_findings_table(result))
    page.write(
        f"<footer>sitemapkit {_e(__version__)} · sitemaps: "
        + ", ".join(_link(s.url) for s in result.sitemaps if s.found_by)
        + f"</footer><script>{_SCRIPT}</script></body></html>\n"
    )
    return page.getvalue()


def write_html(result: AuditResult, path: str | os.PathLike[str]) -> None:
    """Write the report to ``path`` atomically (readers see the old file or the new)."""
    write_file_atomically(path, render_html(result).encode("utf-8"))
