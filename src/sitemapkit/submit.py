"""Telling search engines about changes: IndexNow, and a ping for engines that still take one.

**IndexNow** (https://www.indexnow.org/documentation): the site proves ownership with a key
file ``<key>.txt`` holding the key, served at ``keyLocation``; URLs are POSTed as JSON
``{host, key, keyLocation, urlList}``, at most 10,000 a request. The key is valid for the
URLs in the key file's folder and below, so URLs outside it are reported and left out.

**Pings** (PROTOCOL.md §2.9): Google's and Bing's sitemap ping endpoints are retired (404 and
410), so none is called unless the user configures a URL template with ``{sitemap}``.

HTTP stays in this module, sent with ``httpx`` imported inside the functions that send,
so ``import sitemapkit`` does not load it.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final
from urllib.parse import quote, urlsplit

from ._defaults import INDEXNOW_ENDPOINT
from .errors import FetchError, InvalidURLError, InvalidValueError, SitemapError
from .model import Problem, ProblemHandler, log_problem
from .publish import write_file_atomically
from .urls import normalize_url

if TYPE_CHECKING:
    import httpx

__all__ = [
    "INDEXNOW_ENDPOINT",
    "INDEXNOW_MESSAGES",
    "MAX_INDEXNOW_URLS",
    "Announcement",
    "IndexNowBatch",
    "IndexNowResult",
    "PingResult",
    "SubmitSettings",
    "announce",
    "ensure_indexnow_key",
    "generate_indexnow_key",
    "is_indexnow_key",
    "is_retired_ping",
    "ping_sitemap",
    "ping_url",
    "submit_indexnow",
]

MAX_INDEXNOW_URLS: Final = 10_000

#: The answers the IndexNow documentation lists, in words a user can act on.
INDEXNOW_MESSAGES: Final = {
    200: "OK: the URLs were received",
    202: "accepted: the URLs were received; the key is still being validated",
    400: "bad request: the search engine could not read the submission (invalid format)",
    403: "forbidden: the key is not valid (the key file was not found at keyLocation, or it "
    "does not hold the key)",
    422: "unprocessable: some URLs do not belong to the host, or the key does not match the "
    "protocol's format",
    429: "too many requests: the search engine sees this as potential spam; submit less often",
}

_KEY: Final = re.compile(r"[A-Za-z0-9-]{8,128}")
_RETIRED_PINGS: Final = re.compile(
    r"^https?://(?:www\.)?(?:google\.[a-z.]+/(?:webmasters/(?:tools/|sitemaps/)?)?ping"
    r"|bing\.com/(?:webmaster/)?ping|submissions\.ask\.com/ping"
    r"|search\.yahooapis\.com/|webmaster\.live\.com/ping)",
    re.IGNORECASE,
)
_USER_AGENT: Final = "sitemapkit (+https://pypi.org/project/sitemapkit/)"


def is_indexnow_key(key: str) -> bool:
    """IndexNow keys are 8 to 128 characters of ``a-z``, ``A-Z``, ``0-9`` and ``-``."""
    return _KEY.fullmatch(key) is not None


def generate_indexnow_key(length: int = 32) -> str:
    """A new random key of ``length`` hexadecimal characters (from :mod:`secrets`)."""
    if not 8 <= length <= 128:
        raise InvalidValueError(f"an IndexNow key has 8 to 128 characters, not {length}")
    return secrets.token_hex((length + 1) // 2)[:length]


def _existing_keys(folder: Path) -> list[str]:
    keys = []
    for path in sorted(folder.glob("*.txt")):
        if (
            is_indexnow_key(path.stem)
            and path.is_file()
            and path.stat().st_size <= 256
            and path.read_text("utf-8", errors="replace").strip() == path.stem
        ):
            keys.append(path.stem)
    return keys


def ensure_indexnow_key(folder: str | Path, key: str | None = None) -> str:
    """Return the site's key, writing ``<key>.txt`` into ``folder`` (beside the sitemaps).

    Without ``key``, an existing key file in ``folder`` is used, or a new key is made. The
    file holds the key alone, with no line break, as the engines compare it exactly.
    """
    out = Path(folder)
    if key is None:
        found = _existing_keys(out) if out.is_dir() else []
        if len(found) > 1:
            raise SitemapError(
                f"several IndexNow key files ({', '.join(k + '.txt' for k in found)}); "
                "say which key to use",
                source=str(out),
            )
        key = found[0] if found else generate_indexnow_key()
    if not is_indexnow_key(key):
        raise InvalidValueError("an IndexNow key has 8 to 128 characters of a-z, A-Z, 0-9 and '-'")
    key_file = out / f"{key}.txt"
    if not key_file.is_file() or key_file.read_bytes() != key.encode("ascii"):
        out.mkdir(parents=True, exist_ok=True)
        write_file_atomically(key_file, key.encode("ascii"))
    return key


@dataclass(frozen=True, slots=True)
class IndexNowBatch:
    """One POST: how many URLs, the final HTTP status, its meaning, and attempts made."""

    urls: int
    status: int
    message: str
    attempts: int


@dataclass(frozen=True, slots=True)
class IndexNowResult:
    """Every batch :func:`submit_indexnow` sent, and the URLs it left out."""

    endpoint: str
    batches: tuple[IndexNowBatch, ...]
    skipped: int

    @property
    def urls(self) -> int:
        return sum(batch.urls for batch in self.batches)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def _describe(status: int) -> str:
    if status in INDEXNOW_MESSAGES:
        return f"HTTP {status} {INDEXNOW_MESSAGES[status]}"
    if status >= 500:
        return f"HTTP {status}: the search engine failed (a server error)"
    return f"HTTP {status}: an answer the IndexNow protocol does not define"


def _in_scope(
    urls: Iterable[str], scope: str, on_problem: ProblemHandler, counter: list[int]
) -> Iterator[str]:
    """Normalised URLs under the key file's folder (scheme aside); the rest reported."""
    for url in urls:
        try:
            normal = normalize_url(url, base=scope)
        except InvalidURLError as exc:
            counter[0] += 1
            on_problem(Problem("IndexNow", None, f"{exc.message}; not submitted"))
            continue
        if normal.split("://", 1)[1].startswith(scope.split("://", 1)[1]):
            yield normal
        else:
            counter[0] += 1
            on_problem(
                Problem("IndexNow", None, f"{normal} is outside {scope}, where the key is valid")
            )


