"""Act's data actions across steps and turns, and what clients can see while a turn runs."""

from __future__ import annotations

import asyncio
import datetime as dt

from temporalio import activity

from activities.payloads import SummarizeRequest, SummarizeResult
from domain.crud.calls import DbRead
from domain.nodes import GeneratedArtifact
from domain.registry import SessionIdRegistry
from domain.turn_store import load_conversation
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, keep_history, progress, the_turns_day, wait_for
from tests.workflows.script import act, complete, plan, reply, step, tool, understand
from tests.workflows.wire import WireScript
from workflows.act_loop import revisable
from workflows.worker import turn_activities


def read_shopping_list(answer: str) -> list[dict]:
    """A one-step turn that reads the (empty) shopping list and says so."""
    return [
        understand(),
        plan("Read", step("Read list", "read", "shopping")),
        tool("db_read", table="shopping_list"),
        complete("Empty"),
        reply(answer),
    ]


LIME_CHICKEN = {
    "name": "Lime Chicken",
    "servings": 2,
    "instructions": ["Marinate", "Grill"],
    "ingredients": [{"name": "chicken thigh", "quantity": 4}, {"name": "lime", "quantity": 2}],
}


async def test_generated_recipe_is_kept_across_turns_and_saved_in_a_later_turn(
    turns: Turns, executor
):
    script = turns.script(
        understand(),
        plan("Suggest a recipe", step("Create a lime chicken recipe", "generate", "recipes")),
        complete("Created Lime Chicken", artifacts=[{"type": "recipe", "content": LIME_CHICKEN}]),
        reply("Here is Lime Chicken. Shall I save it?"),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Save it", step("Save the recipe", "write", "recipes")),
        tool("db_create", table="recipes", data={"id": "gen_recipe_1"}),
        complete("Saved Lime Chicken"),
        reply("Saved Lime Chicken."),
    )
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    async with turns.worker(script):
        await (await turns.start("suggest something with lime")).result()
        state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
        assert state.content_archive["gen_recipe_1"]["name"] == "Lime Chicken"
        assert state.registry.action("gen_recipe_1") == "generated"
        assert await kitchen.names("recipes") == []  # nothing saved before the save turn
        write_prompt_turn = await (await turns.start("save it")).result()
    assert write_prompt_turn.response == "Saved Lime Chicken."
    save_call = [c for c in script.calls if c.node == "act"][-2]
    assert "Needs creating" in save_call.user and "Lime Chicken" in save_call.user
    rows = (await kitchen.run(DbRead(table="recipes", filters=[]))).rows
    assert [r["name"] for r in rows] == ["Lime Chicken"]
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    assert registry.action("gen_recipe_1") == "created"
    assert registry.get_truly_pending_artifacts() == {}


async def test_a_save_that_copies_the_unsaved_recipe_saves_that_recipe_once(turns: Turns, executor):
    """The copy, "with Lime" added to its name even, is the suggestion saved by its ref."""
    copy = {"name": "Lime Chicken with Lime", "servings": 2, "instructions": ["Grill"]}
    script = turns.script(
        *suggest_lime_chicken("Here is Lime Chicken. Shall I save it?"),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Save it", step("Save the recipe", "write", "recipes")),
        tool("db_create", table="recipes", data=[copy]),
        complete("Saved Lime Chicken"),
        reply("Saved Lime Chicken."),
    )
    async with turns.worker(script):
        await (await turns.start("suggest something with lime")).result()
        handle = await turns.start("save it")
        await handle.result()
        await keep_history(handle, "copy_saved_by_ref")
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("recipes") == ["Lime Chicken"]
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.registry.action("gen_recipe_1") == "created"
    assert state.registry.get_truly_pending_artifacts() == {}


def suggest_lime_chicken(answer: str) -> list[dict]:
    """A turn that generates Lime Chicken and replies ``answer``."""
    return [
        understand(),
        plan("Suggest", step("Create a lime chicken recipe", "generate", "recipes")),
        complete("Created", artifacts=[{"type": "recipe", "content": LIME_CHICKEN}]),
        reply(answer),
    ]


async def test_a_reply_that_only_names_a_generated_recipe_ends_with_the_recipe_in_full(
    turns: Turns,
):
    """Reply was told to show the unsaved recipe in full and only named it: the ending
    shows it, so the user sees what they are asked to save. A reply that shows it gets
    nothing added."""
    named_answer = "How about Lime Chicken? Shall I save it?"
    shown_answer = "Lime Chicken: 4 chicken thigh, 2 lime; marinate, grill."
    script = turns.script(*suggest_lime_chicken(named_answer), *suggest_lime_chicken(shown_answer))
    async with turns.worker(script):
        named = await (await turns.start("suggest something with lime")).result()
        shown = await (await turns.start("another one with lime")).result()
    assert named.response.startswith(f"{named_answer}\n\nHere is the recipe in full:")
    assert "- chicken thigh — 4" in named.response and "2. Grill" in named.response
    assert shown.response == shown_answer


async def test_a_forgotten_suggestion_is_not_offered_to_a_later_step(turns: Turns):
    """Understand dropped the unsaved recipe ("forget that one, ..."): Act's later step is
    shown neither its content nor its archive key, and the conversation keeps no copy."""
    script = turns.script(
        *suggest_lime_chicken("Lime Chicken: 4 chicken thigh, 2 lime; marinate, grill."),
        understand(entity_curation={"drop": ["gen_recipe_1"]}),
        plan("Another", step("Suggest a lemon recipe", "generate", "recipes")),
        complete("Suggested Lemon Rice"),
        reply("How about Lemon Rice?"),
    )
    async with turns.worker(script):
        await (await turns.start("suggest something with lime")).result()
        await (await turns.start("forget that one, suggest something with lemon")).result()
    shown = [c.user for c in script.calls if c.node == "act"][-1]
    assert '"chicken thigh"' not in shown and '"Marinate"' not in shown  # no content
    assert "Archived content keys" not in shown
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert "gen_recipe_1" not in state.content_archive
    assert "gen_recipe_1" not in state.registry.known_refs()


async def test_forgetting_a_suggestion_ends_the_turn_without_a_plan(turns: Turns):
    """ "Forget that recipe, I don't want it" asks nothing more: the suggestion Understand
    dropped is forgotten and the turn says so, with no Think, Act or Reply call (and, as
    nothing ran, no model call to summarize it)."""
    script = turns.script(
        *suggest_lime_chicken("Lime Chicken: 4 chicken thigh, 2 lime; marinate, grill."),
        understand(entity_curation={"drop": ["gen_recipe_1"]}),
    )
    async with turns.worker(script):
        await (await turns.start("suggest something with lime")).result()
        handle = await turns.start("forget that recipe, I don't want it")
        result = await handle.result()
        await keep_history(handle, "forget_ends_the_turn")
    assert result.status == "completed"
    assert result.response == (
        "Forgotten: Lime Chicken. It was never saved, so nothing in your kitchen changed."
    )
    second_turn = [c.node for c in script.calls][5:]
    assert second_turn == ["understand"]
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.registry.get_truly_pending_artifacts() == {}
    assert "gen_recipe_1" not in state.content_archive
    assert state.recent_turns[-1].assistant_response == result.response


