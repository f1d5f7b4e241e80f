"""The day words of a user's message, resolved by the system to the dates the calendar
shows for them, so no model has to count days."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.relative_days import moved_lines, moves_said, named_days

FRIDAY = dt.date(2026, 11, 27)
TUESDAY = dt.date(2026, 11, 24)


@pytest.mark.parametrize(
    ("message", "lines"),
    [
        ("put the dal on next Monday's dinner", ['"next Monday\'s" is Monday 2026-11-30']),
        ("remind me tomorrow", ['"tomorrow" is Saturday 2026-11-28']),
        ("pasta tonight", ['"tonight" is Friday 2026-11-27']),
        ("I opened it yesterday", ['"yesterday" is Thursday 2026-11-26']),
        ("the day after tomorrow", ['"the day after tomorrow" is Sunday 2026-11-29']),
        ("day after tomorrow", ['"day after tomorrow" is Sunday 2026-11-29']),
        # as people type
        ("whats for dinner tmrw", ['"tmrw" is Saturday 2026-11-28']),
        ("defrost it tmr", ['"tmr" is Saturday 2026-11-28']),
        ("what do i need for mondays dinner", ['"mondays" is Monday 2026-11-30 (the coming one)']),
        ("we have pasta on mondays", []),  # every Monday: no one day
        ("tacos on sat", ['"on sat" is Saturday 2026-11-28 (the coming one)']),
        ("move it to next thurs", ['"next thurs" is Thursday 2026-12-03']),
        ("anything planned this wknd", ['"this wknd" is Saturday 2026-11-28 to Sunday 2026-11-29']),
        ("in 3 days", ['"in 3 days" is Monday 2026-11-30']),
        ("in two days", ['"in two days" is Sunday 2026-11-29']),
        (
            "expiring in the next three days",
            ['"the next three days" is Friday 2026-11-27 to Monday 2026-11-30'],
        ),
        ("use within 2 days", ['"within 2 days" is Friday 2026-11-27 to Sunday 2026-11-29']),
        ("this Saturday", ['"this Saturday" is Saturday 2026-11-28']),
        ("on sunday", ['"sunday" is Sunday 2026-11-29 (the coming one)']),
        ("on friday", ['"friday" is Friday 2026-11-27 (today)']),
        ("on wednesday", ['"wednesday" is Wednesday 2026-12-02 (the coming one)']),
        ("plan next week", ['"next week" is Monday 2026-11-30 to Sunday 2026-12-06']),
        ("what's on this week", ['"this week" is Monday 2026-11-23 to Sunday 2026-11-29']),
        # a span's possessive typed without its apostrophe
        ("clear next weeks plan", ['"next weeks" is Monday 2026-11-30 to Sunday 2026-12-06']),
        ("this weekends plans", ['"this weekends" is Saturday 2026-11-28 to Sunday 2026-11-29']),
        ("for the weekend", ['"the weekend" is Saturday 2026-11-28 to Sunday 2026-11-29']),
        ("next weekend", ['"next weekend" is Saturday 2026-12-05 to Sunday 2026-12-06']),
    ],
)
def test_each_day_phrase_is_the_date_the_calendar_shows_for_it(message: str, lines: list[str]):
    assert named_days(message, FRIDAY) == lines


def test_weekdays_with_next_week_in_the_words_are_next_weeks():
    """Said on a Tuesday, "Monday and Tuesday next week" is not today."""
    assert named_days("dinners on Monday and Tuesday next week", TUESDAY) == [
        '"Monday" is Monday 2026-11-30',
        '"Tuesday" is Tuesday 2026-12-01',
        '"next week" is Monday 2026-11-30 to Sunday 2026-12-06',
    ]
    assert named_days("monday and tuesday", TUESDAY) == [
        '"monday" is Monday 2026-11-30 (the coming one)',
        '"tuesday" is Tuesday 2026-11-24 (today)',
    ]


def test_phrases_come_in_order_each_once_and_words_inside_others_are_not_days():
    assert named_days("Tomorrow or tomorrow, then sunday", FRIDAY) == [
        '"Tomorrow" is Saturday 2026-11-28',
        '"sunday" is Sunday 2026-11-29 (the coming one)',
    ]
    assert named_days("mondays are busy; a todays special; sundaes", FRIDAY) == []
    assert named_days("add two lemons to my shopping list", FRIDAY) == []


@pytest.mark.parametrize("message", ["sun-dried tomatoes", "I sat down with a tea", "wed pasta"])
def test_a_shortened_weekday_is_a_day_only_after_a_word_that_makes_it_one(message: str):
    assert named_days(message, FRIDAY) == []


def test_this_weekday_once_this_weeks_is_past_is_the_coming_one():
    """Said on a Friday, "this Thursday" is no day gone: people plan forward."""
    assert named_days("remind me this Thursday", FRIDAY) == [
        '"this Thursday" is Thursday 2026-12-03 (the coming one; this week\'s is past)'
    ]
    assert named_days("call them this fri", FRIDAY) == ['"this fri" is Friday 2026-11-27']


def test_this_week_said_on_a_sunday_is_the_week_ahead():
    """On a Sunday the calendar's week has only today left; "anything I need to do this
    week?" asks about the days ahead."""
    sunday = dt.date(2026, 11, 29)
    assert named_days("anything i need to do this week?", sunday) == [
        '"this week" is Sunday 2026-11-29 to Sunday 2026-12-06 (said on a Sunday: the week ahead)'
    ]
    assert named_days("what's on next week", sunday) == [
        '"next week" is Monday 2026-11-30 to Sunday 2026-12-06'
    ]


@pytest.mark.parametrize(
    ("message", "moves"),
    [
        ("push everything on my todo list back a week", [("back a week", 7)]),
        ("do the oven a day later than planned", [("a day later", 1)]),
        ("move the dal 3 days later", [("3 days later", 3)]),
        ("push the plumber back by two weeks", [("back by two weeks", 14)]),
        ("bring the dal forward a day", [("forward a day", -1)]),
        ("can we have it a day sooner", [("a day sooner", -1)]),
        ("postpone the plumber by 2 days", [("postpone the plumber by 2 days", 2)]),
        ("delay the dal 2 days", [("delay the dal 2 days", 2)]),
        ("put the oven off a couple of days", [("put the oven off a couple of days", 2)]),
        ("put it off a fortnight", [("put it off a fortnight", 14)]),
        # days from today, or no amount: named_days's, not moves
        ("remind me in a week", []),
        ("a week from today", []),
        ("postpone the oven cleaning until friday", []),
        ("i was back a day ago", []),
    ],
)
def test_words_that_move_a_date_from_its_own_say_by_how_many_days(message: str, moves):
    assert moves_said(message) == moves


def test_each_move_is_a_line_that_says_it_counts_from_the_date_moved():
    """Asked to "push everything on my todo list back a week", the 1.5B local model set
    each task the date it already had."""
    assert moved_lines("push it all back a week, or bring the dal forward a day") == [
        '"back a week" moves a date 7 days later, from that date (not from today)',
        '"forward a day" moves a date 1 day earlier, from that date (not from today)',
    ]
    assert moved_lines("remind me in a week") == []
