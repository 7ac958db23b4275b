"""Programs we did not write, used as judges: xmllint with the official XSDs, and USP."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

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


NS_084 = "http://www.google.com/schemas/sitemap/0.84"


def legacy_084_schema(index: bool) -> Path:
    """The 2006 0.9 schema with the namespace swapped to 0.84, as SOURCES.md checks 0.84.

    No complete copy of the 0.84 XSD survives; its opening is identical to the 2006 one.
    """
    source = SPEC / "sitemaps-0.9-2006" / ("siteindex.xsd" if index else "sitemap.xsd")
    target = Path(tempfile.gettempdir()) / f"sitemapkit-084-{source.name}"
    target.write_text(
        source.read_text().replace("http://www.sitemaps.org/schemas/sitemap/0.9", NS_084)
    )
    return target


def assert_schema_valid(path: Path) -> None:
    """Validate a sitemap or index we wrote against the official schema that fits it."""
    from lxml import etree

    root = etree.parse(str(path)).getroot()  # libxml2 reads gzip files transparently
    if etree.QName(root).namespace == NS_084:
        schema = legacy_084_schema(etree.QName(root).localname == "sitemapindex")
    elif etree.QName(root).localname == "sitemapindex":
        schema = SITEINDEX_XSD
    elif len(root.nsmap) > 1 or any(len(url.nsmap) > 1 for url in root):
        schema = ALL_LOCAL_XSD
    else:
        schema = SITEMAP_XSD
    result = xmllint(path, schema)
    assert result.returncode == 0, f"{path} fails {schema.name}:\n{result.stderr[:2000]}"
    assert_validates_strictly(path)


#: Warnings about the data a writer was given rather than what it wrote: a folder fresh from a
#: git checkout gives every page the same mtime, so every lastmod is the same second (M-08).
INPUT_DATA_WARNINGS = frozenset({"SM-M08"})


def assert_validates_strictly(path: Path) -> None:
    """Our own validator must pass whatever our writer writes, warnings included (issue 4)."""
    from sitemapkit.validate import validate

    report = validate(path, strict=True)
    found = [issue for issue in report.issues if issue.rule not in INPUT_DATA_WARNINGS]
    assert not found, f"{path} fails sitemapkit validate --strict:\n" + "\n".join(
        str(issue) for issue in found[:20]
    )


def usp_urls(sitemap_url: str) -> list[str]:
    """The page URLs ultimate-sitemap-parser finds from ``sitemap_url`` (indexes followed)."""
    from usp.fetch_parse import SitemapFetcher

    tree = SitemapFetcher(url=sitemap_url, recursion_level=0).sitemap()
    return [page.url for page in tree.all_pages()]
