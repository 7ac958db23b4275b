"""HTTP for everything that reads from the web. The only module that uses httpx.

httpx is imported when a :class:`Fetcher` is made, not when this module is, so that
``import sitemapkit`` stays light. A :class:`Fetcher` is one run's client: pooled
connections, at most ``per_host`` requests at a time to one host, one retry budget shared by
every request, and a guard that keeps URLs found in remote content away from the user's own
network.

Every transport failure becomes a :class:`~sitemapkit.FetchError` through one table
(:data:`EXCEPTION_MESSAGES`); ``tests/test_fetch.py`` checks that it covers every httpx
exception. The crawler's asyncio client (aiohttp, about eight times cheaper per request
than ``httpx.AsyncClient``: ``BENCHMARKS.md``) maps its exceptions onto the same table
(:data:`AIOHTTP_EQUIVALENTS`), so both say the same thing about the same failure.
"""

from __future__ import annotations

import functools
import math
import random
import re
import socket
import sys
import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from .compression import iter_gunzip
from .errors import FetchError, InvalidValueError, ParseError, UnsafeContentError
from .urls import host_of, join_url

if TYPE_CHECKING:
    import httpx

__all__ = [
    "AIOHTTP_EQUIVALENTS",
    "DEFAULT_MAX_BYTES",
    "EXCEPTION_MESSAGES",
    "FetchSettings",
    "Fetched",
    "Fetcher",
    "backoff_delay",
    "is_private_address",
    "is_private_host",
    "map_aiohttp_exception",
    "map_exception",
]

#: Decompressed bytes read from one file: the protocol's 50 MiB plus a margin for the
#: generators that overshoot it a little.
DEFAULT_MAX_BYTES: Final = 52_428_800 + 1_048_576
_CHUNK: Final = 1 << 16
_BODY_START: Final = 200

#: httpx exception name -> (message, retried?). Keyed by name so that the table can be
#: read without importing httpx; lookups walk the exception's MRO, most specific first.
EXCEPTION_MESSAGES: Final[Mapping[str, tuple[str, bool]]] = {
    "ConnectError": ("cannot connect", True),
    "ConnectTimeout": ("timed out connecting", True),
    "ReadError": ("connection lost while reading", True),
    "WriteError": ("connection lost while sending", True),
    "CloseError": ("connection failed while closing", True),
    "RemoteProtocolError": ("server broke the HTTP protocol or closed the connection early", True),
    "NetworkError": ("network error", True),
    "ReadTimeout": ("timed out waiting for data", False),
    "WriteTimeout": ("timed out sending the request", False),
    "PoolTimeout": ("timed out waiting for a free connection", False),
    "TimeoutException": ("timed out", False),
    "LocalProtocolError": ("request could not be sent", False),
    "ProtocolError": ("HTTP protocol error", False),
    "ProxyError": ("proxy error", False),
    "UnsupportedProtocol": ("unsupported URL scheme", False),
    "DecodingError": ("response body could not be decoded", False),
    "TooManyRedirects": ("too many redirects", False),
    "TransportError": ("transport error", False),
    "RequestError": ("request failed", False),
    "HTTPStatusError": ("HTTP error status", False),
    "HTTPError": ("HTTP error", False),
    "InvalidURL": ("invalid URL", False),
    "CookieConflict": ("conflicting cookies", False),
    "StreamConsumed": ("response body already read", False),
    "StreamClosed": ("response stream closed", False),
    "ResponseNotRead": ("response body not read", False),
    "RequestNotRead": ("request body not read", False),
    "StreamError": ("response stream error", False),
}

