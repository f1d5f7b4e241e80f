"""The guard over the suite's model requests flags what it must (it runs at session end)."""

from __future__ import annotations

from tests.activities.llm.fake_openai import ReceivedRequest
from tests.workflows.wire import WireLog


class _Recorded:
    def __init__(self, *texts: str) -> None:
        self.requests = [
            ReceivedRequest(body={"messages": [{"role": "user", "content": t}]}, headers={})
            for t in texts
        ]


def test_a_uuid_anywhere_in_a_request_is_a_problem_naming_the_node():
    log = WireLog(_Recorded("cook recipe_1", "row 254F2F80-01F6-448B-A88D-A52F0E3A45B0"), None)
    log.nodes = ["understand", "think"]
    (problem,) = log.problems()
    assert problem.startswith("think: a UUID reached the model") and "row 254F2F80" in problem