async def test_a_forget_understand_missed_forgets_the_one_suggestion_just_shown(
    turns: Turns, executor
):
    """Understand dropped nothing: the one unsaved recipe the last turn showed is what
    "scrap it" can only mean, so it is forgotten all the same, and nothing is stored."""
    script = turns.script(
        *suggest_lime_chicken("Lime Chicken: 4 chicken thigh, 2 lime; marinate, grill."),
        understand(),
    )
    async with turns.worker(script):
        await (await turns.start("suggest something with lime")).result()
        result = await (await turns.start("no thanks, scrap it")).result()
    assert result.response.startswith("Forgotten: Lime Chicken.")
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.registry.known_refs() == []
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("recipes") == []


async def test_retrieve_step_and_retrieve_archive_inject_data_into_the_step(turns: Turns):
    script = turns.script(
        understand(),
        plan(
            "Two steps",
            step("Think of a dish", "generate", "recipes", group=0),
            step("Compare", "analyze", "recipes", group=1),
        ),
        complete(
            "Made soup", at_step=0, artifacts=[{"type": "recipe", "content": {"name": "Miso Soup"}}]
        ),
        act({"action": "retrieve_step", "step_index": 0}, at_step=1),
        act({"action": "retrieve_archive", "archive_key": "gen_recipe_1"}, at_step=1),
        complete("Compared", at_step=1),
        reply("Done."),
    )
    async with turns.worker(script):
        await (await turns.start("think of soup")).result()
    analyze_calls = [c for c in script.calls if c.node == "act" and c.step == 1]
    assert '"retrieved_step": 0' in analyze_calls[1].user
    assert '"archive_key": "gen_recipe_1"' in analyze_calls[2].user
    assert "Miso Soup" in analyze_calls[2].user


async def test_a_later_turn_retrieves_archived_content_its_copy_holds_only_the_key_of(
    turns: Turns,
):
    """Turn 1 generates a soup (unsaved: it is archived). Turn 2's working copy holds the
    archive's keys only; its retrieve_archive gets the content from Act's activity, and
    the ending keeps the saved content under the key."""
    script = turns.script(
        understand(),
        plan("Soup", step("Think of a dish", "generate", "recipes")),
        complete("Made soup", artifacts=[{"type": "recipe", "content": {"name": "Miso Soup"}}]),
        reply("Miso soup."),
        understand(),
        plan("Look again", step("Look at the soup", "analyze", "recipes")),
        act({"action": "retrieve_archive", "archive_key": "gen_recipe_1"}),
        complete("Looked"),
        reply("Still miso."),
    )
    async with turns.worker(script):
        await (await turns.start("think of soup")).result()
        handle = await turns.start("show me that soup again")
        await handle.result()
        await keep_history(handle, "archive_retrieve")
    looked = [c for c in script.calls if c.node == "act"][-1]
    assert '"archive_key": "gen_recipe_1", "content": {"name": "Miso Soup"}' in looked.user
    history = (await handle.fetch_history()).to_json()
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.content_archive == {"gen_recipe_1": {"name": "Miso Soup"}}
    assert '"content_archive":{"gen_recipe_1":null}' in _local_results(history, "open_turn")


def _local_results(history_json: str, activity_type: str) -> str:
    """The decoded results of a local activity's markers in a history, joined."""
    import base64
    import json

    found = []
    for event in json.loads(history_json)["events"]:
        marker = event.get("markerRecordedEventAttributes")
        if not marker or marker.get("markerName") != "core_local_activity":
            continue
        details = marker["details"]
        data = json.loads(base64.b64decode(details["data"]["payloads"][0]["data"]))
        if data.get("activity_type") == activity_type:
            for payload in details.get("result", {}).get("payloads", []):
                found.append(base64.b64decode(payload["data"]).decode())
    return "\n".join(found)


async def test_the_response_is_visible_before_summarize_runs(turns: Turns):
    release = asyncio.Event()
    real_summarize = turn_activities(turns.sessions, turns.script())["summarize"]

    @activity.defn(name="summarize")
    async def slow_summarize(request: SummarizeRequest) -> SummarizeResult:
        await asyncio.wait_for(release.wait(), timeout=15)
        return await real_summarize(request)

    script = turns.script(*read_shopping_list("Your list is empty."))
    activities = turn_activities(turns.sessions, script)
    activities["summarize"] = slow_summarize
    async with turns.worker(script, list(activities.values())):
        handle = await turns.start("what's on my list?")
        seen = await wait_for(handle, lambda p: p.status == "replied")
        assert seen.response == "Your list is empty."
        assert seen.events[-1].type == "done"
        release.set()
        result = await handle.result()
        final = await progress(handle)
    assert result.status == "completed"
    assert [e.type for e in final.events][-2:] == ["done", "context_updated"]


async def test_reading_progress_adds_nothing_to_the_history(turns: Turns):
    script = turns.script(*read_shopping_list("Empty."))
    async with turns.worker(script):
        handle = await turns.start("list?")
        await handle.result()
        before = len((await handle.fetch_history()).events)
        for after in range(0, 10):
            await progress(handle, after)
        assert len((await handle.fetch_history()).events) == before
        assert [e.seq for e in (await progress(handle, 3)).events] == list(
            range(4, len((await progress(handle)).events) + 1)
        )


def revise_lime_chicken(*answers: dict) -> list[dict]:
    """A turn that plans a revision of Lime Chicken; Act answers ``answers``."""
    return [
        understand(referenced_entities=["gen_recipe_1"]),
        plan("More lime", step("Revise gen_recipe_1 with more lime", "generate", "recipes")),
        *answers,
    ]


def revised(content: dict) -> dict:
    return complete(
        "Revised", artifacts=[{"type": "recipe", "ref": "gen_recipe_1", "content": content}]
    )


MORE_LIME = {
    **LIME_CHICKEN,
    "ingredients": [{"name": "chicken thigh"}, {"name": "lime", "quantity": 4}],
}


async def test_a_revision_given_back_unchanged_is_asked_for_once_more(turns: Turns):
    """For "add feta to it" the 1.5B local model returned the suggestion as it was."""
    script = turns.script(
        *suggest_lime_chicken("Here is Lime Chicken."),
        *revise_lime_chicken(revised(LIME_CHICKEN), revised(MORE_LIME)),
        reply("More lime now."),
    )
    async with turns.worker(script):
        await (await turns.start("suggest something with lime")).result()
        handle = await turns.start("more lime in it")
        await handle.result()
        await keep_history(handle, "revision_asked_again")
    again = [c for c in script.calls if c.node == "act"][-1].user
    assert "gen_recipe_1 came back exactly as it was" in again
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.content_archive["gen_recipe_1"] == MORE_LIME


