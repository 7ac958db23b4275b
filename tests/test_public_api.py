"""The package root is the contract: a sorted __all__ naming exactly the public names."""

from __future__ import annotations

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
