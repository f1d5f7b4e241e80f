"""The days a user's words name, as dates: "next Monday" is Monday 2026-11-30.

Finding the date of "next Monday" in a calendar needs no judgment, and a small model gets
it wrong (it wrote this week's Monday, or copied an example's date). So the system
resolves the day words of the user's message, and every node's Today section lists them
beside the calendar (``domain.context.today_section``). The meanings are the calendar's:

- ``today``, ``tonight``, ``tomorrow`` (and ``tmrw``, ``tmr``), ``the day after
  tomorrow``, ``yesterday``, ``in 3 days`` (digits or one to ten in words);
- ``the next 3 days``, ``the coming three days``, ``within 3 days``: today to that many
  days from today, both counted (a span);
- ``this friday`` is Friday of this week, or the coming one once this week's is past
  ("this Thursday" said on a Friday), ``next monday`` Monday of next week
  (``domain.clock.named_day``); a weekday alone is the coming one (today included), or
  next week's when the words say "next week"; a shortened weekday counts after a word
  that makes it a day ("on sat", "next thurs");
- ``this week``, ``next week``, ``the weekend`` / ``this weekend`` and ``next weekend``
  (or ``wknd``) are spans, Monday to Sunday and Saturday to Sunday; ``this week`` said on
  a Sunday, the week's last day, is the week ahead (today to next Sunday): "anything I
  need to do this week?" asked on a Sunday is not about the days gone.

Words it does not know ("last Tuesday", "the 3rd") are left to the model. Pure: the same
words and day give the same lines.
"""

from __future__ import annotations

import datetime as dt
import re

from domain.clock import DAY_NAMES, named_day

_WEEKDAY = "|".join(d.lower() for d in DAY_NAMES)
_COUNT = {w: n for n, w in enumerate("one two three four five six seven eight nine ten".split(), 1)}
_SHORT = {
    "monday": "mon",
    "tuesday": "tues?",
    "wednesday": "wed(?:s|nes)?",
    "thursday": "thu(?:rs?)?",
    "friday": "fri",
    "saturday": "sat",
    "sunday": "sun",
}
"""Weekdays as people shorten them; only after a word that makes them a day ("on sat",
"next thurs"): "sat down" and "sun-dried" are no days."""
_SINGLE = {"today": 0, "tonight": 0, "tonite": 0, "yesterday": -1}
_SINGLE |= dict.fromkeys(("tomorrow", "tomorow", "tmrw", "tmr", "2moro"), 1)
_WEEKEND = r"(?:weekend|wknd|wkend)"
_MEAL = r"(?:breakfast|brunch|lunch|dinner|supper|tea|meal)\b"
"""A meal after a weekday's "s" makes it the day's, typed without its apostrophe ("what
do i need to buy for mondays dinner"), not every such day ("pasta on mondays")."""
_PHRASE = re.compile(
    r"\b(?:"
    r"(?P<after>(?:the )?day after (?:tomorrow|tmrw))"
    r"|(?P<single>" + "|".join(_SINGLE) + r")"
    r"|in (?P<count>\d{1,2}|" + "|".join(_COUNT) + r") days?"
    r"|(?:(?:the )?(?:next|coming)|within) (?P<ahead>\d{1,2}|" + "|".join(_COUNT) + r") days"
    r"|(?P<which>this|next) (?P<span>week|" + _WEEKEND + r")(?:'?s)?"  # "next weeks plan"
    r"|(?P<weekend>(?:the )?" + _WEEKEND + r")"
    r"|(?:(?P<qualifier>this|next) )?(?P<weekday>" + _WEEKDAY + r")(?:'s|s(?= " + _MEAL + r"))?"
    r"|(?P<lead>this|next|on|for|by|until|till|before) (?P<short>"
    + "|".join(_SHORT.values())
    + r")\.?"
    r")\b",
    re.IGNORECASE,
)


def _day(date: dt.date) -> str:
    return f"{DAY_NAMES[date.weekday()]} {date.isoformat()}"


def _span(first: dt.date, last: dt.date) -> str:
    return f"{_day(first)} to {_day(last)}"


