"""Before Understand, a turn loads the user's kitchen: UI changes and @-mentions get refs and
fresh rows, the profile and dashboard reach Think and the steps that use them."""

from __future__ import annotations

import datetime as dt
import uuid
from zoneinfo import ZoneInfo

import pytest
from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from activities.opening import TurnOpening
from activities.payloads import PrepareTurnRequest, PrepareTurnResult
from activities.preparation import TurnContextActivities
from domain.conversation import ConversationState
from domain.db.engine import user_transaction
from domain.kitchen import repository
from domain.registry import SessionIdRegistry
from domain.turn_store import load_conversation
from tests.activities.saved_conversation import save
from tests.kitchen_helper import PANTRY, Kitchen
from tests.replay import opened_by
from tests.workflows.conftest import Turns, keep_history
from tests.workflows.script import complete, plan, reply, step, tool, understand
from workflows.interface import UiChange
from workflows.worker import turn_activities

GENERATE = step("Suggest a side for the mentioned recipe", "generate", "recipes")
READ = step("Read the inventory", "read", "inventory", group=1)


async def test_mentions_and_ui_changes_reach_every_node_with_fresh_data(
    turns: Turns, executor, sessions
):
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    made = await kitchen.create("recipes", [{"name": "Tacos", "servings": 3}])
    tacos = kitchen.registry.resolve(made.rows[0]["id"])
    await kitchen.create("inventory", PANTRY)
    milk = kitchen.registry.resolve("inv_1")
    async with user_transaction(sessions, turns.user_id) as session:
        await repository.put_preferences(session, {"allergies": ["sesame"]})
        await repository.update_row(session, "inventory", _uuid(milk), {"quantity": 7})
    script = turns.script(
        understand(referenced_entities=["recipe_1"]),
        plan("A side for the tacos", GENERATE, READ),
        complete("Suggested a slaw", at_step=0),
        complete("Read it", at_step=1),
        reply("A lime slaw goes with your tacos."),
    )
    stale = UiChange(action="updated", table="inventory", id=milk, data={"quantity": 1})
    async with turns.worker(script):
        handle = await turns.start(f"what goes with @[Tacos](recipe:{tacos})?", ui_changes=[stale])
        result = await handle.result()
        await keep_history(handle, "turn_context")
    assert opened_by(await handle.fetch_history()) == ["open_turn"]
    assert result.status == "completed"
    prompts = {(c.node, c.step): c.user for c in script.calls}
    understand_prompt = prompts[("understand", None)]
    assert "## Current message\nwhat goes with Tacos (recipe_1)?" in understand_prompt
    assert "- `recipe_1` [mentioned:user] Tacos" in understand_prompt
    assert all(tacos not in c.user and milk not in c.user for c in script.calls)
    assert "- `inv_1` [updated:user] milk" in understand_prompt
    think_prompt = prompts[("think", None)]
    assert "## User profile\n- allergies: sesame" in think_prompt
    assert "- recipes: 1" in think_prompt
    generate_prompt, read_prompt = prompts[("act", 0)], prompts[("act", 1)]
    assert '"servings": 3' in generate_prompt and '"quantity": 7' in generate_prompt
    assert "allergies: sesame" in generate_prompt
    assert '"quantity": 7' in read_prompt and "## User profile" not in read_prompt
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    assert state.recent_turns[-1].user_message == "what goes with Tacos (recipe_1)?"
    assert registry.resolve("recipe_1") == tacos
    assert registry.action("recipe_1") == "mentioned:user"
    assert registry.action("inv_1") == "updated:user"