async def test_a_revision_unchanged_twice_ends_the_step_saying_so(turns: Turns):
    script = turns.script(
        *suggest_lime_chicken("Here is Lime Chicken."),
        *revise_lime_chicken(revised(LIME_CHICKEN), revised(LIME_CHICKEN)),
        reply("I could not change it."),
    )
    async with turns.worker(script):
        await (await turns.start("suggest something with lime")).result()
        result = await (await turns.start("more lime in it")).result()
    assert result.response == "I could not change it."
    told = next(c for c in reversed(script.calls) if c.node == "reply").user
    assert "The change you asked for was not made: Lime Chicken is as it was" in told
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.content_archive["gen_recipe_1"] == LIME_CHICKEN


async def test_generated_content_on_a_ref_that_does_not_exist_is_sent_back_once(turns: Turns):
    """A meal planned on gen_recipe_9, which nothing has: the answer is asked for again."""
    on_nothing = {"date": "2026-11-30", "meal_type": "dinner", "recipe_id": "gen_recipe_9"}
    on_a_note = {"date": "2026-11-30", "meal_type": "dinner", "notes": "pasta"}
    script = turns.script(
        understand(),
        plan(
            "Monday",
            step("Read the recipes", "read", "recipes"),
            {**step("Choose Monday's dinner", "generate", "meal_plans"), "group": 1},
        ),
        tool("db_read", table="recipes"),
        complete("Read the recipes"),
        complete("Chose", artifacts=[{"type": "meal", "content": on_nothing}]),
        complete("Chose", artifacts=[{"type": "meal", "content": on_a_note}]),
        reply("Pasta on Monday?"),
    )
    async with turns.worker(script):
        handle = await turns.start("pick a dinner for monday")
        await handle.result()
        await keep_history(handle, "unknown_ref_sent_back")
    again = [c for c in script.calls if c.node == "act"][-1].user
    assert "the content names refs that do not exist: gen_recipe_9" in again
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert list(state.content_archive.values()) == [on_a_note]


def test_a_generate_step_revises_only_unsaved_content_of_the_same_type_in_place():
    registry = SessionIdRegistry()
    registry.begin_turn(1)
    recipe_ref = registry.register_generated("recipe", {"name": "Tacos"})
    task_ref = registry.register_generated("task", {"title": "prep"})

    def artifact(ref: str | None, kind: str = "recipe") -> GeneratedArtifact:
        return GeneratedArtifact(type=kind, content={"name": "Tacos"}, ref=ref)

    assert revisable(registry, artifact(recipe_ref)) == recipe_ref
    assert revisable(registry, artifact(None)) is None
    assert revisable(registry, artifact("gen_recipe_9")) is None  # unknown
    assert revisable(registry, artifact(task_ref)) is None  # a task is not a recipe
    registry.register_created(
        "00000000-0000-0000-0000-000000000001", "recipes", {"name": "Tacos"}, gen_ref=recipe_ref
    )
    assert revisable(registry, artifact(recipe_ref)) is None  # saved: a new item instead


# --- what a write may do, and what a completion may claim ---------------------------------


async def test_the_same_write_twice_in_a_step_is_answered_already_done_not_run(
    turns: Turns, executor
):
    """Made again after another call (the same write as the last call ends the step:
    test_a_step_that_repeats_its_last_call_completes_with_what_it_found)."""
    create = tool("db_create", table="recipes", data={"name": "Dal", "servings": 2})
    script = turns.script(
        understand(),
        plan("Save the dal", step("Save the dal recipe", "write", "recipes")),
        create,
        tool("db_read", table="recipes"),
        create,
        complete("Saved the dal"),
        reply("Saved."),
    )
    async with turns.worker(script):
        handle = await turns.start("save my dal")
        result = await handle.result()
        await keep_history(handle, "same_write_twice")
    assert result.status == "completed"
    names = await Kitchen(executor, turns.user_id, SessionIdRegistry()).names("recipes")
    assert names == ["Dal"]
    after = [c for c in script.calls if c.node == "act"][3].user
    assert "already done: this exact db_create succeeded earlier in this step" in after


async def test_two_writes_of_one_table_planned_side_by_side_make_a_row_once(turns: Turns, executor):
    """For "cleaned the oven. add mop the kitchen floor for wednesday" the 1.5B local model
    planned two task writes in one group and created the mop task in both: run side by
    side, neither step saw the other's row (``plan_rules.consumes``)."""
    mop = {"title": "Mop the kitchen floor", "due_date": "2026-12-02"}
    script = turns.script(
        understand(),
        plan(
            "Mop, and the oven",
            step("Create the task 'Mop the kitchen floor', due 2026-12-02", "write", "tasks"),
            step("Mark 'Clean the oven' done", "write", "tasks"),
        ),
        tool("db_create", at_step=0, table="tasks", data=[mop]),
        complete("Mop task created", at_step=0),
        tool("db_create", at_step=1, table="tasks", data=[mop]),
        reply("Done."),
    )
    async with turns.worker(script):
        handle = await turns.start("cleaned the oven. add mop the kitchen floor for wednesday")
        result = await handle.result()
        await keep_history(handle, "writes_one_after_another")
    assert result.status == "completed"
    titles = await Kitchen(executor, turns.user_id, SessionIdRegistry()).names("tasks")
    assert titles == ["Mop the kitchen floor"]
    told = next(c for c in script.calls if c.node == "reply").user
    assert "an earlier step of this turn had already done it" in told


async def test_a_row_an_earlier_step_created_is_not_created_again(turns: Turns, executor):
    """For "add call mum on saturday and book the dentist monday", one task a step, the
    1.5B local model made both in the first step, then "Call my mother" again in the
    second."""
    mum = {"title": "Call my mother", "due_date": "2026-12-05"}
    dentist = {"title": "Book the dentist", "due_date": "2026-11-30"}
    script = turns.script(
        understand(),
        plan(
            "Two tasks",
            step("Create the task 'Call my mother', due 2026-12-05", "write", "tasks"),
            step("Create the task 'Book the dentist', due 2026-11-30", "write", "tasks", 1),
        ),
        tool("db_create", table="tasks", data=[mum]),
        tool("db_create", table="tasks", data=[dentist]),
        complete("Both tasks created"),
        tool("db_create", table="tasks", data=[mum]),
        reply("Both are on your list."),
    )
    async with turns.worker(script):
        handle = await turns.start("add call mum on saturday and book the dentist monday")
        result = await handle.result()
        await keep_history(handle, "created_earlier")
    assert result.status == "completed"
    titles = await Kitchen(executor, turns.user_id, SessionIdRegistry()).names("tasks")
    assert sorted(titles) == ["Book the dentist", "Call my mother"]
    told = next(c for c in script.calls if c.node == "reply").user
    held = "Nothing more was created; an earlier step of this turn had already done it: Added 1"
    assert f"{held} task: Call my mother." in told


