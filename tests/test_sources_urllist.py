from __future__ import annotations

import gzip
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from sitemapkit import InvalidValueError, Problem, SourceError, StrictError, from_urllist
from sitemapkit.dates import parse_timezone


def collect(path: Path, **options: object) -> tuple[list, list[Problem]]:  # type: ignore[type-arg]
    problems: list[Problem] = []
    entries = list(from_urllist(path, on_problem=problems.append, **options))  # type: ignore[arg-type]
    return entries, problems


def test_text_list_with_comments_blank_lines_and_attributes(tmp_path: Path) -> None:
    path = tmp_path / "urls.txt"
    path.write_bytes(
        "\ufeff# a comment\n\nhttps://e.com/a\r\n  https://e.com/b lastmod=2024-05-01 "
        "changefreq=Daily priority=0.7\nhttps://e.com/my page.html\n"
        "https://e.com/c priority=2\n".encode()
    )
    entries, problems = collect(path)
    assert [e.loc for e in entries] == [
        "https://e.com/a",
        "https://e.com/b",
        "https://e.com/my page.html",
    ]
    assert entries[1].lastmod == date(2024, 5, 1)
    assert entries[1].changefreq == "daily"
    assert entries[1].priority == 0.7
    assert [(p.line, p.message) for p in problems] == [
        (6, "priority '2' is outside 0.0 to 1.0; line skipped")
    ]
    assert str(problems[0]) == f"{path}:6: priority '2' is outside 0.0 to 1.0; line skipped"


def test_gzip_is_found_by_magic_bytes(tmp_path: Path) -> None:
    path = tmp_path / "urls.list"
    path.write_bytes(gzip.compress(b"https://e.com/1\nhttps://e.com/2\n"))
    entries, _ = collect(path)
    assert [e.loc for e in entries] == ["https://e.com/1", "https://e.com/2"]


def test_csv_and_tsv(tmp_path: Path) -> None:
    (tmp_path / "u.csv").write_text(
        "LOC,lastmod,priority\nhttps://e.com/a,2024-05-01T10:00:00Z,0.5\n"
        '"https://e.com/b?x=1,2",,\n,2024-01-01,\nhttps://e.com/c,never,\n'
        "https://e.com/d,2024-01-01\n"
    )
    entries, problems = collect(tmp_path / "u.csv")
    assert [e.loc for e in entries] == ["https://e.com/a", "https://e.com/b?x=1,2"]
    assert entries[0].lastmod == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert [p.line for p in problems] == [4, 5, 6]
    (tmp_path / "u.tsv").write_text("url\tchangefreq\nhttps://e.com/t\tweekly\n")
    entries, _ = collect(tmp_path / "u.tsv")
    assert entries[0].changefreq == "weekly"


def test_csv_without_loc_column_is_unusable(tmp_path: Path) -> None:
    (tmp_path / "u.csv").write_text("address,lastmod\nhttps://e.com/,\n")
    with pytest.raises(SourceError, match="no 'loc' column") as info:
        collect(tmp_path / "u.csv")
    assert info.value.line == 1


def test_jsonl(tmp_path: Path) -> None:
    (tmp_path / "u.jsonl").write_text(
        '{"loc": "https://e.com/a", "lastmod": "2024-05-01", "priority": 0.3}\n'
        'not json\n[1]\n{"lastmod": "2024-05-01"}\n'
        '{"loc": "https://e.com/b", "priority": "high"}\n'
    )
    entries, problems = collect(tmp_path / "u.jsonl")
    assert [e.loc for e in entries] == ["https://e.com/a"]
    assert entries[0].priority == 0.3
    assert [p.line for p in problems] == [2, 3, 4, 5]


def test_zone_less_times_need_a_zone(tmp_path: Path) -> None:
    (tmp_path / "u.csv").write_text("loc,lastmod\nhttps://e.com/a,2024-05-01T10:00:00\n")
    entries, problems = collect(tmp_path / "u.csv")
    assert not entries
    assert "time without a time zone" in problems[0].message
    entries, problems = collect(tmp_path / "u.csv", assume_tz=parse_timezone("+02:00"))
    assert entries[0].lastmod == datetime(2024, 5, 1, 8, tzinfo=UTC)


def test_strict_handler_stops_the_run(tmp_path: Path) -> None:
    (tmp_path / "u.txt").write_text("https://e.com/a priority=9\n")

    def refuse(problem: Problem) -> None:
        raise StrictError(problem.message, source=problem.source, line=problem.line)

    with pytest.raises(StrictError):
        list(from_urllist(tmp_path / "u.txt", on_problem=refuse))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read"):
        collect(tmp_path / "nope.txt")


def test_undecodable_bytes_cost_one_character_not_the_file(tmp_path: Path) -> None:
    (tmp_path / "u.txt").write_bytes(b"https://e.com/caf\xe9\nhttps://e.com/ok\n")
    entries, _ = collect(tmp_path / "u.txt")
    assert [e.loc for e in entries] == ["https://e.com/caf\ufffd", "https://e.com/ok"]
    entries, _ = collect(tmp_path / "u.txt", encoding="latin-1")
    assert entries[0].loc == "https://e.com/café"


def test_standard_input() -> None:
    script = "import sys, sitemapkit; print([e.loc for e in sitemapkit.from_urllist('-')])"
    output = subprocess.run(
        [sys.executable, "-c", script], input=b"https://e.com/x\n", capture_output=True, check=True
    ).stdout
    assert output.strip() == b"['https://e.com/x']"


@pytest.mark.parametrize("encoding", ["bogus", "rot13", "idna"])
def test_unknown_or_non_text_encoding_is_refused(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "urls.txt"
    path.write_text("https://e.com/a\n")
    with pytest.raises(InvalidValueError, match=f"unknown encoding '{encoding}'"):
        collect(path, encoding=encoding)


def test_utf16_without_bom_is_a_source_error(tmp_path: Path) -> None:
    """The codec raises UnicodeError mid-read even with errors="replace"."""
    path = tmp_path / "urls.txt"
    path.write_text("https://e.com/a\n")
    with pytest.raises(SourceError, match=r"urls\.txt: cannot decode as utf-16"):
        collect(path, encoding="utf-16")


def test_deeply_nested_jsonl_line_is_skipped(tmp_path: Path) -> None:
    """json recurses per level: 100,000 brackets raised RecursionError through generate."""
    path = tmp_path / "urls.jsonl"
    path.write_text('{"loc": ' + "[" * 100_000 + "]" * 100_000 + '}\n{"loc": "https://e.com/a"}\n')
    entries, problems = collect(path)
    assert [e.loc for e in entries] == ["https://e.com/a"]
    assert [(p.line, p.message) for p in problems] == [(1, "JSON nested too deeply; line skipped")]
