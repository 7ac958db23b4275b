from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemapkit import InvalidValueError, format_lastmod, parse_lastmod
from sitemapkit.dates import lastmod_timestamp, parse_timezone

PLUS_TWO = timezone(timedelta(hours=2))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the six W3C Datetime forms
        ("1997", date(1997, 1, 1)),
        ("1997-07", date(1997, 7, 1)),
        ("1997-07-16", date(1997, 7, 16)),
        (
            "1997-07-16T19:20+01:00",
            datetime(1997, 7, 16, 19, 20, tzinfo=timezone(timedelta(hours=1))),
        ),
        (
            "1997-07-16T19:20:30+01:00",
            datetime(1997, 7, 16, 19, 20, 30, tzinfo=timezone(timedelta(hours=1))),
        ),
        ("1997-07-16T19:20:30.45Z", datetime(1997, 7, 16, 19, 20, 30, 450000, tzinfo=UTC)),
        # liberal extras
        ("  2024-05-01 10:00:00+0200 ", datetime(2024, 5, 1, 10, tzinfo=PLUS_TWO)),
        ("2024-05-01T24:00:00Z", datetime(2024, 5, 2, tzinfo=UTC)),
    ],
)
def test_parse_lastmod(text: str, expected: date) -> None:
    assert parse_lastmod(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2005-01-01T18:00:15", "time without a time zone"),
        ("2005-13-01", "impossible"),
        ("2005-02-30", "impossible"),
        ("2005-01-01T25:00:00Z", "impossible"),
        ("2005-01-01T10:00:00+99:99", "impossible"),
        ("yesterday", "not a W3C Datetime"),
        ("01/02/2005", "not a W3C Datetime"),
        ("", "not a W3C Datetime"),
    ],
)
def test_parse_lastmod_refuses(text: str, message: str) -> None:
    with pytest.raises(InvalidValueError, match=message):
        parse_lastmod(text)


def test_zone_can_be_assumed() -> None:
    parsed = parse_lastmod("2005-01-01T18:00:15", assume_tz=parse_timezone("Europe/Paris"))
    assert format_lastmod(parsed) == "2005-01-01T18:00:15+01:00"
    assert parse_timezone("+05:30").utcoffset(None) == timedelta(hours=5, minutes=30)
    assert parse_timezone("utc") is UTC
    with pytest.raises(InvalidValueError, match="unknown time zone"):
        parse_timezone("Mars/Olympus")


@pytest.mark.parametrize("text", ["+99:00", "-24:00", "+02:60"])
def test_impossible_offsets_are_refused(text: str) -> None:
    """timezone() raised a bare ValueError (traceback in generate --timezone +99:00)."""
    with pytest.raises(InvalidValueError, match="impossible time zone offset"):
        parse_timezone(text)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (date(2024, 5, 1), "2024-05-01"),
        (datetime(2024, 5, 1, 10, 30, tzinfo=UTC), "2024-05-01T10:30:00+00:00"),
        (datetime(2024, 5, 1, 10, 30, 0, 500, tzinfo=PLUS_TWO), "2024-05-01T10:30:00.000500+02:00"),
        ("1997", "1997-01-01"),
        ("1997-07-16T19:20Z", "1997-07-16T19:20:00+00:00"),
    ],
)
def test_format_lastmod_writes_only_schema_forms(value: date | str, expected: str) -> None:
    assert format_lastmod(value) == expected


def test_naive_datetime_needs_a_zone() -> None:
    with pytest.raises(InvalidValueError, match="without a time zone"):
        format_lastmod(datetime(2024, 5, 1, 10))
    assert format_lastmod(datetime(2024, 5, 1, 10), assume_tz=UTC) == "2024-05-01T10:00:00+00:00"


def test_timestamps_compare_dates_as_midnight_utc() -> None:
    assert lastmod_timestamp(date(1970, 1, 2)) == 86400.0
    assert lastmod_timestamp(datetime(1970, 1, 2, tzinfo=UTC)) == 86400.0


@given(st.datetimes(min_value=datetime(1000, 1, 1), timezones=st.timezones()))
def test_format_then_parse_round_trips(moment: datetime) -> None:
    if moment.utcoffset() is None or moment.utcoffset() % timedelta(minutes=1):  # type: ignore[operator]
        return  # W3C offsets are whole minutes
    text = format_lastmod(moment)
    parsed = parse_lastmod(text)
    assert isinstance(parsed, datetime)
    assert parsed.timestamp() == moment.timestamp()
