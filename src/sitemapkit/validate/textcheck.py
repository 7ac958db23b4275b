"""Text sitemaps (PROTOCOL.md 2.10): one absolute URL per line, UTF-8, nothing else."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from ..errors import ParseError, UnsafeContentError
from ..model import PROTOCOL_09
from .locations import LocationChecker, Tree
from .report import Collector
from .xmlcheck import CheckedFile

__all__ = ["check_text"]

_MAX_LINE: Final = 1 << 20


def _lines(chunks: Iterable[bytes], checked: CheckedFile) -> Iterable[bytes]:
    carry = b""
    for chunk in chunks:
        checked.bytes += len(chunk)
        lines = (carry + chunk).split(b"\n")
        carry = lines.pop()
        if len(carry) > _MAX_LINE:
            carry = carry[:_MAX_LINE]
        yield from lines
    if carry:
        yield carry


def check_text(
    chunks: Iterable[bytes],
    collector: Collector,
    *,
    location: str | None = None,
    tree: Tree | None = None,
    top_level: bool = True,
) -> CheckedFile:
    """Check a text sitemap given as byte chunks; findings go to ``collector``."""
    checked = CheckedFile(kind="text")
    add = collector.add
    locations = LocationChecker(collector, location=location, tree=tree or Tree())
    if top_level and location and location.split("?")[0].count("/") > 3:
        add(
            "SM-S02",
            f"{location} is not at the server root; it can only list URLs under its own folder",
            1,
            1,
        )
    profile = PROTOCOL_09
    number = 0
    try:
        for number, raw in enumerate(_lines(chunks, checked), start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                add("SM-F04", "the file starts with a UTF-8 byte order mark", 1, 1)
                raw = raw[3:]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                add("SM-T01", "the line is not valid UTF-8", number, error.start + 1)
                line = raw.decode("utf-8", "replace")
            text = line.strip()
            column = len(line) - len(line.lstrip()) + 1
            if not text:
                add("SM-T05", "blank line", number, 1)
                continue
            if text.startswith("#"):
                add("SM-T05", "comment line; a text sitemap holds nothing but URLs", number, column)
                continue
            if any(space in text for space in (" ", "\t")):
                add(
                    "SM-T02",
                    "the line holds more than one URL (or a URL with a raw space)",
                    number,
                    column,
                )
                continue
            checked.urls += 1
            if checked.urls == profile.max_urls + 1:
                add("SM-T04", f"more than {profile.max_urls:,} URLs", number, column)
            if "://" not in text:
                add(
                    "SM-T03",
                    f"{text[:200]!r} is not a fully specified URL (scheme and host)",
                    number,
                    column,
                )
            locations.check(text, number, column, relaxed_scheme=True)
    except UnsafeContentError as error:
        add("SM-T04", f"{error.message}; stopped reading", number, 1)
        return checked
    except ParseError as error:
        add("SM-F01", error.message, number, 1)
        return checked
    if checked.bytes > profile.max_bytes:
        add(
            "SM-T04",
            f"the file is {checked.bytes:,} bytes uncompressed; the limit is {profile.max_bytes:,}",
            1,
            1,
        )
    locations.finish()
    return checked
