"""Extension fields (images, videos, news, hreflang alternates) in CSV and JSONL URL lists.

CSV columns (one video and one news article a row, any number of images and languages):

- ``image``, ``image:1`` ... ``image:N``: image URLs;
- ``alternate:<lang>`` (``alternate:de``, ``alternate:en-GB``, ``alternate:x-default``): the
  URL of that language version;
- ``news_name``, ``news_language``, ``news_publication_date``, ``news_title`` (all four
  required for a news entry), ``news_access``, ``news_genres``, ``news_keywords``,
  ``news_stock_tickers``;
- ``video_<field>`` for each field of :class:`~sitemapkit.Video` (``video_thumbnail_loc``,
  ``video_title``, ``video_description``, ``video_content_loc``, ``video_player_loc``,
  ``video_duration``, ``video_tags`` separated by ``|``, ``video_prices`` as ``EUR 9.99``...).

JSONL objects may use the same flat keys, or structured ones: ``images`` (a list of URLs or
of objects with ``loc``), ``alternates`` (an object ``{lang: url}`` or a list of
``{"hreflang", "href"}``), ``news`` (an object with the keys above without ``news_``) and
``videos`` (a list of objects with :class:`~sitemapkit.Video` field names). Empty cells are
ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, Final

from ..errors import InvalidValueError
from ..model import Alternate, Image, News, Video, VideoPrice

__all__ = ["extension_fields"]

_IMAGE_KEY = re.compile(r"image(?::(\d+))?")
_NEWS_KEYS: Final = ("name", "language", "publication_date", "title", "access", "genres",
                     "keywords", "stock_tickers")  # fmt: skip
_VIDEO_FIELDS: Final = {field.name: field.type for field in fields(Video)}
_VIDEO_INTS: Final = frozenset({"duration", "view_count"})
_VIDEO_BOOLS: Final = frozenset({"family_friendly", "requires_subscription", "live"})
_VIDEO_SIMPLE: Final = frozenset(_VIDEO_FIELDS) - {"prices", "tags", "ids", "tvshow",
                                                     "content_segment_locs"}  # fmt: skip


def _present(value: object) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


def _text(value: object, what: str) -> str:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value).strip()
    raise InvalidValueError(f"{what} {value!r} is not text")


def _images(record: Mapping[str, Any]) -> tuple[Image, ...]:
    numbered: list[tuple[int, str]] = []
    for key, value in record.items():
        match = _IMAGE_KEY.fullmatch(key)
        if match and _present(value):
            numbered.append((int(match.group(1) or 0), _text(value, key)))
    images = [Image(loc) for _, loc in sorted(numbered)]
    listed = record.get("images")
    if listed is not None:
        if not isinstance(listed, list):
            raise InvalidValueError("'images' must be a list")
        for item in listed:
            if isinstance(item, Mapping):
                if not _present(item.get("loc")):
                    raise InvalidValueError("an image has no 'loc'")
                images.append(
                    Image(
                        _text(item["loc"], "image loc"),
                        caption=item.get("caption"),
                        title=item.get("title"),
                    )
                )
            else:
                images.append(Image(_text(item, "image")))
    return tuple(images)


def _alternates(record: Mapping[str, Any]) -> tuple[Alternate, ...]:
    alternates = [
        Alternate(key.split(":", 1)[1], _text(value, key))
        for key, value in record.items()
        if key.startswith("alternate:") and _present(value)
    ]
    listed = record.get("alternates")
    if isinstance(listed, Mapping):
        alternates += [Alternate(str(lang), _text(href, f"alternate {lang}"))
                       for lang, href in listed.items()]  # fmt: skip
    elif isinstance(listed, list):
        for item in listed:
            if not isinstance(item, Mapping) or not item.get("hreflang") or not item.get("href"):
                raise InvalidValueError("an alternate needs 'hreflang' and 'href'")
            alternates.append(Alternate(_text(item["hreflang"], "hreflang"),
                                        _text(item["href"], "href")))  # fmt: skip
    elif listed is not None:
        raise InvalidValueError("'alternates' must be an object or a list")
    for alternate in alternates:
        if not re.fullmatch(r"x-default|[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*", alternate.hreflang):
            raise InvalidValueError(f"{alternate.hreflang!r} is not a language code")
    return tuple(alternates)


def _news(record: Mapping[str, Any]) -> News | None:
    source = record.get("news")
    if source is not None and not isinstance(source, Mapping):
        raise InvalidValueError("'news' must be an object")
    values = {key: (source or {}).get(key, record.get(f"news_{key}")) for key in _NEWS_KEYS}
    values = {key: _text(value, f"news {key}") for key, value in values.items()
              if _present(value)}  # fmt: skip
    if not values:
        return None
    missing = [key for key in _NEWS_KEYS[:4] if key not in values]
    if missing:
        raise InvalidValueError(f"a news entry needs {', '.join('news_' + m for m in missing)}")
    return News(
        publication_name=values["name"],
        publication_language=values["language"],
        publication_date=values["publication_date"],
        title=values["title"],
        access=values.get("access"),
        genres=values.get("genres"),
        keywords=values.get("keywords"),
        stock_tickers=values.get("stock_tickers"),
    )


def _yes_no(value: object, what: str) -> bool:
    if isinstance(value, bool):
        return value
    text = _text(value, what).lower()
    if text in {"yes", "true", "1"}:
        return True
    if text in {"no", "false", "0"}:
        return False
    raise InvalidValueError(f"{what} {value!r} is not yes or no")


def _price(value: object) -> VideoPrice:
    """A price object, or ``"EUR 9.99"`` (currency, a space, the amount)."""
    if isinstance(value, Mapping):
        if not _present(value.get("value")) or not _present(value.get("currency")):
            raise InvalidValueError("a video price needs 'value' and 'currency'")
        return VideoPrice(_text(value["value"], "price"), _text(value["currency"], "currency"),
                          value.get("type"), value.get("resolution"))  # fmt: skip
    currency, _, amount = _text(value, "video price").partition(" ")
    if not amount.strip():
        raise InvalidValueError(f"video price {value!r} is not 'CURRENCY AMOUNT'")
    return VideoPrice(amount.strip(), currency)


def _video(values: Mapping[str, Any]) -> Video:
    arguments: dict[str, Any] = {}
    for key, value in values.items():
        if not _present(value) or key not in _VIDEO_FIELDS:
            continue
        what = f"video {key}"
        if key in _VIDEO_INTS:
            try:
                arguments[key] = int(_text(value, what))
            except ValueError as exc:
                raise InvalidValueError(f"{what} {value!r} is not a whole number") from exc
        elif key == "rating":
            try:
                arguments[key] = float(_text(value, what))
            except ValueError as exc:
                raise InvalidValueError(f"{what} {value!r} is not a number") from exc
        elif key in _VIDEO_BOOLS:
            arguments[key] = _yes_no(value, what)
        elif key in ("tags", "content_segment_locs"):
            items = value if isinstance(value, list) else _text(value, what).split("|")
            arguments[key] = tuple(_text(item, what) for item in items if _present(item))
        elif key == "prices":
            items = value if isinstance(value, list) else [value]
            arguments[key] = tuple(_price(item) for item in items)
        elif key in _VIDEO_SIMPLE:
            arguments[key] = _text(value, what)
    missing = [k for k in ("thumbnail_loc", "title", "description") if k not in arguments]
    if missing:
        raise InvalidValueError(f"a video needs {', '.join('video_' + m for m in missing)}")
    if "content_loc" not in arguments and "player_loc" not in arguments:
        raise InvalidValueError("a video needs video_content_loc or video_player_loc")
    return Video(**arguments)


def _videos(record: Mapping[str, Any]) -> tuple[Video, ...]:
    flat = {key[len("video_"):]: value for key, value in record.items()
            if key.startswith("video_") and _present(value)}  # fmt: skip
    videos = [_video(flat)] if flat else []
    listed = record.get("videos")
    if listed is not None:
        if not isinstance(listed, list) or not all(isinstance(v, Mapping) for v in listed):
            raise InvalidValueError("'videos' must be a list of objects")
        videos += [_video(item) for item in listed]
    return tuple(videos)


def extension_fields(record: Mapping[str, Any]) -> dict[str, Any]:
    """The extension keyword arguments of a :class:`URLEntry` found in ``record``."""
    found: dict[str, Any] = {}
    if images := _images(record):
        found["images"] = images
    if alternates := _alternates(record):
        found["alternates"] = alternates
    if (news := _news(record)) is not None:
        found["news"] = news
    if videos := _videos(record):
        found["videos"] = videos
    return found


def has_extension_keys(keys: Mapping[str, Any] | list[str]) -> bool:
    """True when some key may carry an extension (so plain rows skip the work)."""
    return any(key.startswith(("image", "alternate", "news", "video")) for key in keys)
