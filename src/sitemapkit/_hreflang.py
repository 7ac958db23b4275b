"""Reciprocal hreflang sets for the writer.

Search engines ignore hreflang links that are not reciprocal (PROTOCOL.md 5.4): every
language version must list itself and all the others. Entries name their alternates; this
module joins the sets that share a URL (union-find) so that each member can be given the
whole set, whichever entry declared it.

Memory: about 200 bytes per language version, held until the writer closes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .markup import escape
from .model import Alternate

__all__ = ["HreflangGroups"]


@dataclass(slots=True)
class _Group:
    links: dict[str, str] = field(default_factory=dict)  # hreflang -> href, first wins
    conflicts: int = 0


class HreflangGroups:
    """Language versions joined into groups; each URL belongs to at most one group."""

    def __init__(self) -> None:
        self._parent: dict[str, str] = {}  # href -> a href closer to its group's root
        self._groups: dict[str, _Group] = {}  # root href -> group
        self.conflicts = 0

    def __bool__(self) -> bool:
        return bool(self._groups)

    def _root(self, href: str) -> str:
        parent = self._parent.setdefault(href, href)
        while parent != href:
            grand = self._parent[parent]
            self._parent[href] = grand  # path halving keeps chains short
            href, parent = parent, grand
        return href

    def declare(self, alternates: Iterable[Alternate], *, owner: str | None = None) -> None:
        """Join one entry's alternates (already normalised) and the entry's own URL."""
        alternates = list(alternates)
        hrefs = [alternate.href for alternate in alternates]
        if owner is not None and owner not in hrefs:
            hrefs.append(owner)  # in the group, though it names no language for itself
        if not hrefs:
            return
        root = self._root(hrefs[0])
        group = self._groups.setdefault(root, _Group())
        for href in hrefs[1:]:
            other = self._root(href)
            if other != root:
                merged = self._groups.pop(other, None)
                self._parent[other] = root
                if merged is not None:
                    self._merge(group, merged.links.items())
        self._merge(group, ((a.hreflang, a.href) for a in alternates))

    def _merge(self, group: _Group, links: Iterable[tuple[str, str]]) -> None:
        for hreflang, href in links:
            known = group.links.setdefault(hreflang.lower(), href)
            if known != href:
                group.conflicts += 1
                self.conflicts += 1

    def links_of(self, href: str) -> str | None:
        """The ``<xhtml:link>`` markup of ``href``'s group, or None when it has none."""
        if href not in self._parent:
            return None
        group = self._groups.get(self._root(href))
        if group is None:
            return None
        return "".join(
            f'<xhtml:link rel="alternate" hreflang="{escape(hreflang)}" href="{escape(link)}"/>'
            for hreflang, link in sorted(group.links.items(), key=_link_order)
        )

    def members(self) -> Iterator[str]:
        """Every URL that belongs to a group, in a stable order."""
        for group in self._groups.values():
            yield from sorted(set(group.links.values()))


def _link_order(item: tuple[str, str]) -> tuple[bool, str]:
    return item[0] == "x-default", item[0]
