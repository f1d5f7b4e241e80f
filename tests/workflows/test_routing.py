"""The routing functions mirror the seeds' tables, case by case."""

from __future__ import annotations

import pytest

from domain.nodes import ActDecision, DisambiguationOption, ThinkOutput, ThinkStep, UnderstandOutput
from workflows.routing import (
    Route,
    route_after_answer,
    route_after_think,
    route_after_understand,
    should_continue_act,
)

STEP = ThinkStep(description="read inventory", step_type="read", subdomain="inventory")


def test_understand_clarification_is_asked_first():
    both = UnderstandOutput(
        needs_clarification=True,
        clarification_questions=["Which one?"],
        quick_mode=True,
        quick_intent="show",
        quick_subdomain="inventory",
    )
    assert route_after_understand(both) == Route.ASK


def test_understand_disambiguation_is_asked_first():
    choice = UnderstandOutput(
        needs_disambiguation=True,
        disambiguation_options=[
            DisambiguationOption(ref="recipe_1", label="A"),
            DisambiguationOption(ref="recipe_2", label="B"),
        ],
    )
    assert route_after_understand(choice) == Route.ASK


def test_understand_quick_mode_goes_to_act_quick():
    quick = UnderstandOutput(quick_mode=True, quick_intent="show", quick_subdomain="inventory")
    assert route_after_understand(quick) == Route.ACT_QUICK


def test_understand_defaults_to_think():
    assert route_after_understand(UnderstandOutput()) == Route.THINK


@pytest.mark.parametrize(
    ("decision", "route"),
    [("plan_direct", Route.ACT), ("propose", Route.ASK), ("clarify", Route.ASK)],
)
def test_think_routes_by_decision(decision, route):
    think = ThinkOutput(
        goal="g",
        decision=decision,
        steps=[STEP],
        proposal_message="ok?",
        clarification_questions=["when?"],
    )
    assert route_after_think(think) == route


def test_plan_direct_without_steps_but_with_a_proposal_becomes_a_proposal():
    think = ThinkOutput(goal="g", decision="plan_direct", steps=[], proposal_message="ok?")
    assert think.decision == "propose"
    with pytest.raises(ValueError, match="proposal_message"):
        ThinkOutput(goal="g", decision="propose", steps=[STEP])


@pytest.mark.parametrize(
    ("kind", "action", "planned", "route"),
    [
        ("proposal", "confirm", True, Route.ACT),
        ("proposal", "confirm", False, Route.THINK),
        ("proposal", "answer", True, Route.UNDERSTAND),
        ("clarification", "confirm", False, Route.UNDERSTAND),
        ("clarification", "answer", False, Route.UNDERSTAND),
    ],
)
def test_a_confirmed_proposal_runs_its_steps_and_any_other_answer_goes_to_understand(
    kind, action, planned, route
):
    assert route_after_answer(kind, action, planned=planned) == route


def act(action: str, **fields) -> ActDecision:
    return ActDecision(action=action, **fields)


@pytest.mark.parametrize(
    ("decision", "step_index", "total", "route"),
    [
        (None, 0, 1, "reply"),
        (act("tool_call", tool_call={"tool": "db_read", "params": {}}), 0, 1, "continue"),
        (act("step_complete", result_summary="done"), 0, 2, "continue"),
        (act("step_complete", result_summary="done"), 1, 2, "reply"),
        (act("request_schema", subdomain="recipes"), 0, 1, "continue"),
        (act("retrieve_step", step_index=0), 1, 2, "continue"),
        (act("retrieve_archive", archive_key="gen_recipe_1"), 0, 1, "continue"),
        (act("ask_user", question="Which?"), 0, 1, Route.ASK),
        (act("blocked", reason_code="no_data", details="nothing"), 0, 1, "reply"),
        (act("fail", user_message="sorry"), 0, 1, "fail"),
    ],
)
def test_should_continue_act(decision, step_index, total, route):
    assert should_continue_act(decision, step_index=step_index, total_steps=total) == route


def test_act_decisions_missing_their_fields_are_invalid():
    with pytest.raises(ValueError, match="ask_user.*question"):
        act("ask_user")
    with pytest.raises(ValueError, match="tool_call"):
        act("tool_call")