async def test_a_recipe_made_up_to_save_when_nothing_was_unsaved_is_not_saved(
    turns: Turns, executor
):
    """'save it' with nothing generated: the step is blocked, and Reply is told why."""
    made_up = {"name": "Example Recipe", "servings": 4, "instructions": ["Mix.", "Bake."]}
    script = turns.script(
        understand(),
        plan("Save it", step("Save the generated recipe", "write", "recipes")),
        tool("db_create", table="recipes", data=[made_up]),
        reply("There was nothing to save."),
    )
    async with turns.worker(script):
        handle = await turns.start("save it")
        result = await handle.result()
        await keep_history(handle, "made_up_recipe_not_saved")
    assert result.status == "completed"
    assert await Kitchen(executor, turns.user_id, SessionIdRegistry()).names("recipes") == []
    told = script.calls[-2] if script.calls[-1].node == "summarize" else script.calls[-1]
    assert told.node == "reply"
    assert "nothing_to_save" in told.user and "'Example Recipe'" in told.user


async def test_a_list_row_named_with_its_amount_is_refused_and_made_again_split(
    turns: Turns, executor
):
    """The refusal tells Act how to split "3 rolls of paper towels"; its next call does."""
    script = turns.script(
        understand(),
        plan(
            "Towels", step("Add 3 rolls of paper towels to the shopping list", "write", "shopping")
        ),
        tool("db_create", table="shopping_list", data=[{"name": "3 rolls of paper towels"}]),
        tool(
            "db_create",
            table="shopping_list",
            data=[{"name": "paper towels", "quantity": 3, "unit": "roll"}],
        ),
        complete("Added paper towels"),
        reply("Paper towels (3 rolls) are on your list."),
    )
    async with turns.worker(script):
        handle = await turns.start("3 rolls of paper towels on the list")
        result = await handle.result()
        await keep_history(handle, "amount_in_name")
    assert result.status == "completed"
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    rows = (await kitchen.run(DbRead(table="shopping_list"))).rows
    assert [(r["name"], r["quantity"], r["unit"]) for r in rows] == [("paper towels", 3, "roll")]
    told = [c for c in script.calls if c.node == "act"][1].user
    assert "name the thing alone ('paper towels') and put 3 in quantity and 'rolls' in unit" in told


async def sent_back(turns: Turns, script, message: str, history: str) -> str:
    """Run ``message`` (its history kept as ``<history>_sent_back``): the prompt of the
    Act call that follows the one sent back (the step's third)."""
    async with turns.worker(script):
        handle = await turns.start(message)
        await handle.result()
        await keep_history(handle, f"{history}_sent_back")
    return [c for c in script.calls if c.node == "act"][2].user


async def test_a_write_step_reading_again_what_it_read_is_sent_back_to_write(
    turns: Turns, executor
):
    """The read is not run twice: Act is told it has the read's answer and that its step
    is a write, in the same activity, and its second answer adds the rows."""
    empty = {"table": "shopping_list", "filters": [{"field": "name", "op": "=", "value": "butter"}]}
    script = turns.script(
        understand(),
        plan("Butter on the list", step("Add butter to the shopping list", "write", "shopping")),
        tool("db_read", **empty),
        tool("db_read", **empty),
        tool("db_create", table="shopping_list", data={"name": "butter"}),
        complete("Added butter"),
        reply("Butter is on the list."),
    )
    asked_again = await sent_back(turns, script, "butter on the shopping list pls", "reread")
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("shopping_list") == ["butter"]
    assert "not run: this step made this exact read already (it found no row)" in asked_again


IDLE = tool("db_read", table="tasks", filters=[{"field": "completed", "op": "is_not_null"}])
"""The 1.5B local model's read for "Read the tasks not completed": every task."""
OPEN = tool("db_read", table="tasks", filters=[{"field": "completed", "op": "=", "value": False}])


async def open_tasks(turns: Turns, executor, *acts: dict) -> tuple[WireScript, str]:
    """Ask for the open tasks (one of two is done) with Act's answers ``acts``, then a
    completion; the script and the prompt of Act's second call."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create(
        "tasks",
        [{"title": "Defrost the chicken"}, {"title": "Clean the fridge", "completed": True}],
    )
    script = turns.script(
        understand(),
        plan("The open tasks", step("Read the tasks not completed", "read", "tasks")),
        *acts,
        complete("Read the open tasks"),
        reply("Defrost the chicken."),
    )
    async with turns.worker(script):
        await (await turns.start("what's still on my to-do list?")).result()
    return script, [c for c in script.calls if c.node == "act"][1].user


async def test_a_read_whose_null_test_keeps_every_row_is_sent_back_before_it_runs(
    turns: Turns, executor
):
    script, asked_again = await open_tasks(turns, executor, IDLE, OPEN)
    assert (
        "not run: completed is never empty, so is_not_null keeps every row: compare it with a "
        "value (= true or = false), then send the db_read again." in asked_again
    )
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "Defrost the chicken" in reply_call.user
    assert "Clean the fridge" not in reply_call.user  # the done task was never read


async def test_the_same_null_test_sent_again_runs_with_its_note(turns: Turns, executor):
    """The answer sent back once stands when it comes again: it runs, and the rows come
    with the note that the test kept every one."""
    script, _ = await open_tasks(turns, executor, IDLE, IDLE)
    completing = [c for c in script.calls if c.node == "act"][-1].user
    assert "is_not_null kept every row: compare it with a value (= true or = false)" in completing
    assert "Clean the fridge" in completing


async def test_a_read_step_done_without_reading_is_asked_for_its_read(turns: Turns, executor):
    """Its read sent back unrun, the 1.5B local model completed the step saying there were
    no open tasks: the completion is sent back too, and the read it then sends runs."""
    nothing = complete("There are no tasks not completed today.")
    script, _ = await open_tasks(turns, executor, IDLE, nothing, OPEN)
    third = [c for c in script.calls if c.node == "act"][2].user
    assert "not complete: this step has not read the database yet" in third
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "Defrost the chicken" in reply_call.user
    assert "There are no tasks not completed today." not in reply_call.user


async def test_a_recipe_read_by_an_ingredient_as_its_name_sent_again_reads_the_recipes_with_it(
    turns: Turns, executor
):
    """For "which recipes use spinach" the 1.5B local model read recipes by ``name ilike
    spinach`` twice, told the Red Lentil Dal is made with spinach, and the user was told
    no saved recipe matched."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    for name, ingredient in (("Red Lentil Dal", "spinach"), ("Weeknight Chili", "beef mince")):
        made_with = [{"name": ingredient, "quantity": 100, "unit": "g"}]
        recipe = {"name": name, "instructions": ["Cook."], "recipe_ingredients": made_with}
        await kitchen.create("recipes", [recipe])
    by_name = tool(
        "db_read", table="recipes", filters=[{"field": "name", "op": "ilike", "value": "spinach"}]
    )
    script = turns.script(
        understand(),
        plan("Recipes with spinach", step("Read the recipes that use spinach", "read", "recipes")),
        by_name,
        by_name,
        by_name,
        reply("The Red Lentil Dal."),
    )
    async with turns.worker(script):
        await (await turns.start("which recipes use spinach")).result()
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert 'tool result: read recipes where name in ["Red Lentil Dal"]: **Red Lentil Dal**' in (
        reply_call.user
    )
    assert "Weeknight Chili" not in reply_call.user


