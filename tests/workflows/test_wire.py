"""The guard over the suite's model requests flags what it must (it runs at session end)."""

from __future__ import annotations

from activities.llm.schema import strict_schema
from domain.answers import answer_model
from tests.activities.llm.fake_openai import ReceivedRequest
from tests.workflows.wire import WireLog

STRICT = {
    "type": "json_schema",
    "json_schema": {
        "name": "reply",
        "schema": strict_schema(answer_model("reply")),
        "strict": True,
    },
}

TODAY = (
    "## Today\nNow: Tuesday 2026-11-24, morning (UTC, UTC+00:00)\n"
    "This week: Mon 2026-11-23, Tue 2026-11-24 (today), …\nNext week: Mon 2026-11-30, …\n"
)


class _Recorded:
    def __init__(self, *texts: str, response_format: dict | None = None) -> None:
        self.requests = [
            ReceivedRequest(
                body={
                    "messages": [
                        {"role": "system", "content": "s"},
                        {"role": "user", "content": t},
                    ],
                    "response_format": response_format or STRICT,
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


def test_a_schema_not_sent_strict_is_a_problem():
    loose = {"type": "json_schema", "json_schema": {"name": "reply", "schema": {}, "strict": False}}
    log = WireLog(_Recorded(TODAY, response_format=loose), None)
    log.nodes = ["reply"]
    problems = log.problems()
    assert problems[0] == "reply: the schema was not sent strict"
    assert "reply: (root): must be an object, not a union" in problems
