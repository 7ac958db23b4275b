"""A compact set of 64-bit string fingerprints, for de-duplicating millions of URLs.

A Python ``set`` of strings costs well over 100 bytes a URL, and a ``set`` of integers about
60; either breaks the writer's budget of 200 MB at ten million URLs. This structure keeps only
the 64-bit ``hash()`` of each string, in open-addressing tables of ``array('q')`` (8 bytes a
slot, linear probing). The slots are split into 256 equal tables chosen by the top byte of the
fingerprint, so growing copies one table at a time and never doubles peak memory. The tables
grow together when the whole set is 70 % full: ten million URLs take 134 MB.

Two different URLs share a fingerprint with probability about n²/2⁶⁵ (3·10⁻⁶ for ten million
URLs); the later one would then be taken for a duplicate. ``hash()`` is salted per process,
so fingerprints mean nothing outside the process and no input can be crafted to collide, or
to crowd one table: at 70 % average load a table overflowing is a nine-sigma event.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

_TABLES = 256
_INITIAL_SLOTS = 4096
_MAX_LOAD = 0.7


class FingerprintSet:
    """Remembers which strings it has seen, in about 11 bytes per string."""

    __slots__ = ("_limit", "_mask", "_tables", "size")

    def __init__(self) -> None:
        self._tables = [array("q", bytes(8 * _INITIAL_SLOTS)) for _ in range(_TABLES)]
        self._mask = _INITIAL_SLOTS - 1
        self._limit = int(_TABLES * _INITIAL_SLOTS * _MAX_LOAD)
        self.size = 0

    def add_many(self, texts: Iterable[str]) -> list[int]:
        """Add every string; return the positions of those not seen before, in order.

        Runs once per URL written, so the probe loop is inlined and kept minimal. A string
        whose hash is 0 (the empty string) is never remembered.
        """
        hashes = list(map(hash, texts))
        while self.size + len(hashes) > self._limit:
            self._grow()
        tables, mask = self._tables, self._mask
        fresh: list[int] = []
        keep = fresh.append
        for position, fingerprint in enumerate(hashes):
            table = tables[fingerprint >> 56]  # -128..127: each of the 256 tables once
            slot = fingerprint & mask
            stored = table[slot]
            while stored:
                if stored == fingerprint:
                    break
                slot = (slot + 1) & mask
                stored = table[slot]
            else:
                table[slot] = fingerprint
                keep(position)
        self.size += len(fresh)
        return fresh

    def add(self, text: str) -> bool:
        """Add one string; return False when it (or its fingerprint) was already there."""
        return bool(self.add_many((text,)))

    def __contains__(self, text: object) -> bool:
        if not isinstance(text, str):
            return False
        fingerprint = hash(text)
        table = self._tables[fingerprint >> 56]
        slot = fingerprint & self._mask
        while stored := table[slot]:
            if stored == fingerprint:
                return True
            slot = (slot + 1) & self._mask
        return False

    def __len__(self) -> int:
        return self.size

    def _grow(self) -> None:
        slots = 2 * (self._mask + 1)
        mask = slots - 1
        for number, old in enumerate(self._tables):
            table = array("q", bytes(8 * slots))
            for fingerprint in old:
                if fingerprint:
                    slot = fingerprint & mask
                    while table[slot]:
                        slot = (slot + 1) & mask
                    table[slot] = fingerprint
            self._tables[number] = table
        self._mask = mask
        self._limit = int(_TABLES * slots * _MAX_LOAD)

    @property
    def nbytes(self) -> int:
        """Memory held by the tables."""
        return _TABLES * (self._mask + 1) * 8
