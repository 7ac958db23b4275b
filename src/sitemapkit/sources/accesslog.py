"""Web-server access logs: the pages people actually reach.

Three formats are read: Apache/Nginx Common Log Format, Combined Log Format (Common plus
referer and user agent) and W3C Extended (IIS), whose columns come from the ``#Fields:``
header and may change in the middle of a file. ``auto`` decides per file: a first line
that is a W3C directive (``#Software:``, ``#Version:``, ``#Date:``, ``#Fields:``...) means
W3C, anything else Common/Combined.

What counts as a page view, and why:

* the status is 2xx or 304 (a 304 answers a conditional GET for a page that exists);
* the method is GET or HEAD (a POST target is an action, not a page);
* the path does not end in an asset extension (:data:`DEFAULT_SKIP_EXTENSIONS`: style
  sheets, scripts, images, fonts, feeds, robots.txt, sitemaps themselves);
* the user agent matches none of the ``exclude_agents`` patterns (:data:`DEFAULT_BOT_AGENTS`),
  since crawlers and scanners request URLs people never see.

Query strings are kept; session parameters are removed by the same normalisation the
writer applies (:func:`~sitemapkit.normalize_url`), which is also what makes two requests
for the same page one URL. Each URL is produced once, in the order it was first seen.

Encodings: each line is decoded with ``encoding`` and, when it is not valid in it, as
ISO-8859-1 (latin-1, which cannot fail), so a stray byte costs nothing. The ``\\xhh`` escapes
Apache and Nginx write for non-ASCII request bytes are decoded the same way. Non-ASCII
characters then become UTF-8 percent-escapes (RFC 3987), as for every other source.

Memory: without ``lastmod_from_requests`` the log is streamed and memory grows only with
the number of *distinct* URLs, at about 11 bytes each (the writer's fingerprint set), plus
bounded caches of recent request targets, user agents and times (under 20 MB in all).
With it, the newest request time of every URL must be known before any URL can be
produced, so a dictionary holds each distinct URL and a time: about 300 bytes a URL
(``benchmarks/bench_accesslog.py`` measured 284; some 300 MB for a million distinct URLs),
and the first entry comes out only after the last log line is read.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Final, Literal

from .._fingerprints import FingerprintSet
from ..errors import InvalidURLError, InvalidValueError, SourceError
from ..model import Problem, ProblemHandler, URLEntry, log_problem
from ..urls import URLNormalizer, normalize_url, origin_of
from ._common import check_encoding, open_binary, source_name

__all__ = [
    "DEFAULT_BOT_AGENTS",
    "DEFAULT_SKIP_EXTENSIONS",
    "LogFormat",
    "expand_paths",
    "from_access_log",
]

LogFormat = Literal["auto", "common", "combined", "w3c"]

# A W3C extended log starts with one of its directives; any other first line means CLF.
_W3C_DIRECTIVES = ("#software:", "#version:", "#date:", "#fields:", "#remark:", "#start-date:")

#: User-agent patterns (``re.search``, case-insensitive) of crawlers, monitors and scripts.
DEFAULT_BOT_AGENTS: Final[tuple[str, ...]] = (
    r"bot\b",  # Googlebot, bingbot, YandexBot, AhrefsBot, GPTBot, UptimeRobot, ...
    r"crawl",
    r"spider",  # Baiduspider, Bytespider, ...
    r"slurp",
    r"archiver",
    r"facebookexternalhit",
    r"mediapartners-google",
    r"bingpreview",
    r"headlesschrome",
    r"lighthouse",
    r"pingdom",
    r"^curl/",
    r"^wget/",
    r"python-requests",
    r"python-urllib",
    r"python-httpx",
    r"aiohttp",
    r"go-http-client",
    r"^java/",
    r"libwww-perl",
    r"scrapy",
    r"okhttp",
)

#: Path suffixes that are not pages (compared case-insensitively, without the dot).
DEFAULT_SKIP_EXTENSIONS: Final[tuple[str, ...]] = (
    "avif", "bmp", "css", "eot", "gif", "gz", "ico", "jpeg", "jpg", "js", "json", "m4a",
    "map", "mjs", "mov", "mp3", "mp4", "ogg", "otf", "png", "svg", "tif", "tiff", "ttf",
    "txt", "wasm", "wav", "webm", "webp", "woff", "woff2", "xml", "zip",
)  # fmt: skip

_GET_HEAD: Final = frozenset({"GET", "HEAD"})
_MAX_LINE: Final = 64 * 1024
_RECENT_LIMIT: Final = 100_000
_BATCH: Final = 1024
_GLOB_CHARS: Final = re.compile(r"[*?\[]")

# host ident user [time] "request" status size ["referer" "agent"]; one optional leading
# token covers Apache's vhost_combined. Anything after the agent is ignored (Nginx extras).
_QUOTED = r'"([^"\\]*(?:\\.[^"\\]*)*)"'  # unrolled: five times faster than (?:[^"\\]|\\.)*
_CLF: Final = re.compile(
    r"\S+(?: \S+){1,3} \[([^\]]+)\] "
    + _QUOTED
    + r" (\d{3}) \S+(?: "
    + _QUOTED
    + " "
    + _QUOTED
    + ")?"
)
_REQUEST: Final = re.compile(r"([A-Za-z]+) +(\S+)(?: +HTTP/\d+(?:\.\d+)?)?")
_CLF_TIME: Final = re.compile(r"(\d{1,2})/(\w{3})/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ?([+-]\d{4})?")
_MONTHS: Final = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        start=1,
    )
}
_ESCAPES: Final = re.compile(r"(?:\\x[0-9A-Fa-f]{2})+|\\(.)")
_W3C_TOKEN: Final = re.compile(r'"(?:[^"]|"")*"|\S+')


def expand_paths(paths: str | Path | Iterable[str | Path]) -> list[str]:
    """Expand globs (sorted), keeping plain paths as given; a glob matching nothing is an error.

    (sitemap_gen passed an unmatched glob on as a file name and failed later, PROTOCOL.md
    §4.6 item 12.)
    """
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    found: list[str] = []
    for item in items:
        text = os.fspath(item)
        if text != "-" and _GLOB_CHARS.search(text) and not os.path.exists(text):
            matches = sorted(glob.glob(os.path.expanduser(text)))
            if not matches:
                raise SourceError("no file matches this pattern", source=text)
            found.extend(m for m in matches if os.path.isfile(m))
        else:
            found.append(text)
    if not found:
        raise SourceError("no log file given", source="access log")
    return found


def _compile_agents(patterns: Sequence[str]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    for pattern in patterns:
        try:
            re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as exc:  # a{99999999999}, ((((…
            raise InvalidValueError(f"bad user-agent pattern {pattern!r}: {exc}") from exc
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def from_access_log(
    paths: str | Path | Iterable[str | Path],
    *,
    base_url: str,
    format: LogFormat = "auto",
    encoding: str = "utf-8",
    exclude_agents: Sequence[str] = DEFAULT_BOT_AGENTS,
    skip_extensions: Sequence[str] = DEFAULT_SKIP_EXTENSIONS,
    lastmod_from_requests: bool = False,
    keep_session_ids: bool = False,
    on_problem: ProblemHandler = log_problem,
) -> Iterator[URLEntry]:
    """Stream the page URLs requested in access logs (files, ``.gz`` files or globs).

    Request paths are resolved against ``base_url`` and normalised. With
    ``lastmod_from_requests`` each entry's ``lastmod`` is its newest request time (a
    request is not a modification, so this is opt-in). Unreadable lines are reported to
    ``on_problem`` with file and line number and skipped; a file that cannot be opened, a
    glob that matches nothing, a bad pattern or an unknown encoding raise at once.
    """
    if format not in ("auto", "common", "combined", "w3c"):
        raise InvalidValueError(f"unknown log format {format!r} (auto, common, combined, w3c)")
    check_encoding(encoding)
    reader = _LogReader(
        base_url=base_url,
        format=format,
        encoding=encoding,
        agents=_compile_agents(exclude_agents),
        skip_extensions=frozenset(e.lower().lstrip(".") for e in skip_extensions),
        keep_session_ids=keep_session_ids,
        on_problem=on_problem,
    )
    files = expand_paths(paths)
    if lastmod_from_requests:
        return reader.with_lastmod(files)
    return reader.stream(files)


@dataclass(slots=True)
class _Request:
    """One counted page request: its target and, when known, its time (epoch seconds)."""

    target: str
    time: float | None


_LineParser = Callable[[int, str], _Request | None]
# A request target waiting for normalisation: target, file, line, time.
_Pending = tuple[str, str, int, float | None]


@dataclass(slots=True)
class _W3CLayout:
    status: int
    uri: int | None
    stem: int | None
    query: int | None
    method: int | None
    agent: int | None
    date: int | None
    time: int | None
    width: int


class _LogReader:
    def __init__(
        self,
        *,
        base_url: str,
        format: LogFormat,
        encoding: str,
        agents: re.Pattern[str] | None,
        skip_extensions: frozenset[str],
        keep_session_ids: bool,
        on_problem: ProblemHandler,
    ) -> None:
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        try:
            self.origin = origin_of(self.base_url)
            self.normalizer = URLNormalizer(
                self.base_url, scope=self.origin, keep_session_ids=keep_session_ids
            )
        except InvalidURLError as exc:
            raise InvalidValueError(f"bad base URL {base_url!r}: {exc.message}") from exc
        self.format = format
        self.encoding = encoding
        self.agents = agents
        self.skip_extensions = skip_extensions
        self.keep_session_ids = keep_session_ids
        self.on_problem = on_problem
        self.want_time = False
        self._agent_verdicts: dict[str, bool] = {}
        self._times: dict[str, float | None] = {}

    # -- the two output modes ---------------------------------------------------------------

    def stream(self, files: list[str]) -> Iterator[URLEntry]:
        seen = FingerprintSet()
        recent: set[str] = set()
        pending: list[_Pending] = []
        for name, number, request in self._requests(files):
            target = request.target
            if target in recent:
                continue
            if len(recent) >= _RECENT_LIMIT:
                recent.clear()
            recent.add(target)
            pending.append((target, name, number, None))
            if len(pending) >= _BATCH:
                yield from self._first_seen(pending, seen)
                pending = []
        yield from self._first_seen(pending, seen)

    def _first_seen(self, pending: list[_Pending], seen: FingerprintSet) -> Iterator[URLEntry]:
        for url in self._normalize(pending):
            if url is not None and seen.add(url):
                yield URLEntry(url)

    def with_lastmod(self, files: list[str]) -> Iterator[URLEntry]:
        self.want_time = True
        newest: dict[str, float] = {}
        recent: dict[str, str | None] = {}
        pending: list[_Pending] = []
        missing = float("-inf")

        def note(url: str, time: float | None) -> None:
            moment = missing if time is None else time
            previous = newest.get(url)
            if previous is None or previous < moment:
                newest[url] = moment

        def flush() -> None:
            for (target, _name, _number, time), url in zip(
                pending, self._normalize(pending), strict=True
            ):
                if len(recent) >= _RECENT_LIMIT:
                    recent.clear()
                recent[target] = url
                if url is not None:
                    note(url, time)
            pending.clear()

        for name, number, request in self._requests(files):
            try:
                url = recent[request.target]
            except KeyError:
                pending.append((request.target, name, number, request.time))
                if len(pending) >= _BATCH:
                    flush()
                continue
            if url is not None:
                note(url, request.time)
        flush()
        for url, time in newest.items():
            lastmod = None if time == missing else datetime.fromtimestamp(time, UTC)
            yield URLEntry(url, lastmod=lastmod)

    def _normalize(self, pending: list[_Pending]) -> list[str | None]:
        """Normalise a batch of request targets (the normaliser's fast path does most)."""
        origin = self.origin
        absolute = [
            origin + target[1:] if target[:1] == "/" and target[:2] != "//" else target
            for target, _name, _number, _time in pending
        ]
        urls: list[str | None] = []
        results = self.normalizer.normalize_many(absolute)
        for (_target, name, number, _time), url, result in zip(
            pending, absolute, results, strict=True
        ):
            if isinstance(result, str):
                urls.append(result)
                continue
            if result.reason == "out-of-scope":  # an absolute-form target on another host
                try:
                    urls.append(normalize_url(url, keep_session_ids=self.keep_session_ids))
                    continue
                except InvalidURLError as exc:
                    result = exc
            self.on_problem(Problem(name, number, f"{result.message}; line skipped"))
            urls.append(None)
        return urls

    # -- reading files ----------------------------------------------------------------------

    def _requests(self, files: list[str]) -> Iterator[tuple[str, int, _Request]]:
        for path in files:
            name = source_name(path)
            with open_binary(path) as binary:
                lines = self._lines(binary, name)
                kind = self.format
                first = next(lines, None)
                if first is None:
                    continue
                if kind == "auto":
                    kind = "w3c" if first[1].lower().startswith(_W3C_DIRECTIVES) else "common"
                parse = self._parse_w3c(name) if kind == "w3c" else self._parse_clf(name, kind)
                for number, text in _chain_first(first, lines):
                    request = parse(number, text)
                    if request is not None:
                        yield name, number, request

    def _lines(self, binary: IO[bytes], name: str) -> Iterator[tuple[int, str]]:
        """Decoded lines with their numbers; bounded in length; blank lines dropped."""
        number = 0
        encoding = self.encoding
        while True:
            try:
                raw = binary.readline(_MAX_LINE)
            except (OSError, EOFError) as exc:
                reason = "the gzip data is truncated" if isinstance(exc, EOFError) else str(exc)
                self.on_problem(
                    Problem(name, number + 1, f"cannot read further ({reason}); rest skipped")
                )
                return
            if not raw:
                return
            number += 1
            if len(raw) == _MAX_LINE and not raw.endswith(b"\n"):
                self._skip_rest_of_line(binary)
                self.on_problem(
                    Problem(name, number, f"line longer than {_MAX_LINE:,} bytes; skipped")
                )
                continue
            try:
                text = raw.decode(encoding)
            except UnicodeError:  # utf-16 without a BOM raises the base class
                text = raw.decode("latin-1")
            if number == 1 and text.startswith("\ufeff"):
                text = text[1:]
            text = text.strip()
            if text:
                yield number, text

    @staticmethod
    def _skip_rest_of_line(binary: IO[bytes]) -> None:
        while True:
            try:
                chunk = binary.readline(_MAX_LINE)
            except (OSError, EOFError):
                return
            if not chunk or chunk.endswith(b"\n"):
                return

    # -- the decisions every format shares ---------------------------------------------------

    def _is_bot(self, agent: str) -> bool:
        """Cached: a log has few distinct user agents, and the pattern search is slow."""
        try:
            return self._agent_verdicts[agent]
        except KeyError:
            pass
        assert self.agents is not None
        verdict = self.agents.search(agent) is not None
        if len(self._agent_verdicts) >= 10_000:
            self._agent_verdicts.clear()
        self._agent_verdicts[agent] = verdict
        return verdict

    def _is_page(self, target: str, agent: str | None) -> bool:
        if agent is not None and self.agents is not None and self._is_bot(agent):
            return False
        if self.skip_extensions:
            path = target.split("?", 1)[0].split("#", 1)[0]
            last = path.rsplit("/", 1)[-1]
            if "." in last and last.rsplit(".", 1)[1].lower() in self.skip_extensions:
                return False
        return True

    def _clf_time(self, text: str) -> float | None:
        """Cached: consecutive lines share their second, and parsing one costs 10 µs."""
        try:
            return self._times[text]
        except KeyError:
            pass
        if len(self._times) >= 10_000:
            self._times.clear()
        moment = self._times[text] = _clf_time(text)
        return moment

    def _unescape(self, text: str) -> str:
        """Undo Apache/Nginx log escaping: ``\\xhh`` runs become text, ``\\"`` a quote."""
        if "\\" not in text:
            return text

        def replace(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                return match.group(1)
            data = bytes.fromhex(match.group(0).replace("\\x", ""))
            try:
                return data.decode(self.encoding)
            except UnicodeError:
                return data.decode("latin-1")

        return _ESCAPES.sub(replace, text)

    # -- Common and Combined ----------------------------------------------------------------

    def _parse_clf(self, name: str, kind: LogFormat) -> _LineParser:
        combined = kind == "combined"
        label = "Combined" if combined else "Common"

        def parse(number: int, text: str) -> _Request | None:
            match = _CLF.match(text)
            if match is None or (combined and match.group(5) is None):
                self.on_problem(
                    Problem(name, number, f"not a {label} Log Format line; line skipped")
                )
                return None
            status = int(match.group(3))
            if not (200 <= status < 300 or status == 304):
                return None
            request = _REQUEST.fullmatch(self._unescape(match.group(2)))
            if request is None:
                self.on_problem(
                    Problem(name, number, f"unreadable request {match.group(2)!r}; line skipped")
                )
                return None
            if request.group(1).upper() not in _GET_HEAD:
                return None
            agent = match.group(5)
            target = request.group(2)
            if not self._is_page(target, None if agent is None else self._unescape(agent)):
                return None
            time = None
            if self.want_time:
                time = self._clf_time(match.group(1))
                if time is None:
                    self.on_problem(
                        Problem(name, number, f"bad time {match.group(1)!r}; line skipped")
                    )
                    return None
            return _Request(target, time)

        return parse

    # -- W3C Extended (IIS) -----------------------------------------------------------------

    def _parse_w3c(self, name: str) -> _LineParser:
        layout: _W3CLayout | None = None
        header_problem = False

        def parse(number: int, text: str) -> _Request | None:
            nonlocal layout, header_problem
            if text.startswith("#"):
                if text[:8].lower() == "#fields:":
                    layout = _w3c_layout(text[8:].split())
                    header_problem = layout is None
                    if layout is None:
                        self.on_problem(
                            Problem(
                                name,
                                number,
                                "#Fields: names no sc-status or no cs-uri-stem/cs-uri; the "
                                "lines up to the next #Fields: are skipped",
                            )
                        )
                return None
            if layout is None:
                if not header_problem:
                    self.on_problem(
                        Problem(name, number, "no #Fields: header before this line; skipped")
                    )
                return None
            tokens = text.split() if '"' not in text else _w3c_tokens(text)
            if len(tokens) != layout.width:
                self.on_problem(
                    Problem(
                        name,
                        number,
                        f"{len(tokens)} fields where #Fields: names {layout.width}; line skipped",
                    )
                )
                return None
            status_text = tokens[layout.status]
            if not status_text.isdigit():
                self.on_problem(Problem(name, number, f"bad status {status_text!r}; line skipped"))
                return None
            status = int(status_text)
            if not (200 <= status < 300 or status == 304):
                return None
            if layout.method is not None and tokens[layout.method].upper() not in _GET_HEAD:
                return None
            if layout.uri is not None:
                target = tokens[layout.uri]
            else:
                assert layout.stem is not None
                target = tokens[layout.stem]
                query = tokens[layout.query] if layout.query is not None else "-"
                if query != "-":
                    target += "?" + query
            agent = None
            if layout.agent is not None and tokens[layout.agent] != "-":
                agent = tokens[layout.agent].replace("+", " ")
            if not self._is_page(target, agent):
                return None
            time = None
            if self.want_time and layout.date is not None and layout.time is not None:
                time = _w3c_time(tokens[layout.date], tokens[layout.time])
                if time is None:
                    self.on_problem(Problem(name, number, "bad date or time; line skipped"))
                    return None
            return _Request(target, time)

        return parse


def _chain_first(
    first: tuple[int, str], rest: Iterator[tuple[int, str]]
) -> Iterator[tuple[int, str]]:
    yield first
    yield from rest


def _clf_time(text: str) -> float | None:
    match = _CLF_TIME.fullmatch(text.strip())
    if match is None:
        return None
    day, month_name, year, hour, minute, second, zone = match.groups()
    month = _MONTHS.get(month_name.lower())
    if month is None:
        return None
    tz = UTC
    try:
        if zone:  # inside the try: timezone() refuses +2500 with a ValueError too
            sign = -1 if zone[0] == "-" else 1
            tz = timezone(sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5])))
        moment = datetime(
            int(year), month, int(day), int(hour), int(minute), int(second), tzinfo=tz
        )
    except ValueError:
        return None
    return moment.timestamp()


def _w3c_time(day: str, clock: str) -> float | None:
    """W3C Extended times are UTC (the W3C working draft and IIS agree)."""
    try:
        moment = datetime.fromisoformat(f"{day}T{clock}")
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _w3c_tokens(text: str) -> list[str]:
    tokens = []
    for token in _W3C_TOKEN.findall(text):
        if len(token) >= 2 and token[0] == token[-1] == '"':
            token = token[1:-1].replace('""', '"')
        tokens.append(token)
    return tokens


def _w3c_layout(fields: list[str]) -> _W3CLayout | None:
    index = {field.lower(): position for position, field in enumerate(fields)}
    status = index.get("sc-status")
    uri, stem = index.get("cs-uri"), index.get("cs-uri-stem")
    if status is None or (uri is None and stem is None):
        return None
    return _W3CLayout(
        status=status,
        uri=uri if stem is None else None,
        stem=stem,
        query=index.get("cs-uri-query"),
        method=index.get("cs-method"),
        agent=index.get("cs(user-agent)"),
        date=index.get("date"),
        time=index.get("time"),
        width=len(fields),
    )
