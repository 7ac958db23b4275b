"""`sitemapkit validate`: output formats, exit status, sources, and the documented examples."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sitemapkit import SitemapWriter, URLEntry

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
INVALID = DATA / "agreement" / "urlset-0.9-invalid.xml"
VALID = DATA / "valid" / "urlset-0.9.xml"
WARNS = DATA / "rules" / "SM-M07.xml"


def sitemapkit(
    *args: str, stdin: bytes | None = None, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sitemapkit", "validate", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        input=stdin.decode() if stdin is not None else None,
    )


def test_text_output_is_compiler_style_and_exit_1_on_errors() -> None:
    result = sitemapkit(str(INVALID))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 7
    pattern = re.compile(
        r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning) "
        r"(?P<rule>SM-[A-Z]+-?\d+) \S.*$"
    )
    assert all(pattern.match(line) for line in lines), lines
    assert lines[0] == (
        f"{INVALID}:4:5: error SM-L02 URL is 11 characters long; the schema's minimum is 12"
    )
    assert result.stderr.strip() == "7 errors, 0 warnings in 1 file (3 URLs)"


def test_valid_file_exits_0_and_warnings_pass_unless_strict() -> None:
    assert sitemapkit(str(VALID)).returncode == 0
    warned = sitemapkit(str(WARNS))
    assert warned.returncode == 0
    assert "warning SM-M07" in warned.stdout
    assert sitemapkit("--strict", str(WARNS)).returncode == 1


def test_could_not_run_exits_2() -> None:
    missing = sitemapkit("no/such/sitemap.xml")
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: ")
    assert "Traceback" not in missing.stderr
    assert sitemapkit("--format", "yaml", str(VALID)).returncode == 2
    assert sitemapkit("--location", "https://example.com/", str(VALID), str(WARNS)).returncode == 2
    unreachable = sitemapkit("http://127.0.0.1:9/sitemap.xml")
    assert unreachable.returncode == 2
    assert "Traceback" not in unreachable.stderr


def test_json_output() -> None:
    result = sitemapkit("--format", "json", str(INVALID), str(WARNS))
    data = json.loads(result.stdout)
    assert data["valid"] is False
    assert data["files"] == 2
    assert data["urls"] == 4
    assert len(data["errors"]) == 7
    assert data["warnings"][0]["rule"] == "SM-M07"
    assert set(data["errors"][0]) == {"rule", "severity", "message", "file", "line", "column"}


def test_junit_output_is_xml_ci_systems_read() -> None:
    result = sitemapkit("--format", "junit", str(INVALID), str(VALID), str(WARNS))
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [suite.get("name") for suite in suites] == [str(INVALID), str(VALID), str(WARNS)]
    assert suites[0].get("failures") == "7"
    assert len(suites[0].findall("testcase/failure")) == 7
    assert suites[1].find("testcase").get("name") == "valid"  # type: ignore[union-attr]
    assert suites[2].get("failures") == "0"  # a warning is not a failure without --strict
    strict = ET.fromstring(sitemapkit("--format", "junit", "--strict", str(WARNS)).stdout)
    assert strict.find("testsuite").get("failures") == "1"  # type: ignore[union-attr]


def test_junit_output_stays_xml_with_control_characters_in_a_file_name(tmp_path: Path) -> None:
    """A raw \\x01 in the suite name made the report not well-formed."""
    name = "odd\x01\x1b.xml"
    (tmp_path / name).write_bytes(WARNS.read_bytes())
    root = ET.fromstring(sitemapkit("--format", "junit", name, cwd=tmp_path).stdout)
    assert root.find("testsuite").get("name") == "odd\\x01\\x1b.xml"  # type: ignore[union-attr]


def test_sarif_output() -> None:
    result = sitemapkit("--format", "sarif", str(INVALID))
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == sorted(set(rules))
    first = run["results"][0]
    assert first["ruleId"] == "SM-L02"
    assert first["level"] == "error"
    assert rules[first["ruleIndex"]] == "SM-L02"
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 4, "startColumn": 5}


def test_stdin_source() -> None:
    result = sitemapkit("-", stdin=VALID.read_bytes())
    assert result.returncode == 0
    assert "1 file (4 URLs)" in result.stderr
    bad = sitemapkit("-", stdin=INVALID.read_bytes())
    assert bad.stdout.startswith("<stdin>:4:5: error SM-L02")


def test_recursive_tree_from_generate(tmp_path: Path) -> None:
    with SitemapWriter(tmp_path, base_url="https://www.example.com/", max_urls=100) as writer:
        writer.add_all(
            URLEntry(
                f"https://www.example.com/item/{i}",
                lastmod=f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
            )
            for i in range(450)
        )
    index = str(writer.result.entry_point)
    result = sitemapkit(
        "--recursive", "--strict", "--location", "https://www.example.com/sitemap.xml", index
    )
    assert result.returncode == 0, result.stdout
    assert "0 errors, 0 warnings in 6 files (450 URLs)" in result.stderr


def test_every_generate_output_validates_strictly(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for number in range(30):
        page = site / f"page-{number}.html"
        page.write_text(f"<html><body>{number}</body></html>")
        stamp = 1_700_000_000 + number * 86_400
        os.utime(page, (stamp, stamp))
    urls = tmp_path / "urls.txt"
    urls.write_text(
        "".join(
            f"https://www.example.com/u/{i} lastmod=2024-03-{1 + i % 28:02d}\n" for i in range(120)
        )
    )
    for options in (
        ["--dir", str(site)],
        ["--urls", str(urls), "--max-urls", "50"],
        ["--urls", str(urls), "--format", "txt", "--max-urls", "50"],
        ["--urls", str(urls), "--protocol", "0.84"],
    ):
        out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "sitemapkit",
                "generate",
                "--base-url",
                "https://www.example.com/",
                "--out",
                str(out),
                "-q",
                *options,
            ],
            check=True,
            capture_output=True,
        )
        entry = next(path for path in out.iterdir() if path.name.startswith("sitemap."))
        result = sitemapkit(
            "--recursive",
            "--strict",
            "--location",
            f"https://www.example.com/{entry.name}",
            str(entry),
        )
        assert result.returncode == 0, (options, result.stdout)


def test_documented_examples_run_and_print_what_the_page_shows() -> None:
    page = (REPO / "docs" / "validate.md").read_text()
    example = page.split("## Example", 1)[1]
    commands = re.findall(r"^(sitemapkit validate .+)$", example.split("```", 2)[1], re.M)
    assert len(commands) == 3
    for command in commands:
        result = sitemapkit(*command.split()[2:])
        assert result.returncode in (0, 1), (command, result.stderr)
    shown = example.split("```", 4)[3].strip().splitlines()
    assert sitemapkit(str(INVALID.relative_to(REPO))).stdout.splitlines() == shown


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help(flag: str) -> None:
    result = sitemapkit(flag)
    assert result.returncode == 0
    assert "--recursive" in result.stdout