async def test_a_read_by_a_column_no_row_sets_sent_again_reads_without_it(turns: Turns, executor):
    """For "when do i need to clean the oven by" the 1.5B local model read the tasks by
    ``category = cleanup`` twice, no task having a category, and the user was told no
    task matched."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create(
        "tasks",
        [
            {"title": "Clean the oven", "due_date": "2026-11-30"},
            {"title": "Call the plumber", "due_date": "2026-12-02"},
        ],
    )
    by_category = tool(
        "db_read", table="tasks", filters=[{"field": "category", "op": "=", "value": "cleanup"}]
    )
    script = turns.script(
        understand(),
        plan("When the oven is due", step("Read the tasks", "read", "tasks")),
        by_category,
        by_category,
        by_category,
        reply("Tomorrow."),
    )
    async with turns.worker(script):
        await (await turns.start("when do i need to clean the oven by")).result()
    second = [c for c in script.calls if c.node == "act"][1].user
    assert "'category' is empty in every row: a filter on it matches nothing" in second
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "Clean the oven" in reply_call.user and "Call the plumber" in reply_call.user


async def test_a_steps_read_from_the_one_day_the_words_name_reads_that_day(turns: Turns, executor):
    """For "anything due tomorrow?" the 1.5B local model read ``due_date >=`` tomorrow,
    and the user was told a task due on another day was due tomorrow."""
    today = await the_turns_day(turns)
    tomorrow, later = today + dt.timedelta(days=1), today + dt.timedelta(days=3)
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create(
        "tasks",
        [
            {"title": "Clean the oven", "due_date": tomorrow.isoformat()},
            {"title": "Call the plumber", "due_date": later.isoformat()},
        ],
    )
    onward = [{"field": "due_date", "op": ">=", "value": tomorrow.isoformat()}]
    script = turns.script(
        understand(),
        plan("Tasks due tomorrow", step("Read the tasks due tomorrow", "read", "tasks")),
        tool("db_read", table="tasks", filters=onward),
        complete("Read the tasks due tomorrow"),
        reply("Clean the oven."),
    )
    async with turns.worker(script):
        await (await turns.start("anything due tomorrow?")).result()
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "Clean the oven" in reply_call.user and "Call the plumber" not in reply_call.user
    assert f"due_date = {tomorrow.isoformat()}" in reply_call.user


async def test_a_steps_read_by_a_place_no_one_said_reads_every_place(turns: Turns, executor):
    """``domain.enforced.read_filters.said_read``: for "where are the eggs" the 1.5B local
    model read the pantry's rows, and answered that the eggs were in the pantry."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create(
        "inventory",
        [{"name": "eggs", "location": "fridge"}, {"name": "rice", "location": "pantry"}],
    )
    pantry = [{"field": "location", "op": "=", "value": "pantry"}]
    script = turns.script(
        understand(),
        plan("Where the eggs are", step("Read the inventory", "read", "inventory")),
        tool("db_read", table="inventory", filters=pantry),
        complete("Read the inventory"),
        reply("The eggs are in the fridge."),
    )
    async with turns.worker(script):
        handle = await turns.start("where are the eggs")
        await handle.result()
        await keep_history(handle, "said_read")
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "eggs" in reply_call.user and "fridge" in reply_call.user


async def test_a_steps_read_of_one_place_and_another_reads_either(turns: Turns, executor):
    """``domain.enforced.read_filters.either``: for "we're low on everything in the fridge,
    add it all to the list" the 1.5B local model read ``location = fridge`` and
    ``location = pantry`` together, found nothing, and listed nothing."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create(
        "inventory",
        [
            {"name": "milk", "location": "fridge"},
            {"name": "rice", "location": "pantry"},
            {"name": "peas", "location": "freezer"},
        ],
    )
    both = [
        {"field": "location", "op": "=", "value": "fridge"},
        {"field": "location", "op": "=", "value": "pantry"},
    ]
    script = turns.script(
        understand(),
        plan("The fridge and pantry", step("Read the fridge and the pantry", "read", "inventory")),
        tool("db_read", table="inventory", filters=both),
        complete("Read the fridge and the pantry"),
        reply("Milk and rice."),
    )
    async with turns.worker(script):
        handle = await turns.start("what's in the fridge and the pantry")
        await handle.result()
        await keep_history(handle, "either_read")
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert 'read inventory where location in ["fridge", "pantry"]: 2 matching' in reply_call.user
    assert "milk" in reply_call.user and "rice" in reply_call.user
    assert "peas" not in reply_call.user


async def test_a_steps_read_by_a_ref_nothing_issued_reads_without_it(turns: Turns, executor):
    """``domain.enforced.read_filters.known_filters``: for "when are we having the dal" the
    1.5B local model read the meal plans of ``recipe_id = gen_recipe_1`` (no such recipe),
    refused twice, and the step ended with nothing read."""
    today = await the_turns_day(turns)
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    (dal,) = (await kitchen.create("recipes", [{"name": "Red Lentil Dal"}])).rows
    monday = (today + dt.timedelta(days=3)).isoformat()
    await kitchen.create(
        "meal_plans", [{"date": monday, "meal_type": "dinner", "recipe_id": dal["id"]}]
    )
    made_up = [{"field": "recipe_id", "op": "=", "value": "gen_recipe_1"}]
    script = turns.script(
        understand(),
        plan("When the dal is", step("Read the meal plan", "read", "meal_plans")),
        tool("db_read", table="meal_plans", filters=made_up),
        complete("Read the meal plan"),
        reply("The dal is planned."),
    )
    async with turns.worker(script):
        handle = await turns.start("when are we having the dal")
        await handle.result()
        state = await progress(handle)
        await keep_history(handle, "known_filters")
    assert [(s.subdomain, s.status) for s in state.steps] == [("meal_plans", "completed")]
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert monday in reply_call.user and "Red Lentil Dal" in reply_call.user
    assert "unknown ref" not in reply_call.user


async def test_a_delete_whose_filters_cross_its_or_filters_sent_again_deletes_either(
    turns: Turns, executor
):
    """For "bin the chili recipe, never liked it" the 1.5B local model deleted ``name =
    chili recipe`` with ``or_filters`` ``name = Weeknight Chili`` three times, told each
    time that no row could match, and nothing was deleted."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [{"name": "Weeknight Chili"}, {"name": "Red Lentil Dal"}])
    crossed = tool(
        "db_delete",
        table="recipes",
        filters=[{"field": "name", "op": "=", "value": "chili recipe"}],
        or_filters=[{"field": "name", "op": "=", "value": "Weeknight Chili"}],
    )
    script = turns.script(
        understand(),
        plan("Bin the chili", step("Delete the chili recipe", "write", "recipes")),
        crossed,
        crossed,
        complete("Deleted Weeknight Chili"),
        reply("The chili is gone."),
    )
    async with turns.worker(script):
        await (await turns.start("bin the chili recipe, never liked it")).result()
    assert await kitchen.names("recipes") == ["Red Lentil Dal"]


