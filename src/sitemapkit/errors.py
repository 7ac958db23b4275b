"""The exception tree. The CLI catches only :class:`SitemapError`.

::

    SitemapError                 exit 2 unless a subclass says otherwise
    ├── InvalidURLError          (also a ValueError) a URL that cannot be put in a sitemap
    ├── InvalidValueError        (also a ValueError) a bad lastmod, changefreq or priority
    ├── LimitError               a protocol limit would be broken (index over 50,000 children)
    ├── SourceError              unreadable input: URL list, folder, log (``.source``, ``.line``)
    ├── ParseError               not a sitemap, or broken beyond recovery
    │   └── UnsafeContentError   DOCTYPE with entities, decompression bomb, too deep
    ├── FetchError               network or HTTP failure (``.url``, ``.status``)
    ├── PublishError             the output folder could not be written or swapped in
    ├── ConfigError              a config file that cannot be used (``.source``, ``.line``)
    └── StrictError              exit 1: ``--strict`` turned a left-out URL or bad row into an error

Findings of a validator or problems met while reading are *values*, never exceptions.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "FetchError",
    "InvalidURLError",
    "InvalidValueError",
    "LimitError",
    "ParseError",
    "PublishError",
    "SitemapError",
    "SourceError",
    "StrictError",
    "UnsafeContentError",
]


class SitemapError(Exception):
    """Root of every error sitemapkit raises on purpose.

    ``source`` and ``line`` say where the problem is when that is known; ``str()`` gives the
    one-line ``source:line: problem`` form the CLI prints.
    """

    exit_code: int = 2

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = f"{self.source}:{self.line}: " if self.line is not None else f"{self.source}: "
        return where + self.message


class InvalidURLError(SitemapError, ValueError):
    """A URL that cannot appear in a sitemap; ``reason`` is a short stable code."""

    def __init__(
        self,
        message: str,
        *,
        reason: str = "invalid",
        source: str | None = None,
        line: int | None = None,
    ):
        super().__init__(message, source=source, line=line)
        self.reason = reason


class InvalidValueError(SitemapError, ValueError):
    """A lastmod, changefreq or priority value that the protocol does not allow."""


class LimitError(SitemapError):
    """Writing would break a protocol limit that cannot be fixed by splitting."""


class SourceError(SitemapError):
    """An input (URL list, folder, log) cannot be read."""


class ParseError(SitemapError):
    """Content is not a sitemap, or is broken beyond recovery."""


class UnsafeContentError(ParseError):
    """Content refused for safety: entity declarations, a decompression bomb, absurd nesting."""


class FetchError(SitemapError):
    """A network or HTTP failure."""

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None):
        super().__init__(message, source=url)
        self.url = url
        self.status = status


class PublishError(SitemapError):
    """The new sitemap set could not be written or moved into place."""


class ConfigError(SitemapError):
    """A config file that is not TOML, has an unknown key or a value of the wrong type."""


class StrictError(SitemapError):
    """``strict`` mode refused something the default mode would only have left out."""

    exit_code = 1
