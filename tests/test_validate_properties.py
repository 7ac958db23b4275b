"""validate() never raises on bad content: arbitrary bytes, and valid sitemaps cut and mutated."""

from __future__ import annotations

import gzip
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit.validate import Report, validate

SAMPLES = [
    path.read_bytes() for path in sorted((Path(__file__).parent / "data" / "valid").glob("*.xml"))
]


def _check(report: Report) -> None:
    assert report.files == ["<bytes>"]
    for issue in report.issues:
        assert issue.line >= 1
        assert issue.column >= 1
        assert issue.message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2048))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    _check(validate(data))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SAMPLES), st.integers(0, 4000), st.integers(0, 4000), st.binary(max_size=16))
def test_mutated_sitemaps_never_raise(
    sample: bytes, start: int, length: int, insert: bytes
) -> None:
    start %= len(sample) + 1
    mutated = sample[:start] + insert + sample[start + length % 40 :]
    _check(validate(mutated))
    _check(validate(gzip.compress(mutated)[: max(2, len(mutated) // 2)]))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_in_values_never_raises(text: str) -> None:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;")
    document = (
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url>'
        f"<loc>{escaped}</loc><lastmod>{escaped}</lastmod><priority>{escaped}</priority>"
        f"<changefreq>{escaped}</changefreq></url></urlset>"
    ).encode("utf-8", "replace")
    _check(validate(document))
