"""Findings as values (:class:`Issue`, :class:`Report`) and the four output formats.

The text format is a compiler's (``file:line:column: severity RULE message``) so editors and
CI logs link to the place; JSON is for programs; JUnit XML and SARIF 2.1.0 are what CI
systems and code-scanning views read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from ..markup import escape
from .rules import RULES, Severity

__all__ = ["FORMATS", "Collector", "Issue", "Report", "format_report"]

FORMATS: Final = ("text", "json", "junit", "sarif")


def quoteattr(value: str) -> str:
    """An XML attribute value in double quotes (xml.sax.saxutils would import urllib.request)."""
    return f'"{_xml_text(value)}"'


def _xml_text(value: str) -> str:
    """Escaped, with what XML 1.0 cannot hold written as ``\\xNN``: a control character in a
    file name or in a text sitemap's line made the JUnit report not well-formed.
    """
    return _NOT_XML.sub(lambda match: f"\\x{ord(match.group()):02x}", escape(value))


_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True, slots=True)
class Issue:
    """One finding: which rule, how bad, what, and where (line and column count from 1)."""

    rule: str
    severity: Severity
    message: str
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}:{self.column}: {self.severity.value} {self.rule} "
            f"{self.message}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
        }


@dataclass(slots=True)
class Report:
    """The result of :func:`~sitemapkit.validate`.

    ``issues`` holds what is shown (at most ``max_per_rule`` per rule and file, then one line
    counting the rest); ``counts`` holds every finding per rule, shown or not. ``ok`` is False
    when there is an error, or a warning and ``strict``.
    """

    issues: list[Issue] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    urls: int = 0
    strict: bool = False

    @property
    def errors(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.severity is Severity.WARNING]

    @property
    def error_count(self) -> int:
        """Every error found, including those past the per-rule cap."""
        return self._count(Severity.ERROR)

    @property
    def warning_count(self) -> int:
        return self._count(Severity.WARNING)

    def _count(self, severity: Severity) -> int:
        return sum(count for key, count in self.counts.items() if key.endswith(severity.value))

    @property
    def ok(self) -> bool:
        return self.error_count == 0 and not (self.strict and self.warning_count)

    @property
    def rules(self) -> set[str]:
        """The IDs of every rule that found something."""
        return {key.split("/")[0] for key in self.counts}

    def extend(self, other: Report) -> None:
        """Add another report's findings (several sources in one run)."""
        self.issues.extend(other.issues)
        for key, count in other.counts.items():
            self.counts[key] = self.counts.get(key, 0) + count
        self.files.extend(other.files)
        self.urls += other.urls

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.ok,
            "errors": [issue.to_dict() for issue in self.errors],
            "warnings": [issue.to_dict() for issue in self.warnings],
            "files": len(self.files),
            "urls": self.urls,
        }

    def summary(self) -> str:
        files = len(self.files)
        return (
            f"{self.error_count:,} error{'s' * (self.error_count != 1)}, "
            f"{self.warning_count:,} warning{'s' * (self.warning_count != 1)} in "
            f"{files:,} file{'s' * (files != 1)} ({self.urls:,} URLs)"
        )


class Collector:
    """Adds one file's findings to a report, keeping at most ``max_per_rule`` of each rule."""

    __slots__ = ("counts", "file", "first_hidden", "max_per_rule", "report", "seen", "shown")

    def __init__(self, report: Report, file: str, *, max_per_rule: int = 100) -> None:
        self.report = report
        self.file = file
        self.max_per_rule = max_per_rule if max_per_rule > 0 else 1 << 62
        self.counts = report.counts
        self.shown: dict[str, int] = {}
        self.seen: dict[str, int] = {}
        self.first_hidden: dict[str, tuple[int, int]] = {}

    def add(
        self, rule: str, message: str, line: int, column: int, severity: Severity | None = None
    ) -> None:
        """Record a finding; ``severity`` None means the rule's default."""
        level = severity or RULES[rule].severity
        key = f"{rule}/{level.value}"
        self.counts[key] = self.counts.get(key, 0) + 1
        self.seen[key] = self.seen.get(key, 0) + 1
        shown = self.shown.get(key, 0)
        if shown < self.max_per_rule:
            self.shown[key] = shown + 1
            self.report.issues.append(Issue(rule, level, message, self.file, line, column))
        elif key not in self.first_hidden:
            self.first_hidden[key] = (line, column)

    def finish(self) -> None:
        """Add one line per capped rule saying how many findings were not shown."""
        for key, (line, column) in self.first_hidden.items():
            rule, _, level = key.partition("/")
            hidden = self.seen[key] - self.shown[key]
            self.report.issues.append(
                Issue(
                    rule,
                    Severity(level),
                    f"{hidden:,} more {rule} findings in this file not shown "
                    f"(first at line {line})",
                    self.file,
                    line,
                    column,
                )
            )
        self.first_hidden.clear()


