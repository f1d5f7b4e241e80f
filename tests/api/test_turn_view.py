"""The status a client sees for a turn: the workflow's live one, except while a queued
turn's workflow is still in its opening and reports its default."""

import pytest

from api.turn_view import shown_status


def test_a_queued_turn_whose_workflow_has_not_opened_yet_shows_queued():
    # The workflow starts as "running" and says "queued" only once its opening has found
    # the turn before still saving; until then the row (queued by the API) is the truth.
    assert shown_status("queued", "running") == "queued"


@pytest.mark.parametrize(
    ("row", "live", "shown"),
    [
        ("queued", "queued", "queued"),
        ("queued", "replied", "replied"),  # past its opening: the row is only late
        ("queued", "awaiting_input", "awaiting_input"),
        ("running", "running", "running"),
        ("running", "replied", "replied"),
    ],
)
def test_otherwise_the_workflow_says_what_the_turn_is_doing(row, live, shown):
    assert shown_status(row, live) == shown
