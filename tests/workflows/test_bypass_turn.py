"""cook and brainstorm run as BypassTurnWorkflow: one model call per message from the
session's own history, no database writes, and a handoff the next plan turn acts on."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from temporalio import activity
from temporalio.client import WorkflowFailureError

from activities.payloads import (
    FinishTurnRequest,
    FinishTurnResult,
    MarkTurnRequest,
    MarkTurnResult,
    OpenTurnRequest,
    OpenTurnResult,
)
from domain.crud.calls import DbRead
from domain.registry import SessionIdRegistry
from domain.turn_store import load_conversation
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, keep_history
from tests.workflows.script import bypass, complete, plan, reply, step, understand
from tests.workflows.test_durability import scheduled_activities
from tests.workflows.test_turn_context import pantry_read_nine_turns_ago
from tests.workflows.wire import UUID
from workflows.worker import turn_activities


async def test_a_cook_session_guides_from_its_own_history_and_hands_off_an_update(
    turns: Turns, executor, sessions
):
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    lentils = [{"name": "red lentils", "quantity": 200, "unit": "g"}]
    made = await kitchen.create(
        "recipes",
        [
            {
                "name": "Dal",
                "servings": 2,
                "instructions": ["Rinse.", "Simmer."],
                "recipe_ingredients": lentils,
            }
        ],
    )
    dal = kitchen.registry.resolve(made.rows[0]["id"])
    changed = {"name": "Dal", "servings": 2, "instructions": ["Rinse.", "Simmer with garlic."]}
    script = turns.script(
        bypass("cook", "Step 1: rinse the lentils."),
        bypass("cook", "Step 2: simmer."),
        bypass(
            "cook", "Enjoy!", summary="Cooked dal with garlic.", action="update", recipe=changed
        ),
        understand(referenced_entities=["recipe_1"]),
        plan("Keep the garlic", step("Update recipe_1", "write", "recipes")),
        complete("Nothing written in this test"),
        reply("Noted."),
    )
    async with turns.worker(script):
        first = await turns.start(f"let's cook @[Dal](recipe:{dal})", mode="cook")
        assert (await first.result()).response == "Step 1: rinse the lentils."
        await keep_history(first, "cook_session")
        activities = await scheduled_activities(first)
        second = await (await turns.start("next", mode="cook")).result()
        await (await turns.start("done, keep the garlic", mode="cook")).result()
        state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
        await (await turns.start("keep that change")).result()
        after, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    assert second.response == "Step 2: simmer."
    # One model call; open, mark and finish are the only local activities: no CRUD.
    assert activities == Counter({"bypass": 1, "(local activities)": 3})
    cook_prompts = [c.user for c in script.calls if c.node == "cook"]
    assert '"instructions": ["Rinse.", "Simmer."]' in cook_prompts[1]
    assert "User: let's cook Dal (recipe_1)" in cook_prompts[1]
    assert "Alfred: Step 1" in cook_prompts[1]
    # the mentioned recipe as read, its ingredients by ref: never a UUID
    assert '"recipe_id": "recipe_1"' in cook_prompts[0] and "red lentils" in cook_prompts[0]
    assert not any(UUID.search(prompt) for prompt in cook_prompts)
    assert state.bypass is None
    assert (state.handoff.action, state.handoff.recipe_ref) == ("update", "recipe_1")
    assert "Cooked dal with garlic." in state.recent_turns[-1].assistant_response
    understand_prompt = next(c.user for c in script.calls if c.node == "understand")
    assert "## Handoff from a cook / brainstorm session" in understand_prompt
    assert "Changes to `recipe_1` (saved): update it on request." in understand_prompt
    assert after.handoff is None  # seen by one plan turn, then gone
    (row,) = (await kitchen.run(DbRead(table="recipes"))).rows
    assert row["instructions"] == ["Rinse.", "Simmer."]  # cook mode wrote nothing


async def test_brainstorm_without_tools_hands_off_a_recipe_to_save(turns: Turns, sessions):
    slaw = {"name": "Lime Slaw", "servings": 2, "instructions": ["Shred.", "Dress."]}
    script = turns.script(
        bypass("brainstorm", "Slaw, salsa or pickles?"),
        bypass("brainstorm", "Slaw it is.", summary="A lime slaw.", action="save", recipe=slaw),
    )
    async with turns.worker(script):
        await (await turns.start("ideas for a side?", mode="brainstorm")).result()
        handle = await turns.start("let's keep the slaw", mode="brainstorm")
        done = await handle.result()
        await keep_history(handle, "brainstorm_handoff")
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    assert done.status == "completed"
    registry = state.registry
    assert registry.get_truly_pending_artifacts() == {"gen_recipe_1": slaw}
    assert state.handoff.recipe_ref == "gen_recipe_1"


async def test_a_bypass_turn_loads_a_working_copy_and_saves_only_what_it_changed(
    turns: Turns, executor, sessions
):
    """The pantry was read nine turns ago: a brainstorm message neither loads those refs
    nor sends them back, and they are still saved after the handoff lands."""
    kitchen = await pantry_read_nine_turns_ago(turns, executor, sessions)
    slaw = {"name": "Lime Slaw", "servings": 2, "instructions": ["Shred.", "Dress."]}
    script = turns.script(
        bypass("brainstorm", "Slaw it is.", summary="A lime slaw.", action="save", recipe=slaw),
    )
    activities = turn_activities(turns.sessions, script)
    real = dict(activities)
    loaded: list[OpenTurnResult] = []
    saved: list[FinishTurnRequest] = []

    @activity.defn(name="open_turn")
    async def open_turn(request: OpenTurnRequest) -> OpenTurnResult:
        loaded.append(await real["open_turn"](request))
        return loaded[-1]

    @activity.defn(name="finish_turn")
    async def finish_turn(request: FinishTurnRequest) -> FinishTurnResult:
        saved.append(request)
        return await real["finish_turn"](request)

    activities.update(open_turn=open_turn, finish_turn=finish_turn)
    async with turns.worker(script, list(activities.values())):
        done = await (await turns.start("let's keep the slaw", mode="brainstorm")).result()
    assert done.status == "completed"
    assert loaded[0].begun is not None
    assert loaded[0].begun.state.registry.entries == {}  # nine turns old: not in the copy
    (finish,) = saved
    assert finish.ending is not None
    assert set(finish.ending.registry.entries) == {"gen_recipe_1"}
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    assert sorted(registry.known_refs()) == sorted([*kitchen.registry.known_refs(), "gen_recipe_1"])
    assert registry.resolve("inv_2") == kitchen.registry.resolve("inv_2")
    assert state.content_archive == {"gen_recipe_1": slaw}
    assert state.handoff.recipe_ref == "gen_recipe_1" and state.bypass is None
    assert "A lime slaw." in state.recent_turns[-1].assistant_response


async def test_a_brainstorm_cancelled_after_its_answer_leaves_no_recipe_behind(
    turns: Turns, sessions
):
    """The handoff registered a recipe in the turn's registry, then the turn was cancelled
    while it marked the reply: what is saved is the message unanswered, no stray gen ref."""
    slaw = {"name": "Lime Slaw", "servings": 2, "instructions": ["Shred.", "Dress."]}
    script = turns.script(
        bypass("brainstorm", "Slaw it is.", summary="A lime slaw.", action="save", recipe=slaw),
    )
    activities = turn_activities(turns.sessions, script)
    marking = asyncio.Event()

    @activity.defn(name="mark_turn")
    async def mark_turn_until_cancelled(request: MarkTurnRequest) -> MarkTurnResult:
        marking.set()
        await asyncio.sleep(60)  # cancelled with the turn long before this ends
        raise AssertionError("not cancelled")

    activities["mark_turn"] = mark_turn_until_cancelled
    async with turns.worker(script, list(activities.values())):
        handle = await turns.start("let's keep the slaw", mode="brainstorm")
        await asyncio.wait_for(marking.wait(), timeout=15)
        await handle.cancel()
        with pytest.raises(WorkflowFailureError):
            await handle.result()
    state, version = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    assert version == 1  # the cancelled turn saved its ending
    assert state.registry.known_refs() == []
    assert state.content_archive == {} and state.handoff is None