async def pantry_read_nine_turns_ago(turns: Turns, executor, sessions) -> Kitchen:
    """The pantry, created (inv_1…) in turn 1 of a conversation saved after nine turns:
    older than the refs a turn's working copy holds. The next turn is turn 10."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    kitchen.registry.begin_turn(1)
    await kitchen.create("inventory", PANTRY)
    saved = ConversationState(registry=kitchen.registry)
    await save(sessions, turns.user_id, saved, turns=9, conversation=turns.conversation_id)
    turns.next_turn = 10
    return kitchen


async def test_a_row_changed_long_after_it_was_read_keeps_its_ref(turns: Turns, executor, sessions):
    """A turn's workflow holds the refs of the last few turns only; a row read nine turns
    ago and changed in the UI now still has its ref (found in the saved registry), and
    reading it again makes no new one."""
    kitchen = await pantry_read_nine_turns_ago(turns, executor, sessions)
    milk = kitchen.registry.resolve("inv_1")
    script = turns.script(
        understand(),
        plan("Check the milk", step("Read the inventory", "read", "inventory")),
        tool("db_read", table="inventory"),
        complete("Read it"),
        reply("You have 3 milk."),
    )
    changed = UiChange(action="updated", table="inventory", id=milk, data={"quantity": 3})
    async with turns.worker(script):
        handle = await turns.start("how much milk now?", ui_changes=[changed])
        assert (await handle.result()).status == "completed"
        await keep_history(handle, "old_ref")
    # turn 10 waited for turn 9's save as a part of opening
    assert opened_by(await handle.fetch_history()) == ["open_turn"]
    assert "- `inv_1` [updated:user] milk" in script.calls[0].user
    assert all("inv_5" not in c.user for c in script.calls)
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    assert registry.resolve("inv_1") == milk
    assert registry.counters == kitchen.registry.counters
    assert registry.last_referenced("inv_1") == 10


async def test_a_completion_naming_a_ref_from_long_ago_is_not_flagged_as_unknown(
    turns: Turns, executor, sessions
):
    """The workflow's copy holds six turns of refs; a step that names an older one (as a
    conversation summary may) is not told it names refs that do not exist: the act
    activity sends the saved entries of the refs a completion names. A ref no registry
    holds still is."""
    kitchen = await pantry_read_nine_turns_ago(turns, executor, sessions)
    script = turns.script(
        understand(),
        plan("Think it over", step("Weigh the milk against the eggs", "analyze", "inventory")),
        complete("inv_1 lasts longer than inv_2; inv_99 is gone"),
        reply("The milk lasts longer."),
    )
    async with turns.worker(script):
        handle = await turns.start("which lasts longer, the milk or the eggs?")
        assert (await handle.result()).status == "completed"
        await keep_history(handle, "named_old_ref")
    reply_prompt = script.calls[-1].user
    assert "it names refs that do not exist: inv_99" in reply_prompt
    assert "inv_1," not in reply_prompt and "inv_2," not in reply_prompt
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    assert registry.resolve("inv_2") == kitchen.registry.resolve("inv_2")


async def test_parallel_steps_that_meet_old_refs_make_no_new_refs(turns: Turns, executor, sessions):
    """Two steps of one group: one reads the pantry (its old rows come with their saved
    refs), the other names inv_2 from long ago. Every row keeps its ref: no second ref is
    made for a row the conversation already had."""
    kitchen = await pantry_read_nine_turns_ago(turns, executor, sessions)
    both = (
        step("Read the inventory", "read", "inventory"),
        step("Weigh the eggs", "analyze", "inventory"),
    )
    script = turns.script(
        understand(),
        plan("Check the pantry", *both),
        tool("db_read", table="inventory", at_step=0),
        complete("Read it", at_step=0),
        complete("inv_2 keeps for weeks", at_step=1),
        reply("All there; the eggs keep."),
    )
    async with turns.worker(script):
        handle = await turns.start("check the pantry and the eggs")
        assert (await handle.result()).status == "completed"
        await keep_history(handle, "old_refs_in_parallel")
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    assert registry.counters == kitchen.registry.counters
    assert {r: e.uuid for r, e in registry.entries.items()} == {
        r: e.uuid for r, e in kitchen.registry.entries.items()
    }
    assert all("names refs that do not exist" not in c.user for c in script.calls)


async def test_understand_can_keep_a_ref_from_long_ago_active(turns: Turns, executor, sessions):
    """Understand names a row nine turns old (from a summary, say): the activity sends its
    saved entry, so the turn touches and keeps it, instead of ignoring an "unknown" ref."""
    kitchen = await pantry_read_nine_turns_ago(turns, executor, sessions)
    script = turns.script(
        understand(
            referenced_entities=["inv_2"],
            entity_curation={"retain_active": [{"ref": "inv_2", "reason": "the eggs in question"}]},
        ),
        plan("Think it over", step("Weigh the eggs", "analyze", "inventory")),
        complete("Eggs keep for weeks"),
        reply("They keep for weeks."),
    )
    async with turns.worker(script):
        handle = await turns.start("and the eggs from before?")
        assert (await handle.result()).status == "completed"
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    assert registry.last_referenced("inv_2") == 10
    assert registry.entries["inv_2"].active_reason == "the eggs in question"
    assert registry.counters == kitchen.registry.counters  # no new ref was made


async def test_a_mention_of_another_users_recipe_is_reported_and_not_registered(
    turns: Turns, executor, other_user, sessions
):
    theirs = Kitchen(executor, other_user, SessionIdRegistry())
    made = await theirs.create("recipes", [{"name": "Secret Paella"}])
    paella = theirs.registry.resolve(made.rows[0]["id"])
    script = turns.script(
        understand(needs_clarification=False),
        plan("Answer", step("Look for paella", "read", "recipes")),
        complete("No paella"),
        reply("I can't find that recipe in your kitchen."),
    )
    async with turns.worker(script):
        result = await (await turns.start(f"cook @[Paella](recipe:{paella})")).result()
    assert result.status == "completed"
    understand_prompt = script.calls[0].user
    assert "## Current message\ncook Paella\n" in understand_prompt
    assert "mentioned but not found in the user's kitchen: Paella" in understand_prompt
    assert paella not in "".join(c.user for c in script.calls)
    assert "Secret Paella" not in "".join(c.user for c in script.calls)
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    assert state.registry.known_refs() == []


def _uuid(value: str) -> uuid.UUID:
    return uuid.UUID(value)


async def test_understands_curation_is_applied_and_recorded_in_the_turn_summary(
    turns: Turns, sessions
):
    generate = step("Write a soup", "generate", "recipes")
    script = turns.script(
        understand(),
        plan("A soup", generate),
        complete("Wrote it", artifacts=[{"type": "recipe", "content": {"name": "Soup"}}]),
        reply("Here is a soup."),
        understand(
            referenced_entities=["gen_recipe_1"],
            entity_curation={
                "retain_active": [{"ref": "gen_recipe_1", "reason": "the soup being planned"}],
                "drop": ["recipe_42"],
            },
        ),
        plan("Think about bread", step("Suggest bread", "analyze", "recipes")),
        complete("Sourdough"),
        reply("Sourdough goes with it."),
    )
    async with turns.worker(script):
        for message in ("make a soup", "what bread goes with it?"):
            assert (await (await turns.start(message)).result()).status == "completed"
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    curation = state.turn_summaries[-1].entity_curation
    assert [(d.ref, d.reason) for d in curation.retained] == [
        ("gen_recipe_1", "the soup being planned")
    ]
    assert curation.dropped == []  # recipe_42 is unknown: ignored, not recorded
    registry = state.registry
    retained = {r: e.active_reason for r, e in registry.entries.items() if e.active_reason}
    assert retained == {"gen_recipe_1": "the soup being planned"}


async def test_every_node_is_told_the_date_and_time_in_the_users_timezone(turns: Turns, sessions):
    async with user_transaction(sessions, turns.user_id) as session:
        await repository.put_preferences(session, {"timezone": "Asia/Tokyo"})
    script = turns.script(
        understand(),
        plan("Plan Monday's dinner", step("Read the inventory", "read", "inventory")),
        complete("Read it"),
        reply("Monday it is."),
    )
    async with turns.worker(script):
        handle = await turns.start("plan dinner for next Monday")
        await handle.result()
        history = await handle.fetch_history()
    started = history.events[0].event_time.ToDatetime(tzinfo=dt.UTC)
    tokyo = started.astimezone(ZoneInfo("Asia/Tokyo"))
    expected = f"## Today\nNow: {tokyo:%A %Y-%m-%d}, "
    for call in script.calls:
        if call.node != "summarize":
            assert expected in call.user and "(Asia/Tokyo, UTC+09:00)" in call.user, call.node
            assert f"{tokyo:%a %Y-%m-%d} (today)" in call.user


class _ReadFailsOnce(TurnContextActivities):
    """The pre-processing read fails the first time it is asked (inside ``open_turn``)."""

    failed = False

    @activity.defn(name="prepare_turn")
    async def prepare_turn(self, request: PrepareTurnRequest) -> PrepareTurnResult:
        if not self.failed:
            self.failed = True
            raise ApplicationError("the dashboard read timed out")
        return await super().prepare_turn(request)


def opening_whose_read_fails(turns: Turns, script) -> dict:
    activities = turn_activities(turns.sessions, script)
    state = activities["finish_turn"].__self__
    reads = _ReadFailsOnce(turns.sessions)
    activities["open_turn"] = TurnOpening(state, reads).open_turn
    activities["prepare_turn"] = reads.prepare_turn
    return activities


async def test_a_read_that_fails_after_the_turn_began_runs_again_on_its_own(turns: Turns):
    script = turns.script(understand(), reply("Nothing to do."))
    activities = opening_whose_read_fails(turns, script)
    async with turns.worker(script, list(activities.values())):
        handle = await turns.start("hello @[Tacos](recipe:00000000-0000-0000-0000-000000000000)")
        assert (await handle.result()).status == "completed"
    assert opened_by(await handle.fetch_history()) == ["open_turn", "prepare_turn"]
    assert "Tacos" in script.calls[0].user  # the mention, read by the second attempt


async def test_a_read_that_fails_for_good_after_the_turn_began_ends_a_loaded_turn(turns: Turns):
    """The turn's row and state were loaded: the failure is recorded in the conversation
    (its note), as when the read was an activity of its own."""
    script = turns.script()
    activities = opening_whose_read_fails(turns, script)

    @activity.defn(name="prepare_turn")
    async def read_fails(request: PrepareTurnRequest) -> PrepareTurnResult:
        raise ApplicationError("the database refused the read", non_retryable=True)

    activities["prepare_turn"] = read_fails
    async with turns.worker(script, list(activities.values())):
        handle = await turns.start("what's for dinner?")
        with pytest.raises(WorkflowFailureError):
            await handle.result()
        await keep_history(handle, "failed_turn")
    assert opened_by(await handle.fetch_history()) == ["open_turn", "prepare_turn"]
    state, version = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert version == 1
    assert [n for n in state.notes if n.startswith("Turn 1 failed")]
