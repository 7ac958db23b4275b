"""A compact set of 64-bit string fingerprints, for de-duplicating millions of URLs.

A Python ``set`` of strings costs well over 100 bytes per URL, and a ``set`` of integers
about 60; either breaks the writer's budget of 200 MB at ten million URLs. This structure
keeps only the 64-bit ``hash()`` of each string in open-addressing tables made of
``array('q')`` (8 bytes a slot, linear probing, at most 3/4 full). The tables are split into
256 partitions by the low byte of the fingerprint, so a resize copies 1/256 of the data and
never doubles peak memory: ten million URLs take about 134 MB.

Two different URLs share a fingerprint with probability about n²/2⁶⁵ (3·10⁻⁶ for ten million
URLs); the later one would then be taken for a duplicate. ``hash()`` is salted per process,
so a fingerprint means nothing outside the process that made it.
"""

from __future__ import annotations

from array import array

_PARTITIONS = 256
_INITIAL_SLOTS = 256


class FingerprintSet:
    """Remembers which strings it has seen, in about 11 bytes per string."""

    __slots__ = ("_counts", "_tables", "size")

    def __init__(self) -> None:
        self._tables = [array("q", bytes(8 * _INITIAL_SLOTS)) for _ in range(_PARTITIONS)]
        self._counts = [0] * _PARTITIONS
        self.size = 0

    def add(self, text: str) -> bool:
        """Add ``text``; return False when it (or its fingerprint) was already there."""
        fingerprint = hash(text) or 1
        partition = fingerprint & 0xFF
        table = self._tables[partition]
        mask = len(table) - 1
        slot = (fingerprint >> 8) & mask
        while True:
            stored = table[slot]
            if stored == 0:
                break
            if stored == fingerprint:
                return False
            slot = (slot + 1) & mask
        table[slot] = fingerprint
        self.size += 1
        count = self._counts[partition] = self._counts[partition] + 1
        if count * 4 > len(table) * 3:
            self._grow(partition)
        return True

    def __contains__(self, text: object) -> bool:
        if not isinstance(text, str):
            return False
        fingerprint = hash(text) or 1
        table = self._tables[fingerprint & 0xFF]
        mask = len(table) - 1
        slot = (fingerprint >> 8) & mask
        while True:
            stored = table[slot]
            if stored == 0:
                return False
            if stored == fingerprint:
                return True
            slot = (slot + 1) & mask

    def __len__(self) -> int:
        return self.size

    def _grow(self, partition: int) -> None:
        old = self._tables[partition]
        table = array("q", bytes(16 * len(old)))
        mask = len(table) - 1
        for fingerprint in old:
            if fingerprint:
                slot = (fingerprint >> 8) & mask
                while table[slot]:
                    slot = (slot + 1) & mask
                table[slot] = fingerprint
        self._tables[partition] = table

    @property
    def nbytes(self) -> int:
        """Memory held by the tables."""
        return sum(len(table) * 8 for table in self._tables)
