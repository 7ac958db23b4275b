"""The fetch seam of the validator: the only place it reaches the network.

:class:`Fetcher` is what :func:`~sitemapkit.validate` needs: open a URL, get its body as
chunks. :class:`SharedFetcher`, the default, puts the project's HTTP client
(:class:`sitemapkit.fetch.Fetcher`: httpx, retries, deadlines, the private-address guard)
behind it; :class:`UrllibFetcher` is a small stand-alone one on the standard library (http and
https only, timeouts, a byte cap, redirects to http(s) only) that streams. Neither imports an
HTTP client before a URL is opened, so ``import sitemapkit`` stays light.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from ..errors import FetchError

if TYPE_CHECKING:
    import urllib.request

    from ..fetch import Fetcher as HttpFetcher
    from ..fetch import FetchSettings

__all__ = ["Fetched", "Fetcher", "SharedFetcher", "UrllibFetcher", "parse_robots_sitemaps"]

USER_AGENT: Final = "sitemapkit-validate (+https://www.sitemaps.org/protocol.html)"
_CHUNK: Final = 1 << 20


@dataclass(slots=True)
class Fetched:
    """An open response: the final URL (after redirects) and its body as chunks."""

    url: str
    chunks: Iterator[bytes]


class Fetcher(Protocol):
    """Opens URLs for the validator. Raises :class:`~sitemapkit.FetchError` on failure.

    ``user_given`` marks the URL the user asked for (a guard against private addresses may
    let it through); ``trust`` says that the user vouches for the host of ``url`` (``--location``
    with fetching on)."""

    def open(self, url: str, *, max_bytes: int, user_given: bool = False) -> Fetched: ...

    def trust(self, url: str) -> None: ...

    def close(self) -> None: ...


class SharedFetcher:
    """:class:`sitemapkit.fetch.Fetcher` behind the validator's seam (bodies come whole,
    at most the project's 53 MiB cap, which is also the validator's)."""

    def __init__(self, settings: FetchSettings | None = None) -> None:
        self.settings = settings
        self._client: HttpFetcher | None = None

    def _http(self) -> HttpFetcher:
        if self._client is None:
            from ..fetch import Fetcher as HttpClient

            self._client = HttpClient(self.settings)
        return self._client

    def open(self, url: str, *, max_bytes: int, user_given: bool = False) -> Fetched:
        client = self._http()
        if user_given:
            client.trust_start(url)
        fetched = client.fetch(url, user_given=user_given)
        if len(fetched.body) > max_bytes:
            raise FetchError(f"{url} is larger than {max_bytes:,} bytes", url=url)
        return Fetched(fetched.final_url, iter([fetched.body]))

    def trust(self, url: str) -> None:
        self._http().trust_start(url)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _redirect_handler() -> urllib.request.HTTPRedirectHandler:
    import urllib.request

    class HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
        max_redirections = 5

        def redirect_request(
            self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
        ) -> urllib.request.Request | None:
            if not newurl.lower().startswith(("http://", "https://")):
                raise FetchError(f"redirect to a non-http(s) URL: {newurl}", url=newurl)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return HttpOnlyRedirects()


class UrllibFetcher:
    """Fetch http(s) URLs with the standard library, streaming, with a timeout and a cap."""

    def __init__(self, *, timeout: float = 30.0, user_agent: str = USER_AGENT) -> None:
        self.timeout = timeout
        self.user_agent = user_agent

    def trust(self, url: str) -> None:
        """Nothing to do: this fetcher has no private-address guard."""

    def close(self) -> None:
        """Nothing to do: every response is closed when read."""

    def open(self, url: str, *, max_bytes: int, user_given: bool = False) -> Fetched:
        import urllib.error
        import urllib.request

        if not url.lower().startswith(("http://", "https://")):
            raise FetchError(f"not an http(s) URL: {url}", url=url)
        opener = urllib.request.build_opener(_redirect_handler())
        request = urllib.request.Request(url, headers={"User-Agent": self.user_agent})
        try:
            response = opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            error.close()
            raise FetchError(f"HTTP {error.code} for {url}", url=url, status=error.code) from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise FetchError(f"cannot fetch {url}: {reason}", url=url) from None
        return Fetched(response.geturl(), _stream(response, url, max_bytes, self.timeout))


def _stream(response: Any, url: str, max_bytes: int, timeout: float) -> Iterator[bytes]:
    received = 0
    try:
        while True:
            try:
                block = response.read(_CHUNK)
            except OSError as error:
                raise FetchError(f"reading {url} failed: {error}", url=url) from None
            if not block:
                return
            received += len(block)
            if received > max_bytes:
                raise FetchError(f"{url} is larger than {max_bytes:,} bytes; stopped", url=url)
            yield block
    finally:
        response.close()


def parse_robots_sitemaps(text: str, robots_url: str) -> frozenset[str]:
    """The ``Sitemap:`` URLs of a robots.txt (field name in any case, anywhere in the file);
    a relative value is resolved against the robots.txt URL (PROTOCOL.md R-01, R-02, R-03).

    Stricter than :func:`sitemapkit.discover.parse_robots_sitemaps`, which also takes the
    misspellings crawlers tolerate: here only the field search engines read counts.
    """
    from ..urls import join_url

    found = set()
    for line in text.splitlines():
        field, colon, value = line.partition(":")
        if colon and field.strip().lower() == "sitemap":
            value = value.split("#", 1)[0].strip()
            if value and (url := join_url(robots_url, value)) is not None:
                found.add(url)
    return frozenset(found)
