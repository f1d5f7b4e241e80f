"""A turn's workflow holds a working copy of the state: the refs its prompts can show and the
unsaved content. What the turn changes in it, applied to the saved state, is what the same
changes make of the whole state; so is the turn's ending (``end_turn``)."""

from __future__ import annotations

import json
import uuid

from domain.conversation import (
    ConversationState,
    StepResult,
    SummaryParts,
    TurnEnding,
    TurnExecutionSummary,
    TurnRecord,
    add_history,
    conclude_turn,
    end_turn,
    record_turn,
)
from domain.registry import SessionIdRegistry
from tests.domain.test_prompt_copies import fifty_turns

TURN = 51
OLD_ROW = {"id": str(uuid.UUID(int=10)), "name": "item 1.0"}  # inv_1... read in turn 1
NEW_ROW = {"id": str(uuid.uuid4()), "name": "saffron"}


def play_turn(registry: SessionIdRegistry) -> None:
    """What a turn does to its registry: reads an old row again, registers a new one."""
    registry.begin_turn(TURN)
    registry.translate_read_output([dict(OLD_ROW), dict(NEW_ROW)], "inventory")


def test_the_working_copy_holds_what_the_turns_prompts_show_and_the_archives_keys():
    state, registry = fifty_turns()
    working = state.for_workflow(TURN)
    copy = working.registry
    registry.begin_turn(TURN)
    assert copy.known_refs() == registry.for_prompt().known_refs()
    assert copy.counters == registry.counters  # new refs are numbered as in the whole
    assert working.content_archive == dict.fromkeys(state.content_archive)
    assert working.recent_turns == [] and working.history_summary == ""
    assert (
        len(json.dumps(working.model_dump(mode="json")))
        < len(json.dumps(state.model_dump(mode="json"))) / 4
    )


def test_a_turns_changes_to_its_working_copy_make_the_saved_registry_what_the_whole_becomes():
    state, whole = fifty_turns()
    working = state.for_workflow(TURN).registry
    base = working.clone()
    play_turn(whole)
    # The working copy does not know the old row: CRUD (``activities.crud``) resolves it in
    # the saved registry and sends its whole entry back; here, the saved entry is given.
    saved = state.registry.clone()
    working.adopt(saved.entries_of(["inv_1"]))
    play_turn(working)
    assert working.resolve("inv_1") == OLD_ROW["id"]  # the old row kept its ref
    saved.apply_delta(working.delta_since(base))
    assert saved == whole


def ending_parts() -> tuple[TurnRecord, TurnExecutionSummary, list[StepResult]]:
    record = TurnRecord(turn=TURN, user_message="add saffron", assistant_response="Added.")
    summary = TurnExecutionSummary(turn_num=TURN, think_goal="Add saffron")
    step = StepResult(
        step_index=0, description="Add saffron", step_type="write", subdomain="inventory"
    )
    return record, summary, [step]


def test_ending_a_turn_on_the_saved_state_is_concluding_it_on_the_whole_state():
    saved, whole = fifty_turns()
    working = saved.for_workflow(TURN).registry
    base = working.clone()
    play_turn(whole)
    play_turn(working)
    record, summary, steps = ending_parts()
    parts = SummaryParts(
        assistant_summary="Added saffron.",
        engagement_summary="Stocking up.",
        conversation_phase="executing",
        compressed="Turn 48: message 48",
    )
    archive = {"gen_recipe_7": {"name": "Dish 49"}}
    ending = TurnEnding(
        registry=working.delta_since(base),
        content_archive=archive,
        record=record,
        summary=summary,
        step_results=steps,
        parts=parts,
    )
    now = saved.model_copy(update={"registry": whole, "content_archive": archive})
    assert end_turn(saved, ending) == conclude_turn(now, record, summary, steps, parts)


def test_a_turn_ended_without_the_model_is_recorded_as_said_with_its_note():
    saved, _ = fifty_turns()
    record, summary, steps = ending_parts()
    note = f"Turn {TURN} expired waiting for an answer to a proposal."
    ending = TurnEnding(
        content_archive=saved.content_archive,
        record=record,
        summary=summary,
        step_results=steps,
        note=note,
    )
    expected, evicted = record_turn(saved, record, summary, steps)
    assert evicted is not None
    expected = add_history(expected, f"Turn {evicted.turn}: {evicted.user_message[:200]}")
    expected.notes.append(note)
    assert end_turn(saved, ending) == expected
    assert end_turn(saved, TurnEnding(note=note)).notes == [*saved.notes, note]
    assert end_turn(saved, TurnEnding(note=note)).recent_turns == saved.recent_turns


def test_ending_leaves_the_saved_state_as_it_was():
    saved, _ = fifty_turns()
    before = saved.model_dump()
    record, summary, steps = ending_parts()
    end_turn(saved, TurnEnding(record=record, summary=summary, step_results=steps, note="n"))
    assert saved.model_dump() == before
    assert isinstance(saved, ConversationState)


def test_a_copy_of_the_archives_keys_ends_with_the_saved_content_and_its_own():
    stored = ConversationState(
        content_archive={"gen_recipe_1": {"name": "Soup"}, "gen_recipe_2": {"name": "Dal"}}
    )
    copy = stored.for_workflow(TURN)
    assert copy.content_archive == {"gen_recipe_1": None, "gen_recipe_2": None}
    # The turn dropped gen_recipe_2 (saved) and generated gen_recipe_3.
    left = {"gen_recipe_1": None, "gen_recipe_3": {"name": "Naan"}}
    ended = end_turn(stored, TurnEnding(content_archive=left))
    assert ended.content_archive == {
        "gen_recipe_1": {"name": "Soup"},
        "gen_recipe_3": {"name": "Naan"},
    }
