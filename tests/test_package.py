"""The package's contract: its public names, and a light import."""

from __future__ import annotations

import subprocess
import sys

import sitemapkit


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in vars(sitemapkit) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(sitemapkit, name)).__name__ == "module"}
    assert sitemapkit.__all__ == sorted(sitemapkit.__all__)
    assert set(sitemapkit.__all__) - {"__version__"} == public - modules


def test_import_is_light() -> None:
    script = (
        "import sys, sitemapkit; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'click', 'rich', 'httpx', 'aiohttp', 'requests', 'dask', 'distributed', 'fsspec', "
        "'pandas', 'pyarrow'}))"
    )
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "[]"
