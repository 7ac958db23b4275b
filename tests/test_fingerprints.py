from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sitemapkit._fingerprints import FingerprintSet


def test_add_reports_first_sighting() -> None:
    seen = FingerprintSet()
    assert seen.add("a")
    assert not seen.add("a")
    assert seen.add("b")
    assert "a" in seen
    assert "c" not in seen
    assert len(seen) == 2
    assert seen.add("")  # hash 0 is the empty slot: the empty string is never remembered
    assert seen.add("")


def test_growth_keeps_everything() -> None:
    seen = FingerprintSet()
    words = [f"https://example.com/{i}" for i in range(200_000)]
    assert all(seen.add(word) for word in words)
    assert not any(seen.add(word) for word in words)
    assert len(seen) == 200_000
    # 8 bytes a slot, at most 3/4 full, at least 1/3 full after a doubling
    assert seen.nbytes <= 200_000 * 8 * 3 + 256 * 4096 * 8


@given(st.lists(st.text(min_size=1, max_size=8)))
def test_behaves_like_a_set(words: list[str]) -> None:
    seen = FingerprintSet()
    reference: set[str] = set()
    for word in words:
        assert seen.add(word) == (word not in reference)
        reference.add(word)
    assert len(seen) == len(reference)
