"""An HTML site map for visitors: the pages of a site grouped by path section, with titles.

:class:`HTMLSiteMap` watches the entries on their way to the writer (normalised and kept in
scope exactly as the writer does, the first sighting of a URL winning), keeps the
``max_pages`` shallowest pages in bounded memory, and writes one plain, accessible HTML page:
a heading per first path segment, a list of links under it, each link's text the page's
title when the source knows it (folders read ``<title>``; crawls keep it), its path
otherwise. Every value is escaped.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Iterator
from typing import Final
from urllib.parse import unquote, urlsplit

from .errors import InvalidURLError
from .model import URLEntry
from .publish import write_file_atomically
from .urls import URLNormalizer

__all__ = ["DEFAULT_MAX_PAGES", "HTMLSiteMap"]

#: Pages an HTML site map lists at most by default: the shallowest ones, by path.
DEFAULT_MAX_PAGES: Final = 10_000
_BATCH: Final = 1024
_HOME: Final = "Home"

_STYLE: Final = """
body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem;
       padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 1.8rem; }
ul { padding-left: 1.2rem; } li { margin: .2rem 0; }
a { color: #0969da; } p.note { color: #59636e; }
"""


def _e(text: str) -> str:
    return html.escape(text, quote=True)


class HTMLSiteMap:
    """Collects pages as entries stream past, then writes the HTML site map.

    Memory is bounded by ``max_pages``: the list is cut back to the ``max_pages`` pages of
    fewest path segments (then by path) whenever it reaches twice that.
    """

    def __init__(
        self,
        *,
        base_url: str,
        keep_session_ids: bool = False,
        max_pages: int = DEFAULT_MAX_PAGES,
        title: str | None = None,
    ) -> None:
        if max_pages < 1:
            raise ValueError(f"max_pages must be at least 1, not {max_pages}")
        base = base_url if base_url.endswith("/") else base_url + "/"
        self._normalizer = URLNormalizer(base, keep_session_ids=keep_session_ids)
        self.base_url = self._normalizer.base_url or base
        self.max_pages = max_pages
        self.title = title or f"Site map of {urlsplit(self.base_url).netloc}"
        self._pages: dict[str, tuple[tuple[int, str], str | None]] = {}
        self.seen = 0

    def watch(self, entries: Iterable[URLEntry]) -> Iterator[URLEntry]:
        """Pass ``entries`` through unchanged, noting each page on the way."""
        batch: list[URLEntry] = []
        for entry in entries:
            batch.append(entry)
            if len(batch) >= _BATCH:
                self.add_all(batch)
                yield from batch
                batch = []
        self.add_all(batch)
        yield from batch

    def add_all(self, entries: list[URLEntry]) -> None:
        results = self._normalizer.normalize_many([entry.loc for entry in entries])
        pages = self._pages
        for entry, url in zip(entries, results, strict=True):
            if isinstance(url, InvalidURLError) or url in pages:
                continue  # the writer leaves it out too, or has it already
            self.seen += 1
            relative = url[len(self.base_url) :] if url.startswith(self.base_url) else url
            depth = relative.split("?", 1)[0].count("/")
            pages[url] = ((depth, relative), entry.title)
        if len(pages) >= 2 * self.max_pages:
            self._cut()

    def _cut(self) -> None:
        kept = sorted(self._pages.items(), key=lambda item: item[1][0])[: self.max_pages]
        self._pages = dict(kept)

    def render(self, total: int | None = None) -> str:
        """The page; ``total`` (the pages of the sitemap set) is said when some are left out."""
        self._cut()
        sections: dict[str, list[tuple[str, str, str]]] = {}
        for url, ((_depth, relative), title) in sorted(
            self._pages.items(), key=lambda item: item[1][0][1]
        ):
            path = unquote(relative.split("?", 1)[0])
            section = path.split("/", 1)[0] if "/" in path else ""
            label = title or ("/" + path if path else _HOME)
            sections.setdefault(section, []).append((url, label, path))
        parts = [
            '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(self.title)}</title><style>{_STYLE}</style></head><body><main>"
            f"<h1>{_e(self.title)}</h1>"
        ]
        shown = len(self._pages)
        if total is not None and total > shown:
            parts.append(
                f'<p class="note">The {shown:,} main pages of {total:,}; the sitemap lists '
                "them all.</p>"
            )
        for number, (section, pages) in enumerate(sorted(sections.items())):
            heading = section or _HOME
            parts.append(
                f'<section aria-labelledby="s{number}"><h2 id="s{number}">{_e(heading)}</h2><ul>'
            )
            parts.extend(
                f'<li><a href="{_e(url)}">{_e(label)}</a></li>' for url, label, _path in pages
            )
            parts.append("</ul></section>")
        parts.append("</main></body></html>\n")
        return "".join(parts)

    def write(self, path: str | os.PathLike[str], total: int | None = None) -> int:
        """Write the page atomically; returns the number of pages listed."""
        write_file_atomically(path, self.render(total).encode("utf-8"))
        return len(self._pages)