def submit_indexnow(
    urls: Iterable[str],
    *,
    key: str,
    key_location: str,
    endpoint: str = INDEXNOW_ENDPOINT,
    batch_size: int = MAX_INDEXNOW_URLS,
    retries: int = 4,
    backoff: float = 1.0,
    max_wait: float = 60.0,
    timeout: float = 30.0,
    check_key: bool = True,
    on_problem: ProblemHandler = log_problem,
    on_batch: Callable[[IndexNowBatch], None] | None = None,
) -> IndexNowResult:
    """POST ``urls`` (any iterable, read lazily) to an IndexNow ``endpoint`` in batches.

    ``key_location`` is the URL of the key file; the URLs must lie in its folder. With
    ``check_key`` the key file is fetched first, so a key that is not published yet gives a
    clear error instead of a 403. 429 and 5xx answers (and network errors) are retried up to
    ``retries`` times, waiting ``backoff`` seconds doubled each time, or what Retry-After
    says (a Retry-After longer than ``max_wait`` stops at once). Any other failure raises
    :class:`~sitemapkit.FetchError` with the documented meaning of the status.
    """
    import httpx

    if not is_indexnow_key(key):
        raise InvalidValueError("an IndexNow key has 8 to 128 characters of a-z, A-Z, 0-9, '-'")
    if not 1 <= batch_size <= MAX_INDEXNOW_URLS:
        raise InvalidValueError(f"batch_size must be 1 to {MAX_INDEXNOW_URLS:,}")
    try:
        location = normalize_url(key_location, keep_session_ids=True)
    except InvalidURLError as exc:
        raise InvalidValueError(f"bad key location {key_location!r}: {exc.message}") from exc
    scope = location[: location.rindex("/") + 1]
    host = urlsplit(location).hostname or ""
    skipped = [0]
    batches: list[IndexNowBatch] = []
    headers = {"User-Agent": _USER_AGENT}
    with httpx.Client(timeout=timeout, headers=headers) as client:
        if check_key:
            _check_key_file(client, location, key)
        pending = _in_scope(urls, scope, on_problem, skipped)
        while chunk := list(itertools.islice(pending, batch_size)):
            body: dict[str, object] = {
                "host": host,
                "key": key,
                "keyLocation": location,
                "urlList": chunk,
            }
            sent = _post(client, endpoint, body, retries, backoff, max_wait, len(batches))
            batch = IndexNowBatch(len(chunk), sent[0], _describe(sent[0]), sent[1])
            batches.append(batch)
            if on_batch is not None:
                on_batch(batch)
    return IndexNowResult(endpoint, tuple(batches), skipped[0])


