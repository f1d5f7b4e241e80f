"""The time every model is shown: the user's local time and a two-week calendar."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.clock import Clock, clock_section, is_timezone, local_date, named_day, part_of_day

# A Tuesday, 23:30 in UTC: already Wednesday in Tokyo, still Tuesday in New York.
NOW = dt.datetime(2026, 11, 24, 23, 30, tzinfo=dt.UTC)


def test_the_section_gives_local_date_weekday_time_zone_and_offset():
    text = clock_section(Clock(now=NOW, timezone="Asia/Tokyo"))
    assert text.splitlines()[0] == "Now: Wednesday 2026-11-25, morning (Asia/Tokyo, UTC+09:00)"


def test_the_time_is_the_part_of_the_day_not_the_minute():
    assert [part_of_day(h) for h in (0, 4, 5, 11, 12, 16, 17, 21, 22, 23)] == [
        "night",
        "night",
        "morning",
        "morning",
        "afternoon",
        "afternoon",
        "evening",
        "evening",
        "night",
        "night",
    ]
    # Two requests a quarter-hour apart read the same, so one turn is one input to a model.
    later = clock_section(Clock(now=NOW + dt.timedelta(minutes=14), timezone="UTC"))
    assert later == clock_section(Clock(now=NOW, timezone="UTC"))


def test_the_calendar_runs_monday_to_sunday_this_week_and_next_with_today_marked():
    lines = clock_section(Clock(now=NOW, timezone="America/New_York")).splitlines()
    assert lines[0] == "Now: Tuesday 2026-11-24, evening (America/New_York, UTC-05:00)"
    assert lines[1] == (
        "This week: Mon 2026-11-23, Tue 2026-11-24 (today), Wed 2026-11-25 (tomorrow), "
        "Thu 2026-11-26, Fri 2026-11-27, Sat 2026-11-28, Sun 2026-11-29"
    )
    assert lines[2].startswith("Next week: Mon 2026-11-30, Tue 2026-12-01")
    assert lines[2].endswith("Sun 2026-12-06")


def test_an_unknown_zone_reads_as_utc_and_is_not_a_timezone():
    assert clock_section(Clock(now=NOW, timezone="Mars/Olympus")).startswith(
        "Now: Tuesday 2026-11-24, night (UTC, UTC+00:00)"
    )
    assert not is_timezone("Mars/Olympus") and is_timezone("Europe/Paris")
    assert local_date(NOW, "Asia/Tokyo") == dt.date(2026, 11, 25)


def test_no_clock_no_section():
    assert clock_section(None) == ""


@pytest.mark.parametrize(
    ("token", "date"),
    [
        ("today", "2026-11-24"),
        ("tomorrow", "2026-11-25"),
        ("today+3", "2026-11-27"),
        ("today-1", "2026-11-23"),
        ("this monday", "2026-11-23"),
        ("this sunday", "2026-11-29"),
        ("next monday", "2026-11-30"),
        ("next tuesday", "2026-12-01"),
        ("coming tuesday", "2026-11-24"),  # a weekday said alone: today's is today
        ("coming friday", "2026-11-27"),
        ("coming monday", "2026-11-30"),
    ],
)
def test_a_day_token_names_the_date_the_calendar_shows_for_it(token: str, date: str):
    assert named_day(token, dt.date(2026, 11, 24)).isoformat() == date


@pytest.mark.parametrize("token", ["next moonday", "last monday", "someday"])
def test_an_unknown_day_token_is_an_error(token: str):
    with pytest.raises(ValueError, match="unknown day"):
        named_day(token, dt.date(2026, 11, 24))