#: aiohttp exception name -> the httpx name whose message and retry flag it shares.
AIOHTTP_EQUIVALENTS: Final[Mapping[str, str]] = {
    "ClientConnectorCertificateError": "ConnectError",
    "ClientConnectorSSLError": "ConnectError",
    "ClientSSLError": "ConnectError",
    "ServerFingerprintMismatch": "ConnectError",
    "ClientConnectorDNSError": "ConnectError",
    "ClientProxyConnectionError": "ProxyError",
    "ClientHttpProxyError": "ProxyError",
    "ClientConnectorError": "ConnectError",
    "ConnectionTimeoutError": "ConnectTimeout",
    "SocketTimeoutError": "ReadTimeout",
    "ServerTimeoutError": "TimeoutException",
    "ServerDisconnectedError": "RemoteProtocolError",
    "ClientConnectionResetError": "ReadError",
    "ClientOSError": "NetworkError",
    "ServerConnectionError": "NetworkError",
    "ClientConnectionError": "NetworkError",
    "ClientPayloadError": "ReadError",
    "InvalidUrlRedirectClientError": "InvalidURL",
    "NonHttpUrlRedirectClientError": "UnsupportedProtocol",
    "InvalidUrlClientError": "InvalidURL",
    "NonHttpUrlClientError": "UnsupportedProtocol",
    "InvalidURL": "InvalidURL",
    "TooManyRedirects": "TooManyRedirects",
    "RedirectClientError": "TooManyRedirects",
    "ContentTypeError": "HTTPStatusError",
    "WSServerHandshakeError": "HTTPStatusError",
    "ClientResponseError": "HTTPStatusError",
    "WSMessageTypeError": "ProtocolError",
    "WebSocketError": "ProtocolError",
    "UploadAbortedError": "WriteError",
    "ClientError": "RequestError",
}

_METADATA_HOSTS: Final = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
    }
)
_METADATA_ADDRESSES: Final = frozenset({"100.100.100.200", "fd00:ec2::254"})


def map_exception(exc: BaseException) -> tuple[str, bool]:
    """The message and retry flag for an httpx exception (walks the MRO)."""
    for cls in type(exc).__mro__:
        if cls.__module__.startswith("httpx") and cls.__name__ in EXCEPTION_MESSAGES:
            return EXCEPTION_MESSAGES[cls.__name__]
    return ("request failed", False)


def map_aiohttp_exception(exc: BaseException) -> tuple[str, bool]:
    """The message and retry flag for an aiohttp exception, from the same table."""
    for cls in type(exc).__mro__:
        if cls.__module__.startswith("aiohttp") and cls.__name__ in AIOHTTP_EQUIVALENTS:
            return EXCEPTION_MESSAGES[AIOHTTP_EQUIVALENTS[cls.__name__]]
    return ("request failed", False)


