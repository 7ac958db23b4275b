"""The package's contract: its public names, and a light import."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

import sitemapkit


def test_all_is_sorted_and_complete() -> None:
    assert sitemapkit.__all__ == sorted(sitemapkit.__all__)
    for name in sitemapkit.__all__:  # imported on first use
        getattr(sitemapkit, name)
    public = {
        name
        for name, value in vars(sitemapkit).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public | {"__version__"} == set(sitemapkit.__all__)
    assert set(sitemapkit.__all__) <= set(dir(sitemapkit))


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        sitemapkit.nope  # noqa: B018


def _run(script: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_import_is_light() -> None:
    script = (
        "import sys, sitemapkit, sitemapkit.submit, sitemapkit.config; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'click', 'rich', 'httpx', 'aiohttp', 'requests', 'dask', 'distributed', 'fsspec', "
        "'pandas', 'pyarrow'}))"
    )
    assert _run(script) == "[]"


def test_import_loads_no_module_of_the_api_until_a_name_is_used() -> None:
    script = (
        "import sys, sitemapkit; "
        "print(sorted(m for m in sys.modules if m.startswith('sitemapkit.') or m == 'lxml')); "
        "sitemapkit.Reader; "
        "print(sorted(m for m in sys.modules if m in "
        "{'sitemapkit.audit', 'sitemapkit.validate', 'sitemapkit.config', 'sitemapkit.settings', "
        "'sitemapkit.shard', 'sitemapkit.crawl'}))"
    )
    assert _run(script).splitlines() == ["[]", "[]"]


@pytest.mark.parametrize("name", ["audit", "crawl", "discover", "validate"])
@pytest.mark.parametrize(
    "first",
    [
        "import sitemapkit.{name}",  # the submodule first: its import sets the attribute
        "from sitemapkit.{name} import {name}",
        "sitemapkit.{name}",  # the function first, then its submodule
        "",
    ],
)
def test_functions_named_like_their_submodule_stay_functions(name: str, first: str) -> None:
    script = (
        f"import sys, types, sitemapkit; {first.format(name=name) or 'pass'}; "
        f"import sitemapkit.{name}; "
        f"function = sitemapkit.{name}; "
        f"module = sys.modules['sitemapkit.{name}']; "
        f"print(isinstance(function, types.FunctionType), function is module.{name}, "
        f"function.__name__)"
    )
    assert _run(script) == f"True True {name}"


def test_the_command_line_imports_what_ls_needs_and_no_more() -> None:
    script = (
        "import sys, sitemapkit.cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'sitemapkit', 'httpx', 'dask', 'sqlite3', 'asyncio'}))"
    )
    loaded = _run(script)
    assert loaded == str(
        [
            "sitemapkit",
            "sitemapkit._defaults",
            "sitemapkit.cli",
            "sitemapkit.compression",
            "sitemapkit.errors",
            "sitemapkit.fetch",
            "sitemapkit.model",
            "sitemapkit.reader",
            "sitemapkit.urls",
        ]
    )
