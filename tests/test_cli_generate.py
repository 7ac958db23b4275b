"""The generate and init commands end to end, through main() as the console script runs it."""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit import SitemapWriter, iter_urls
from sitemapkit.cli import main
from tests.oracles import assert_schema_valid

BASE = "https://www.example.com/"
AGENT = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) Safari/605.1.15"


def log_line(path: str, status: int = 200, agent: str = AGENT) -> str:
    return (f'192.0.2.4 - - [01/May/2024:10:00:00 +0000] "GET {path} HTTP/2.0" {status} 512 '
            f'"-" "{agent}"\n')  # fmt: skip


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def locs(sitemap: Path) -> list[str]:
    return re.findall(r"<loc>([^<]+)</loc>", sitemap.read_text())


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "access.log").write_text(
        log_line("/")
        + log_line("/blog/first-post")
        + log_line("/blog/draft-x")
        + log_line("/shop/cart?PHPSESSID=123&step=2")
        + log_line("/wp-login.php", agent="Mozilla/5.0 (compatible; AhrefsBot/7.0)")
        + log_line("/missing", status=404)
        + "garbage line\n",
        encoding="utf-8",
    )
    with gzip.open(folder / "access.log.1.gz", "wt") as old:
        old.write(log_line("/about") + log_line("/blog/draft-y"))
    return folder


