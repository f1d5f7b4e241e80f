"""What every model is told about time: now, in the user's timezone, and the two weeks
around it, so "next Monday", "due Friday" and "expiring soon" have one meaning.

The instant comes from the workflow (``workflow.now()``), never from an activity's clock,
so a retried or replayed call is shown the time the turn had; the timezone is the user's
setting (``preferences.timezone``, default UTC).
"""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import BaseModel

DEFAULT_TIMEZONE = "UTC"
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
"""Spelled out here: ``strftime`` names follow the process locale."""


class Clock(BaseModel):
    now: dt.datetime
    """The turn's time (timezone-aware, from the workflow)."""
    timezone: str = DEFAULT_TIMEZONE


def is_timezone(name: str) -> bool:
    """An IANA zone name this machine knows (``Europe/Paris``, ``UTC``)."""
    return name in available_timezones() or name == DEFAULT_TIMEZONE


def zone(name: str | None) -> ZoneInfo:
    """The named zone; UTC for an unknown or empty name (a stored name is checked on write)."""
    try:
        return ZoneInfo(name or DEFAULT_TIMEZONE)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_TIMEZONE)


def local(clock: Clock) -> dt.datetime:
    now = clock.now if clock.now.tzinfo else clock.now.replace(tzinfo=dt.UTC)
    return now.astimezone(zone(clock.timezone))


def local_date(now: dt.datetime, timezone: str | None) -> dt.date:
    return local(Clock(now=now, timezone=timezone or DEFAULT_TIMEZONE)).date()


DAY_TOKEN = re.compile(r"\{(today|tomorrow|today[+-]\d+|(?:this|next|coming) [a-z]+)\}")
"""A day token as written in plan examples and evaluation scenarios: ``{next monday}``."""


def named_day(token: str, today: dt.date) -> dt.date:
    """The date a day token names, from ``today``: ``today``, ``tomorrow``, ``today+3``,
    ``today-1``, ``this friday`` (that day of this week, Monday to Sunday), ``next monday``
    (that day of next week) or ``coming friday`` (the first from today on, today included:
    a weekday said alone, ``domain.relative_days``): the meanings of the calendar in
    ``clock_section``. Plan examples and evaluation scenarios write dates as these tokens."""
    if token == "today":
        return today
    if token == "tomorrow":
        return today + dt.timedelta(days=1)
    if token.startswith("today"):
        return today + dt.timedelta(days=int(token[5:]))
    which, _, name = token.partition(" ")
    weekdays = [d.lower() for d in DAY_NAMES]
    if which not in ("this", "next", "coming") or name not in weekdays:
        raise ValueError(f"unknown day {{{token}}}")
    if which == "coming":
        return today + dt.timedelta(days=(weekdays.index(name) - today.weekday()) % 7)
    monday = today - dt.timedelta(days=today.weekday())
    if which == "next":
        monday += dt.timedelta(days=7)
    return monday + dt.timedelta(days=weekdays.index(name))


PARTS_OF_DAY = ((5, "night"), (12, "morning"), (17, "afternoon"), (22, "evening"), (24, "night"))
"""The part of the day by the hour it ends (exclusive): what a kitchen assistant needs of the
time ("tonight", "for lunch"). Not the minute: a minute changes every request's text, so the
same words at 16:51 and 17:08 were two inputs to a model at temperature 0, and a model shown
"16:51" filtered rows by that minute (docs/EVALS.md)."""


def part_of_day(hour: int) -> str:
    return next(name for end, name in PARTS_OF_DAY if hour < end)


def _day(day: dt.date, today: dt.date) -> str:
    text = f"{DAY_NAMES[day.weekday()][:3]} {day.isoformat()}"
    if day == today:
        return f"{text} (today)"
    if day == today + dt.timedelta(days=1):
        return f"{text} (tomorrow)"
    return text


def clock_section(clock: Clock | None) -> str:
    """``Tuesday 2026-11-24, afternoon (Europe/Paris, UTC+01:00)`` and a calendar of this
    week and next, Monday to Sunday, today and tomorrow marked."""
    if clock is None:
        return ""
    now = local(clock)
    today = now.date()
    offset = now.strftime("%z")
    monday = today - dt.timedelta(days=today.weekday())
    weeks = []
    for name, start in (("This week", monday), ("Next week", monday + dt.timedelta(days=7))):
        days = [_day(start + dt.timedelta(days=i), today) for i in range(7)]
        weeks.append(f"{name}: {', '.join(days)}")
    zone_name = zone(clock.timezone).key
    return "\n".join(
        [
            f"Now: {DAY_NAMES[today.weekday()]} {today.isoformat()}, {part_of_day(now.hour)} "
            f"({zone_name}, UTC{offset[:3]}:{offset[3:]})",
            *weeks,
        ]
    )
