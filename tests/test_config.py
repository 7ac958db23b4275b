"""sitemapkit.toml: every source type, filters, overrides, and errors that name key and line."""

from __future__ import annotations

import dataclasses
import gzip
import re
from pathlib import Path

import pytest

from sitemapkit import ConfigError
from sitemapkit.config import EXAMPLE_CONFIG, load_settings, read_config, write_example_config
from sitemapkit.crawl import CrawlSettings
from sitemapkit.filters import FilterRule
from sitemapkit.settings import (
    AccessLogSource,
    CrawlSource,
    DirectorySource,
    GenerateSettings,
    SitemapSource,
    URLListSource,
    generate,
)
from tests.oracles import REPO, assert_schema_valid

LOG_LINE = (
    '203.0.113.9 - - [10/Oct/2024:13:55:36 +0000] "GET {path} HTTP/1.1" {status} 10 "-" '
    '"Mozilla/5.0 (X11; Linux x86_64)"\n'
)


def uncommented(text: str) -> str:
    """The example config with its commented-out TOML lines (``#[[``, ``#key``) enabled."""
    return re.sub(r"^#(?=[\[a-z])", "", text, flags=re.MULTILINE)


def test_init_template_loads(tmp_path: Path) -> None:
    path = write_example_config(tmp_path / "sitemapkit.toml")
    loaded = read_config(path)
    assert loaded.values["base_url"] == "https://www.example.com/"
    assert loaded.values["out_dir"] == tmp_path / "public"
    assert [type(s) for s in loaded.sources] == [DirectorySource]
    assert [str(rule) for rule in loaded.filters] == ["exclude *~", r"exclude re:/\.[^/]*"]
    with pytest.raises(ConfigError, match="already exists"):
        write_example_config(path)
    write_example_config(path, force=True)


def test_init_template_with_every_example_enabled_loads(tmp_path: Path) -> None:
    path = tmp_path / "all.toml"
    path.write_text(uncommented(EXAMPLE_CONFIG))
    loaded = read_config(path)
    assert [type(s) for s in loaded.sources] == [
        DirectorySource,
        URLListSource,
        AccessLogSource,
        SitemapSource,
        CrawlSource,
    ]
    assert loaded.sources[3].paths == (  # type: ignore[union-attr]
        str(tmp_path / "old" / "sitemap.xml"),
        "https://www.example.com/sitemap-news.xml",
    )
    crawl_source = loaded.sources[4]
    assert isinstance(crawl_source, CrawlSource)
    assert crawl_source.state == str(tmp_path / "crawl.sqlite")
    assert crawl_source.settings.max_pages == 100_000
    assert crawl_source.settings.fetch.concurrency == 8
    log_source = loaded.sources[2]
    assert isinstance(log_source, AccessLogSource)
    assert log_source.exclude_agents == (r"bot\b", "crawl", "spider")
    assert log_source.filters == (FilterRule("exclude", "re:[?&]replytocom="),)
    assert loaded.values["max_urls"] == 50_000
    assert loaded.values["timezone"] == "UTC"
    assert loaded.values["robots"] == tmp_path / "public" / "robots.txt"


def test_every_setting_has_a_config_key_in_the_template_and_the_docs() -> None:
    docs = (REPO / "docs" / "config.md").read_text()
    keys = {f.name for f in dataclasses.fields(GenerateSettings)} - {"sources", "filters"}
    keys = (keys - {"out_dir"}) | {"out"}
    for key in sorted(keys):
        assert re.search(rf"^#? ?{key} = ", EXAMPLE_CONFIG, re.MULTILINE), key
        assert f"`{key}`" in docs, key
    for source in (URLListSource, DirectorySource, AccessLogSource, CrawlSource, CrawlSettings):
        for f in dataclasses.fields(source):
            # not keys: the crawl's settings are the source's keys, fetch settings have keys
            # of their own, scopes are derived, keep_session_ids is a top-level key
            if f.name in {"settings", "on_progress", "fetch", "scopes", "keep_session_ids"}:
                continue
            names = {"paths": "path", "filters": "filter", "start_url": "url"}
            key = names.get(f.name, f.name)
            assert f"`{key}`" in docs, (source.__name__, key)


