"""Content models of the Google extensions (PROTOCOL.md section 5), written out by hand.

Each model says what an element may hold: its children in schema order with their
multiplicity, the attributes it needs, whether it holds text, and which children are
deprecated. The checker walks these tables, so a structural rule is a line here and a value
rule (lengths, ISO codes: issue 7) is a :func:`~sitemapkit.validate.rules.value_check` on
``{namespace}local``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ..model import IMAGE_NS, MOBILE_NS, NEWS_NS, VIDEO_NS, XHTML_NS

__all__ = ["EXTENSION_RULES", "MODELS", "ROOTS", "Model", "display_name"]

UNBOUNDED: Final = 1 << 30

_PREFIXES: Final = {
    IMAGE_NS: "image",
    VIDEO_NS: "video",
    NEWS_NS: "news",
    XHTML_NS: "xhtml",
    MOBILE_NS: "mobile",
}

#: The structural rule of each known extension namespace.
EXTENSION_RULES: Final = {
    IMAGE_NS: "SM-IMG-01",
    VIDEO_NS: "SM-VID-01",
    NEWS_NS: "SM-NEWS-01",
    XHTML_NS: "SM-HREF-01",
    MOBILE_NS: "SM-MOB-01",
}


def display_name(name: str) -> str:
    """``"ns local"`` (expat's form) as ``prefix:local`` for messages."""
    namespace, _, local = name.rpartition(" ")
    if not namespace:
        return local
    prefix = _PREFIXES.get(namespace)
    return f"{prefix}:{local}" if prefix else f"{{{namespace}}}{local}"


@dataclass(frozen=True, slots=True)
class Model:
    """What one extension element may contain."""

    name: str
    rule: str
    children: tuple[tuple[str, int, int], ...] = ()
    text: bool = True
    required_attributes: tuple[str, ...] = ()
    deprecated_attributes: tuple[str, ...] = ()
    deprecated: bool = False
    index: dict[str, int] = field(default_factory=dict, compare=False)
    #: ``required_after[i]``: some child from position ``i`` on is required.
    required_after: tuple[bool, ...] = field(default=(), compare=False)
    #: Attributes to check when the element opens.
    special: bool = field(default=False, compare=False)
    #: The key of its value checks: ``{namespace}local``.
    value_key: str = field(default="", compare=False)
    #: Children the checker may take on its fast path (filled in by the checker).
    fast: dict[str, tuple[int, object]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self.index.update({child: position for position, (child, _, _) in enumerate(self.children)})
        minimums = [low for _, low, _ in self.children]
        namespace, _, local = self.name.partition(" ")
        facts = {
            "required_after": tuple(any(minimums[i:]) for i in range(len(minimums) + 1)),
            "special": bool(self.required_attributes or self.deprecated_attributes),
            "value_key": f"{{{namespace}}}{local}",
        }
        for name, value in facts.items():
            object.__setattr__(self, name, value)


def _leaf(
    namespace: str,
    local: str,
    *,
    attributes: tuple[str, ...] = (),
    deprecated_attributes: tuple[str, ...] = (),
    deprecated: bool = False,
) -> Model:
    return Model(
        f"{namespace} {local}",
        EXTENSION_RULES[namespace],
        required_attributes=attributes,
        deprecated_attributes=deprecated_attributes,
        deprecated=deprecated,
    )


def _seq(namespace: str, spec: str) -> tuple[tuple[str, int, int], ...]:
    """``"loc caption? tag{0,32} price*"`` → ((name, min, max), ...)."""
    result = []
    for token in spec.split():
        low, high = 1, 1
        if token.endswith("?"):
            token, low = token[:-1], 0
        elif token.endswith("*"):
            token, low, high = token[:-1], 0, UNBOUNDED
        elif token.endswith("}"):
            token, _, bounds = token[:-1].partition("{")
            low_text, high_text = bounds.split(",")
            low, high = int(low_text), int(high_text)
        result.append((f"{namespace} {token}", low, high))
    return tuple(result)


_VIDEO_SEQUENCE: Final = (
    "thumbnail_loc title description content_loc? player_loc? duration? expiration_date? "
    "rating? content_segment_loc* view_count? publication_date? tag{0,32} category? "
    "family_friendly? restriction? gallery_loc? price* requires_subscription? uploader? "
    "tvshow? platform? live? id*"
)
_VIDEO_DEPRECATED: Final = ("category", "gallery_loc", "price", "tvshow")

_models: list[Model] = [
    Model(
        f"{IMAGE_NS} image",
        "SM-IMG-01",
        _seq(IMAGE_NS, "loc caption? geo_location? title? license?"),
        text=False,
    ),
    _leaf(IMAGE_NS, "loc"),
    *(
        _leaf(IMAGE_NS, local, deprecated=True)
        for local in ("caption", "geo_location", "title", "license")
    ),
    Model(f"{VIDEO_NS} video", "SM-VID-01", _seq(VIDEO_NS, _VIDEO_SEQUENCE), text=False),
    *(
        _leaf(VIDEO_NS, local, deprecated=local in _VIDEO_DEPRECATED)
        for local in (
            "thumbnail_loc",
            "title",
            "description",
            "content_loc",
            "duration",
            "expiration_date",
            "rating",
            "content_segment_loc",
            "view_count",
            "publication_date",
            "tag",
            "category",
            "family_friendly",
            "requires_subscription",
            "uploader",
            "live",
            "gallery_loc",
        )
    ),
    _leaf(VIDEO_NS, "player_loc", deprecated_attributes=("allow_embed", "autoplay")),
    _leaf(VIDEO_NS, "restriction", attributes=("relationship",)),
    _leaf(VIDEO_NS, "platform", attributes=("relationship",)),
    _leaf(VIDEO_NS, "price", attributes=("currency",), deprecated=True),
    _leaf(VIDEO_NS, "id", attributes=("type",)),
    Model(
        f"{VIDEO_NS} tvshow",
        "SM-VID-01",
        _seq(
            VIDEO_NS,
            "show_title video_type episode_title? season_number? episode_number? premier_date?",
        ),
        text=False,
        deprecated=True,
    ),
    *(
        _leaf(VIDEO_NS, local)
        for local in (
            "show_title",
            "video_type",
            "episode_title",
            "season_number",
            "episode_number",
            "premier_date",
        )
    ),
    Model(
        f"{NEWS_NS} news",
        "SM-NEWS-01",
        _seq(
            NEWS_NS, "publication access? genres? publication_date title keywords? stock_tickers?"
        ),
        text=False,
    ),
    Model(f"{NEWS_NS} publication", "SM-NEWS-01", _seq(NEWS_NS, "name language"), text=False),
    *(
        _leaf(NEWS_NS, local)
        for local in (
            "name",
            "language",
            "access",
            "genres",
            "publication_date",
            "title",
            "keywords",
            "stock_tickers",
        )
    ),
    Model(
        f"{XHTML_NS} link",
        "SM-HREF-01",
        text=False,
        required_attributes=("rel", "hreflang", "href"),
    ),
    Model(f"{MOBILE_NS} mobile", "SM-MOB-01", text=False),
]

#: Every element of the known extensions, by expat name (``"namespace local"``).
MODELS: Final[dict[str, Model]] = {model.name: model for model in _models}

#: The elements that may stand directly in ``<url>`` (the schemas' global elements).
ROOTS: Final = frozenset(
    {
        f"{IMAGE_NS} image",
        f"{VIDEO_NS} video",
        f"{NEWS_NS} news",
        f"{XHTML_NS} link",
        f"{MOBILE_NS} mobile",
    }
)

#: Deprecation rule of each namespace (PROTOCOL.md 5.1, 5.2).
DEPRECATION_RULES: Final = {IMAGE_NS: "SM-IMG-03", VIDEO_NS: "SM-VID-03"}
