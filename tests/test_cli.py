from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli, main
from tests.oracles import assert_schema_valid

BASE = "https://www.example.com/"
REPO = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sitemapkit", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_generate_from_the_example_site(tmp_path: Path) -> None:
    result = run(
        "generate",
        "--base-url",
        BASE,
        "--dir",
        str(REPO / "examples" / "site"),
        "--out",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert f"{tmp_path / 'sitemap.xml'}  (sitemap, " in result.stdout
    text = (tmp_path / "sitemap.xml").read_text()
    assert f"<loc>{BASE}</loc>" in text
    assert "products/%C3%BCber-widget.html" in text
    assert "docs/release%20notes.html" in text
    assert "drafts-preview" not in text  # noindex
    assert ".git-hidden" not in text
    assert_schema_valid(tmp_path / "sitemap.xml")


def test_generate_combines_sources_and_reports_left_out_urls(tmp_path: Path) -> None:
    urls = tmp_path / "urls.csv"
    urls.write_text(f"loc,lastmod\n/a,2024-05-01\n{BASE}b,\nhttps://other.org/,\n/a,\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html></html>")
    out = tmp_path / "out"
    result = run(
        "generate",
        "--base-url",
        BASE,
        "--urls",
        str(urls),
        "--dir",
        str(site),
        "--out",
        str(out),
        "--max-urls",
        "2",
    )
    assert result.returncode == 0, result.stderr
    assert "(index of 2 sitemaps, 3 URLs)" in result.stdout
    assert "left out (duplicate): 1" in result.stdout
    assert "left out (out-of-scope): 1" in result.stdout


def test_standard_input_and_text_format(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sitemapkit",
            "generate",
            "--base-url",
            BASE,
            "--urls",
            "-",
            "--out",
            str(tmp_path),
            "--format",
            "txt",
            "-q",
        ],
        input="/x\n/y\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert (tmp_path / "sitemap.txt").read_text() == f"{BASE}x\n{BASE}y\n"


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (["--urls", "missing.txt"], 2, "error: missing.txt: cannot read: No such file"),
        (["--max-urls", "60000", "--urls", "{list}"], 2, "max_urls must be between 1 and 50,000"),
        ([], 2, "give at least one source"),
        (["--urls", "{list}", "--timezone", "Nowhere/City"], 2, "unknown time zone"),
        (["--urls", "{bad}", "--strict"], 1, "{bad}:2: priority 'high' is not a number"),
        (["--urls", "{outside}", "--strict"], 1, "error: outside"),
    ],
)
def test_errors_are_one_line_with_an_exit_code(
    tmp_path: Path, arguments: list[str], code: int, message: str
) -> None:
    files = {
        "list": tmp_path / "list.txt",
        "bad": tmp_path / "bad.txt",
        "outside": tmp_path / "outside.txt",
    }
    files["list"].write_text("/a\n")
    files["bad"].write_text("/a\n/b priority=high\n")
    files["outside"].write_text("https://elsewhere.org/\n")
    names = {key: str(path) for key, path in files.items()}
    out = tmp_path / "out"
    result = run(
        "generate", "--base-url", BASE, "--out", str(out), *(a.format(**names) for a in arguments)
    )
    assert result.returncode == code
    assert message.format(**names) in result.stderr
    assert "Traceback" not in result.stderr
    assert not (out / "sitemap.xml").exists()


def test_bad_rows_are_warnings_without_strict(tmp_path: Path) -> None:
    (tmp_path / "u.txt").write_text("/a\n/b priority=high\n")
    result = run(
        "generate",
        "--base-url",
        BASE,
        "--urls",
        str(tmp_path / "u.txt"),
        "--out",
        str(tmp_path / "out"),
    )
    assert result.returncode == 0
    assert f"warning: {tmp_path / 'u.txt'}:2: priority 'high' is not a number" in result.stderr
    assert "input problems (rows skipped): 1" in result.stdout


def test_version_and_help() -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["--version"]).output.startswith("sitemapkit, version ")
    for command in cli.commands:
        help_text = runner.invoke(cli, [command, "-h"]).output
        assert "Usage:" in help_text


def test_main_turns_errors_into_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["generate", "--base-url", "ftp://x/", "--urls", "-", "--out", "/nonexistent/x/y"])
    assert info.value.code == 2
    assert capsys.readouterr().err.startswith("error: ")