def _meaning(match: re.Match[str], today: dt.date, next_week: bool) -> str:
    if match["after"]:
        return _day(today + dt.timedelta(days=2))
    if single := match["single"]:
        return _day(today + dt.timedelta(days=_SINGLE[single.lower()]))
    if count := match["count"]:
        days = int(count) if count.isdigit() else _COUNT[count.lower()]
        return _day(today + dt.timedelta(days=days))
    if ahead := match["ahead"]:
        days = int(ahead) if ahead.isdigit() else _COUNT[ahead.lower()]
        return _span(today, today + dt.timedelta(days=days))
    if span := match["span"]:
        which = match["which"].lower()
        if span.lower() == "week" and which == "this" and today.weekday() == 6:
            return (
                f"{_span(today, today + dt.timedelta(days=7))} (said on a Sunday: the week ahead)"
            )
        if span.lower() == "week":
            return _span(named_day(f"{which} monday", today), named_day(f"{which} sunday", today))
        return _span(named_day(f"{which} saturday", today), named_day(f"{which} sunday", today))
    if match["weekend"]:
        return _span(named_day("this saturday", today), named_day("this sunday", today))
    weekday, qualifier = (match["weekday"] or _unshortened(match["short"])).lower(), None
    if match["weekday"]:
        qualifier = match["qualifier"]
    elif match["lead"].lower() in ("this", "next"):
        qualifier = match["lead"]
    if qualifier and (day := named_day(f"{qualifier.lower()} {weekday}", today)) >= today:
        return _day(day)
    if qualifier:  # "this thursday" said on a Friday: this week's is past
        return (
            f"{_day(named_day(f'coming {weekday}', today))} (the coming one; this week's is past)"
        )
    if next_week:
        return _day(named_day(f"next {weekday}", today))
    day = named_day(f"coming {weekday}", today)
    return f"{_day(day)} ({'today' if day == today else 'the coming one'})"


def _unshortened(short: str) -> str:
    return next(d for d, pattern in _SHORT.items() if re.fullmatch(pattern, short, re.I))


def named_days(text: str, today: dt.date) -> list[str]:
    """``"next Monday's" is Monday 2026-11-30``, one line per day phrase in ``text``, in
    order, each phrase once."""
    next_week = re.search(r"\bnext week\b", text, re.IGNORECASE) is not None
    lines: dict[str, str] = {}
    for match in _PHRASE.finditer(text):
        phrase = match.group(0)
        if phrase.lower() not in lines:
            lines[phrase.lower()] = f'"{phrase}" is {_meaning(match, today, next_week)}'
    return list(lines.values())


_AMOUNT = (
    r"(?P<n>an?|\d{1,2}|" + "|".join(_COUNT) + r"|a couple of)\s+(?P<unit>days?|weeks?)"
    r"|(?P<fortnight>a fortnight)"
)
_MOVE = re.compile(
    r"\b(?:"
    r"(?P<way>back|forward)\s+(?:by\s+)?(?:" + _AMOUNT + r")"
    r"|(?:" + _AMOUNT.replace("?P<", "?P<after_") + r")\s+(?P<how>later|earlier|sooner|back)"
    r"|(?P<verb>postpone|delay|put\s+(?:[\w']+\s+){0,3}?off)\s+(?:[\w']+\s+){0,5}?(?:by\s+)?"
    r"(?:" + _AMOUNT.replace("?P<", "?P<put_") + r")"
    r")\b(?!\s+ago\b)",
    re.IGNORECASE,
)
"""Words that move a date by an amount from that date ("push the oven back a week", "do
it a day later", "postpone the plumber by 2 days", "bring the dal forward a day"), not
from today: "in a week" and "a week from today" are days (``named_days``), "back a day ago"
no move."""


def _days_of(match: re.Match[str], prefix: str) -> int:
    if match[f"{prefix}fortnight"]:
        return 14
    n = match[f"{prefix}n"].lower()
    count = 2 if n == "a couple of" else 1 if n in ("a", "an") else _COUNT.get(n) or int(n)
    return count * (7 if match[f"{prefix}unit"].lower().startswith("week") else 1)


def moves_said(text: str) -> list[tuple[str, int]]:
    """Each phrase of ``text`` that moves a date from its own date (``_MOVE``), with the days
    it moves it by: later positive, earlier negative. In order, each phrase once."""
    found: dict[str, tuple[str, int]] = {}
    for match in _MOVE.finditer(text):
        if match["way"]:
            days = _days_of(match, "") * (-1 if match["way"].lower() == "forward" else 1)
        elif match["how"]:
            earlier = match["how"].lower() in ("earlier", "sooner")
            days = _days_of(match, "after_") * (-1 if earlier else 1)
        else:
            days = _days_of(match, "put_")
        found.setdefault(match.group(0).lower(), (match.group(0), days))
    return list(found.values())


def moved_by(days: int) -> str:
    """ "7 days later", "1 day earlier"."""
    return f"{abs(days)} day{'s' if abs(days) != 1 else ''} {'later' if days > 0 else 'earlier'}"


def moved_lines(text: str) -> list[str]:
    """``"back a week" moves a date 7 days later, from that date (not from today)``, one
    line per phrase ``moves_said`` finds: moving a date by a week is a count, and the 1.5B
    local model, asked to "push everything on my todo list back a week", set each task
    the date it already had."""
    return [
        f'"{phrase}" moves a date {moved_by(days)}, from that date (not from today)'
        for phrase, days in moves_said(text)
    ]
