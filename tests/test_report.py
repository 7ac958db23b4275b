"""The audit report: escaped and self-contained as text, and working in headless Chromium.

``SITEMAPKIT_SCREENSHOT=docs/report.png pytest tests/test_report.py -k screenshot`` renews
the picture the README shows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit import AuditResult, audit
from sitemapkit.cli import cli
from sitemapkit.report import render_html
from tests.browser import Browser, browser
from tests.fault_server import FaultServer
from tests.test_audit import HOSTILE, quick, site  # noqa: F401 - the site fixture

PAYLOAD = "window.pwned=1"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with browser() as instance:
        yield instance


@pytest.fixture
def report(site: FaultServer, tmp_path: Path) -> Iterator[tuple[AuditResult, Path]]:  # noqa: F811
    with audit(site.url("/"), fetch=quick(), crawl=True, on_problem=lambda _p: None) as result:
        path = tmp_path / "report.html"
        result.write_html(path)
        yield result, path


def test_html_escapes_hostile_urls_and_loads_nothing(report: tuple[AuditResult, Path]) -> None:
    result, path = report
    text = path.read_text()
    assert text.count("<script>") == 1  # ours, at the end
    assert PAYLOAD not in text.replace(f"&lt;script&gt;{PAYLOAD}", "")
    assert "&lt;/script&gt;&lt;script&gt;window.pwned=1" in text
    assert "q&quot;&#x27;&lt;/script&gt;" in text
    # Nothing is loaded from anywhere: no src, no stylesheet link, no url(...) in CSS.
    assert not re.search(r"""<(?:script|img|iframe)[^>]+src=|<link[^>]+stylesheet|url\(""", text)
    assert "Content-Security-Policy" in text
    assert text == render_html(result)


def test_report_renders_draws_its_charts_and_filters_in_chromium(
    chromium: Browser, report: tuple[AuditResult, Path]
) -> None:
    result, path = report
    page = chromium.new_page()
    page.navigate(path.as_uri())
    page.settle()
    assert page.errors == []
    assert page.evaluate("typeof window.pwned") == "undefined"
    marks = page.evaluate(
        """Array.from(document.querySelectorAll('figure.chart')).map(figure => [figure.id,
           Array.from(figure.querySelectorAll('svg .mark'))
             .filter(mark => mark.getBBox().width > 0 && mark.getBBox().height > 0).length])"""
    )
    assert dict(marks) == {
        "chart-sitemaps": 1,
        "chart-status": len(result.statuses),
        "chart-lastmod": page.evaluate("document.querySelectorAll('#chart-lastmod .mark').length"),
        "chart-problems": len(result.problem_counts),
    }
    assert all(count >= 1 for _id, count in marks)
    visible = "Array.from(document.querySelectorAll('#problems tbody tr')).filter(r => !r.hidden)"
    total = page.evaluate(f"{visible}.length")
    assert total == sum(result.problem_counts.values())
    needle = "missing.html"
    expected = sum(
        needle in " ".join(str(v) for v in problem.to_dict().values())
        for problem in result.problems()
    )
    page.evaluate(
        f"{{ const box = document.getElementById('filter'); box.value = '{needle}';"
        "box.dispatchEvent(new Event('input')); }"
    )
    assert 0 < expected < total
    assert page.evaluate(f"{visible}.length") == expected
    assert page.evaluate("document.getElementById('shown').textContent") == str(expected)
    page.evaluate(
        "{ document.getElementById('filter').value = '';"
        "const kind = document.getElementById('kind'); kind.value = 'orphan';"
        "kind.dispatchEvent(new Event('change')); }"
    )
    kinds = page.evaluate(f"{visible}.map(r => r.dataset.kind)")
    assert kinds == ["orphan"] * result.problem_counts["orphan"]
    # Sorting by URL, twice: ascending, then descending.
    page.evaluate("document.querySelectorAll('#problems th button')[2].click()")
    urls = page.evaluate(f"{visible}.map(r => r.cells[2].textContent)")
    assert urls == sorted(urls, key=str.casefold) or urls == sorted(urls)
    page.evaluate("document.querySelectorAll('#problems th button')[2].click()")
    assert page.evaluate(f"{visible}.map(r => r.cells[2].textContent)") == urls[::-1]
    assert page.errors == []


def test_screenshot(chromium: Browser, report: tuple[AuditResult, Path], tmp_path: Path) -> None:
    _result, path = report
    page = chromium.new_page()
    page.navigate(path.as_uri())
    target = Path(os.environ.get("SITEMAPKIT_SCREENSHOT", tmp_path / "report.png"))
    page.screenshot(target, full_page=False)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert target.stat().st_size > 20_000  # a page with content, not a blank one


def test_cli_writes_the_report_and_json(site: FaultServer, tmp_path: Path) -> None:  # noqa: F811
    runner = CliRunner()
    out = tmp_path / "audit.json"
    html = tmp_path / "report.html"
    args = ["audit", site.url("/"), "--report", str(html), "--retries", "1", "-q"]
    outcome = runner.invoke(cli, [*args, "--format", "json", "--output", str(out)])
    assert outcome.exit_code == 1, outcome.output
    assert "FAILED error>0" in outcome.output
    assert '"listed": 12' in out.read_text()
    assert html.read_text().startswith("<!doctype html>")
    outcome = runner.invoke(cli, [*args, "--fail-on", "not-indexable>80%"])
    assert outcome.exit_code == 0, outcome.output
    outcome = runner.invoke(cli, ["audit", site.url("/"), "--fail-on", "nothing>1"])
    assert outcome.exit_code == 2
    assert "unknown kind 'nothing'" in outcome.output


def test_cli_text_summary(site: FaultServer) -> None:  # noqa: F811
    outcome = CliRunner().invoke(
        cli, ["audit", site.url("/sitemap.xml"), "--retries", "1", "--sample", "5"]
    )
    assert outcome.exit_code in {0, 1}
    lines = outcome.output.splitlines()
    assert lines[0].startswith(f"audited {site.url('/sitemap.xml')}: 1 sitemap files, 12 URLs")
    assert "5 checked (a sample of 5, seed 0)" in lines[0]
    assert any(line.startswith("validation: ") for line in lines)
    assert f"{site.url('/sitemap.xml')}:14:" in outcome.output  # a finding with its line
    assert HOSTILE not in outcome.output or "pwned" in outcome.output


def test_lastmod_periods_are_months_years_and_the_future() -> None:
    from sitemapkit.report import _lastmod_periods

    assert _lastmod_periods({"2024-01": 2, "2024-03": 1}, "2024-06") == [
        ("2024-01", 2),
        ("2024-02", 0),
        ("2024-03", 1),
    ]
    assert _lastmod_periods({"2010-05": 1, "2024-03": 4, "2999-01": 7}, "2024-06") == [
        *(
            (str(year), 1 if year == 2010 else 4 if year == 2024 else 0)
            for year in range(2010, 2025)
        ),
        ("future", 7),
    ]
    assert _lastmod_periods({}, "2024-06") == []
