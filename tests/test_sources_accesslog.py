"""Access logs: real files of each format, plain and gzip, written by the tests."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import (
    InvalidValueError,
    Problem,
    SitemapWriter,
    SourceError,
    URLEntry,
    from_access_log,
)
from tests.oracles import assert_schema_valid

BASE = "https://www.example.com/"
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def combined(
    path: str,
    *,
    status: int = 200,
    method: str = "GET",
    agent: str = BROWSER,
    time: str = "10/Oct/2024:13:55:36 +0000",
) -> bytes:
    line = (
        f'203.0.113.9 - - [{time}] "{method} {path} HTTP/1.1" {status} 2326 '
        f'"https://www.example.com/" "{agent}"\n'
    )
    return line.encode("utf-8")


def read(path: Path | str | list[Path], **options: object) -> tuple[list[str], list[Problem]]:
    problems: list[Problem] = []
    entries = from_access_log(path, base_url=BASE, on_problem=problems.append, **options)  # type: ignore[arg-type]
    return [entry.loc for entry in entries], problems


def test_combined_keeps_successful_page_views_once_in_first_seen_order(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(
        combined("/about.html")
        + combined("/")
        + combined("/missing", status=404)
        + combined("/contact", method="POST")
        + combined("/bot-only", agent=GOOGLEBOT)
        + combined("/style.css")
        + combined("/img/logo.PNG")
        + combined("/about.html")
        + combined("/not-modified", status=304)
        + combined("/head", method="HEAD")
        + combined("/redirect", status=301)
        + combined("/error", status=500)
        + combined("/search?q=shoes&PHPSESSID=abc123")
        + combined("/search?PHPSESSID=zzz&q=shoes")
        + combined("/no-content", status=204)
    )
    urls, problems = read(log)
    assert urls == [
        BASE + "about.html",
        BASE,
        BASE + "not-modified",
        BASE + "head",
        BASE + "search?q=shoes",
        BASE + "no-content",
    ]
    assert problems == []


def test_bots_are_counted_when_the_pattern_list_is_empty(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(combined("/a", agent=GOOGLEBOT) + combined("/b", agent="curl/8.5.0"))
    assert read(log)[0] == []
    assert read(log, exclude_agents=())[0] == [BASE + "a", BASE + "b"]
    assert read(log, exclude_agents=[r"^curl/"])[0] == [BASE + "a"]


def test_asset_extensions_are_configurable(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(combined("/feed.xml") + combined("/report.pdf") + combined("/app.js?v=2"))
    assert read(log)[0] == [BASE + "report.pdf"]
    assert read(log, skip_extensions=["pdf"])[0] == [BASE + "feed.xml", BASE + "app.js?v=2"]


def test_malformed_lines_are_problems_with_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(
        combined("/one")
        + b"this is not a log line\n"
        + b'203.0.113.9 - - [10/Oct/2024:13:55:36 +0000] "\\x16\\x03\\x01" 200 0 "-" "-"\n'
        + b"\n"
        + combined("/two")
    )
    urls, problems = read(log)
    assert urls == [BASE + "one", BASE + "two"]
    assert [(p.source, p.line) for p in problems] == [(str(log), 2), (str(log), 3)]
    assert "not a Common Log Format line" in problems[0].message
    assert "unreadable request" in problems[1].message


def test_combined_format_refuses_common_lines(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(
        b'198.51.100.7 - frank [10/Oct/2024:13:55:36 -0700] "GET /a HTTP/1.0" 200 2326\n'
        + combined("/b")
    )
    urls, problems = read(log, format="combined")
    assert urls == [BASE + "b"]
    assert len(problems) == 1
    assert problems[0].line == 1
    assert read(log, format="common")[0] == [BASE + "a", BASE + "b"]


def test_latin1_bytes_and_apache_escapes_become_the_same_utf8_url(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    latin1_line = b'203.0.113.9 - - [10/Oct/2024:13:55:36 +0000] "GET /caf\xe9 HTTP/1.1" 200 5\n'
    escaped_line = (
        b'203.0.113.9 - - [10/Oct/2024:13:55:36 +0000] "GET /caf\\xc3\\xa9 HTTP/1.1" 200 5\n'
    )
    agent_line = combined("/ok").replace(b"Firefox", b"Firef\xf6x")
    log.write_bytes(latin1_line + escaped_line + combined("/café") + agent_line)
    urls, problems = read(log)
    assert urls == [BASE + "caf%C3%A9", BASE + "ok"]
    assert problems == []


def test_encoding_option_reads_other_encodings(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(combined("/Ωmega").decode().encode("iso-8859-7"))
    assert read(log, encoding="iso-8859-7")[0] == [BASE + "%CE%A9mega"]
    with pytest.raises(InvalidValueError, match="unknown encoding"):
        read(log, encoding="no-such-codec")


@pytest.mark.parametrize("encoding", ["rot13", "idna"])
def test_codecs_that_are_not_text_encodings_are_refused_at_once(
    tmp_path: Path, encoding: str
) -> None:
    """rot13 passes codecs.lookup but fails on every line; idna cannot replace bad bytes."""
    log = tmp_path / "access.log"
    log.write_bytes(combined("/a"))
    with pytest.raises(InvalidValueError, match="unknown encoding"):
        read(log, encoding=encoding)


def test_utf16_without_bom_falls_back_per_line(tmp_path: Path) -> None:
    """The utf-16 codec raises a bare UnicodeError (no BOM), not UnicodeDecodeError."""
    log = tmp_path / "access.log"
    log.write_bytes(combined("/a"))
    urls, problems = read(log, encoding="utf-16")
    assert (urls, [problem.line for problem in problems]) == ([], [1])


def test_gzip_and_globs_across_rotated_files(tmp_path: Path) -> None:
    (tmp_path / "access.log").write_bytes(combined("/new"))
    with gzip.open(tmp_path / "access.log.1.gz", "wb") as packed:
        packed.write(combined("/old") + combined("/new"))
    # a rotated file without .gz in its name is still recognised by its magic bytes
    with gzip.open(tmp_path / "access.log.2", "wb") as packed:
        packed.write(combined("/older"))
    urls, problems = read(str(tmp_path / "access.log*"))
    assert urls == [BASE + "new", BASE + "old", BASE + "older"]
    assert problems == []


def test_truncated_gzip_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    data = gzip.compress(b"".join(combined(f"/page-{n}") for n in range(2000)))
    (tmp_path / "cut.log.gz").write_bytes(data[: len(data) // 2])
    (tmp_path / "fine.log").write_bytes(combined("/fine"))
    urls, problems = read([tmp_path / "cut.log.gz", tmp_path / "fine.log"])
    assert urls[0] == BASE + "page-0"
    assert urls[-1] == BASE + "fine"
    assert len(problems) == 1
    assert "truncated" in problems[0].message
    assert problems[0].source == str(tmp_path / "cut.log.gz")


def test_unmatched_glob_and_missing_file_fail_at_once(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no file matches"):
        from_access_log(str(tmp_path / "nothing-*.log"), base_url=BASE)
    with pytest.raises(SourceError, match="cannot read"):
        list(from_access_log(tmp_path / "missing.log", base_url=BASE))
    with pytest.raises(InvalidValueError, match="user-agent pattern"):
        from_access_log(tmp_path / "missing.log", base_url=BASE, exclude_agents=["("])
    with pytest.raises(InvalidValueError, match="repetition number is too large"):  # OverflowError
        from_access_log(tmp_path / "missing.log", base_url=BASE, exclude_agents=["a{99999999999}"])


def test_overlong_line_is_skipped(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(combined("/a") + b"x" * 200_000 + b"\n" + combined("/b"))
    urls, problems = read(log)
    assert urls == [BASE + "a", BASE + "b"]
    assert len(problems) == 1
    assert problems[0].line == 2
    assert "longer than" in problems[0].message


W3C_HEADER = (
    "#Software: Microsoft Internet Information Services 10.0\n"
    "#Version: 1.0\n"
    "#Date: 2024-05-01 00:00:00\n"
    "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip "
    "cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken\n"
)


def w3c(
    stem: str,
    query: str = "-",
    *,
    status: int = 200,
    method: str = "GET",
    agent: str = "Mozilla/5.0+(Windows+NT+10.0;+Win64;+x64)",
    clock: str = "00:00:01",
) -> str:
    return (
        f"2024-05-01 {clock} 10.0.0.1 {method} {stem} {query} 443 - 192.0.2.1 {agent} - "
        f"{status} 0 0 15\n"
    )


def test_w3c_extended_with_fields_changing_mid_file(tmp_path: Path) -> None:
    log = tmp_path / "u_ex240501.log"
    log.write_text(
        W3C_HEADER
        + w3c("/default.aspx")
        + w3c("/products.aspx", "id=7&ASPSESSIONIDQQGGGNCG=ABC")
        + w3c("/login.aspx", method="POST")
        + w3c("/gone.aspx", status=404)
        + w3c("/crawled.aspx", agent="Mozilla/5.0+(compatible;+bingbot/2.0)")
        + w3c("/short-line")[:30]
        + "\n"
        + "#Fields: date time cs-method cs-uri sc-status cs(User-Agent)\n"
        + '2024-05-02 10:00:00 GET /new-layout?x=1 200 "Mozilla/5.0 (quoted agent)"\n'
        + "2024-05-02 10:00:00 HEAD /headed 304 -\n"
        + "#Fields: date time cs-method\n"
        + "2024-05-02 10:00:00 GET\n"
        + "#Fields: cs-uri-stem sc-status\n"
        + "/after-bad-header 200\n",
        encoding="utf-8",
    )
    urls, problems = read(log)
    assert urls == [
        BASE + "default.aspx",
        BASE + "products.aspx?id=7",
        BASE + "new-layout?x=1",
        BASE + "headed",
        BASE + "after-bad-header",
    ]
    lines = log.read_text().splitlines()
    assert [(p.line, lines[p.line - 1][:20]) for p in problems] == [
        (10, "2024-05-01 00:00:01 "),
        (14, "#Fields: date time c"),
    ]
    assert "fields where #Fields: names 15" in problems[0].message


def test_w3c_data_before_any_header_is_reported(tmp_path: Path) -> None:
    log = tmp_path / "iis.log"
    log.write_text("#Version: 1.0\n/a 200\n#Fields: cs-uri-stem sc-status\n/b 200\n")
    urls, problems = read(log, format="w3c")
    assert urls == [BASE + "b"]
    assert [(p.line, "no #Fields:" in p.message) for p in problems] == [(2, True)]


@pytest.mark.parametrize("zone", ["+2500", "-9999"])
def test_impossible_zone_offset_is_a_bad_time(tmp_path: Path, zone: str) -> None:
    """timezone() raised ValueError outside the try that catches impossible dates."""
    log = tmp_path / "access.log"
    log.write_bytes(combined("/a", time=f"10/Oct/2024:13:55:36 {zone}") + combined("/b"))
    urls, problems = read(log, lastmod_from_requests=True)
    assert urls == [BASE + "b"]
    assert [(p.line, p.message) for p in problems] == [
        (1, f"bad time '10/Oct/2024:13:55:36 {zone}'; line skipped")
    ]


def test_lastmod_from_requests_is_the_newest_request_time(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(
        combined("/a", time="10/Oct/2024:13:55:36 +0200")
        + combined("/b", time="11/Oct/2024:08:00:00 +0000")
        + combined("/a", time="12/Oct/2024:00:30:00 +0100")
        + combined("/a", time="09/Oct/2024:00:00:00 +0000")
        + combined("/c", time="32/Oct/2024:00:00:00 +0000")
    )
    problems: list[Problem] = []
    entries = list(
        from_access_log(log, base_url=BASE, lastmod_from_requests=True, on_problem=problems.append)
    )
    assert entries == [
        URLEntry(BASE + "a", lastmod=datetime(2024, 10, 11, 23, 30, tzinfo=UTC)),
        URLEntry(BASE + "b", lastmod=datetime(2024, 10, 11, 8, 0, tzinfo=UTC)),
    ]
    assert [(p.line, "bad time" in p.message) for p in problems] == [(5, True)]
    # without the option no time is read and none is given
    assert [e.lastmod for e in from_access_log(log, base_url=BASE)] == [None, None, None]


def test_w3c_lastmod_is_utc(tmp_path: Path) -> None:
    log = tmp_path / "iis.log"
    log.write_text(W3C_HEADER + w3c("/x", clock="07:08:09") + w3c("/x", clock="06:00:00"))
    (entry,) = from_access_log(log, base_url=BASE, lastmod_from_requests=True)
    assert entry.lastmod == datetime(2024, 5, 1, 7, 8, 9, tzinfo=UTC)


def test_pipeline_removes_session_ids_and_writes_a_valid_sitemap(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(
        combined("/shop/item?id=3&jsessionid=F00&sid=1")
        + combined("/shop/item;jsessionid=ABC?id=3")
        + combined("/a%20b?x=1&y=<2>")
    )
    with SitemapWriter(tmp_path / "out", base_url=BASE) as writer:
        writer.add_all(from_access_log(log, base_url=BASE, lastmod_from_requests=True))
    text = (tmp_path / "out" / "sitemap.xml").read_text()
    assert "<loc>https://www.example.com/shop/item?id=3</loc>" in text
    assert "jsessionid" not in text.lower()
    assert "sid=" not in text
    assert writer.result.urls == 2
    assert "<lastmod>2024-10-10T13:55:36+00:00</lastmod>" in text
    assert_schema_valid(tmp_path / "out" / "sitemap.xml")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.binary(max_size=200), max_size=20), st.sampled_from(["auto", "combined", "w3c"]))
def test_any_bytes_give_problems_never_a_crash(
    tmp_path: Path, lines: list[bytes], log_format: str
) -> None:
    log = tmp_path / "fuzz.log"
    log.write_bytes(b"\n".join(lines) + b"\n" + combined("/known"))
    urls, problems = read(log, format=log_format)
    assert all(url.startswith(BASE) for url in urls)
    assert all(p.source == str(log) and p.line is not None for p in problems)
    if log_format != "w3c":
        assert urls[-1] == BASE + "known"


def test_a_comment_line_does_not_make_a_log_w3c(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_bytes(b"#\n# rotated by cron\n" + combined("/known"))
    urls, problems = read(log)
    assert urls == [BASE + "known"]
    assert [p.line for p in problems] == [1, 2]