async def test_a_delete_by_two_names_in_its_filters_sent_again_deletes_either(
    turns: Turns, executor
):
    """For "take bread and olive oil off the list" the 1.5B local model deleted ``name =
    bread`` and ``name = olive oil``, both in filters, three times, and nothing was
    deleted."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create(
        "shopping_list", [{"name": "bread"}, {"name": "olive oil"}, {"name": "paper towels"}]
    )
    both = tool(
        "db_delete",
        table="shopping_list",
        filters=[
            {"field": "name", "op": "=", "value": "bread"},
            {"field": "name", "op": "=", "value": "olive oil"},
        ],
    )
    script = turns.script(
        understand(),
        plan("Off the list", step("Delete the bread and olive oil rows", "write", "shopping")),
        both,
        both,
        complete("Deleted both"),
        reply("Both are off the list."),
    )
    async with turns.worker(script):
        handle = await turns.start("take bread and olive oil off the list")
        await handle.result()
        await keep_history(handle, "named_twice")
    assert await kitchen.names("shopping_list") == ["paper towels"]


async def test_a_made_up_quantity_set_on_the_row_just_created_is_not_run(turns, executor):
    """For "found a bottle of olive oil in the cupboard" the 1.5B local model created the
    oil (1 bottle), then set it to 2, then to 3, and the reply said 1."""
    oil = {"name": "olive oil", "quantity": 1, "unit": "bottle", "location": "cupboard"}
    named = [{"field": "name", "op": "=", "value": "olive oil"}]
    script = turns.script(
        understand(),
        plan(
            "Oil", step("Add to the inventory one row: olive oil (1 bottle)", "write", "inventory")
        ),
        tool("db_create", table="inventory", data=[oil]),
        tool("db_update", table="inventory", filters=named, data={"quantity": 2}),
        reply("The olive oil is in your cupboard."),
    )
    async with turns.worker(script):
        handle = await turns.start("found a bottle of olive oil in the cupboard")
        await handle.result()
        await keep_history(handle, "grown_after_made")
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    rows = (await kitchen.run(DbRead(table="inventory"))).rows
    assert [(r["name"], r["quantity"]) for r in rows] == [("olive oil", 1)]


async def test_an_update_after_one_that_changed_nothing_runs(turns, executor):
    """For "milk's down to half" the 1.5B local model set the milk to the 1 l it held, then
    to 0.5; the second update was held as the same change made twice."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("inventory", [{"name": "milk", "quantity": 1, "unit": "l"}])
    named = [{"field": "name", "op": "=", "value": "milk"}]
    script = turns.script(
        understand(),
        plan(
            "Milk", step("Set the quantity of the milk row in the inventory", "write", "inventory")
        ),
        tool("db_update", table="inventory", filters=named, data={"quantity": 1}),
        tool("db_update", table="inventory", filters=named, data={"quantity": 0.5}),
        complete("Set the milk to half"),
        reply("The milk is down to half a litre."),
    )
    async with turns.worker(script):
        handle = await turns.start("milk's down to half")
        await handle.result()
        await keep_history(handle, "held_already")
    rows = (await kitchen.run(DbRead(table="inventory"))).rows
    assert [(r["name"], r["quantity"]) for r in rows] == [("milk", 0.5)]


DAL = {"name": "Red Lentil Dal", "instructions": ["Simmer."]}
DAL_AND_STOCK = (
    understand(),
    plan(
        "The dal's groceries",
        step("Read the Red Lentil Dal recipe", "read", "recipes"),
        step("Read the inventory", "read", "inventory", group=1),
    ),
)
"""A turn that reads the dal (step 1) and the inventory (step 2)."""
STOCK_READ = (
    tool("db_read", at_step=1, table="inventory"),
    complete("Read the inventory", at_step=1),
    reply("The dal."),
)


async def test_a_read_step_that_reads_another_steps_table_is_sent_back_to_its_own(
    turns: Turns, executor
):
    """For "want to make the dal this week, put what it needs on my groceries" the 1.5B
    local model read the inventory in the step that reads the dal recipe, and the next
    step named ingredients no read had found."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create("recipes", [DAL])
    script = turns.script(
        *DAL_AND_STOCK,
        tool("db_read", at_step=0, table="inventory"),
        tool("db_read", at_step=0, table="recipes"),
        complete("Read the dal", at_step=0),
        *STOCK_READ,
    )
    async with turns.worker(script):
        await (await turns.start("what does the dal need that i have not got?")).result()
    second = [c.user for c in script.calls if c.node == "act"][1]
    assert "not run: step 2 reads inventory. This step is 'Read the Red Lentil Dal recipe'" in (
        second
    )
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "Red Lentil Dal" in reply_call.user


async def test_a_read_step_done_with_its_own_read_ends_when_it_reads_another_steps_table(
    turns: Turns, executor
):
    """The dal's step read the dal, then the inventory's eggs, milk and rice; the next
    step took those for the dal's ingredients. The step ends with its own read."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [DAL])
    await kitchen.create("inventory", [{"name": "eggs", "quantity": 6}])
    script = turns.script(
        *DAL_AND_STOCK,
        tool("db_read", at_step=0, table="recipes"),
        tool("db_read", at_step=0, table="inventory"),
        *STOCK_READ,
    )
    async with turns.worker(script):
        handle = await turns.start("what does the dal need that i have not got?")
        await handle.result()
        await keep_history(handle, "read_its_own")
    first_step = [c for c in script.calls if c.node == "act" and c.step == 0]
    assert len(first_step) == 2  # its inventory read was its last: held as done
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    first = reply_call.user.split("Step 0 (read, recipes)")[1].split("Step 1 (read, inventory)")[0]
    assert "recipe_1" in first and "inv_1" not in first  # the inventory's rows are step 2's


