"""Defaults that the command line's help shows, apart from the modules they configure.

The help of every command is built when :mod:`sitemapkit.cli` is imported; taking these
values from here spares ``sitemapkit ls`` (and every other command) importing the crawler,
the sources and the submitter just to print a default.
"""

from __future__ import annotations

from typing import Final

#: Bytes of one page read and parsed; the rest of a longer page is not read.
DEFAULT_PAGE_BYTES: Final = 5 * 1024 * 1024
#: Files of a folder listed by default (``--dir``).
DEFAULT_INCLUDE: Final = ("*.html", "*.htm", "*.pdf")
#: The shared IndexNow endpoint; it forwards to every participating engine.
INDEXNOW_ENDPOINT: Final = "https://api.indexnow.org/indexnow"
