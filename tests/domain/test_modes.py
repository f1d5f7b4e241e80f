"""The mode's flags (seed 000's mode table), and the rules 1.0's workflow held Think's
decision to (``apply_mode_1_0``: turns started on 1.0; today's are ``domain.enforced``)."""

from __future__ import annotations

from domain.modes import MODES, apply_mode_1_0
from domain.nodes import ThinkOutput, ThinkStep


def step(kind: str, subdomain: str = "shopping") -> ThinkStep:
    return ThinkStep(description=f"{kind} it", step_type=kind, subdomain=subdomain)


def plan(*steps: ThinkStep) -> ThinkOutput:
    return ThinkOutput(goal="Stock up", decision="plan_direct", steps=list(steps))


def proposal(*steps: ThinkStep) -> ThinkOutput:
    return ThinkOutput(
        goal="Stock up", decision="propose", proposal_message="Ok?", steps=list(steps)
    )


def test_the_flags_are_the_seeds():
    assert [(m, c.skip_think, c.proposal_required) for m, c in MODES.items()] == [
        ("quick", True, False),
        ("plan", False, True),
        ("create", False, False),
    ]


def test_quick_mode_runs_a_proposal_at_once():
    decided = apply_mode_1_0("quick", proposal(step("write")))
    assert decided.decision == "plan_direct" and decided.proposal_message is None


def test_plan_mode_proposes_a_plan_that_writes_more_than_once():
    decided = apply_mode_1_0("plan", plan(step("write"), step("write", "inventory")))
    assert decided.decision == "propose"
    assert decided.proposal_message.startswith("This changes your kitchen in 2 steps")


def test_plan_mode_runs_a_simple_plan_directly():
    simple = plan(step("read", "recipes"), step("write", "meal_plans"))
    assert apply_mode_1_0("plan", simple) == simple


def test_create_mode_forces_no_proposal_and_keeps_thinks_own():
    writes_twice = plan(step("write"), step("write", "inventory"))
    assert apply_mode_1_0("create", writes_twice) == writes_twice
    assert apply_mode_1_0("create", proposal(step("write"))).decision == "propose"


def test_a_question_stands_in_every_mode():
    question = ThinkOutput(goal="g", decision="clarify", clarification_questions=["Which days?"])
    assert all(apply_mode_1_0(mode, question) == question for mode in MODES)