def site_config(tmp_path: Path) -> Path:
    """A config with one source of every supported type, defaults and filters."""
    (tmp_path / "site" / "docs").mkdir(parents=True)
    (tmp_path / "site" / "index.html").write_text("<html></html>")
    (tmp_path / "site" / "docs" / "guide.html").write_text("<html></html>")
    (tmp_path / "site" / "docs" / "old.html").write_text("<html></html>")
    (tmp_path / "urls.csv").write_text(
        "loc,priority\n/catalog?id=1,0.9\n/catalog?id=2,\n/tmp/scratch,\n"
    )
    with gzip.open(tmp_path / "access.log.1.gz", "wt") as log:
        log.write(LOG_LINE.format(path="/popular?PHPSESSID=x1", status=200))
        log.write(LOG_LINE.format(path="/gone", status=404))
        log.write(LOG_LINE.format(path="/docs/guide.html", status=200))
        log.write(LOG_LINE.format(path="/search?q=a", status=200))
    config = tmp_path / "conf" / "site.toml"
    config.parent.mkdir()
    config.write_text(
        """\
base_url = "https://www.example.com/"
out = "../out"
gzip = false
name = "map"
timezone = "UTC"

[[source]]
type = "dir"
path = "../site"
changefreq = "weekly"
  [[source.filter]]
  action = "exclude"
  pattern = "*/old.html"

[[source]]
type = "urls"
path = ["../urls.csv"]
priority = 0.3

[[source]]
type = "access_log"
path = "../access.log*"
lastmod_from_requests = true
changefreq = "daily"
[[source.filter]]
action = "exclude"
pattern = "re:[?&]q="

[[filter]]
action = "exclude"
pattern = "*/tmp/*"
"""
    )
    return config


def test_a_config_with_every_source_type_generates_a_valid_sitemap(tmp_path: Path) -> None:
    settings = load_settings(site_config(tmp_path))
    outcome = generate(settings)
    sitemap = tmp_path / "out" / "map.xml"
    assert outcome.written.entry_point == sitemap
    assert outcome.sitemap_url == "https://www.example.com/map.xml"
    text = sitemap.read_text()
    locs = re.findall(r"<loc>([^<]+)</loc>", text)
    assert locs == [
        "https://www.example.com/",
        "https://www.example.com/docs/guide.html",
        "https://www.example.com/catalog?id=1",
        "https://www.example.com/catalog?id=2",
        "https://www.example.com/popular",
    ]
    assert "<priority>0.9</priority>" in text  # the file's own value beats the default
    assert text.count("<priority>0.3</priority>") == 1
    assert text.count("<changefreq>weekly</changefreq>") == 2
    assert (
        "<loc>https://www.example.com/popular</loc><lastmod>2024-10-10T13:55:36+00:00</lastmod>"
        "<changefreq>daily</changefreq>"
    ) in text
    assert outcome.filtered == {"exclude */old.html": 1, "exclude re:[?&]q=": 1,
                                "exclude */tmp/*": 1}  # fmt: skip
    assert_schema_valid(sitemap)


def test_command_line_values_override_the_file(tmp_path: Path) -> None:
    config = site_config(tmp_path)
    extra = tmp_path / "extra.txt"
    extra.write_text("/extra\n")
    settings = load_settings(
        config,
        overrides={"name": "other", "gzip": True, "out_dir": tmp_path / "elsewhere"},
        sources=[URLListSource((str(extra),))],
        filters=[FilterRule("include", "*/tmp/*")],
    )
    assert (settings.name, settings.gzip, settings.out_dir) == ("other", True,
                                                               tmp_path / "elsewhere")  # fmt: skip
    assert settings.timezone == "UTC"
    assert isinstance(settings.sources[-1], URLListSource)
    assert len(settings.sources) == 4
    assert [str(r) for r in settings.filters] == ["include */tmp/*", "exclude */tmp/*"]


