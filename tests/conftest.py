"""Shared fixtures: local HTTP servers; the hypothesis profiles."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import settings

# `make test` draws the same examples every run, so a red build is about the change and
# not the draw; `make fuzz` (profile "fuzz") draws new ones each run, to find new bugs.
settings.register_profile("ci", derandomize=True)
settings.register_profile("fuzz", derandomize=False)
settings.load_profile(os.environ.get("SITEMAPKIT_HYPOTHESIS", "ci"))


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
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield functools.partial(start)
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def generated_sets_are_schema_valid(request: pytest.FixtureRequest) -> Iterator[None]:
    """After every test, each sitemap set our writer published under tmp_path passes xmllint.

    A published set is recognised by the manifest the writer leaves beside it, so fixtures a
    test writes by hand (valid or not) are never judged here.
    """
    if "tmp_path" not in request.fixturenames:
        yield
        return
    root: Path = request.getfixturevalue("tmp_path")
    yield
    import json

    from tests.oracles import assert_schema_valid, assert_validates_strictly

    for manifest in root.rglob(".*.sitemapkit.json"):
        for name in json.loads(manifest.read_text())["files"]:
            path = manifest.parent / name
            if path.suffix == ".xsl":
                continue  # the stylesheet published with --xsl (tests/test_stylesheet.py)
            if path.suffix != ".txt" and not path.name.endswith(".txt.gz"):
                assert_schema_valid(path)  # xmllint, then sitemapkit validate --strict
            else:
                assert_validates_strictly(path)  # no schema for text sitemaps
