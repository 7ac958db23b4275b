"""Include and exclude rules over whole URLs, in the spirit of sitemap_gen's ``<filter>``.

A rule is an action (``include`` or ``exclude``) and a pattern. A pattern is a wildcard
(:func:`fnmatch.fnmatchcase`: case-sensitive, over the whole URL, ``*`` crossing ``/``)
unless it starts with ``re:``, which makes the rest a regular expression applied with
:func:`re.search` (unanchored: add ``^`` or ``$`` yourself). No wildcard can start with
``re:`` and match an ``http(s)`` URL, so the prefix is unambiguous.

Rules are tried in order and the first one that matches decides, as in sitemap_gen. What
sitemapkit does better (PROTOCOL.md §4.1):

* **Rules see the normalised URL** (:func:`~sitemapkit.normalize_url` against the base URL),
  the form that ends up in the sitemap. In sitemap_gen, ``HTTP://Example.com/drafts/x``,
  ``/a/../drafts/x`` or a relative ``drafts/x`` from a URL list slipped past a
  ``https://example.com/drafts/*`` rule; here they cannot.
* **A URL that matches no rule is included, except when every rule is an include rule**:
  then the rules are an allow-list and the rest is left out. In sitemap_gen a lone
  ``pass`` filter did nothing at all, a trap rather than a feature. ``default=`` makes the
  choice explicit.
* Rules can be given per source as well as globally (global rules run after a source's).
* Every left-out URL is counted against the rule that removed it (:attr:`URLFilter.dropped`),
  so a rule that is too broad shows up in the summary instead of silently emptying a sitemap.
* Bad patterns are refused when the rule is made, not when the first URL meets them.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from .errors import InvalidURLError, InvalidValueError
from .model import URLEntry
from .urls import URLNormalizer

__all__ = [
    "REGEX_PREFIX",
    "FilterAction",
    "FilterRule",
    "URLFilter",
    "filter_entries",
]

FilterAction = Literal["include", "exclude"]

#: A pattern starting with this is a regular expression; anything else is a wildcard.
REGEX_PREFIX: Final = "re:"
_BATCH: Final = 1024
_NO_RULE: Final = "matched no include rule"


@dataclass(frozen=True, slots=True)
class FilterRule:
    """One rule: ``FilterRule("exclude", "*/drafts/*")`` or ``FilterRule("include", "re:^https://")``.

    >>> FilterRule("exclude", "*~").matches("https://example.com/page.html~")
    True
    >>> FilterRule("exclude", r"re:/\\.[^/]*").matches("https://example.com/.git/config")
    True
    """

    action: FilterAction
    pattern: str
    _match: Callable[[str], object] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.action not in ("include", "exclude"):
            raise InvalidValueError(
                f"filter action must be 'include' or 'exclude', not {self.action!r}"
            )
        if not self.pattern or self.pattern == REGEX_PREFIX:
            raise InvalidValueError("empty filter pattern")
        if self.is_regex:
            try:
                compiled = re.compile(self.pattern[len(REGEX_PREFIX) :])
            except (re.error, OverflowError, RecursionError) as exc:  # a{99999999999}, ((((…
                raise InvalidValueError(f"bad regular expression {self.pattern!r}: {exc}") from exc
            object.__setattr__(self, "_match", compiled.search)
        else:
            compiled = re.compile(fnmatch.translate(self.pattern))
            object.__setattr__(self, "_match", compiled.match)

    @property
    def is_regex(self) -> bool:
        return self.pattern.startswith(REGEX_PREFIX)

    def matches(self, url: str) -> bool:
        return self._match(url) is not None

    def __str__(self) -> str:
        return f"{self.action} {self.pattern}"


class URLFilter:
    """An ordered rule list; call it on entries to keep those it includes.

    ``base_url`` makes rules see normalised absolute URLs (recommended); without it they see
    each entry's ``loc`` as given. ``default`` is what happens to a URL no rule matches;
    ``None`` means include, unless every rule is an include rule (an allow-list).
    """

    def __init__(
        self,
        rules: Iterable[FilterRule],
        *,
        base_url: str | None = None,
        default: FilterAction | None = None,
        keep_session_ids: bool = False,
    ) -> None:
        self.rules: tuple[FilterRule, ...] = tuple(rules)
        if default is None:
            only_includes = bool(self.rules) and all(r.action == "include" for r in self.rules)
            default = "exclude" if only_includes else "include"
        if default not in ("include", "exclude"):
            raise InvalidValueError(f"default must be 'include' or 'exclude', not {default!r}")
        self.default: FilterAction = default
        self._normalizer = (
            URLNormalizer(base_url, keep_session_ids=keep_session_ids) if base_url else None
        )
        #: URLs left out so far, by the rule (``str(rule)``) that left them out.
        self.dropped: dict[str, int] = {}

    def decide(self, url: str) -> FilterRule | None:
        """The first rule matching ``url``, or None."""
        for rule in self.rules:
            if rule.matches(url):
                return rule
        return None

    def accepts(self, url: str) -> bool:
        """Whether ``url`` (already in the form rules should see) is kept; counts drops."""
        rule = self.decide(url)
        if rule is None:
            if self.default == "include":
                return True
            self.dropped[_NO_RULE] = self.dropped.get(_NO_RULE, 0) + 1
            return False
        if rule.action == "include":
            return True
        key = str(rule)
        self.dropped[key] = self.dropped.get(key, 0) + 1
        return False

    def __call__(self, entries: Iterable[URLEntry]) -> Iterator[URLEntry]:
        if not self.rules:
            yield from entries
            return
        iterator = iter(entries)
        while batch := list(itertools.islice(iterator, _BATCH)):
            for entry, url in zip(batch, self._urls(batch), strict=True):
                if self.accepts(url):
                    yield entry

    def _urls(self, batch: Sequence[URLEntry]) -> list[str]:
        locs = [entry.loc for entry in batch]
        if self._normalizer is None:
            return locs
        normal = self._normalizer.normalize_many(locs)
        # A URL the writer will refuse anyway (out of scope, invalid) is matched as given.
        return [
            loc if isinstance(url, InvalidURLError) else url
            for loc, url in zip(locs, normal, strict=True)
        ]


def filter_entries(
    entries: Iterable[URLEntry],
    rules: Iterable[FilterRule],
    *,
    base_url: str | None = None,
    default: FilterAction | None = None,
) -> Iterator[URLEntry]:
    """Keep the entries that ``rules`` include (see :class:`URLFilter`).

    >>> rules = [FilterRule("exclude", "*/private/*")]
    >>> [e.loc for e in filter_entries([URLEntry("/a"), URLEntry("/private/b")], rules,
    ...                                base_url="https://example.com/")]
    ['/a']
    """
    return URLFilter(rules, base_url=base_url, default=default)(entries)