def test_missing_base_url_is_reported(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('out = "x"\n[[source]]\ntype = "urls"\npath = "u.txt"\n')
    with pytest.raises(Exception, match="missing --base-url or 'base_url' in the config"):
        load_settings(config)
    settings = load_settings(config, overrides={"base_url": "https://a.example/"})
    assert settings.base_url == "https://a.example/"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('base_url = "https://a.example/"\ncolour = "blue"\n', 2, "unknown key 'colour'"),
        ("gzip = 1\n", 1, "'gzip': expected true or false, got integer 1"),
        ("max_urls = 0\n", 1, "'max_urls': must be at least 1"),
        ("protocol = 0.9\n", 1, '\'protocol\': expected one of "0.9", "0.84", got float 0.9'),
        ('timezone = "Mars/Olympus"\n', 1, "unknown time zone"),
        ('name = "x"\nname = "y"\n', 2, "not valid TOML"),
        (
            '[[source]]\ntype = "dir"\npath = "a"\n\n[[source]]\ntype = "urls"\n'
            'path = "u.txt"\nkeep_noindex = true\n',
            8,
            "unknown key 'source.keep_noindex' (known here: changefreq, encoding, filter, "
            "format, path, priority, type)",
        ),
        ('[[source]]\ntype = "ftp"\npath = "a.xml"\n', 2, "unknown source type string"),
        ('[[source]]\npath = "a.xml"\n', 1, "has no 'type'"),
        ('[[source]]\ntype = "dir"\n', 1, "of type dir has no 'path'"),
        (
            '[[source]]\ntype = "urls"\npath = "u"\nchangefreq = "sometimes"\n',
            4,
            "changefreq 'sometimes' is not one of",
        ),
        ('[[source]]\ntype = "urls"\npath = "u"\npriority = 2\n', 4, "outside 0.0 to 1.0"),
        (
            'include = """\n[[source]]\nbogus = 1\n"""\n',
            1,
            "unknown key 'include'",
        ),
        (
            '[[source]]\ntype = "dir"\npath = "a"\ninclude = [\n  "*.html",\n  3,\n]\n',
            4,
            "'source.include': expected an array of strings",
        ),
        (
            '[[source]]\ntype = "dir"\npath = "a"\n[[source]]\ntype = "dir"\npath = "b"\n'
            '[[source.filter]]\naction = "exclude"\npattern = "re:(["\n',
            9,
            "bad regular expression",
        ),
        (
            '[[filter]]\naction = "exclude"\npattern = "*"\n[[filter]]\naction = "drop"\n'
            'pattern = "*"\n',
            5,
            "'filter.action': expected one of \"include\", \"exclude\", got string 'drop'",
        ),
        ("[submit]\nkey = 5\n", 2, "'submit.key': expected a string"),
        (  # TOML's inf and nan: a timeout of inf raised OverflowError in the socket layer
            '[[source]]\ntype = "crawl"\nurl = "http://127.0.0.1:9/"\ntimeout = inf\n',
            4,
            "'source.timeout': expected a number of seconds (0 or more), got float inf",
        ),
        (
            '[[source]]\ntype = "crawl"\nurl = "http://127.0.0.1:9/"\ndelay = nan\n',
            4,
            "'source.delay': expected a number of seconds",
        ),
        ("source = 3\n", 1, "must be written as [[source]] tables"),
    ],
)
def test_errors_name_the_key_and_the_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_config(config)
    assert caught.value.line == line
    assert caught.value.source == str(config)
    assert message in caught.value.message
    assert str(caught.value).startswith(f"{config}:{line}: ")


def test_unreadable_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        read_config(tmp_path / "missing.toml")
    (tmp_path / "latin.toml").write_bytes(b'name = "caf\xe9"\n')
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_config(tmp_path / "latin.toml")
