"""W3C Datetime (https://www.w3.org/TR/NOTE-datetime), the format of ``<lastmod>``.

Reading is liberal (all six W3C forms, a space instead of ``T``, ``+hhmm`` offsets,
``T24:00:00``); writing is strict: only ``YYYY-MM-DD`` and ``YYYY-MM-DDThh:mm:ss[.f]±hh:mm``,
the two forms every schema revision accepts (PROTOCOL.md M-04, M-10).

A time without a zone is refused (M-03: Google reports it as an invalid date) unless the
caller says which zone to assume.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import InvalidValueError

__all__ = [
    "format_lastmod",
    "lastmod_timestamp",
    "parse_lastmod",
    "parse_timezone",
]

_W3C = re.compile(
    r"(?P<year>\d{4})"
    r"(?:-(?P<month>\d{2})"
    r"(?:-(?P<day>\d{2})"
    r"(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?"
    r"\s*(?P<zone>Z|z|[+-]\d{2}:?\d{2})?"
    r")?)?)?"
)

_EPOCH_DATE = date(1970, 1, 1)


def parse_timezone(text: str) -> tzinfo:
    """Turn ``UTC``, ``Z``, ``+02:00`` or an IANA name such as ``Europe/Paris`` into a tzinfo."""
    spec = text.strip()
    if spec.upper() in {"UTC", "Z", "GMT"}:
        return UTC
    match = re.fullmatch(r"([+-])(\d{2}):?(\d{2})", spec)
    if match:
        sign = -1 if match.group(1) == "-" else 1
        hours, minutes = int(match.group(2)), int(match.group(3))
        if hours > 23 or minutes > 59:  # timezone() raises a bare ValueError from 24 hours on
            raise InvalidValueError(f"impossible time zone offset {text!r}")
        return timezone(sign * timedelta(hours=hours, minutes=minutes))
    try:
        return ZoneInfo(spec)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidValueError(f"unknown time zone {text!r}") from exc


def _zone(text: str) -> tzinfo:
    if text in {"Z", "z"}:
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise InvalidValueError(f"impossible time zone offset {text!r}")
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def parse_lastmod(text: str, *, assume_tz: tzinfo | None = None) -> date | datetime:
    """Parse a W3C Datetime into a ``date`` or an aware ``datetime``.

    ``YYYY`` and ``YYYY-MM`` become the first day of the period and ``hh:mm`` gets zero
    seconds, so the value can be written in a form the 2008 schema accepts.

    >>> parse_lastmod("2024-05-01")
    datetime.date(2024, 5, 1)
    >>> parse_lastmod("2024-05-01T10:30+02:00").isoformat()
    '2024-05-01T10:30:00+02:00'
    """
    value = text.strip()
    match = _W3C.fullmatch(value)
    if match is None:
        raise InvalidValueError(f"not a W3C Datetime: {text!r}")
    groups = match.groupdict()
    year, month, day = int(groups["year"]), int(groups["month"] or 1), int(groups["day"] or 1)
    try:
        if groups["hour"] is None:
            return date(year, month, day)
        if groups["zone"] is not None:
            zone: tzinfo = _zone(groups["zone"])
        elif assume_tz is not None:
            zone = assume_tz
        else:
            raise InvalidValueError(
                f"time without a time zone: {text!r} (W3C Datetime requires one; "
                "say which zone to assume, for example --timezone UTC)"
            )
        hour, minute = int(groups["hour"]), int(groups["minute"])
        second = int(groups["second"] or 0)
        fraction = groups["fraction"] or "0"
        micro = int((fraction + "000000")[:6])
        if hour == 24 and minute == 0 and second == 0 and micro == 0:
            midnight = datetime(year, month, day, tzinfo=zone)
            return midnight + timedelta(days=1)
        return datetime(year, month, day, hour, minute, second, micro, tzinfo=zone)
    except ValueError as exc:
        raise InvalidValueError(f"impossible date or time {text!r}: {exc}") from exc


def format_lastmod(value: date | datetime | str, *, assume_tz: tzinfo | None = None) -> str:
    """Format a lastmod value in the strict output form.

    >>> format_lastmod(date(2024, 5, 1))
    '2024-05-01'
    >>> format_lastmod("2024-05-01T10:30Z")
    '2024-05-01T10:30:00+00:00'
    """
    if isinstance(value, str):
        value = parse_lastmod(value, assume_tz=assume_tz)
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            if assume_tz is None:
                raise InvalidValueError(
                    f"datetime without a time zone: {value.isoformat()} "
                    "(pass an aware datetime or say which zone to assume)"
                )
            value = value.replace(tzinfo=assume_tz)
        spec = "microseconds" if value.microsecond else "seconds"
        return value.isoformat(timespec=spec)
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"lastmod must be a date, datetime or str, not {type(value).__name__}")


def lastmod_timestamp(value: date | datetime) -> float:
    """Seconds since the epoch, a date counting as midnight UTC (PROTOCOL.md M-09)."""
    if isinstance(value, datetime):
        return value.timestamp()
    return float((value - _EPOCH_DATE).days * 86400)
