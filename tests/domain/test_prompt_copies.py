"""LLM activities get trimmed copies of the registry and the state (so a long conversation's
activity inputs stop growing); every prompt built from them is the one the whole state
gives."""

from __future__ import annotations

import json
import uuid

from domain.context import act_context, reply_context, think_context, understand_context
from domain.conversation import (
    HISTORY_SUMMARY_TOKENS,
    REASONING_SUMMARY_TOKENS,
    ConversationState,
    TurnExecutionSummary,
    TurnRecord,
    add_history,
    record_turn,
)
from domain.nodes import ThinkStep, UnderstandOutput
from domain.registry import SessionIdRegistry
from domain.tokens import estimate_tokens


def fifty_turns() -> tuple[ConversationState, SessionIdRegistry]:
    registry = SessionIdRegistry()
    state = ConversationState()
    for turn in range(1, 51):
        registry.begin_turn(turn)
        rows = [
            {"id": str(uuid.UUID(int=turn * 10 + i)), "name": f"item {turn}.{i}"} for i in range(5)
        ]
        registry.translate_read_output(rows, "inventory")
        if turn % 7 == 0:
            ref = registry.register_generated("recipe", {"name": f"Dish {turn}", "servings": 2})
            state.content_archive[ref] = {"name": f"Dish {turn}"}
        if turn == 3:
            registry.set_active_reason("inv_1", "the user's favourite")
        record = TurnRecord(
            turn=turn,
            user_message=f"message {turn}",
            assistant_response=f"answer {turn}",
            entities=[f"inv_{(turn - 1) * 5 + 1}"],
        )
        state, evicted = record_turn(
            state,
            record,
            TurnExecutionSummary(turn_num=turn, think_goal="plan the dinners of the week " * 4),
            [],
        )
        if evicted is not None:
            state = add_history(
                state,
                f"Turn {evicted.turn}: the user asked about the dinners of the week " * 3
                + f"item {turn}.",
            )
    state.registry = registry.clone()
    return state, registry


def test_prompts_from_the_trimmed_copies_are_the_prompts_of_the_whole_state():
    state, registry = fifty_turns()
    small_state, small = state.for_prompt(), registry.for_prompt()
    understood = UnderstandOutput(referenced_entities=["inv_1"])
    plan = [ThinkStep(description="Use the dishes", step_type="generate", subdomain="recipes")]
    builders = [
        lambda st, reg: understand_context("hi", st, reg),
        lambda st, reg: think_context("hi", understood, st, reg),
        lambda st, reg: act_context(
            goal="g",
            plan=plan,
            step_index=0,
            prior_results=[],
            tool_results=[],
            registry=reg,
            state=st,
        ),
        lambda st, reg: reply_context(
            message="hi",
            goal="g",
            step_results=[],
            quick_result=None,
            blocked=None,
            breakers=[],
            registry=reg,
            state=st,
        ),
    ]
    for build in builders:
        assert build(small_state, small).text == build(state, registry).text
    whole = len(json.dumps(state.model_dump(mode="json")))
    trimmed = len(json.dumps(small_state.model_dump(mode="json")))
    trimmed += len(registry.for_prompt().model_dump_json())
    assert trimmed < whole / 2


def test_the_trimmed_registry_keeps_memory_unsaved_content_and_recent_refs():
    _, registry = fifty_turns()
    small = registry.for_prompt(recent_turns=6)
    kept = small.known_refs()
    assert "inv_1" in kept and small.entries["inv_1"].active_reason == "the user's favourite"
    assert [r for r in kept if r.startswith("gen_")] == [f"gen_recipe_{n}" for n in range(1, 8)]
    recent = [f"inv_{n}" for n in range(5 * 44 + 1, 251)]  # read in turns 45 to 50
    assert [r for r in kept if r.startswith("inv_") and r != "inv_1"] == recent
    assert small.resolve("inv_250") == registry.resolve("inv_250")


def test_the_compressed_summaries_stop_growing():
    state, _ = fifty_turns()
    assert estimate_tokens(state.history_summary) <= HISTORY_SUMMARY_TOKENS
    assert estimate_tokens(state.reasoning_summary) <= REASONING_SUMMARY_TOKENS
    assert state.history_summary.endswith("item 50.")  # the newest lines are the ones kept
    assert "Turn 48:" in state.reasoning_summary
    assert "Turn 1:" not in state.history_summary and "Turn 1:" not in state.reasoning_summary