def _text(report: Report) -> str:
    return "".join(f"{issue}\n" for issue in report.issues)


def _json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _junit(report: Report) -> str:
    by_file: dict[str, list[Issue]] = {name: [] for name in report.files}
    for issue in report.issues:
        by_file.setdefault(issue.file, []).append(issue)
    suites = []
    total = failures = 0
    for name, issues in by_file.items():
        cases = []
        suite_failures = 0
        for issue in issues:
            case_name = quoteattr(f"{issue.rule} {issue.line}:{issue.column}")
            failing = issue.severity is Severity.ERROR or report.strict
            if failing:
                suite_failures += 1
                cases.append(
                    f"    <testcase classname={quoteattr(name)} name={case_name}>"
                    f'<failure type="{issue.severity.value}" message={quoteattr(issue.message)}>'
                    f"{_xml_text(str(issue))}</failure></testcase>\n"
                )
            else:
                cases.append(
                    f"    <testcase classname={quoteattr(name)} name={case_name}>"
                    f"<system-out>{_xml_text(str(issue))}</system-out></testcase>\n"
                )
        if not issues:
            cases.append(f'    <testcase classname={quoteattr(name)} name="valid"/>\n')
        total += len(cases)
        failures += suite_failures
        suites.append(
            f'  <testsuite name={quoteattr(name)} tests="{len(cases)}" '
            f'failures="{suite_failures}" errors="0">\n{"".join(cases)}  </testsuite>\n'
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="sitemapkit validate" tests="{total}" failures="{failures}">\n'
        f"{''.join(suites)}</testsuites>\n"
    )


def _sarif(report: Report) -> str:
    from .. import __version__

    used = sorted({issue.rule for issue in report.issues})
    rule_index = {rule_id: position for position, rule_id in enumerate(used)}
    rules = []
    for rule_id in used:
        rule = RULES.get(rule_id)
        title = rule.title if rule else rule_id
        rules.append(
            {
                "id": rule_id,
                "shortDescription": {"text": title},
                "fullDescription": {"text": rule.spec if rule else title},
                "defaultConfiguration": {
                    "level": rule.severity.value if rule else "error",
                },
                "helpUri": "https://github.com/sitemapkit/sitemapkit/blob/main/docs/rules.md#"
                + rule_id.lower(),
            }
        )
    results = [
        {
            "ruleId": issue.rule,
            "ruleIndex": rule_index[issue.rule],
            "level": issue.severity.value,
            "message": {"text": issue.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": issue.file},
                        "region": {"startLine": issue.line, "startColumn": issue.column},
                    }
                }
            ],
        }
        for issue in report.issues
    ]
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sitemapkit",
                        "version": __version__,
                        "informationUri": "https://www.sitemaps.org/protocol.html",
                        "rules": rules,
                    }
                },
                "artifacts": [{"location": {"uri": name}} for name in report.files],
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


_FORMATTERS: Final = {"text": _text, "json": _json, "junit": _junit, "sarif": _sarif}


def format_report(report: Report, format: str = "text") -> str:
    """Render ``report`` as ``text``, ``json``, ``junit`` or ``sarif``."""
    try:
        return _FORMATTERS[format](report)
    except KeyError:
        raise ValueError(f"unknown format {format!r} (one of {', '.join(FORMATS)})") from None


def merge(reports: Iterable[Report], *, strict: bool = False) -> Report:
    """One report for several sources."""
    merged = Report(strict=strict)
    for report in reports:
        merged.extend(report)
    return merged