def test_generate_from_access_logs_with_ordered_filters_and_robots(
    tmp_path: Path, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\r\nDisallow: /shop/cart\r\n")
    argv = ["generate", "--base-url", BASE, "--out", str(out),
            "--access-log", str(logs / "access.log*"),
            "--exclude-url", "*/blog/draft-x", "--include-url", "re:/blog/draft",
            "--exclude-url", "*/blog/*", "--robots", str(robots)]  # fmt: skip
    code, stdout, stderr = run(argv, capsys)
    assert code == 0, stderr
    assert locs(out / "sitemap.xml") == [
        BASE,
        BASE + "shop/cart?step=2",
        BASE + "about",
        BASE + "blog/draft-y",
    ]
    assert "access.log:7: not a Common Log Format line; line skipped" in stderr
    assert "filtered out (exclude */blog/draft-x): 1" in stdout
    assert "filtered out (exclude */blog/*): 1" in stdout
    assert robots.read_bytes() == (
        b"User-agent: *\r\nDisallow: /shop/cart\r\nSitemap: https://www.example.com/sitemap.xml\r\n"
    )
    assert "robots.txt updated" in stdout
    assert_schema_valid(out / "sitemap.xml")
    code, stdout, _ = run(argv, capsys)
    assert code == 0
    assert "robots.txt already up to date" in stdout


def test_generate_log_options(
    tmp_path: Path, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["generate", "--base-url", BASE, "--out", str(out), "-q",
            "--access-log", str(logs / "access.log"), "--keep-bots",
            "--lastmod-from-requests", "--log-format", "combined"]  # fmt: skip
    code, stdout, _stderr = run(argv, capsys)
    assert code == 0
    assert stdout == ""
    assert BASE + "wp-login.php" in locs(out / "sitemap.xml")
    assert "<lastmod>2024-05-01T10:00:00+00:00</lastmod>" in (out / "sitemap.xml").read_text()
    code, _, _ = run([*argv, "--exclude-agent", "Safari"], capsys)
    assert locs(out / "sitemap.xml") == [BASE + "wp-login.php"]


def test_strict_turns_a_bad_log_line_into_exit_1(
    tmp_path: Path, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["generate", "--base-url", BASE, "--out", str(out), "--strict",
            "--access-log", str(logs / "access.log")]  # fmt: skip
    code, _stdout, stderr = run(argv, capsys)
    assert code == 1
    assert stderr == f"error: {logs / 'access.log'}:7: not a Common Log Format line; line skipped\n"
    assert not (out / "sitemap.xml").exists()


def test_generate_with_config_and_overrides(
    tmp_path: Path, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "site.toml"
    config.write_text(
        f'base_url = "{BASE}"\nout = "out"\nname = "from-config"\nquiet = true\n'
        '[[source]]\ntype = "access_log"\npath = "logs/access.log*"\n'
        '[[filter]]\naction = "exclude"\npattern = "*/blog/*"\n'
    )
    code, stdout, _stderr = run(["generate", "--config", str(config)], capsys)
    assert (code, stdout) == (0, "")
    assert locs(tmp_path / "out" / "from-config.xml") == [
        BASE,
        BASE + "shop/cart?step=2",
        BASE + "about",
    ]
    argv = ["generate", "--config", str(config), "--name", "cli", "--include-url", "*/blog/*"]
    code, stdout, _ = run(argv, capsys)
    assert code == 0
    assert stdout == ""  # quiet still comes from the file
    assert BASE + "blog/first-post" in locs(tmp_path / "out" / "cli.xml")


def test_config_errors_print_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "site.toml"
    config.write_text(f'base_url = "{BASE}"\n\n[[source]]\ntype = "urls"\npaths = "u.txt"\n')
    code, _, stderr = run(["generate", "--config", str(config)], capsys)
    assert code == 2
    assert stderr.startswith(f"error: {config}:5: unknown key 'source.paths'")


def test_lone_surrogate_in_a_left_out_url_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JSON "\\ud800" escape made the summary's example raise UnicodeEncodeError."""
    urls = tmp_path / "urls.jsonl"
    urls.write_text('{"loc": "/a"}\n{"loc": "/b\\ud800"}\n')
    code, stdout, _ = run(
        ["generate", "--base-url", BASE, "--urls", str(urls), "--out", str(tmp_path / "o")], capsys
    )
    assert code == 0
    assert "left out (invalid): 1  e.g. /b\\ud800" in stdout


def test_summary_examples_are_cut_to_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("/a\n/" + "x" * 5000 + "\n")
    code, stdout, _ = run(
        ["generate", "--base-url", BASE, "--urls", str(urls), "--out", str(tmp_path / "o")], capsys
    )
    assert code == 0
    (line,) = [line for line in stdout.splitlines() if line.startswith("left out (too-long)")]
    assert line.endswith("xxx…")
    assert len(line) < 200


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, stderr = run(["generate", "--out", str(tmp_path)], capsys)
    assert (code, stderr) == (2, "error: missing --base-url\n")
    code, _, stderr = run(["generate", "--base-url", BASE, "--out", str(tmp_path)], capsys)
    assert code == 2
    assert "give at least one source" in stderr
    code, _, stderr = run(["generate", "--base-url", BASE, "--out", str(tmp_path / "o"),
                           "--access-log", str(tmp_path / "none-*.log")], capsys)  # fmt: skip
    assert code == 2
    assert stderr == f"error: {tmp_path / 'none-*.log'}: no file matches this pattern\n"
    code, _, stderr = run(["generate", "--base-url", BASE, "--out", str(tmp_path / "o"),
                           "--urls", "-", "--exclude-url", "re:(("], capsys)  # fmt: skip
    assert code == 2
    assert "bad regular expression" in stderr


def test_init_writes_a_config_that_generate_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "sitemapkit.toml"
    code, stdout, _ = run(["init", str(config)], capsys)
    assert code == 0
    assert f"sitemapkit generate --config {config}" in stdout
    code, _, stderr = run(["init", str(config)], capsys)
    assert code == 2
    assert "already exists" in stderr
    assert run(["init", str(config), "--force"], capsys)[0] == 0
    public = tmp_path / "public"
    (public / "drafts").mkdir(parents=True)
    (public / "index.html").write_text("<html></html>")
    (public / "drafts" / "wip.html").write_text("<html></html>")
    (public / ".hidden.html").write_text("<html></html>")
    code, _, stderr = run(["generate", "--config", str(config)], capsys)
    assert code == 0, stderr
    assert locs(public / "sitemap.xml") == [BASE]
    assert_schema_valid(public / "sitemap.xml")


def test_help_lists_the_new_commands_and_options() -> None:
    result = subprocess.run([sys.executable, "-m", "sitemapkit", "generate", "--help"],
                            capture_output=True, text=True, check=True)  # fmt: skip
    for option in ("--config", "--access-log", "--include-url", "--exclude-url", "--robots"):
        assert option in result.stdout
    result = subprocess.run([sys.executable, "-m", "sitemapkit", "--help"],
                            capture_output=True, text=True, check=True)  # fmt: skip
    assert "init" in result.stdout
    assert "submit" in result.stdout


def test_existing_sitemaps_merge_with_new_urls_and_keep_their_lastmod(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old"
    with SitemapWriter(old, base_url=BASE, max_urls=2) as writer:
        writer.add("/a", lastmod="2020-01-01")
        writer.add("/b", lastmod="2021-02-03")
        writer.add("/c")
    (tmp_path / "new.txt").write_text(f"{BASE}b\n{BASE}d\n")
    out = tmp_path / "out"
    argv = ["generate", "--base-url", BASE, "--sitemap", str(old / "sitemap.xml"),
            "--urls", str(tmp_path / "new.txt"), "--out", str(out), "-q"]  # fmt: skip
    code, _, err = run(argv, capsys)
    assert code == 0, err
    entries = {entry.loc: entry.lastmod for entry in iter_urls(str(out / "sitemap.xml"))}
    assert entries == {BASE + "a": "2020-01-01", BASE + "b": "2021-02-03", BASE + "c": None,
                       BASE + "d": None}  # fmt: skip


def test_sitemap_source_in_a_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "old"
    with SitemapWriter(old, base_url=BASE) as writer:
        writer.add("/kept", lastmod="2022-02-02")
    config = tmp_path / "site.toml"
    config.write_text(
        f'base_url = "{BASE}"\nout = "out"\n\n[[source]]\ntype = "sitemap"\n'
        'path = "old/sitemap.xml"\n'
    )
    assert run(["generate", "--config", str(config), "-q"], capsys)[0] == 0
    assert [e.lastmod for e in iter_urls(str(tmp_path / "out" / "sitemap.xml"))] == ["2022-02-02"]
