"""URL normalisation: what makes a string a ``<loc>`` a search engine accepts.

:func:`normalize_url` turns an IRI or URI, absolute or relative, into the one form written to
sitemaps: RFC 3987 §3.1 mapping (UTF-8 percent-encoding of non-ASCII and of characters a URI
cannot hold), IDNA host, lower-case scheme and host, no default port, no fragment, dot
segments resolved, and session identifiers removed (the protocol asks for that). An existing
``%XX`` is kept as it is and a stray ``%`` becomes ``%25``, so the function is idempotent.

:class:`URLNormalizer` adds a base URL, a scope and a batch fast path: most URLs in real lists
are already normal, and checking a thousand of them with a few C-level string scans is far
cheaper than taking each apart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final
from urllib.parse import urljoin, urlsplit

import idna

from .errors import InvalidURLError

__all__ = [
    "MAX_URL_LENGTH",
    "URLNormalizer",
    "host_of",
    "iri_to_uri",
    "join_url",
    "normalize_url",
    "origin_of",
    "remove_session_ids",
    "scope_of",
]

#: The protocol says a loc must be *less than* 2,048 characters (PROTOCOL.md L-02).
MAX_URL_LENGTH: Final = 2047

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")

# RFC 3986: unreserved, sub-delims, ':' and '@' may stand in a path segment; '/' separates
# segments; the query may also hold '/' and '?'. '%' is kept only as the start of '%XX'.
_PATH_SAFE: Final = "A-Za-z0-9\\-._~!$&'()*+,;=:@/"
_NEEDS_QUOTE_PATH = re.compile(f"[^{_PATH_SAFE}%]|%(?![0-9A-Fa-f]{{2}})")
_NEEDS_QUOTE_QUERY = re.compile(f"[^{_PATH_SAFE}?%]|%(?![0-9A-Fa-f]{{2}})")
_NEEDS_QUOTE_USER = re.compile("[^A-Za-z0-9\\-._~!$&'()*+,;=:%]|%(?![0-9A-Fa-f]{2})")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_CHARS = re.compile(r"[a-z0-9\-._~!$&'()*+,;=]+")

# Bytes a normal URL may contain, for the C-level clean check (bytes.translate deletes them
# all; anything left over means the URL needs the slow path).
_CLEAN_BYTES: Final = (
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%"
)

#: Query parameters that carry a session, compared case-insensitively (sitemaps.org asks for
#: URLs without session ids; these are the names PHP, Java, ASP, ColdFusion and frameworks use).
SESSION_PARAMS: Final = frozenset(
    {"phpsessid", "jsessionid", "sid", "sessionid", "session_id", "cfid", "cftoken"}
)
_SESSION_PREFIXES: Final = ("aspsessionid",)
_SESSION_HINTS: Final = ("sid", "session", "cf")
_PATH_SESSION = re.compile(r";jsessionid=[^/?#;]*", re.IGNORECASE)


def _percent_encode(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8"))


def _quote(text: str, pattern: re.Pattern[str]) -> str:
    try:
        return pattern.sub(_percent_encode, text)
    except UnicodeEncodeError as exc:
        raise InvalidURLError(
            f"URL holds a character that cannot be encoded in UTF-8: {text!r}", reason="invalid"
        ) from exc


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4."""
    if "." not in path:
        return path
    output: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if len(output) > 1:
                output.pop()
        elif segment != ".":
            output.append(segment)
    if path.endswith(("/.", "/..")):
        output.append("")
    result = "/".join(output)
    return result if result.startswith("/") else "/" + result


def remove_session_ids(query: str) -> str:
    """Drop session parameters from a query string (without its ``?``), keeping the rest."""
    kept = []
    for pair in query.split("&"):
        name = pair.split("=", 1)[0].lower()
        if name in SESSION_PARAMS or name.startswith(_SESSION_PREFIXES):
            continue
        kept.append(pair)
    return "&".join(kept)


def _encode_host(host: str) -> str:
    if host.startswith("["):
        if not host.endswith("]") or not re.fullmatch(r"\[[0-9A-Fa-f:.]+\]", host):
            raise InvalidURLError(f"bad IPv6 address {host!r}", reason="host")
        return host.lower()
    if host.isascii():
        lowered = host.lower()
        labels = lowered.removesuffix(".").split(".")
        if (
            not _HOST_CHARS.fullmatch(lowered)
            or len(lowered) > 253
            or any(not 0 < len(label) <= 63 for label in labels)
        ):
            raise InvalidURLError(f"bad host name {host!r}", reason="host")
        if "xn--" not in lowered:
            return lowered
    try:
        return idna.encode(host, uts46=True, transitional=False).decode("ascii")
    except idna.IDNAError as exc:
        raise InvalidURLError(
            f"host name cannot be IDNA-encoded: {host!r} ({exc})", reason="host"
        ) from exc


