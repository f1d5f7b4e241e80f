"""The guard over the suite's model requests flags what it must (it runs at session end)."""

from __future__ import annotations

from tests.activities.llm.fake_openai import ReceivedRequest
from tests.workflows.wire import WireLog

TODAY = (
    "## Today\nNow: Tuesday 2026-11-24, 09:00 (UTC, UTC+00:00)\n"
    "This week: Mon 2026-11-23, Tue 2026-11-24 (today), …\nNext week: Mon 2026-11-30, …\n"
)


class _Recorded:
    def __init__(self, *texts: str) -> None:
        self.requests = [
            ReceivedRequest(
                body={
                    "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": t}]
                },
                headers={},
            )
            for t in texts
        ]


def test_a_uuid_anywhere_in_a_request_is_a_problem_naming_the_node():
    log = WireLog(_Recorded(TODAY, TODAY + "row 254F2F80-01F6-448B-A88D-A52F0E3A45B0"), None)
    log.nodes = ["understand", "think"]
    (problem,) = log.problems()
    assert problem.startswith("think: a UUID reached the model") and "row 254F2F80" in problem


def test_a_dated_node_without_the_date_is_a_problem_a_summary_is_not():
    log = WireLog(_Recorded("## Current message\nhi", "## User said\nhi", TODAY), None)
    log.nodes = ["reply", "summarize", "act"]
    (problem,) = log.problems()
    assert problem.startswith("reply: no date and calendar")
