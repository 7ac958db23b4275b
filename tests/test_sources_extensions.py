"""Extension columns in CSV and JSONL URL lists, written and checked by the official XSDs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemapkit import Alternate, Image, Problem, SitemapWriter, from_urllist
from sitemapkit.model import VideoPrice

BASE = "https://www.example.com/"


def read(path: Path) -> tuple[list, list[Problem]]:  # type: ignore[type-arg]
    problems: list[Problem] = []
    return list(from_urllist(path, on_problem=problems.append)), problems


def test_csv_columns(tmp_path: Path) -> None:
    path = tmp_path / "shop.csv"
    path.write_text(
        "loc,image:2,image:1,alternate:en,alternate:de,alternate:x-default,"
        "news_name,news_language,news_publication_date,news_title,"
        "video_thumbnail_loc,video_title,video_description,video_content_loc,video_duration,"
        "video_tags,video_family_friendly,video_prices\n"
        f"{BASE}en/a,{BASE}2.jpg,{BASE}1.jpg,{BASE}en/a,{BASE}de/a,{BASE},"
        f"The Times,en,2024-05-01,Big news,{BASE}t.jpg,Grilling,How to grill,{BASE}v.mp4,"
        "600,summer|bbq,yes,EUR 9.99\n"
        f"{BASE}plain,,,,,,,,,,,,,,,,,\n"
    )
    entries, problems = read(path)
    assert problems == []
    first, plain = entries
    assert first.images == (Image(f"{BASE}1.jpg"), Image(f"{BASE}2.jpg"))
    assert first.alternates == (
        Alternate("en", f"{BASE}en/a"),
        Alternate("de", f"{BASE}de/a"),
        Alternate("x-default", BASE),
    )
    assert first.news is not None
    assert first.news.title == "Big news"
    (video,) = first.videos
    assert video.duration == 600
    assert video.tags == ("summer", "bbq")
    assert video.family_friendly is True
    assert video.prices == (VideoPrice("9.99", "EUR"),)
    assert not plain.has_extensions


def test_jsonl_structured_keys(tmp_path: Path) -> None:
    record = {
        "loc": f"{BASE}p",
        "images": [f"{BASE}a.jpg", {"loc": f"{BASE}b.jpg", "caption": "old style"}],
        "alternates": {"en": f"{BASE}p", "fr": f"{BASE}fr/p"},
        "news": {
            "name": "Daily",
            "language": "fr",
            "publication_date": "2024-05-01",
            "title": "Titre",
        },
        "videos": [
            {
                "thumbnail_loc": f"{BASE}t.jpg",
                "title": "T",
                "description": "D",
                "player_loc": f"{BASE}player",
                "live": False,
                "rating": 4.5,
            }
        ],
    }
    (tmp_path / "u.jsonl").write_text(json.dumps(record) + "\n")
    (entry,), problems = read(tmp_path / "u.jsonl")
    assert problems == []
    assert [image.loc for image in entry.images] == [f"{BASE}a.jpg", f"{BASE}b.jpg"]
    assert entry.images[1].caption == "old style"
    assert entry.alternates[1] == Alternate("fr", f"{BASE}fr/p")
    assert entry.news.publication_language == "fr"
    assert entry.videos[0].live is False
    assert entry.videos[0].rating == 4.5


@pytest.mark.parametrize(
    ("columns", "values", "message"),
    [
        ("news_name,news_title", "Times,Title", "needs news_language, news_publication_date"),
        ("video_title", "T", "a video needs video_thumbnail_loc, video_description"),
        (
            "video_thumbnail_loc,video_title,video_description",
            "t,T,D",
            "video_content_loc or video_player_loc",
        ),
        (
            "video_thumbnail_loc,video_title,video_description,video_player_loc,video_duration",
            "t,T,D,p,long",
            "not a whole number",
        ),
        ("alternate:english", "https://e.com/", "not a language code"),
        (
            "video_thumbnail_loc,video_title,video_description,video_player_loc,video_live",
            "t,T,D,p,maybe",
            "not yes or no",
        ),
    ],
)
def test_bad_extension_cells_skip_the_row(
    tmp_path: Path, columns: str, values: str, message: str
) -> None:
    (tmp_path / "u.csv").write_text(
        f"loc,{columns}\n{BASE}x,{values}\n{BASE}ok,{',' * columns.count(',')}\n"
    )
    entries, problems = read(tmp_path / "u.csv")
    assert [entry.loc for entry in entries] == [f"{BASE}ok"]
    assert problems[0].line == 2
    assert message in problems[0].message


def test_extension_rows_are_written_schema_valid(tmp_path: Path) -> None:
    path = tmp_path / "shop.csv"
    path.write_text(
        "loc,lastmod,image,alternate:en,alternate:de,video_thumbnail_loc,video_title,"
        "video_description,video_player_loc,video_platform\n"
        f"{BASE}en/a,2024-05-01,{BASE}ü.jpg,{BASE}en/a,{BASE}de/a,{BASE}t.jpg,T & Co,D,"
        f"{BASE}player?id=1&x=2,web tv\n"
    )
    with SitemapWriter(tmp_path / "out", base_url=BASE) as writer:
        writer.add_all(from_urllist(path))
    text = (tmp_path / "out" / "sitemap.xml").read_text()
    assert "<video:title>T &amp; Co</video:title>" in text
    assert f"{BASE}%C3%BC.jpg" in text
    assert 'hreflang="de"' in text
