"""A folder of static files, as a web server would serve it under a base URL.

Each matching file becomes a URL (``index.html`` stands for its folder, with a trailing
slash), ``lastmod`` is the file's modification time, hidden files and folders are skipped, and
HTML pages that ask robots not to index them are left out; an HTML page's ``<title>`` is kept
on its entry (for HTML site maps). Names are percent-encoded from
their bytes, so ``a#b.html`` and ``50%.html`` become paths, not a fragment or a bad escape.
"""

from __future__ import annotations

import fnmatch
import html
import os
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote_from_bytes

from .._defaults import DEFAULT_INCLUDE
from ..errors import SourceError
from ..model import Problem, ProblemHandler, URLEntry, log_problem

__all__ = [
    "DEFAULT_INCLUDE",
    "DEFAULT_INDEX_FILES",
    "from_directory",
    "html_title",
    "is_noindex_html",
]

DEFAULT_INDEX_FILES = ("index.html", "index.htm")

_HTML_SUFFIXES = (b".html", b".htm", b".xhtml")
_HEAD_BYTES = 256 * 1024
_META = re.compile(rb"<meta\b[^>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(rb"""([a-zA-Z\-:]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_ROBOT_NAMES = {b"robots", b"googlebot"}
_TITLE = re.compile(rb"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_CHARSET = re.compile(rb"""<meta\b[^>]*charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_SEGMENT_SAFE = b"!$&'()*+,;=:@-._~"


def is_noindex_html(head: bytes) -> bool:
    """True when the HTML asks robots (or Googlebot) not to index it.

    >>> is_noindex_html(b'<head><meta name="robots" content="noindex, follow"></head>')
    True
    """
    for tag in _META.findall(head):
        attributes = {
            match.group(1).lower(): (match.group(2) or match.group(3) or match.group(4) or b"")
            for match in _ATTRIBUTE.finditer(tag)
        }
        if attributes.get(b"name", b"").strip().lower() in _ROBOT_NAMES:
            directives = {d.strip() for d in attributes.get(b"content", b"").lower().split(b",")}
            if b"noindex" in directives or b"none" in directives:
                return True
    return False


def html_title(head: bytes) -> str | None:
    """The ``<title>`` of an HTML page from its first bytes, unescaped, spaces collapsed.

    >>> html_title(b"<head><title> Caf&eacute;\n  menu </title></head>")
    'Café menu'
    """
    match = _TITLE.search(head)
    if match is None:
        return None
    declared = _CHARSET.search(head, 0, match.start())
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        text = match.group(1).decode(encoding, "replace")
    except (LookupError, ValueError):  # idna cannot "replace"; punycode raises UnicodeError
        text = match.group(1).decode("utf-8", "replace")
    return " ".join(html.unescape(text).split())[:500] or None


def _matches(relative: str, patterns: Sequence[str]) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return any(
        fnmatch.fnmatchcase(relative if "/" in pattern else name, pattern) for pattern in patterns
    )


def _url_path(relative: bytes) -> str:
    return "/".join(quote_from_bytes(part, safe=_SEGMENT_SAFE) for part in relative.split(b"/"))


def from_directory(
    root: str | Path,
    *,
    base_url: str,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    index_files: Sequence[str] = DEFAULT_INDEX_FILES,
    skip_noindex: bool = True,
    on_problem: ProblemHandler = log_problem,
) -> Iterator[URLEntry]:
    """Stream the URLs of the files under ``root``, in a stable (sorted) order.

    Patterns without a ``/`` match the file name, patterns with one the path relative to
    ``root``; an excluded file or a hidden name (starting with ``.``) is never listed.
    """
    top = Path(root)
    if not top.is_dir():
        raise SourceError("not a folder", source=str(root))
    prefix = base_url if base_url.endswith("/") else base_url + "/"
    root_bytes = os.fsencode(top)

    def fail(error: OSError) -> None:
        on_problem(Problem(str(error.filename or root), None, f"cannot read: {error.strerror}"))

    for folder, dirs, files in os.walk(root_bytes, onerror=fail):
        dirs[:] = sorted(d for d in dirs if not d.startswith(b"."))
        index_names = {os.fsencode(name) for name in index_files}
        for file_name in sorted(files, key=lambda name: (name not in index_names, name)):
            if file_name.startswith(b"."):
                continue
            full = os.path.join(folder, file_name)
            relative_bytes = os.path.relpath(full, root_bytes).replace(os.sep.encode(), b"/")
            relative = os.fsdecode(relative_bytes)
            if not _matches(relative, include) or _matches(relative, exclude):
                continue
            title = None
            try:
                stat = os.stat(full)
                if file_name.lower().endswith(_HTML_SUFFIXES):
                    with open(full, "rb") as page:
                        head = page.read(_HEAD_BYTES)
                    if skip_noindex and is_noindex_html(head):
                        continue
                    title = html_title(head)
            except OSError as exc:
                on_problem(Problem(relative, None, f"cannot read: {exc.strerror}"))
                continue
            if os.fsdecode(file_name) in index_files:
                relative_bytes = relative_bytes[: -len(file_name)]
            lastmod = datetime.fromtimestamp(int(stat.st_mtime), UTC)
            yield URLEntry(prefix + _url_path(relative_bytes), lastmod=lastmod, title=title)