def is_private_address(address: str) -> bool:
    """True for an IP address a remote file must not send us to.

    Loopback, private, link-local, unique-local, shared (CGNAT), unspecified, multicast,
    reserved and cloud metadata addresses; IPv4-mapped IPv6 addresses are unwrapped.

    >>> is_private_address("169.254.169.254"), is_private_address("93.184.216.34")
    (True, False)
    """
    import ipaddress  # here, not at import time: ``import sitemapkit`` stays quick

    try:
        ip = ipaddress.ip_address(address.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return bool(
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_unspecified
        or ip.is_multicast
        or ip.is_reserved
        or str(ip) in _METADATA_ADDRESSES
        or (isinstance(ip, ipaddress.IPv4Address) and ip in ipaddress.ip_network("100.64.0.0/10"))
    )


@functools.lru_cache(maxsize=1024)
def is_private_host(host: str) -> bool:
    """True when ``host`` is, or resolves to, an address :func:`is_private_address` refuses.

    A name that does not resolve is not private: the fetch then fails on its own.
    """
    name = host.strip("[]").rstrip(".").lower()
    if not name:
        return False
    if name == "localhost" or name.endswith(".localhost") or name in _METADATA_HOSTS:
        return True
    if ":" in name or re.fullmatch(r"[0-9.]+", name):  # an IP literal
        return is_private_address(name)
    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    return any(is_private_address(str(info[4][0])) for info in infos)


@dataclass(frozen=True, slots=True)
class FetchSettings:
    """How a run talks HTTP. Every limit has a safe default.

    ``deadline`` bounds one file from the first connection to the last byte, retries
    included. ``retries`` is per request, ``retry_budget`` for the whole run. Backoff starts
    at ``backoff`` seconds and doubles, with jitter, up to ``max_backoff``, which also caps
    ``Retry-After``.
    """

    user_agent: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    deadline: float = 120.0
    retries: int = 3
    retry_budget: int = 100
    backoff: float = 0.5
    max_backoff: float = 30.0
    max_redirects: int = 10
    max_bytes: int = DEFAULT_MAX_BYTES
    per_host: int = 4
    concurrency: int = 4
    allow_private: bool = False

    def __post_init__(self) -> None:
        # inf reaches the socket layer as an OverflowError, NaN as a ValueError of httpx
        for name in ("connect_timeout", "read_timeout", "deadline"):
            value = getattr(self, name)
            if not 0 < value < math.inf:
                raise InvalidValueError(f"{name} must be a positive number of seconds, not {value}")
        for name in ("backoff", "max_backoff"):
            value = getattr(self, name)
            if not 0 <= value < math.inf:
                raise InvalidValueError(f"{name} must be a number of seconds >= 0, not {value}")


@dataclass(frozen=True, slots=True)
class Fetched:
    """A response body with its Content-Encoding undone (gzip files stay gzipped)."""

    url: str
    final_url: str
    status: int
    content_type: str
    body: bytes


def backoff_delay(settings: FetchSettings, attempt: int) -> float:
    """Seconds to wait before retry ``attempt`` (0 for the first): exponential, capped at
    ``max_backoff``, with half of it random so that clients do not retry in step."""
    delay = min(settings.max_backoff, settings.backoff * 2.0**attempt)
    return delay / 2 + random.uniform(0, delay / 2)  # noqa: S311 - jitter only


def _import_httpx() -> ModuleType:
    """Import httpx without its command-line client.

    ``httpx/__init__`` imports ``httpx._main`` (click, rich.syntax and pygments: a fifth of
    a second) whenever click and rich are installed, as they are here. It falls back to a
    stub when that import fails, so the module is masked while httpx loads, then unmasked.
    The lock matters: index children make Fetchers in pool threads, and a second thread
    must not take the half-initialised module from ``sys.modules`` (AttributeError).
    """
    with _HTTPX_IMPORT:
        if "httpx" in sys.modules:
            return sys.modules["httpx"]
        masked = "httpx._main" not in sys.modules
        if masked:
            sys.modules["httpx._main"] = None  # type: ignore[assignment]
        try:
            import httpx
        finally:
            if masked and sys.modules.get("httpx._main", 0) is None:
                del sys.modules["httpx._main"]
        return httpx


_HTTPX_IMPORT: Final = threading.Lock()


def _default_user_agent() -> str:
    from . import __version__

    return f"sitemapkit/{__version__} (+https://pypi.org/project/sitemapkit/)"


def _body_start(data: bytes) -> str:
    text = data[: _BODY_START * 4].decode("utf-8", "replace")
    text = " ".join(text.split())
    return text[:_BODY_START]


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


class _Retry(Exception):
    """Internal: this attempt failed in a way worth another try."""

    def __init__(self, error: FetchError, wait: float | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.wait = wait


def _inflate_deflate(chunks: Iterator[bytes], limit: int, source: str) -> Iterator[bytes]:
    # "deflate" is meant to be zlib-wrapped, but servers send raw deflate too.
    inflater: zlib._Decompress | None = None
    produced = 0
    for chunk in chunks:
        if inflater is None:
            wbits = zlib.MAX_WBITS if chunk[:1] == b"\x78" else -zlib.MAX_WBITS
            inflater = zlib.decompressobj(wbits)
        data = chunk
        while data:
            try:
                out = inflater.decompress(data, _CHUNK)
            except zlib.error as exc:
                raise ParseError(f"broken deflate data: {exc}", source=source) from exc
            produced += len(out)
            if produced > limit:
                raise FetchError(
                    f"decompressed size exceeds the limit of {limit:,} bytes", url=source
                )
            yield out
            data = inflater.unconsumed_tail
            if inflater.eof:
                return


class Fetcher:
    """One run's HTTP client. Thread-safe: index children are fetched from a thread pool.

    :param settings: timeouts, retries, limits, User-Agent and extra headers.
    :param transport: an ``httpx.BaseTransport`` to use instead of the network (tests).
    """

    def __init__(
        self, settings: FetchSettings | None = None, *, transport: httpx.BaseTransport | None = None
    ) -> None:
        httpx = _import_httpx()

        self.settings = settings or FetchSettings()
        self.allow_private = self.settings.allow_private
        s = self.settings
        headers = {
            "User-Agent": s.user_agent or _default_user_agent(),
            "Accept-Encoding": "gzip, deflate",
        }
        headers.update(s.headers)
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(s.read_timeout, connect=s.connect_timeout),
            follow_redirects=False,
            limits=httpx.Limits(
                max_connections=max(s.concurrency, s.per_host) * 2,
                max_keepalive_connections=max(s.concurrency, s.per_host),
            ),
            transport=transport,
            trust_env=transport is None,
        )
        self._httpx = httpx
        self._lock = threading.Lock()
        self._hosts: dict[str, threading.BoundedSemaphore] = {}
        self._budget = s.retry_budget
        self.requests = 0

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def _host_slot(self, host: str) -> threading.BoundedSemaphore:
        with self._lock:
            slot = self._hosts.get(host)
            if slot is None:
                slot = self._hosts[host] = threading.BoundedSemaphore(self.settings.per_host)
            return slot

    def _take_retry(self) -> bool:
        with self._lock:
            if self._budget <= 0:
                return False
            self._budget -= 1
            return True

    def trust_start(self, url: str) -> None:
        """The user starts at ``url``: when it is on a private address, so may the rest be."""
        if is_private_host(host_of(url)):
            self.allow_private = True

    def check_allowed(self, url: str) -> None:
        """Refuse a URL on a private address unless private addresses are allowed."""
        if self.allow_private:
            return
        host = host_of(url)
        if is_private_host(host):
            raise FetchError(
                f"refused: {host} is a loopback, private, link-local or metadata address "
                "(found in remote content; use --allow-private to fetch it)",
                url=url,
            )

    def fetch(self, url: str, *, user_given: bool = False, head: int | None = None) -> Fetched:
        """GET ``url``, following redirects, retrying what is worth retrying.

        ``user_given`` marks a URL the user typed: it is fetched even on a private address.
        Redirect targets are always checked. ``head`` reads only the first bytes of the body
        (enough to tell a format), decompressed as far as they go.
        """
        try:
            urlsplit(url)
        except ValueError:  # an unbalanced bracket in the host
            raise FetchError("not a valid URL (a bracket in its host?)", url=url) from None
        if not url.isascii():
            try:
                url.encode("utf-8")
            except UnicodeEncodeError:  # undecodable command-line bytes: httpx would raise
                raise FetchError("not a valid URL (bytes that are not UTF-8)", url=url) from None
        if not user_given:
            self.check_allowed(url)
        # A user who starts on a private address may be redirected within that network.
        private_ok = user_given and is_private_host(host_of(url))
        deadline = time.monotonic() + self.settings.deadline
        current = url
        seen = {url}
        for _hop in range(self.settings.max_redirects + 1):
            result = self._get_with_retries(current, deadline, head)
            if isinstance(result, Fetched):
                return Fetched(url, current, result.status, result.content_type, result.body)
            target = join_url(current, result)
            if target is None:
                raise FetchError(f"redirect to an invalid URL: {result[:200]!r}", url=url)
            if target in seen:
                raise FetchError(f"redirect loop: {current} -> {target}", url=url)
            seen.add(target)
            if not private_ok:
                self.check_allowed(target)
            current = target
        raise FetchError(f"more than {self.settings.max_redirects} redirects", url=url)

    def _get_with_retries(self, url: str, deadline: float, head: int | None) -> Fetched | str:
        s = self.settings
        attempt = 0
        while True:
            try:
                return self._get_once(url, deadline, head)
            except _Retry as retry:
                remaining = deadline - time.monotonic()
                if attempt >= s.retries or not self._take_retry():
                    raise retry.error from None
                delay = backoff_delay(s, attempt)
                if retry.wait is not None:
                    if retry.wait > min(s.max_backoff, remaining):
                        raise FetchError(
                            f"{retry.error.message}; Retry-After {retry.wait:.0f} s is longer "
                            "than the wait allowed (max_backoff or the deadline)",
                            url=url,
                            status=retry.error.status,
                        ) from None
                    delay = max(delay, retry.wait)
                if delay >= remaining:
                    raise retry.error from None
                time.sleep(delay)
                attempt += 1

    def _get_once(self, url: str, deadline: float, head: int | None) -> Fetched | str:
        """One request: a Fetched, a redirect target, or an exception."""
        httpx = self._httpx
        host = urlsplit(url).netloc
        if time.monotonic() >= deadline:
            raise FetchError(f"deadline of {self.settings.deadline:g} s passed", url=url)
        with self._host_slot(host):
            self.requests += 1
            try:
                with self._client.stream("GET", url) as response:
                    return self._handle(response, url, deadline, head)
            except httpx.HTTPError as exc:
                message, retried = map_exception(exc)
                error = FetchError(f"{message} ({exc})" if str(exc) else message, url=url)
                if retried:
                    raise _Retry(error) from exc
                raise error from exc
            except httpx.InvalidURL as exc:
                raise FetchError(f"invalid URL ({exc})", url=url) from exc
            except UnicodeError as exc:  # httpx's IDNA step: xn-- garbage, a label over 63
                raise FetchError(f"invalid host name ({exc})", url=url) from exc

    def _handle(
        self, response: httpx.Response, url: str, deadline: float, head: int | None
    ) -> Fetched | str:
        status = response.status_code
        if status in {301, 302, 303, 307, 308}:
            location: str | None = response.headers.get("location")
            if not location:
                raise FetchError(f"HTTP {status} without a Location header", url=url, status=status)
            return location
        if status == 429 or 500 <= status <= 599:
            wait = _retry_after(response.headers.get("retry-after"))
            raise _Retry(FetchError(f"HTTP {status}", url=url, status=status), wait)
        if status in {401, 403}:
            start = _body_start(self._read_start(response))
            detail = f": {start}" if start else ""
            raise FetchError(f"blocked (HTTP {status}){detail}", url=url, status=status)
        if status in {404, 410}:
            raise FetchError(f"not found (HTTP {status})", url=url, status=status)
        if not 200 <= status <= 299:
            raise FetchError(f"HTTP {status}", url=url, status=status)
        body = self._read_body(response, url, deadline, head)
        content_type = response.headers.get("content-type", "")
        return Fetched(url, url, status, content_type, body)

    def _read_start(self, response: httpx.Response) -> bytes:
        for chunk in response.iter_raw(_BODY_START * 4):
            if chunk[:2] == b"\x1f\x8b":  # a gzip-encoded error page: show its text
                try:
                    return zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(chunk, 800)
                except zlib.error:
                    return b""
            return chunk
        return b""

    def _read_body(
        self, response: httpx.Response, url: str, deadline: float, head: int | None
    ) -> bytes:
        limit = self.settings.max_bytes

        def raw() -> Iterator[bytes]:
            received = 0
            for chunk in response.iter_raw(_CHUNK):
                received += len(chunk)
                if head is not None and received >= head:
                    yield chunk[: len(chunk) - (received - head)]
                    return
                if received > limit:
                    raise FetchError(f"response exceeds the limit of {limit:,} bytes", url=url)
                if time.monotonic() > deadline:
                    raise FetchError(
                        f"deadline of {self.settings.deadline:g} s passed while reading", url=url
                    )
                yield chunk

        encodings = [
            part.strip().lower()
            for part in response.headers.get("content-encoding", "").split(",")
            if part.strip() and part.strip().lower() != "identity"
        ]
        chunks: Iterator[bytes] = raw()
        pieces: list[bytes] = []
        if len(encodings) > 1:
            raise FetchError(f"unsupported Content-Encoding {', '.join(encodings)}", url=url)
        try:
            if encodings == ["gzip"] or encodings == ["x-gzip"]:
                chunks = iter_gunzip(chunks, limit=limit, source=url)
            elif encodings == ["deflate"]:
                chunks = _inflate_deflate(chunks, limit, url)
            elif encodings:
                raise FetchError(f"unsupported Content-Encoding {encodings[0]}", url=url)
            for piece in chunks:
                pieces.append(piece)
            return b"".join(pieces)
        except UnsafeContentError:
            raise
        except ParseError as exc:
            if head is not None and pieces:
                return b"".join(pieces)  # a cut-off stream is expected when reading a head
            raise FetchError(f"Content-Encoding: {exc.message}", url=url) from exc