def _check_key_file(client: httpx.Client, location: str, key: str) -> None:
    import httpx

    try:
        response = client.get(location)
    except httpx.HTTPError as exc:
        raise FetchError(f"cannot fetch the IndexNow key file: {exc}", url=location) from exc
    except (httpx.InvalidURL, UnicodeError) as exc:  # a host IDNA cannot encode, a surrogate
        raise FetchError(f"cannot fetch the IndexNow key file: {exc}", url=location) from exc
    if response.status_code != 200:
        raise FetchError(
            f"the IndexNow key file is not served (HTTP {response.status_code}); publish "
            f"{key}.txt there before submitting",
            url=location,
            status=response.status_code,
        )
    if response.text.strip() != key:
        raise FetchError("the IndexNow key file does not hold the key", url=location, status=200)


def _post(
    client: httpx.Client,
    endpoint: str,
    body: dict[str, object],
    retries: int,
    backoff: float,
    max_wait: float,
    earlier: int,
) -> tuple[int, int]:
    """Send one batch; returns (status, attempts) or raises FetchError."""
    import httpx

    data = json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json; charset=utf-8"}
    done = (
        f" ({earlier} earlier batch{'es' if earlier != 1 else ''} were accepted)" if earlier else ""
    )
    for attempt in range(1, retries + 2):
        wait = backoff * 2 ** (attempt - 1)
        try:
            response = client.post(endpoint, content=data, headers=headers)
        except (httpx.InvalidURL, UnicodeError) as exc:  # also a bad Location: no retry
            raise FetchError(f"bad IndexNow endpoint or redirect: {exc}", url=endpoint) from exc
        except httpx.HTTPError as exc:
            if attempt > retries:
                raise FetchError(
                    f"cannot reach the IndexNow endpoint after {attempt} attempts: {exc}{done}",
                    url=endpoint,
                ) from exc
        else:
            status = response.status_code
            if status in (200, 202):
                return status, attempt
            if status != 429 and status < 500:
                raise FetchError(_describe(status) + done, url=endpoint, status=status)
            if attempt > retries:
                raise FetchError(
                    f"{_describe(status)}; gave up after {attempt} attempts{done}",
                    url=endpoint,
                    status=status,
                )
            asked = _retry_after(response)
            if asked is not None and asked > max_wait:  # as the Fetcher does: no long sleeps
                raise FetchError(
                    f"{_describe(status)}; Retry-After {asked:.0f} s is longer than the wait "
                    f"allowed ({max_wait:g} s){done}",
                    url=endpoint,
                    status=status,
                )
            wait = asked or wait
        time.sleep(min(wait, max_wait))
    raise AssertionError("unreachable")  # pragma: no cover


