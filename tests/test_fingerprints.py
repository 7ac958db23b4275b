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


def test_an_empty_set_contains_nothing() -> None:
    assert "a" not in FingerprintSet()
    assert "a" not in FingerprintSet(fast_until=10)


@given(st.lists(st.lists(st.text(max_size=6), max_size=40), max_size=20), st.integers(1, 50))
def test_fast_set_moves_to_the_tables_and_still_behaves_like_a_set(
    batches: list[list[str]], fast_until: int
) -> None:
    seen = FingerprintSet(fast_until=fast_until)
    reference: set[str] = set()
    for batch in batches:
        expected = []
        for position, word in enumerate(batch):
            if word not in reference or word == "":
                expected.append(position)
            if word:
                reference.add(word)
        assert seen.add_many(batch) == expected
    assert all(word in seen for word in reference)
    assert len(seen) == len(reference)


def test_fast_set_stops_at_its_limit() -> None:
    seen = FingerprintSet(fast_until=1000)
    seen.add_many([f"https://example.com/{i}" for i in range(1000)])
    small_bytes = seen.nbytes
    seen.add_many([f"https://example.com/{i}" for i in range(1000, 1500)])
    assert seen.nbytes == 256 * 4096 * 8  # the tables now: 8 bytes a slot
    assert small_bytes < seen.nbytes
    assert not seen.add("https://example.com/7")  # remembered across the move
