"""Include/exclude rules: sitemap_gen's first-match semantics and what we do better."""

from __future__ import annotations

import pytest

from sitemapkit import FilterRule, InvalidValueError, URLEntry, URLFilter, filter_entries

BASE = "https://example.com/"


def kept(rules: list[FilterRule], locs: list[str], **options: object) -> list[str]:
    entries = [URLEntry(loc) for loc in locs]
    return [e.loc for e in filter_entries(entries, rules, **options)]  # type: ignore[arg-type]


def test_wildcards_match_the_whole_url_case_sensitively() -> None:
    rule = FilterRule("exclude", "*.pdf")
    assert rule.matches("https://example.com/a.pdf")
    assert not rule.matches("https://example.com/a.PDF")
    assert not rule.matches("https://example.com/a.pdf?download=1")  # whole URL, not search
    assert FilterRule("exclude", "https://example.com/*/x").matches("https://example.com/a/b/x")


def test_regex_patterns_search_anywhere() -> None:
    rule = FilterRule("exclude", r"re:/\.[^/]*")  # sitemap_gen's hidden-file example
    assert rule.matches("https://example.com/.git/HEAD")
    assert not rule.matches("https://example.com/a.html")
    assert FilterRule("include", "re:^https://example\\.com/blog/").is_regex


def test_first_matching_rule_decides_and_unmatched_urls_are_included() -> None:
    rules = [
        FilterRule("include", "*/private/public-*"),
        FilterRule("exclude", "*/private/*"),
        FilterRule("exclude", "*~"),
    ]
    locs = [BASE + "private/public-a", BASE + "private/b", BASE + "c~", BASE + "d"]
    assert kept(rules, locs) == [BASE + "private/public-a", BASE + "d"]


def test_only_include_rules_make_an_allow_list() -> None:
    rules = [FilterRule("include", "*/blog/*")]
    locs = [BASE + "blog/one", BASE + "shop/two"]
    assert kept(rules, locs) == [BASE + "blog/one"]
    assert kept(rules, locs, default="include") == locs


def test_rules_see_the_normalised_url() -> None:
    rules = [FilterRule("exclude", "https://example.com/drafts/*")]
    locs = ["HTTPS://Example.COM/drafts/x", "/a/../drafts/y", "drafts/z", "/drafts%2Fnot", "/ok"]
    assert kept(rules, locs, base_url=BASE) == ["/drafts%2Fnot", "/ok"]
    # without a base URL the rules see the text as given
    assert kept(rules, locs) == locs


def test_drops_are_counted_per_rule() -> None:
    url_filter = URLFilter(
        [FilterRule("exclude", "*.bak"), FilterRule("include", "*/docs/*")],
        base_url=BASE,
        default="exclude",
    )
    entries = [URLEntry(BASE + name) for name in ("a.bak", "b.bak", "docs/c", "other")]
    assert [e.loc for e in url_filter(entries)] == [BASE + "docs/c"]
    assert url_filter.dropped == {"exclude *.bak": 2, "matched no include rule": 1}


def test_large_input_streams_in_batches() -> None:
    url_filter = URLFilter([FilterRule("exclude", "*7")], base_url=BASE)
    entries = (URLEntry(f"{BASE}p{n}") for n in range(5000))
    assert sum(1 for _ in url_filter(entries)) == 4500
    assert url_filter.dropped == {"exclude *7": 500}


@pytest.mark.parametrize(
    ("action", "pattern", "message"),
    [
        ("drop", "*", "include' or 'exclude"),
        ("exclude", "", "empty"),
        ("exclude", "re:", "empty"),
        ("exclude", "re:([a-z", "bad regular expression"),
        ("exclude", "re:a{99999999999}", "repetition number is too large"),  # OverflowError
        ("exclude", "re:" + "(" * 2000 + ")" * 2000, "bad regular expression"),  # RecursionError
    ],
)
def test_bad_rules_are_refused_when_made(action: str, pattern: str, message: str) -> None:
    with pytest.raises(InvalidValueError, match=message):
        FilterRule(action, pattern)  # type: ignore[arg-type]
