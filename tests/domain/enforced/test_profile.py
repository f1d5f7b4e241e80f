"""Specification of a statement about the cook or the household kept in the profile
(``domain.enforced.profile``)."""

from __future__ import annotations

from domain.enforced.profile import kept_in_profile
from domain.nodes import ThinkOutput, ThinkStep


def plan(*steps: tuple[str, str, int], decision: str = "plan_direct") -> ThinkOutput:
    return ThinkOutput(
        goal="g",
        decision=decision,
        steps=[
            ThinkStep(description=f"{t} {s}", step_type=t, subdomain=s, group=g)
            for t, s, g in steps
        ],
        proposal_message="Shall I?" if decision == "propose" else None,
    )


def test_a_plan_that_writes_elsewhere_for_a_statement_about_the_cook_writes_the_profile():
    """For "its me my wife and our 2 kids" the 1.5B local model planned meals beside the
    household, and the turn asked which days; for a dislike it changed the dal."""
    dal = plan(("read", "recipes", 0), ("write", "recipes", 1), decision="propose")
    held = kept_in_profile(dal, "my partner hates olives so leave them out")
    assert held.decision == "plan_direct"
    assert [(s.step_type, s.subdomain, s.group) for s in held.steps] == [
        ("write", "preferences", 0)
    ]
    keep = (
        "Save to the user's preferences (disliked_ingredients) what their words say about "
        "them: my partner hates olives so leave them out"
    )
    assert held.steps[0].description == held.goal == keep


def test_the_users_words_are_kept_not_the_plans_reading_of_them():
    """Beside the meals, the 1.5B local model's preference step said "3 adults, no kids"
    for "its me my wife and our 2 kids", and Act set that."""
    meals = plan(("write", "preferences", 0), ("generate", "meal_plans", 1))
    held = kept_in_profile(meals, "it's me, my husband and the baby")
    assert [s.description for s in held.steps] == [
        "Save to the user's preferences (household_adults, household_kids, household_babies) "
        "what their words say about them: it's me, my husband and the baby"
    ]
    only = plan(("read", "meal_plans", 0), ("write", "preferences", 1))  # writes there alone
    assert kept_in_profile(only, "we adore italian food") == only


def test_other_words_and_other_plans_are_left_as_they_are():
    meals = plan(("write", "meal_plans", 0))
    assert kept_in_profile(meals, "chili on friday") == meals  # a meal asked for
    assert kept_in_profile(meals, "do we have a slow cooker?") == meals  # asked
    tasks = plan(("write", "tasks", 0))
    assert kept_in_profile(tasks, "just got a wok, add season it to my tasks") == tasks  # named
    kept = plan(("read", "preferences", 0), ("write", "preferences", 1))
    assert kept_in_profile(kept, "we're a household of three") == kept
    asked = ThinkOutput(goal="g", decision="clarify", clarification_questions=["How many?"])
    assert kept_in_profile(asked, "it's me and the kids") == asked