def _split(url: str) -> tuple[str, str, str, str, str]:
    """Split into scheme, authority, path, query, fragment without decoding anything."""
    scheme, _, rest = url.partition(":")
    fragment = ""
    if "#" in rest:
        rest, _, fragment = rest.partition("#")
    query = ""
    if "?" in rest:
        rest, _, query = rest.partition("?")
    authority = ""
    if rest.startswith("//"):
        end = rest.find("/", 2)
        authority, rest = (rest[2:], "") if end < 0 else (rest[2:end], rest[end:])
    return scheme, authority, rest, query, fragment


def _normalize_authority(authority: str, scheme: str) -> str:
    userinfo, at, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        close = hostport.find("]")
        host, port_text = hostport[: close + 1], hostport[close + 1 :]
        if port_text and not port_text.startswith(":"):
            raise InvalidURLError(f"bad host {hostport!r}", reason="host")
        port_text = port_text[1:]
    else:
        host, _, port_text = hostport.partition(":")
    if not host:
        raise InvalidURLError("URL has no host", reason="host")
    host = _encode_host(host)
    port = ""
    if port_text:
        if not port_text.isdigit() or int(port_text) > 65535:
            raise InvalidURLError(f"bad port {port_text!r}", reason="port")
        if int(port_text) != _DEFAULT_PORTS[scheme]:
            port = ":" + str(int(port_text))
    user = _quote(userinfo, _NEEDS_QUOTE_USER) + "@" if at else ""
    return user + host + port


def iri_to_uri(iri: str) -> str:
    """Map an IRI to a URI (RFC 3987 §3.1), changing nothing else.

    >>> iri_to_uri("https://www.ümlat.com/ümlat.php?q=a b#frag")
    'https://www.xn--mlat-zra.com/%C3%BCmlat.php?q=a%20b#frag'
    """
    scheme, authority, path, query, fragment = _split(iri)
    result = scheme + ":"
    if authority or iri[len(scheme) + 1 :].startswith("//"):
        userinfo, at, hostport = authority.rpartition("@")
        host, colon, port = (
            hostport.rpartition(":") if not hostport.endswith("]") else (hostport, "", "")
        )
        if not colon or not port.isdigit():
            host, colon, port = hostport, "", ""
        if host and not host.isascii():
            host = _encode_host(host)
        user = _quote(userinfo, _NEEDS_QUOTE_USER) + "@" if at else ""
        result += "//" + user + host + colon + port
    result += _quote(path, _NEEDS_QUOTE_PATH)
    if "?" in iri:
        result += "?" + _quote(query, _NEEDS_QUOTE_QUERY)
    if "#" in iri:
        result += "#" + _quote(fragment, _NEEDS_QUOTE_QUERY)
    return result


def normalize_url(url: str, *, base: str | None = None, keep_session_ids: bool = False) -> str:
    """Return the sitemap form of ``url``, resolving it against ``base`` when relative.

    Raises :class:`~sitemapkit.InvalidURLError` whose ``reason`` is one of ``empty``,
    ``relative``, ``scheme``, ``host``, ``port``, ``invalid`` or ``too-long``.

    >>> normalize_url("HTTPS://Example.COM:443/a/./b/../c d?PHPSESSID=x&id=7#top")
    'https://example.com/a/c%20d?id=7'
    >>> normalize_url("ümlat.php?q=name", base="http://www.example.com/")
    'http://www.example.com/%C3%BCmlat.php?q=name'
    """
    text = url.strip()
    if "\t" in text or "\n" in text or "\r" in text:
        text = text.replace("\t", "").replace("\n", "").replace("\r", "")
    if not text:
        raise InvalidURLError("empty URL", reason="empty")
    if not _SCHEME.match(text):
        if base is None:
            raise InvalidURLError(f"relative URL without a base URL: {url!r}", reason="relative")
        joined = join_url(base, text)
        if joined is None:
            raise InvalidURLError(f"not a URL: {url!r}", reason="invalid")
        text = joined
    scheme, authority, path, query, _fragment = _split(text)
    scheme = scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise InvalidURLError(f"not an http(s) URL: {url!r}", reason="scheme")
    if not text[len(scheme) + 1 :].startswith("//"):
        raise InvalidURLError(f"URL has no host: {url!r}", reason="host")
    authority = _normalize_authority(authority, scheme)
    if not keep_session_ids and ";" in path:
        path = _PATH_SESSION.sub("", path)
    path = _remove_dot_segments(_quote(path, _NEEDS_QUOTE_PATH)) or "/"
    if not keep_session_ids and query:
        query = remove_session_ids(query)
    result = f"{scheme}://{authority}{path}"
    if query:
        result += "?" + _quote(query, _NEEDS_QUOTE_QUERY)
    if len(result) > MAX_URL_LENGTH:
        raise InvalidURLError(
            f"URL is {len(result)} characters long once encoded (the limit is {MAX_URL_LENGTH})",
            reason="too-long",
        )
    return result