async def test_an_analyze_step_is_shown_the_recipe_against_the_inventory(turns, executor):
    """For "want to make the dal this week, put what it needs on my groceries" the 1.5B
    local model read the dal and the inventory, then named the inventory's milk, eggs and
    rice as the dal's missing ingredients."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    lentils = {"name": "red lentils", "quantity": 200, "unit": "g"}
    await kitchen.create("recipes", [{**DAL, "recipe_ingredients": [lentils, {"name": "onion"}]}])
    await kitchen.create("inventory", [{"name": "onions", "quantity": 2}, {"name": "milk"}])
    script = turns.script(
        understand(),
        plan(
            "The dal's groceries",
            step("Read the Red Lentil Dal recipe with its ingredients", "read", "recipes"),
            step("Read the inventory", "read", "inventory"),
            step(
                "Work out which of the dal's ingredients the inventory lacks",
                "analyze",
                "shopping",
                group=1,
            ),
        ),
        tool("db_read", at_step=0, table="recipes", columns=["name", "recipe_ingredients"]),
        complete("Read the dal", at_step=0),
        tool("db_read", at_step=1, table="inventory"),
        complete("Read the inventory", at_step=1),
        complete("The dal needs red lentils", at_step=2),
        reply("The dal needs red lentils."),
    )
    async with turns.worker(script):
        handle = await turns.start("what does the dal need that i have not got?")
        await handle.result()
        await keep_history(handle, "stock_compared")
    analyze = next(c for c in script.calls if c.node == "act" and c.step == 2)
    assert (
        "## Recipes against the inventory (compared by the system, from the reads above)\n"
        "- Red Lentil Dal: 1 of its 2 ingredients in the inventory read (onion); "
        "missing: red lentils"
    ) in analyze.user


async def test_an_analyze_step_is_shown_the_days_to_a_date_read(turns: Turns, executor):
    """Asked "how many days till the plumber" with the task due in three days, the 1.5B
    local model's analyze step said 2 days, and Reply said so."""
    today = await the_turns_day(turns)
    due = today + dt.timedelta(days=3)
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("tasks", [{"title": "Call the plumber", "due_date": due.isoformat()}])
    script = turns.script(
        understand(),
        plan(
            "Days till the plumber",
            step("Read the tasks", "read", "tasks"),
            step("Count the days till the plumber", "analyze", "tasks", group=1),
        ),
        tool("db_read", at_step=0, table="tasks"),
        complete("Read the tasks", at_step=0),
        complete("3 days", at_step=1),
        reply("3 days."),
    )
    async with turns.worker(script):
        handle = await turns.start("how many days till the plumber")
        await handle.result()
        await keep_history(handle, "dates_counted")
    analyze = next(c for c in script.calls if c.node == "act" and c.step == 1)
    assert (
        "## Days from today (counted by the system, from the reads above)\n"
        f"- Call the plumber (task): due {due:%a} {due.isoformat()}, in 3 days"
    ) in analyze.user


async def test_a_read_its_limit_cut_short_sent_again_reads_every_matching_row(turns, executor):
    """For "how much lentils go in the dal" the 1.5B local model read the dal's
    ingredients with limit 1 (the onion), sent the same read again, and said the dal calls
    for 1 onion."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    ingredients = [{"name": "red lentils", "quantity": 200, "unit": "g"}, {"name": "onion"}]
    await kitchen.create("recipes", [{**DAL, "recipe_ingredients": ingredients}])
    kept = [{"field": "is_optional", "op": "=", "value": False}]  # every one, as a filter
    one = {"table": "recipe_ingredients", "filters": kept, "limit": 1, "order_by": "name"}
    script = turns.script(
        understand(),
        plan(
            "Lentils in the dal",
            step("Read the Red Lentil Dal's ingredients", "read", "recipes"),
            step("Say how much lentils the dal takes", "analyze", "recipes", group=1),
        ),
        tool("db_read", at_step=0, **one),
        tool("db_read", at_step=0, **one),
        tool("db_read", at_step=0, **one),  # a third time: the step ends with every row
        complete("200 g of red lentils", at_step=1),
        reply("200 g."),
    )
    async with turns.worker(script):
        handle = await turns.start("how much lentils go in the dal")
        await handle.result()
        state = await progress(handle)
        await keep_history(handle, "read_whole")
    analyze = next(c for c in script.calls if c.node == "act" and c.step == 1)
    assert "red lentils" in analyze.user and "onion" in analyze.user
    assert [s.status for s in state.steps] == ["completed", "completed"]
    assert analyze.user.count('"limit": 1,') == 1  # the third was not run


async def test_a_write_that_matched_nothing_sent_again_is_sent_back_with_what_is_there(
    turns: Turns, executor
):
    """The 1.5B local model deleted name = "chili recipe" (the row is "Weeknight Chili")
    and sent the same delete again: it is told what the first one's note said, in the
    same activity, and its second answer names the row."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [{"name": "Weeknight Chili"}, {"name": "Red Lentil Dal"}])
    missed = {
        "table": "recipes",
        "filters": [{"field": "name", "op": "=", "value": "chili recipe"}],
    }
    script = turns.script(
        understand(),
        plan("Delete the chili", step("Delete the chili recipe", "write", "recipes")),
        tool("db_delete", **missed),
        tool("db_delete", **missed),
        tool(
            "db_delete",
            table="recipes",
            filters=[{"field": "name", "op": "=", "value": "Weeknight Chili"}],
        ),
        complete("Deleted Weeknight Chili"),
        reply("Weeknight Chili is deleted."),
    )
    asked_again = await sent_back(turns, script, "delete the chili recipe", "unmatched_write")
    assert await kitchen.names("recipes") == ["Red Lentil Dal"]
    assert "not run: this exact db_delete matched no row a moment ago" in asked_again
    assert "rows whose name shares a word: 'Weeknight Chili'" in asked_again


