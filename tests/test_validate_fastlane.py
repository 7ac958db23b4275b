"""The fast lane and the full checker must find the same things, to the line and column."""

from __future__ import annotations

import gzip
import importlib
import json
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import Alternate, Image, SitemapWriter, URLEntry
from sitemapkit.validate import Report, fastlane, validate

DATA = Path(__file__).parent / "data"
OPTIONS: dict[str, dict[str, object]] = json.loads((DATA / "rules" / "options.json").read_text())
PACKAGE = importlib.import_module("sitemapkit.validate")  # the name `validate` is the function


def both(path: Path, monkeypatch: pytest.MonkeyPatch, **options: object) -> tuple[Report, Report]:
    taken: list[bool] = []
    original = fastlane.run_fast

    def spy(*args: object) -> bool:
        taken.append(original(*args))  # type: ignore[arg-type]
        return taken[-1]

    monkeypatch.setattr(PACKAGE, "run_fast", spy)
    fast = validate(path, **options)  # type: ignore[arg-type]
    monkeypatch.setattr(PACKAGE, "_FAST_LANE", False)
    full = validate(path, **options)  # type: ignore[arg-type]
    monkeypatch.setattr(PACKAGE, "_FAST_LANE", True)
    both.taken = any(taken)  # type: ignore[attr-defined]
    return fast, full


def same(fast: Report, full: Report) -> None:
    assert [str(issue) for issue in fast.issues] == [str(issue) for issue in full.issues]
    assert fast.counts == full.counts
    assert (fast.urls, fast.files) == (full.urls, full.files)


CORPUS = sorted(path for path in DATA.glob("*/*") if path.suffix in (".xml", ".gz", ".txt"))


