"""Shared fixtures: the protocol oracles (xmllint with the official XSDs, USP) and servers."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _find_spec_dir() -> Path:
    """The shared protocol folder: $SITEMAPKIT_SPEC_DIR, ../shared/spec, or /work/shared/spec.

    The XSDs are test oracles whose licences keep them out of this repository.
    """
    candidates = [
        os.environ.get("SITEMAPKIT_SPEC_DIR", ""),
        REPO.parent / "shared" / "spec",
        "/work/shared/spec",
    ]
    for candidate in candidates:
        if candidate and (Path(candidate) / "sitemaps-0.9" / "sitemap.xsd").is_file():
            return Path(candidate)
    raise RuntimeError("cannot find the shared spec folder (set SITEMAPKIT_SPEC_DIR)")


SPEC = _find_spec_dir()
SITEMAP_XSD = SPEC / "sitemaps-0.9" / "sitemap.xsd"
SITEINDEX_XSD = SPEC / "sitemaps-0.9" / "siteindex.xsd"
ALL_LOCAL_XSD = SPEC / "samples" / "all-local.xsd"
CATALOG = SPEC / "samples" / "catalog.xml"


def xmllint(path: Path, schema: Path) -> subprocess.CompletedProcess[str]:
    """Run ``xmllint --nonet --noout --schema`` offline (gzip input is read directly)."""
    if shutil.which("xmllint") is None:
        raise RuntimeError("xmllint is missing: install libxml2-utils (.ci/run does)")
    env = {**os.environ, "XML_CATALOG_FILES": str(CATALOG)}
    return subprocess.run(
        ["xmllint", "--nonet", "--noout", "--schema", str(schema), str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def assert_schema_valid(path: Path) -> None:
    """Validate a sitemap or index we wrote against the official 0.9 schema."""
    import gzip

    with open(path, "rb") as handle:
        head = handle.read(2)
    if head == b"\x1f\x8b":
        with gzip.open(path) as inflated:
            text = inflated.read(4096)
    else:
        text = path.read_bytes()[:4096]
    if b"<sitemapindex" in text:
        schema = SITEINDEX_XSD
    elif b"xmlns:" in text.split(b">", 2)[1] if b"?>" in text else False:
        schema = ALL_LOCAL_XSD
    else:
        schema = SITEMAP_XSD
    result = xmllint(path, schema)
    assert result.returncode == 0, f"{path} fails {schema.name}:\n{result.stderr[:2000]}"


@pytest.fixture
def serve_dir() -> Iterator[functools.partial[str]]:
    """Serve folders over HTTP on 127.0.0.1; call with a folder, get its base URL."""
    servers: list[ThreadingHTTPServer] = []

    class QuietHandler(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    def start(folder: Path) -> str:
        handler = functools.partial(QuietHandler, directory=str(folder))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield functools.partial(start)
    for server in servers:
        server.shutdown()
        server.server_close()
