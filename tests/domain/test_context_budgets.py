"""Each node's context stays within its token budget over a long conversation, dropping the
least important layers first and saying what it dropped."""

from __future__ import annotations

import uuid

from domain.context import ACT_BUDGET, CONDENSED_BUDGET, act_context, think_context
from domain.conversation import ConversationState, StepResult, TurnExecutionSummary, TurnRecord
from domain.nodes import ThinkStep, UnderstandOutput
from domain.registry import SessionIdRegistry
from domain.tokens import estimate_tokens
from domain.tool_results import ToolEntry


def long_conversation() -> tuple[ConversationState, SessionIdRegistry]:
    registry = SessionIdRegistry()
    registry.begin_turn(40)
    for n in range(1, 60):
        registry.ref_for_uuid(str(uuid.UUID(int=n)), "recipe", action="read", label=f"Dish {n}")
    state = ConversationState(
        recent_turns=[
            TurnRecord(
                turn=n,
                user_message="plan dinners " * 200,
                assistant_response="Here are ideas " * 300,
            )
            for n in (37, 38, 39)
        ],
        history_summary="Earlier the user planned many dinners. " * 1500,
        turn_summaries=[
            TurnExecutionSummary(turn_num=n, think_goal="plan " * 300) for n in (38, 39)
        ],
        reasoning_summary="Turn 1: plan_direct. " * 2000,
    )
    return state, registry


def test_think_context_fits_its_budget_by_dropping_reasoning_then_conversation():
    state, registry = long_conversation()
    fitted = think_context("add milk", UnderstandOutput(), state, registry)
    assert fitted.tokens <= CONDENSED_BUDGET
    assert fitted.dropped == ("Reasoning trace", "Conversation")
    assert fitted.text.startswith("## User request\nadd milk")
    assert "## Entities" in fitted.text


def test_a_small_context_drops_nothing():
    fitted = think_context("add milk", UnderstandOutput(), ConversationState(), SessionIdRegistry())
    assert fitted.dropped == ()
    assert fitted.tokens == estimate_tokens(fitted.text)


def test_act_context_keeps_the_step_and_its_tool_results_and_drops_background_first():
    state, registry = long_conversation()
    plan = [ThinkStep(description="Read recipes", step_type="read", subdomain="recipes")]
    huge_rows = [
        ToolEntry(
            tool="db_read", rows=[{"id": f"recipe_{i}", "name": "x " * 50} for i in range(400)]
        )
    ]
    fitted = act_context(
        goal="find dinner",
        plan=plan,
        step_index=0,
        prior_results=[],
        tool_results=huge_rows,
        registry=registry,
        state=state,
        budget=3_000,
    )
    assert fitted.tokens <= 3_000
    assert fitted.dropped[:2] == ("Conversation", "Entities")
    assert "## Current step\n0. Read recipes" in fitted.text
    # the read itself is cut, not dropped: Act sees its first rows
    assert fitted.cut == "This step's tool results so far"
    assert '"id": "recipe_0"' in fitted.text and '"recipe_399"' not in fitted.text
    assert ACT_BUDGET == 25_000


def test_generated_content_for_a_write_step_outlasts_earlier_step_results():
    registry = SessionIdRegistry()
    registry.register_generated("recipe", {"name": "Lime Chicken", "steps": ["a"] * 50})
    plan = [ThinkStep(description="Save it", step_type="write", subdomain="recipes")]
    noisy = StepResult(
        step_index=0, description="noise", step_type="read", subdomain="recipes", data="x " * 3000
    )
    fitted = act_context(
        goal="save",
        plan=plan,
        step_index=0,
        prior_results=[noisy],
        tool_results=[],
        registry=registry,
        state=ConversationState(),
        budget=1_500,
    )
    assert "Previous steps this turn" in fitted.dropped
    assert "Lime Chicken" in fitted.text