@pytest.mark.parametrize("path", CORPUS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_both_lanes_agree_on_every_fixture(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    same(*both(path, monkeypatch, **OPTIONS.get(path.name, {})))


def test_a_long_run_of_blanks_between_entries_is_linear(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry pattern began with [ \\t\\n]*, tried from every blank of the run:
    160 kB of blanks took a minute, a 1 MB one hours."""
    entry = "<url><loc>https://www.example.com/{}</loc></url>"
    path = tmp_path / "blanks.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + entry.format("a") + " " * 200_000 + entry.format("b") + "\n" * 200_000 + "</urlset>\n"
    )  # fmt: skip
    started = time.monotonic()
    fast, full = both(path, monkeypatch)
    assert time.monotonic() - started < 30  # both lanes; was hours
    same(fast, full)
    assert fast.urls == 2


def test_the_fast_lane_takes_canonical_files(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = []
    for name in ("SM-L02.xml", "SM-M03.xml", "SM-L11.xml", "SM-F06.xml.gz", "SM-L08.xml"):
        path = DATA / "rules" / name
        same(*both(path, monkeypatch, **OPTIONS.get(name, {})))
        taken.append(both.taken)  # type: ignore[attr-defined]
    assert all(taken)


def test_values_positions_and_trees_match_on_writer_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = [
        URLEntry(
            f"https://www.example.com/ümlaut/{i}?a=1&b={i % 3}",
            lastmod=f"2024-0{1 + i % 9}-{1 + i % 28:02d}T10:00:00+02:00",
            changefreq="daily",
            priority=(i % 10) / 10,
            images=(Image(f"https://cdn.example.com/{i}.jpg"),),
            alternates=(Alternate("de", f"https://www.example.com/de/{i}"),),
        )
        for i in range(3_000)
    ]
    with SitemapWriter(
        tmp_path / "out", base_url="https://www.example.com/", max_urls=1_000, gzip=True
    ) as writer:
        writer.add_all(entries)
    index = writer.result.entry_point
    fast, full = both(
        index, monkeypatch, recursive=True, location="https://www.example.com/sitemap.xml"
    )
    same(fast, full)
    assert both.taken  # type: ignore[attr-defined]
    # Now break some values in a child of a copy, keeping it canonical: findings at exact
    # places. (The copy has no manifest, so the suite's schema check leaves it alone.)
    broken = tmp_path / "broken"
    shutil.copytree(tmp_path / "out", broken, ignore=shutil.ignore_patterns(".*"))
    index = broken / index.name
    child = broken / writer.result.children[1].name
    text = gzip.decompress(child.read_bytes()).decode()
    lines = text.splitlines(keepends=True)
    lines[5] = lines[5].replace("T10:00:00+02:00", "T10:00:00").replace("daily", "Daily")
    lines[7] = lines[7].replace("https://www.example.com/", "http://other.example.org/", 1)
    lines[9] = lines[9].replace("<priority>", "<priority>1").replace("</priority>", "</priority>")
    lines.insert(11, lines[3])  # a duplicate inside the file
    child.write_bytes(gzip.compress("".join(lines).encode()))
    (broken / "copy.xml").write_text(
        gzip.decompress(writer.result.children[0].read_bytes()).decode()
    )
    fast, full = both(
        index, monkeypatch, recursive=True, location="https://www.example.com/sitemap.xml"
    )
    same(fast, full)
    assert both.taken  # type: ignore[attr-defined]
    assert {"SM-M03", "SM-C01", "SM-L08", "SM-P01", "SM-L11"} <= fast.rules
    folder_fast, folder_full = both(broken, monkeypatch)
    same(folder_fast, folder_full)
    assert "another sitemap of this tree" in " ".join(i.message for i in folder_fast.issues)


def test_lines_and_columns_count_characters_like_expat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://www.example.com/ä</loc><lastmod>2005-02-30</lastmod></url>"
        "<url><loc>https://www.example.com/b</loc><lastmod>bad</lastmod></url>\n"
        "  <url>\n    <loc>https://www.example.com/c</loc>\n    <priority>7</priority>\n"
        "  </url>\n</urlset>\n",
        encoding="utf-8",
    )
    fast, full = both(path, monkeypatch)
    same(fast, full)
    assert both.taken  # type: ignore[attr-defined]
    assert [(issue.rule, issue.line, issue.column) for issue in fast.issues] == [
        ("SM-L05", 2, 66),
        ("SM-M02", 2, 102),
        ("SM-M01", 2, 178),
        ("SM-P01", 5, 5),
    ]


@pytest.mark.parametrize(
    "body",
    [
        "<url><loc>https://www.example.com/a\x01b</loc></url>",
        "<url><loc>https://www.example.com/?a=1&foo;</loc></url>",
        "<url><loc>https://www.example.com/?a=1&#38;b=2</loc></url>",
        "<url><loc>https://www.example.com/a]]>b</loc></url>",
        "<url><loc>https://www.example.com/a</loc></url>\r\n<url><loc> x </loc></url>",
        "<url><loc>https://www.example.com/a</loc></url><!-- c -->",
        "<url><loc>https://www.example.com/a</loc><lastmod>2005-01-01</lastmod></url></urlset>x",
        "<url><loc>https://www.example.com/a</loc></url>\u00a0<url><loc>https://www.example.com/b"
        "</loc></url>",
        "<url><loc>https://www.example.com/a</loc></url></urlset><urlset>",
    ],
)
def test_both_lanes_agree_on_near_canonical_files(
    body: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(
        (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}\n</urlset>\n'
        ).encode()
    )
    same(*both(path, monkeypatch))


_VALUE = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<"), max_size=40
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.tuples(
            st.one_of(
                st.just("https://www.example.com/a"),
                _VALUE.map(lambda v: "https://www.example.com/" + v),
                _VALUE,
            ),
            st.one_of(st.none(), st.just("2024-05-01"), _VALUE),
            st.one_of(st.none(), st.just("daily"), _VALUE),
            st.one_of(st.none(), st.just("0.5"), _VALUE),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_both_lanes_agree_on_arbitrary_values(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    entries: list[tuple[str, str | None, str | None, str | None]],
) -> None:
    body = []
    for loc, lastmod, changefreq, priority in entries:
        parts = [f"<loc>{loc}</loc>"]
        for name, value in (
            ("lastmod", lastmod),
            ("changefreq", changefreq),
            ("priority", priority),
        ):
            if value is not None:
                parts.append(f"<{name}>{value}</{name}>")
        body.append("<url>" + "".join(parts) + "</url>\n")
    path = tmp_path_factory.mktemp("lanes") / "sitemap.xml"
    path.write_bytes(
        (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            + "".join(body)
            + "</urlset>\n"
        ).encode("utf-8", "surrogatepass")
    )
    same(*both(path, monkeypatch))


def test_clean_runs_take_the_bulk_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of clean entries are checked in bulk; only a run with a finding goes one by one."""
    with SitemapWriter(tmp_path / "out", base_url="https://www.example.com/") as writer:
        writer.add_all(
            URLEntry(
                f"https://www.example.com/p/{i}?a=1&b=2",
                lastmod=f"2024-01-{1 + i % 28:02d}",
                images=(Image(f"https://cdn.example.com/{i}.jpg"),),
            )
            for i in range(2_000)
        )
    outcomes: list[bool] = []
    original = fastlane._Lane._run

    def spy(self: fastlane._Lane, run: list[object], base: int) -> bool:
        outcomes.append(original(self, run, base))  # type: ignore[arg-type]
        return outcomes[-1]

    monkeypatch.setattr(fastlane._Lane, "_run", spy)
    report = validate(writer.result.entry_point, location="https://www.example.com/sitemap.xml")
    assert report.ok
    assert report.urls == 2_000
    assert len(outcomes) == 8
    assert all(outcomes)


def test_an_extension_value_check_sends_files_to_the_full_checker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 7 adds value checks for extensions; the fast lane must not skip them."""
    from sitemapkit.validate import rules

    def no_jpeg(text: str, legacy: bool) -> list[rules.Finding]:
        return [("SM-IMG-01", "test: no JPEG", None)] if text.endswith(".jpg") else []

    key = "{http://www.google.com/schemas/sitemap-image/1.1}loc"
    monkeypatch.setitem(rules._VALUE_CHECKS, key, [no_jpeg])
    path = tmp_path / "sitemap.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/'
        'sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
        "<url><loc>https://www.example.com/</loc><image:image><image:loc>https://www.example.com"
        "/a.jpg</image:loc></image:image></url>\n</urlset>\n"
    )
    fast, full = both(path, monkeypatch)
    same(fast, full)
    assert [issue.message for issue in fast.issues] == ["test: no JPEG"]


def test_capped_findings_match_in_both_lanes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(
            f"<url><loc>https://www.example.com/{i}</loc><changefreq>often</changefreq></url>\n"
            for i in range(700)
        )
        + "</urlset>\n"
    )
    fast, full = both(path, monkeypatch, max_per_rule=10)
    same(fast, full)
    assert both.taken  # type: ignore[attr-defined]
    assert fast.error_count == 700
    assert fast.issues[-1].message.startswith("690 more SM-C01 findings")
    assert (fast.issues[-1].line, fast.issues[-1].column) == (13, 43)