def is_retired_ping(template: str) -> bool:
    """True for the ping endpoints search engines have switched off (PROTOCOL.md N-02/N-03)."""
    return _RETIRED_PINGS.match(template.strip()) is not None


def ping_url(template: str, sitemap_url: str) -> str:
    """Put the URL-encoded ``sitemap_url`` where ``{sitemap}`` stands in ``template``.

    >>> ping_url("https://search.example/ping?sitemap={sitemap}", "https://a.example/s.xml")
    'https://search.example/ping?sitemap=https%3A%2F%2Fa.example%2Fs.xml'
    """
    if "{sitemap}" not in template:
        raise InvalidValueError(f"a ping template needs '{{sitemap}}': {template!r}")
    if not template.startswith(("http://", "https://")):
        raise InvalidValueError(f"a ping template must be an http(s) URL: {template!r}")
    return template.replace("{sitemap}", quote(sitemap_url, safe=""))


@dataclass(frozen=True, slots=True)
class PingResult:
    """The URL pinged and its HTTP status (2xx means received, not that the sitemap is valid)."""

    url: str
    status: int

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def ping_sitemap(template: str, sitemap_url: str, *, timeout: float = 30.0) -> PingResult:
    """GET the ping URL made from ``template``; raises FetchError when it cannot be reached."""
    import httpx

    url = ping_url(template, sitemap_url)
    try:
        response = httpx.get(url, timeout=timeout, headers={"User-Agent": _USER_AGENT})
    except httpx.HTTPError as exc:
        raise FetchError(f"cannot ping: {exc}", url=url) from exc
    except (httpx.InvalidURL, UnicodeError) as exc:  # xn-- garbage, a label over 63
        raise FetchError(f"cannot ping: {exc}", url=url) from exc
    return PingResult(url, response.status_code)


@dataclass(frozen=True, slots=True)
class SubmitSettings:
    """What ``sitemapkit submit`` needs: where the site is served from and written to, the
    IndexNow key and endpoint, ping templates and the sitemap URL they announce."""

    base_url: str
    out_dir: Path
    key: str | None = None
    endpoint: str = INDEXNOW_ENDPOINT
    ping: tuple[str, ...] = ()
    sitemap_url: str | None = None

    def __post_init__(self) -> None:
        for template in self.ping:
            ping_url(template, "https://example.com/sitemap.xml")

    @property
    def announced_sitemap(self) -> str:
        """The sitemap URL pings announce: ``sitemap_url``, else ``<base_url>sitemap.xml``."""
        base = self.base_url if self.base_url.endswith("/") else self.base_url + "/"
        return self.sitemap_url or base + "sitemap.xml"


@dataclass(frozen=True, slots=True)
class Announcement:
    """What :func:`announce` did: the key used, the IndexNow batches and the pings."""

    key: str | None
    indexnow: IndexNowResult | None
    pings: tuple[PingResult, ...]


def announce(
    settings: SubmitSettings,
    urls: Iterable[str] | None,
    *,
    check_key: bool = True,
    on_problem: ProblemHandler = log_problem,
    on_batch: Callable[[IndexNowBatch], None] | None = None,
) -> Announcement:
    """Submit ``urls`` with IndexNow (the key file is written into ``out_dir`` first), then
    send each configured ping. ``urls=None`` sends pings only."""
    key = result = None
    if urls is not None:
        key = ensure_indexnow_key(settings.out_dir, settings.key)
        base = settings.base_url if settings.base_url.endswith("/") else settings.base_url + "/"
        result = submit_indexnow(
            urls,
            key=key,
            key_location=f"{base}{key}.txt",
            endpoint=settings.endpoint,
            check_key=check_key,
            on_problem=on_problem,
            on_batch=on_batch,
        )
    pings = tuple(ping_sitemap(t, settings.announced_sitemap) for t in settings.ping)
    return Announcement(key, result, pings)
