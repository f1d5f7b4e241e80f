"""Specification of a recording served back (``evals.cassette.Replay``): what counts as the
run taking another way than recorded."""

from __future__ import annotations

import json

from activities.llm.provider import LlmRequest
from domain.answers import answer_model
from evals.cassette import Call, Cassette, Replay

READ = {"decision": {"action": "tool_call", "tool": "db_read", "table": "recipes"}}
ENDS = {"decision": {"action": "step_complete", "result_summary": "Read the dal."}}
WRITE = {"decision": {"action": "tool_call", "tool": "db_create", "table": "recipe_ingredients"}}


def replay(*calls: tuple[int, dict]) -> Replay:
    recorded = [Call(node="act", step=step, content=json.dumps(c)) for step, c in calls]
    return Replay(Cassette(scenario="s", label="l", calls=recorded))


async def ask(served: Replay, step: int) -> None:
    request = LlmRequest(
        node="act",
        system="",
        user="",
        answer=answer_model("act", step_type="read", subdomain="recipes"),
        step=step,
    )
    await served.complete(request)


async def test_a_read_step_the_run_never_asked_the_model_about_is_not_another_way():
    """The system now runs the reads it adds to a plan (``act_rules.system_read``);
    recordings made before hold the model's answers for them."""
    served = replay((0, READ), (0, ENDS), (1, WRITE))
    await ask(served, 1)
    assert served.unused() == []


async def test_unused_answers_of_a_step_the_run_asked_about_or_that_wrote_are_another_way():
    asked = replay((0, READ), (0, ENDS))
    await ask(asked, 0)  # one answer used, the other left over
    assert asked.unused() == ["act step 0"]
    wrote = replay((0, WRITE), (1, READ))
    await ask(wrote, 1)
    assert wrote.unused() == ["act step 0"]  # a write step's answers: the run went elsewhere
