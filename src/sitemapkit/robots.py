"""The ``Sitemap:`` line of a robots.txt file (PROTOCOL.md R-01 to R-03, S-03).

:func:`update_robots_txt` edits the file as bytes: only the line naming our sitemap is
added, rewritten or de-duplicated, and every other byte (byte order mark, line endings,
comments, groups, ``Sitemap:`` lines for other sitemaps or other hosts) stays as it was.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

from .errors import InvalidURLError, InvalidValueError, PublishError
from .publish import write_file_atomically
from .urls import normalize_url

__all__ = ["update_robots_txt"]

_BOM: Final = b"\xef\xbb\xbf"
# the field name is case-insensitive; a comment may follow the value.
_SITEMAP_LINE: Final = re.compile(rb"[ \t]*sitemap[ \t]*:[ \t]*([^#\s]*)", re.IGNORECASE)
_EOL: Final = re.compile(rb"\r\n|\r|\n")


def _without_scheme(url: str) -> str:
    return url.split("://", 1)[1]


def update_robots_txt(path: str | os.PathLike[str], sitemap_url: str) -> bool:
    """Make ``path`` name ``sitemap_url`` in a ``Sitemap:`` line; True when the file changed.

    A line counts as ours when it names the same sitemap, even spelt differently: another
    scheme or default port (an ``http`` to ``https`` move), another case of the host, or a
    path relative to the sitemap's host (R-02). The first such line is rewritten, later ones
    are removed; with none, ``Sitemap: <url>`` is appended in the file's own line ending. A
    missing file is created. The write is atomic (temporary file, fsync, rename, mode kept),
    and a second call with the same URL changes nothing.
    """
    try:
        target = normalize_url(sitemap_url, keep_session_ids=True)
    except InvalidURLError as exc:
        raise InvalidValueError(f"bad sitemap URL {sitemap_url!r}: {exc.message}") from exc
    origin = target[: target.index("/", target.index("://") + 3) + 1]
    wanted = _without_scheme(target)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        data = b""
    except OSError as exc:
        raise PublishError(f"cannot read: {exc.strerror or exc}", source=str(path)) from exc
    bom = _BOM if data.startswith(_BOM) else b""
    lines = data[len(bom) :].splitlines(keepends=True)
    first_eol = _EOL.search(data)
    eol = first_eol.group() if first_eol else b"\n"
    line_out = b"Sitemap: " + target.encode("ascii")

    ours: list[int] = []
    exact: list[bool] = []
    for number, line in enumerate(lines):
        match = _SITEMAP_LINE.match(line)
        if match is None or not match.group(1):
            continue
        value = match.group(1).decode("utf-8", errors="replace")
        try:
            named = normalize_url(value, base=origin, keep_session_ids=True)
        except InvalidURLError:
            continue
        if _without_scheme(named) == wanted:
            ours.append(number)
            exact.append(value == target)

    if len(ours) == 1 and exact[0]:
        return False
    if not ours:
        if lines and not lines[-1].endswith((b"\n", b"\r")):
            lines[-1] += eol
        lines.append(line_out + eol)
    else:
        first = ours[0]
        if not exact[0]:
            ending = lines[first][len(lines[first].rstrip(b"\r\n")) :]
            lines[first] = line_out + ending
        for number in reversed(ours[1:]):
            del lines[number]
    write_file_atomically(path, bom + b"".join(lines))
    return True
