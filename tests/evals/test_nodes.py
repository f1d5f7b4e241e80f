"""One node alone against a model (``evals.nodes``, ``alfred eval --node``): the nodes
before it answer from the reference, the rest from the minimal null model, and the node's
answer, as the system holds it, is graded against the reference's."""

from __future__ import annotations

import json

import pytest

from activities.llm.provider import LlmError, LlmRequest
from domain.answers import answer_model
from evals.cassette import CASSETTES_DIR, Cassette, Replay
from evals.live import Switch
from evals.nodes import NodeOnly, grade, graded, plan_node_run, reference_answer, run_node
from evals.null_models import first_option_model, minimal_model
from evals.scenario import load_all

SCENARIOS = load_all()
WRITE_SHOPPING = {
    "goal": "g",
    "outcome": {
        "steps": [
            {"description": "add", "step_type": "write", "subdomain": "shopping", "group": 0}
        ],
        "decision": "plan_direct",
    },
}


def think_request() -> LlmRequest:
    return LlmRequest(
        node="think",
        system="Plan.",
        user="add eggs",
        answer=answer_model("think"),
        complexity="medium",
    )


def reference(scenario_id: str) -> Cassette:
    return Cassette.load(CASSETTES_DIR / "reference", scenario_id)


def cases(node: str):
    return plan_node_run(SCENARIOS, node, reference)


def test_a_node_no_grading_knows_is_refused():
    with pytest.raises(ValueError, match="understand, think"):
        plan_node_run(SCENARIOS, "reply", reference)


def test_think_is_graded_on_its_decision_and_what_the_plan_changes_as_held():
    plan = {
        "goal": "g",
        "outcome": {
            "steps": [
                {"description": "read", "step_type": "read", "subdomain": "inventory", "group": 0},
                {"description": "add", "step_type": "write", "subdomain": "shopping", "group": 0},
                {"description": "add", "step_type": "write", "subdomain": "shopping", "group": 1},
            ],
            "decision": "plan_direct",
        },
    }
    assert graded("think", "ThinkAnswer8", plan, "x") == "plan_direct: write shopping"
    reads = json.dumps(
        {
            "goal": "g",
            "outcome": {
                "steps": [plan["outcome"]["steps"][0]],
                "decision": "propose",
                "proposal_message": "Shall I?",
            },
        }
    )
    assert graded("think", "ThinkAnswer8", reads, "x") == "plan_direct: read inventory"
    with pytest.raises(ValueError):
        graded("think", "ThinkAnswer8", {"goal": "g"}, "x")


def test_understand_is_graded_on_the_path_it_picks_as_held():
    said = {"quick_mode": True, "quick_subdomain": "inventory", "quick_intent": "the pantry"}
    assert graded("understand", "UnderstandAnswer", said, "what's in my pantry?") == (
        "quick inventory"
    )
    assert graded("understand", "UnderstandAnswer", said, "add eggs to my pantry") == "planned"
    echo = {"needs_clarification": True, "clarification_questions": ["Add eggs to my pantry?"]}
    assert graded("understand", "UnderstandAnswer", echo, "add eggs to my pantry") == "planned"


@pytest.mark.parametrize("node", ["think", "understand"])
async def test_the_reference_model_matches_every_case_and_the_null_models_none(node, eval_stack):
    verdicts: dict[str, list[str]] = {"reference": [], "minimal": [], "first option": []}
    left_out = []
    switch = Switch(minimal_model())
    planned = []  # the cases where the reference's path is the default one
    async with eval_stack(switch) as stack:
        for case in cases(node):
            expected = await reference_answer(case, node, stack, switch)
            if expected is None:
                left_out.append(case.scenario.id)
                continue
            models = {
                "reference": Replay(case.reference),
                "minimal": minimal_model(),
                "first option": first_option_model(),
            }
            for name, model in models.items():
                result = await run_node(case, node, expected, model, stack, switch)
                verdicts[name].append(f"{case.scenario.id}: {result.verdict}")
                assert result.answer is not None  # kept as it came, for what the grade leaves out
            if result.reference == "planned":
                planned.append(f"{case.scenario.id}: match")
    assert [v for v in verdicts["reference"] if not v.endswith(": match")] == []
    # the first turn reaches the node in the reference, or the scenario is left out
    assert "brainstorm_then_save" in left_out and "cook_dal" in left_out
    if node == "think":
        assert {"quick_fridge", "which_one"} <= set(left_out)  # quick lookups
        assert len(verdicts["reference"]) >= 15
        assert [v for v in verdicts["minimal"] if v.endswith(": match")] == []
        assert [v for v in verdicts["first option"] if v.endswith(": match")] == []
    else:
        # Understand's answer is a path, and most messages take the planned one, which a
        # model that knows nothing takes too (no question, no quick intent): it matches
        # those and no other, the base rate a report of this node is read against
        assert "quick_fridge" not in left_out and len(verdicts["reference"]) >= 25
        assert 0 < len(planned) < len(verdicts["reference"])
        assert [v for v in verdicts["minimal"] if v.endswith(": match")] == planned
        assert [v for v in verdicts["first option"] if v.endswith(": match")] == planned


async def test_a_model_that_fails_is_an_error_not_a_verdict_on_its_answer():
    class Down:
        name = "down"

        async def complete(self, request):
            raise LlmError("connection refused", kind="connection", retryable=True)

    (case,) = [c for c in cases("think") if c.scenario.id == "add_to_shopping_list"]
    routed = NodeOnly("think", Down(), Replay(case.reference))
    with pytest.raises(LlmError):
        await routed.complete(think_request())
    result = grade(case, "think", ("ThinkAnswer8", WRITE_SHOPPING), routed)
    assert result.verdict == "error" and "connection refused" in result.model


def test_a_node_the_model_never_answered_is_not_reached():
    (case,) = [c for c in cases("think") if c.scenario.id == "add_to_shopping_list"]
    routed = NodeOnly("think", minimal_model(), Replay(case.reference))
    result = grade(case, "think", ("ThinkAnswer8", WRITE_SHOPPING), routed)
    assert (result.verdict, result.reference) == ("not reached", "plan_direct: write shopping")
