"""Where a sharded sitemap set goes: a local folder, or any file system fsspec can reach.

A local folder (a plain path or ``file://``) is published with :class:`~sitemapkit.publish.Staging`:
a staging folder beside it, atomic renames, the entry point last. Object stores (``s3://``,
``gs://``, ``az://``, ``memory://``, ...) cannot rename atomically, so there every child is
written under its final, content-addressed name first and the entry point last: a reader sees
the old index (whose children are all still there) or the new one (whose children all are).

fsspec is imported only here and only when a URL asks for it, so ``import sitemapkit`` stays
light and a local run needs no extra package.

Content types: ``.xml`` files are ``application/xml``, ``.txt`` files ``text/plain;
charset=utf-8``, and gzipped children ``application/gzip`` *without* ``Content-Encoding``. The
object is then served exactly as written, like a web server serves a static ``.gz`` file:
its bytes match the hash in its name, and every sitemap client inflates a ``.gz`` sitemap
itself. With ``Content-Encoding: gzip`` browsers and HTTP libraries inflate it transparently,
so a client would get XML under a ``.gz`` name and some would try to inflate it twice.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .errors import PublishError, SitemapError

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

__all__ = [
    "RemoteFolder",
    "ShardTarget",
    "content_type",
    "is_local",
    "local_path",
    "upload_options",
]

_CONTENT_TYPES: Final = {
    ".gz": "application/gzip",
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
}


def is_local(out: str | os.PathLike[str]) -> bool:
    """True for a plain path or a ``file://`` URL: a folder published with atomic renames."""
    text = os.fspath(out)
    return "://" not in text or text.startswith("file://")


def local_path(out: str | os.PathLike[str]) -> Path:
    return Path(os.fspath(out).removeprefix("file://"))


def content_type(name: str) -> str:
    """The ``Content-Type`` an object store should serve ``name`` with."""
    return _CONTENT_TYPES.get(Path(name).suffix, "application/octet-stream")


def upload_options(protocol: str, name: str) -> dict[str, Any]:
    """Keyword arguments that set the content type in the fsspec backend for ``protocol``.

    Each backend spells it its own way; file systems without object metadata get nothing.
    """
    kind = content_type(name)
    if protocol in ("s3", "s3a"):
        return {"ContentType": kind}
    if protocol in ("gs", "gcs"):
        return {"content_type": kind}
    if protocol in ("az", "abfs", "abfss"):
        from azure.storage.blob import ContentSettings  # adlfs depends on it

        return {"content_settings": ContentSettings(content_type=kind)}
    return {}


@dataclass(frozen=True, slots=True)
class ShardTarget:
    """Where shard writers put their children: picklable, so it travels to workers.

    ``local``: a staging folder on a file system every writer shares. Otherwise ``location``
    is the output URL itself and children go straight to their final names.
    """

    location: str
    local: bool
    storage_options: Mapping[str, Any] = field(default_factory=dict)


class RemoteFolder:
    """An output prefix on an fsspec file system, addressed by file name."""

    def __init__(self, url: str, storage_options: Mapping[str, Any] | None = None) -> None:
        try:
            import fsspec
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise SitemapError(
                f"writing to {url} needs fsspec: pip install 'sitemapkit[dask]'"
            ) from exc
        try:
            fs, root = fsspec.core.url_to_fs(url, **dict(storage_options or {}))
        except (ImportError, ValueError) as exc:
            raise SitemapError(f"cannot open {url}: {exc}", source=url) from exc
        self.url = url
        self.fs: AbstractFileSystem = fs
        self.root = str(root).rstrip("/")
        protocol = fs.protocol
        self.protocol = str(protocol if isinstance(protocol, str) else protocol[0])

    def path(self, name: str) -> str:
        return f"{self.root}/{name}"

    def url_of(self, name: str) -> str:
        return f"{self.url.rstrip('/')}/{name}"

    def put(self, name: str, data: bytes) -> None:
        """Write one object in a single request: it appears whole or not at all."""
        try:
            self.fs.pipe_file(self.path(name), data, **upload_options(self.protocol, name))
        except OSError as exc:
            raise PublishError(f"cannot write: {exc}", source=self.url_of(name)) from exc

    def put_file(self, name: str, local: Path, size: int) -> None:
        """Upload a child unless an object of that name and size is there already.

        Child names carry a hash of their bytes, so such an object is the same child, and
        leaving it alone keeps its ``Last-Modified`` (what crawlers see as unchanged).
        """
        path = self.path(name)
        self.fs.invalidate_cache(path)  # listings cached by s3fs and others may be stale
        try:
            if self.fs.size(path) == size:
                return
        except (OSError, ValueError):
            pass
        self.put(name, local.read_bytes())

    def names(self) -> set[str]:
        """The file names directly under the prefix."""
        self.fs.invalidate_cache(self.root)  # other processes wrote here since any listing
        try:
            listing = self.fs.ls(self.root, detail=False)
        except FileNotFoundError:
            return set()
        return {str(path).rstrip("/").rsplit("/", 1)[-1] for path in listing}

    def read_json(self, name: str) -> Any:
        try:
            return json.loads(self.fs.cat_file(self.path(name)))
        except (OSError, ValueError):
            return None

    def remove(self, names: Iterable[str]) -> None:
        # A name gone already, or not ours to remove, is left for the next run.
        for name in sorted(names):
            with contextlib.suppress(OSError):
                self.fs.rm_file(self.path(name))
