"""Every rule has a failing fixture that triggers it, and a doc entry; passing fixtures pass."""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import pytest

from sitemapkit.validate import RULES, Severity, validate

DATA = Path(__file__).parent / "data"
RULE_FIXTURES = DATA / "rules"
VALID = DATA / "valid"
DOC = Path(__file__).parent.parent / "docs" / "rules.md"
OPTIONS: dict[str, dict[str, object]] = json.loads((RULE_FIXTURES / "options.json").read_text())


def fixture_for(rule_id: str) -> Path:
    matches = sorted(RULE_FIXTURES.glob(f"{rule_id}.*"))
    assert matches, f"no failing fixture for {rule_id} in {RULE_FIXTURES}"
    return matches[0]


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_every_rule_has_a_failing_fixture_that_triggers_it(rule_id: str) -> None:
    path = fixture_for(rule_id)
    report = validate(path, **OPTIONS.get(path.name, {}))  # type: ignore[arg-type]
    found = [issue for issue in report.issues if issue.rule == rule_id]
    assert found, f"{path.name} does not trigger {rule_id}: {[str(i) for i in report.issues]}"
    default = RULES[rule_id].severity
    assert any(issue.severity is default for issue in found) or rule_id in {"SM-U03"}
    assert all(issue.line >= 1 and issue.column >= 1 for issue in report.issues)


def test_every_fixture_names_a_rule() -> None:
    names = {path.name.split(".")[0] for path in RULE_FIXTURES.glob("SM-*")}
    assert names == set(RULES)
    assert set(OPTIONS) <= {path.name for path in RULE_FIXTURES.iterdir()}


@pytest.mark.parametrize("path", sorted(VALID.iterdir()), ids=lambda path: path.name)
def test_one_passing_fixture_per_format_and_version_passes(path: Path) -> None:
    report = validate(path)
    assert report.ok, [str(issue) for issue in report.issues]
    assert report.urls >= 1 or "sitemapindex" in path.name
    # The only warnings are the ones the format carries by nature.
    assert report.rules <= {"SM-D03", "SM-IMG-03"}


def test_passing_fixtures_cover_every_format_and_version() -> None:
    names = {path.name for path in VALID.iterdir()}
    for expected in (
        "urlset-0.9.xml",
        "urlset-0.9.xml.gz",
        "urlset-0.9-extensions.xml",
        "urlset-0.84.xml",
        "sitemapindex-0.9.xml",
        "sitemapindex-0.84.xml",
        "urllist.txt",
        "rss-2.0.xml",
        "atom-1.0.xml",
        "atom-0.3.xml",
    ):
        assert expected in names


# -- docs/rules.md ---------------------------------------------------------------------------

_LANGUAGES = {".xml": "xml", ".txt": "text"}


def _code_tags(text: str) -> str:
    """``<url>`` would vanish as HTML in Markdown: show tags as code."""
    return re.sub(r"(?<!`)(<[a-z:/][^>]*>)(?!`)", r"`\1`", text)


def _example(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    text = data.decode("utf-8", "replace").replace("\ufeff", "")
    lines = text.splitlines()
    shown = [line if len(line) <= 160 else line[:150] + "…" for line in lines[:16]]
    if len(lines) > 16:
        shown.append(f"… ({len(lines) - 16:,} more lines)")
    language = _LANGUAGES.get(Path(path.name.removesuffix(".gz")).suffix, "text")
    return f"```{language}\n" + "\n".join(shown) + "\n```\n"


def render_rules_doc() -> str:
    """docs/rules.md, generated from the registry and the fixtures."""
    parts = [
        "# Validation rules\n\n",
        "Every rule `sitemapkit validate` checks: its ID, severity, meaning, the sentence of the\n"
        "protocol reference (`PROTOCOL.md`) behind it, and a failing example (the fixture under\n"
        "`tests/data/rules/`). IDs are `SM-` plus the PROTOCOL.md ID; the Google extension rules\n"
        "of PROTOCOL.md section 5 have no ID there and use `SM-IMG-`, `SM-VID-`, `SM-NEWS-`,\n"
        "`SM-HREF-` and `SM-MOB-`. This page is generated: run\n"
        "`SITEMAPKIT_UPDATE_DOCS=1 pytest tests/test_validate_rules.py` after changing a rule.\n\n",
        f"{len(RULES)} rules: "
        f"{sum(r.severity is Severity.ERROR for r in RULES.values())} errors, "
        f"{sum(r.severity is Severity.WARNING for r in RULES.values())} warnings.\n\n",
        "| ID | severity | meaning |\n|---|---|---|\n",
    ]
    parts += [
        f"| [{rule.id}](#{rule.id.lower()}) | {rule.severity.value} | {_code_tags(rule.title)} |\n"
        for rule in RULES.values()
    ]
    for rule in RULES.values():
        path = fixture_for(rule.id)
        options = OPTIONS.get(path.name, {})
        parts.append(f"\n## {rule.id}\n\n**{rule.severity.value}**. {_code_tags(rule.title)}\n\n")
        parts.append(f"> {rule.spec}\n\n")
        if rule.note:
            parts.append(f"{_code_tags(rule.note)}\n\n")
        flags = "".join(
            f" --{key}" + ("" if value is True else f" {value}") for key, value in options.items()
        )
        parts.append(
            f"Failing example: `tests/data/rules/{path.name}` "
            f"(`sitemapkit validate{flags} {path.name}`)\n\n"
        )
        parts.append(_example(path))
    return "".join(parts)


def test_rules_doc_lists_every_rule_and_is_current() -> None:
    expected = render_rules_doc()
    if os.environ.get("SITEMAPKIT_UPDATE_DOCS"):
        DOC.write_text(expected, encoding="utf-8")
    text = DOC.read_text(encoding="utf-8")
    for rule_id in RULES:
        assert f"\n## {rule_id}\n" in text, f"docs/rules.md has no entry for {rule_id}"
    assert text == expected, "docs/rules.md is stale: SITEMAPKIT_UPDATE_DOCS=1 pytest ..."