async def test_a_missed_write_sent_again_runs_on_the_one_row_its_name_can_mean(
    turns: Turns, executor
):
    """The 1.5B local model deleted "yogurt" twice, told each time that 'greek yogurt' was
    the row: the second delete is aimed at it and runs, with no question in between, and
    Reply is shown what was deleted."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("inventory", [{"name": "greek yogurt"}, {"name": "milk"}])
    yogurt = {"table": "inventory", "filters": [{"field": "name", "op": "=", "value": "yogurt"}]}
    script = turns.script(
        understand(),
        plan(
            "Bin the yogurt", step("Delete the yogurt row from the inventory", "write", "inventory")
        ),
        tool("db_delete", **yogurt),
        tool("db_delete", **yogurt),
        complete("Deleted the yogurt"),
        reply("The greek yogurt is gone."),
    )
    async with turns.worker(script):
        handle = await turns.start("the yogurt's gone off, chuck it")
        await handle.result()
        await keep_history(handle, "aimed_write")
    assert await kitchen.names("inventory") == ["milk"]
    assert len([c for c in script.calls if c.node == "act"]) == 3
    said = next(c for c in script.calls if c.node == "reply").user
    assert "greek yogurt" in said.split("## Execution summary", 1)[1]


async def test_a_write_outside_the_steps_subdomain_is_not_an_answer_the_step_takes(
    turns: Turns, executor
):
    """The step's schema offers only its subdomain's tables: the answer is repaired."""
    script = turns.script(
        understand(),
        plan("Add milk", step("Add milk to the shopping list", "write", "shopping")),
        tool("db_create", table="recipes", data={"name": "Milk"}),
        tool("db_create", table="shopping_list", data={"name": "milk"}),
        complete("Added milk"),
        reply("Milk is on the list."),
    )
    async with turns.worker(script):
        await (await turns.start("add milk")).result()
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("recipes") == [] and await kitchen.names("shopping_list") == ["milk"]
    repair = [c for c in script.calls if c.node == "act"][1]
    assert "'db_create:recipes'" in (repair.repair_error or "")
    assert "'db_create:shopping_list'" in (repair.repair_error or "")


async def test_a_completion_its_outcomes_do_not_support_is_flagged_to_reply(turns: Turns):
    script = turns.script(
        understand(),
        plan("Save the dal", step("Save the dal recipe", "write", "recipes")),
        tool("db_create", table="recipe", data={"name": "Dal"}),
        complete("Saved the dal as recipe_7"),
        reply("I could not confirm the dal was saved."),
    )
    async with turns.worker(script):
        handle = await turns.start("save my dal")
        await handle.result()
        events = (await progress(handle)).events
    (done,) = [e for e in events if e.type == "step_complete"]
    assert done.data.flags == [
        "it wrote nothing: no row was created, changed or removed",
        "it names refs that do not exist: recipe_7",
    ]
    reply_request = next(c for c in script.calls if c.node == "reply").user
    assert "NOT CONFIRMED (it wrote nothing" in reply_request
    assert "do not present it as done" in reply_request


async def add_milk(turns: Turns, *act: dict) -> tuple[WireScript, list[str]]:
    """ "add milk", planned as one write step, Act answering ``act``: the script and the
    step's completion flags."""
    script = turns.script(
        understand(),
        plan("Add milk", step("Add milk to the shopping list", "write", "shopping")),
        *act,
        reply("Milk is on the list."),
    )
    async with turns.worker(script):
        handle = await turns.start("add milk")
        await handle.result()
        events = (await progress(handle)).events
    (done,) = [e for e in events if e.type == "step_complete"]
    return script, done.data.flags


async def test_a_write_step_done_without_a_call_is_asked_once_more_and_writes(
    turns: Turns, executor
):
    """For "called the plumber, that's sorted" the 1.5B local model completed the write
    step with no call at all, saying the task was marked."""
    write = tool("db_create", table="shopping_list", data={"name": "milk"})
    script, flags = await add_milk(turns, complete("Milk is on it"), write, complete("Added"))
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("shopping_list") == ["milk"] and flags == []
    again = [c for c in script.calls if c.node == "act"][1].user
    assert "not complete: this step has not called the database yet" in again


async def test_a_write_step_done_twice_without_a_call_is_flagged(turns: Turns):
    script, flags = await add_milk(turns, complete("Milk is on it"), complete("Really"))
    assert flags == ["it wrote nothing: no row was created, changed or removed"]
    assert len([c for c in script.calls if c.node == "act"]) == 2  # asked once more, no more


async def test_an_answer_sent_back_is_sent_back_again_for_another_reason(turns: Turns, executor):
    """The 1.5B local model read "pasta" again in the write step; sent back to write, it
    created Friday's dinner naming no meal (no recipe, no notes), which is sent back too,
    once: the row planned says pasta."""
    friday = {"date": "2036-12-05", "meal_type": "dinner"}
    pasta = tool(
        "db_read", table="recipes", filters=[{"field": "name", "op": "=", "value": "pasta"}]
    )
    script = turns.script(
        understand(),
        plan("Pasta on Friday", step("Add pasta to Friday's dinner", "write", "meal_plans")),
        pasta,
        pasta,
        tool("db_create", table="meal_plans", data=friday),
        tool("db_create", table="meal_plans", data={**friday, "notes": "pasta"}),
        complete("Planned"),
        reply("Pasta on Friday."),
    )
    async with turns.worker(script):
        await (await turns.start("we are doing pasta on friday night")).result()
    rows = (
        await Kitchen(executor, turns.user_id, SessionIdRegistry()).run(DbRead(table="meal_plans"))
    ).rows
    assert [(r["date"], r["notes"]) for r in rows] == [("2036-12-05", "pasta")]
    asks = [c.user for c in script.calls if c.node == "act"]
    assert "not run: this step made this exact read already" in asks[2]
    assert "not run: a meal plan row must say what the meal is" in asks[3]


async def test_a_meal_named_in_its_notes_is_planned_without_a_link_no_row_has(
    turns: Turns, executor
):
    """The 1.5B local model sent Friday's pasta with recipe_id gen_recipe_1 (no recipe holds
    pasta) twice, and nothing was planned."""
    pasta = {
        "date": "2036-12-05",
        "meal_type": "dinner",
        "recipe_id": "gen_recipe_1",
        "notes": "pasta",
    }
    script = turns.script(
        understand(),
        plan("Pasta on Friday", step("Add pasta to Friday's dinner", "write", "meal_plans")),
        tool("db_create", table="meal_plans", data=pasta),
        complete("Planned"),
        reply("Pasta on Friday."),
    )
    async with turns.worker(script):
        await (await turns.start("we are doing pasta on friday night")).result()
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    rows = (await kitchen.run(DbRead(table="meal_plans"))).rows
    assert [(r["date"], r["notes"], r["recipe_id"]) for r in rows] == [
        ("2036-12-05", "pasta", None)
    ]


async def test_a_step_that_repeats_its_last_call_completes_with_what_it_found(turns: Turns):
    """A model that asks for the same read again is done: the step completes with the rows
    it has (no second read, no tool-call limit), and the reply is told what was found."""
    script = turns.script(
        understand(),
        plan("Show the list", step("Read the list", "read", "shopping")),
        tool("db_read", table="shopping_list"),
        tool("db_read", table="shopping_list"),
        reply("Your list is empty."),
    )
    async with turns.worker(script):
        handle = await turns.start("what's on my list?")
        result = await handle.result()
        await keep_history(handle, "repeated_call")
    assert result.status == "completed" and result.breakers == []
    assert result.response == "Your list is empty."
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "Read the list → completed.\ntool result: read shopping_list: " in reply_call.user
    assert reply_call.user.count("tool result: read shopping_list") == 1  # the repeat was not run
