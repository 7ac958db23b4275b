"""The package's contract: its public names, and a light import."""

from __future__ import annotations

import subprocess
import sys
import types

import sitemapkit


def test_all_is_sorted_and_complete() -> None:
    assert sitemapkit.__all__ == sorted(sitemapkit.__all__)
    public = {
        name
        for name, value in vars(sitemapkit).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public | {"__version__"} == set(sitemapkit.__all__)


def test_import_is_light() -> None:
    script = (
        "import sys, sitemapkit, sitemapkit.submit, sitemapkit.config; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'click', 'rich', 'httpx', 'aiohttp', 'requests', 'dask', 'distributed', 'fsspec', "
        "'pandas', 'pyarrow'}))"
    )
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "[]"