def join_url(base: str, reference: str) -> str | None:
    """``urljoin``, but None where the standard library raises: when either URL has an
    unbalanced ``[`` or ``]`` in its host (``http://[bad/``), which hostile pages, feeds and
    robots.txt files can hold.

    >>> join_url("https://example.com/a/", "b?c=1")
    'https://example.com/a/b?c=1'
    >>> join_url("https://example.com/", "//[bad/x") is None
    True
    """
    try:
        joined = urljoin(base, reference)
        urlsplit(joined)
    except ValueError:
        return None
    return joined


def host_of(url: str) -> str:
    """The lower-cased host name of ``url``; empty when it has none or it cannot be parsed."""
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def origin_of(url: str) -> str:
    """``scheme://host[:port]/`` of ``url``, normalised.

    >>> origin_of("HTTPS://Example.com:443/catalog/sitemap.xml")
    'https://example.com/'
    """
    normal = normalize_url(url, keep_session_ids=True)
    return normal[: normal.index("/", normal.index("://") + 3) + 1]


def scope_of(url: str) -> str:
    """The prefix every URL listed by a sitemap published at ``url`` must start with (L-08).

    >>> scope_of("https://Example.com/catalog/sitemap.xml")
    'https://example.com/catalog/'
    """
    normal = normalize_url(url, keep_session_ids=True)
    scheme_end = normal.index("://") + 3
    path_start = normal.find("/", scheme_end)
    query_start = normal.find("?", path_start)
    path_end = query_start if query_start >= 0 else len(normal)
    return normal[: normal.rindex("/", path_start, path_end) + 1]


class URLNormalizer:
    """Normalise URLs against a base URL and keep those inside a scope.

    ``base_url`` resolves relative URLs; ``scope`` (default: the folder of ``base_url``) is
    the prefix every accepted URL must start with; ``scope=""`` accepts every host.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        scope: str | None = None,
        keep_session_ids: bool = False,
    ) -> None:
        self.base_url = normalize_url(base_url, keep_session_ids=True) if base_url else None
        if scope is None:
            scope = scope_of(self.base_url) if self.base_url else ""
        self.scope = scope
        self.keep_session_ids = keep_session_ids

    def normalize(self, url: str) -> str:
        """Normalise one URL; raises :class:`InvalidURLError` (reason ``out-of-scope`` too)."""
        result = normalize_url(url, base=self.base_url, keep_session_ids=self.keep_session_ids)
        if not result.startswith(self.scope):
            raise InvalidURLError(f"outside {self.scope}: {result}", reason="out-of-scope")
        return result

    # The fast path: with a non-empty scope, a URL that starts with it and holds only
    # characters a normal URL may hold is already in normal form.
    def is_normal(self, url: str) -> bool:
        """True when ``url`` is already in normal form and in scope (cheap string checks)."""
        if (
            not self.scope
            or not url.isascii()
            or len(url) > MAX_URL_LENGTH
            or not url.startswith(self.scope)
        ):
            return False
        if url.encode("ascii").translate(None, _CLEAN_BYTES) or url.endswith("?"):
            return False
        if "/." in url or ("%" in url and _BAD_PERCENT.search(url)):
            return False
        if self.keep_session_ids:
            return True
        lowered = url.lower()
        return not any(hint in lowered for hint in _SESSION_HINTS)

    def batch_is_normal(self, urls: Sequence[str]) -> bool:
        """True when every URL is already in normal form and in scope.

        A handful of C-level scans over the batch joined by spaces (a space cannot appear in
        a normal URL, so the joined text tells where every URL starts and ends).
        """
        if not self.scope or not urls:
            return False
        joined = " ".join(urls)
        if not joined.isascii():
            return False
        count = len(urls)
        leftover = joined.encode("ascii").translate(None, _CLEAN_BYTES)
        if len(leftover) != count - 1 or leftover.strip(b" "):
            return False  # a character a normal URL cannot hold
        if (" " + joined).count(" " + self.scope) != count:
            return False  # outside the scope, or not lower-case scheme and host
        if max(map(len, urls)) > MAX_URL_LENGTH or "/." in joined:
            return False  # too long, or a dot segment to resolve
        if "? " in joined or joined.endswith("?"):
            return False  # an empty query, which normalisation drops
        if "%" in joined and _BAD_PERCENT.search(joined):
            return False
        if self.keep_session_ids:
            return True
        lowered = joined.lower()
        return not any(hint in lowered for hint in _SESSION_HINTS)

    def normalize_many(self, urls: Sequence[str]) -> list[str | InvalidURLError]:
        """Normalise a batch; a URL that is left out comes back as its error instead."""
        if self.batch_is_normal(urls):
            return list(urls)
        results: list[str | InvalidURLError] = []
        for url in urls:
            if self.is_normal(url):
                results.append(url)
                continue
            try:
                results.append(self.normalize(url))
            except InvalidURLError as error:
                results.append(error)
        return results
