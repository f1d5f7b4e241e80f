"""Node activities render within their context budget and report what they left out."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.llm.gateway import LlmGateway
from activities.llm.script_provider import ScriptProvider
from activities.model_nodes import NodeActivities
from activities.payloads import (
    ActQuickRequest,
    ActRequest,
    StateRef,
    ThinkRequest,
    UnderstandRequest,
)
from activities.saved_state import SavedStates
from domain.clock import Clock
from domain.conversation import ConversationState, StepResult, TurnRecord
from domain.modes import MODES, mode_config
from domain.nodes import ThinkStep, UnderstandOutput, output_cap
from domain.plan_examples import DEFAULT_EXAMPLES, plan_examples
from domain.prompts import load, render
from domain.tokens import CHAT_OVERHEAD, MIN_ANSWER, MIN_CONTEXT, estimate_tokens
from domain.tool_results import ToolEntry
from domain.turn_context import KitchenDashboard, TurnContext
from tests.activities.saved_conversation import save


async def saved(sessions, user, history_words: int) -> StateRef:
    """A conversation whose one turn on record is ``history_words`` words long."""
    state = ConversationState(
        recent_turns=[TurnRecord(turn=1, user_message="plan dinners " * history_words)]
    )
    conversation, version = await save(sessions, user, state)
    return StateRef(user_id=str(user), conversation_id=conversation, version=version)


async def request(sessions, user, history_words: int) -> UnderstandRequest:
    ref = await saved(sessions, user, history_words)
    return UnderstandRequest(message="add milk", mode="plan", state_ref=ref)


def environment(start_to_close: timedelta) -> ActivityEnvironment:
    """An activity attempt given ``start_to_close`` (the default test info gives 1 s)."""
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, start_to_close_timeout=start_to_close)
    return env


def nodes(script: ScriptProvider, sessions, **budgets) -> NodeActivities:
    return NodeActivities(LlmGateway(script), states=SavedStates(sessions), **budgets)


async def test_understand_fits_its_budget_and_records_the_dropped_sections(sessions, user):
    script = ScriptProvider.from_responses([{"node": "understand", "output": {}}])
    activity = nodes(script, sessions, context_budget=60).understand
    result = await ActivityEnvironment().run(activity, await request(sessions, user, 500))
    assert result.context_dropped == ["Recent conversation"]
    assert result.context_tokens == estimate_tokens(script.calls[0].user) <= 60
    assert script.calls[0].user.startswith("## Current message\nadd milk")
    assert result.template == "understand" and result.version == load("understand").version


async def test_within_budget_nothing_is_dropped(sessions, user):
    script = ScriptProvider.from_responses([{"node": "understand", "output": {}}])
    activity = nodes(script, sessions).understand
    result = await ActivityEnvironment().run(activity, await request(sessions, user, 5))
    assert result.context_dropped == []
    assert "plan dinners" in script.calls[0].user


async def test_the_mode_shapes_understands_and_thinks_system_prompts(sessions, user):
    script = ScriptProvider.from_responses(
        [
            {"node": "understand", "output": {}, "repeat": True},
            {
                "node": "think",
                "repeat": True,
                "output": {
                    "goal": "g",
                    "outcome": {"decision": "clarify", "clarification_questions": ["?"]},
                },
            },
        ]
    )
    activities = nodes(script, sessions)
    env = ActivityEnvironment()
    ref = await saved(sessions, user, history_words=1)
    for mode in ("quick", "plan", "create"):
        understand = UnderstandRequest(message="add milk", mode=mode, state_ref=ref)
        await env.run(activities.understand, understand)
        think = ThinkRequest(
            message="add milk", mode=mode, understand=UnderstandOutput(), state_ref=ref
        )
        await env.run(activities.think, think)
    prompts = {(c.node, i // 2): c.system for i, c in enumerate(script.calls)}
    for i, mode in enumerate(("quick", "plan", "create")):
        config = MODES[mode]
        assert config.understand_hint in prompts[("understand", i)]
        assert f"In {mode} mode:\n\n{config.examples}" in prompts[("think", i)]
        assert plan_examples(DEFAULT_EXAMPLES, "add milk")[0] in prompts[("think", i)]
        assert f"At most {config.max_steps} steps." in prompts[("think", i)]
    assert "quick path whenever" in prompts[("understand", 0)]
    assert "quick path whenever" not in prompts[("understand", 1)]


async def test_understand_records_no_quick_path_for_a_message_that_asks_for_a_change(
    sessions, user
):
    """Quick mode is read-only (seed 004): the activity's result holds the quick path off,
    so the turn's history records the turn going to Think."""
    quick = {"quick_mode": True, "quick_intent": "Show the list", "quick_subdomain": "shopping"}
    script = ScriptProvider.from_responses(
        [{"node": "understand", "output": quick, "repeat": True}]
    )
    activity = nodes(script, sessions).understand
    ref = await saved(sessions, user, history_words=1)
    env = ActivityEnvironment()
    asked = await env.run(
        activity, UnderstandRequest(message="add milk", mode="quick", state_ref=ref)
    )
    looked = await env.run(
        activity, UnderstandRequest(message="what's on my list?", mode="quick", state_ref=ref)
    )
    assert not asked.output.quick_mode and asked.output.quick_subdomain is None
    assert looked.output.quick_mode and looked.output.quick_subdomain == "shopping"


async def test_think_records_a_proposal_that_writes_nothing_as_a_plan_run_directly(sessions, user):
    steps = [
        {
            "description": "Read the pantry",
            "step_type": "read",
            "subdomain": "inventory",
            "group": 0,
        },
        {
            "description": "Suggest a dinner",
            "step_type": "generate",
            "subdomain": "recipes",
            "group": 0,
        },
    ]
    outcome = {"steps": steps, "decision": "propose", "proposal_message": "Shall I?"}
    script = ScriptProvider.from_responses(
        [{"node": "think", "output": {"goal": "Dinner", "outcome": outcome}}]
    )
    ref = await saved(sessions, user, history_words=1)
    request = ThinkRequest(
        message="dinner?", mode="plan", understand=UnderstandOutput(), state_ref=ref
    )
    result = await ActivityEnvironment().run(nodes(script, sessions).think, request)
    assert result.output.decision == "plan_direct" and result.output.proposal_message is None
    assert [(s.step_type, s.group) for s in result.output.steps] == [("read", 0), ("generate", 0)]


async def test_thinks_examples_are_the_librarys_unless_set_and_are_recorded_with_the_call(
    sessions, user
):
    clarify = {"goal": "g", "outcome": {"decision": "clarify", "clarification_questions": ["?"]}}
    script = ScriptProvider.from_responses([{"node": "think", "output": clarify, "repeat": True}])
    ref = await saved(sessions, user, history_words=1)
    message = "we've run out of coffee filters, put some on the shopping list"
    think = ThinkRequest(message=message, mode="plan", understand=UnderstandOutput(), state_ref=ref)
    env = ActivityEnvironment()
    library = await env.run(nodes(script, sessions).think, think)
    abstract = await env.run(nodes(script, sessions, think_examples="abstract").think, think)
    picked, fixed = script.calls[0].system, script.calls[1].system
    assert '- "we need paper towels and dish soap" →' in picked
    assert load("think_patterns").text.strip() not in picked
    assert load("think_patterns").text.strip() in fixed and "paper towels" not in fixed
    versions = (load("think").version, load("think_library").version)
    assert (library.template, library.version) == ("think+think_library", "+".join(versions))
    assert abstract.template == "think+think_patterns"


async def test_a_thing_got_that_the_dashboard_finds_on_the_list_is_shown_it_ticked_off(
    sessions, user
):
    """ "got the paper towels and the bread", both still to buy, was shown "picked up
    bread …" (inventory rows added) alone; the 1.5B local model added them to the fridge."""
    clarify = {"goal": "g", "outcome": {"decision": "clarify", "clarification_questions": ["?"]}}
    script = ScriptProvider.from_responses([{"node": "think", "output": clarify, "repeat": True}])
    ref = await saved(sessions, user, history_words=1)
    message = "got the paper towels and the bread"
    listed = TurnContext(dashboard=KitchenDashboard(named={"shopping_list": ["paper towels"]}))
    env, think = ActivityEnvironment(), nodes(script, sessions).think
    for context in (listed, TurnContext()):
        request = ThinkRequest(
            message=message,
            mode="plan",
            understand=UnderstandOutput(),
            state_ref=ref,
            context=context,
        )
        await env.run(think, request)
    on_list, unknown = script.calls[0].system, script.calls[1].system
    assert '- "got the tortillas, cross them off" →' in on_list and "picked up bread" not in on_list
    assert '- "picked up bread' in unknown


async def test_act_is_offered_only_the_earlier_steps_it_has_not_retrieved(sessions, user):
    """A step that fetched step 0 already is offered step 1 only; with both fetched,
    retrieve_step is not in the answer it may give."""
    done = {"decision": {"action": "step_complete", "result_summary": "ok"}}
    script = ScriptProvider.from_responses([{"node": "act", "output": done, "repeat": True}])
    plan = [
        ThinkStep(description="Read recipes", step_type="read", subdomain="recipes", group=0),
        ThinkStep(description="Read pantry", step_type="read", subdomain="inventory", group=0),
        ThinkStep(description="Pick one", step_type="analyze", subdomain="recipes", group=1),
    ]
    ref = await saved(sessions, user, history_words=1)
    env, activity = ActivityEnvironment(), nodes(script, sessions).act
    for fetched in ([0], [0, 1]):
        results = [ToolEntry(retrieved_step=i, result={}) for i in fetched]
        request = ActRequest(
            goal="g", plan=plan, step_index=2, mode="plan", tool_results=results, state_ref=ref
        )
        await env.run(activity, request)
    one, none = (call.answer.model_json_schema(mode="serialization") for call in script.calls)
    assert "RetrieveStep1" in str(one) and "RetrieveStep0" not in str(one)
    assert "RetrieveStep" not in str(none) and "step_index" not in str(none)


async def test_a_write_step_may_save_only_the_generated_content_still_unsaved(sessions, user):
    """The created row's ``id`` is offered as the unsaved ``gen_`` refs the registry
    holds, of the table's type; with none, a created row has no ``id`` at all."""
    done = {"decision": {"action": "step_complete", "result_summary": "ok"}}
    script = ScriptProvider.from_responses([{"node": "act", "output": done, "repeat": True}])
    plan = [ThinkStep(description="Add it", step_type="write", subdomain="tasks", group=0)]
    state = ConversationState()
    state.registry.register_generated("task", {"title": "Defrost the chicken"})
    state.registry.register_generated("recipe", {"name": "Dal"})
    conversation, version = await save(sessions, user, state)
    with_one = StateRef(user_id=str(user), conversation_id=conversation, version=version)
    empty = await saved(sessions, user, history_words=1)
    env, activity = environment(timedelta(minutes=5)), nodes(script, sessions).act
    for ref in (with_one, empty):
        await env.run(
            activity, ActRequest(goal="g", plan=plan, step_index=0, mode="plan", state_ref=ref)
        )
    # each run's completion with no call is asked once more
    # (domain.enforced.act_rules.uncalled_note)
    assert len(script.calls) == 4
    one, none = (c.answer.model_json_schema()["$defs"]["TasksRow"] for c in script.calls[::2])
    allowed = [v.get("const") or v.get("enum") for v in one["properties"]["id"]["anyOf"]]
    assert allowed == ["gen_task_1", None]  # the task's ref or nothing; not the recipe's
    assert "id" not in none["properties"]


async def test_act_is_asked_again_only_while_the_attempt_has_time_for_it(sessions, user):
    """A write step completing with no call is asked once more when the attempt's
    start-to-close timeout leaves twice the first call's time; with less left, the first
    answer stands: the attempt ends before Temporal cuts it and retries it whole."""
    done = {"decision": {"action": "step_complete", "result_summary": "ok"}}
    slow = {"node": "act", "output": done, "repeat": True, "delay_seconds": 0.2}
    script = ScriptProvider.from_responses([slow])
    plan = [ThinkStep(description="Add it", step_type="write", subdomain="tasks", group=0)]
    ref = await saved(sessions, user, history_words=1)
    request = ActRequest(goal="g", plan=plan, step_index=0, mode="plan", state_ref=ref)
    activity = nodes(script, sessions).act
    await environment(timedelta(seconds=0.5)).run(activity, request)
    assert len(script.calls) == 1
    await environment(timedelta(seconds=30)).run(activity, request)
    assert len(script.calls) == 3
    note = "this step has not called the database yet"
    assert note not in script.calls[1].user and note in script.calls[2].user


async def test_with_a_models_window_set_every_request_fits_it_with_its_answer(sessions, user):
    """A small-window model (``ALFRED_LLM_CONTEXT_TOKENS``): Understand and Act are given
    what the window leaves after their system prompt and half their answer cap, and say
    what they left out; each answer is asked for within what its prompt leaves (the read
    step's 900 rows are kept, its answer cap lowered); without a window, the budgets (8K,
    25K estimated tokens) stand and the same context is sent whole, over the window."""
    done = {"decision": {"action": "step_complete", "result_summary": "ok"}}
    script = ScriptProvider.from_responses(
        [
            {"node": "understand", "output": {}, "repeat": True},
            {"node": "act", "output": done, "repeat": True},
        ]
    )
    plan = [ThinkStep(description="Read pantry", step_type="read", subdomain="inventory", group=0)]
    rows = [{"name": f"item {i}"} for i in range(900)]
    read = ToolEntry(tool="db_read", table="inventory", rows=rows)
    ref = await saved(sessions, user, history_words=2_000)
    act = ActRequest(
        goal="g", plan=plan, step_index=0, mode="plan", tool_results=[read], state_ref=ref
    )
    understand = UnderstandRequest(message="add milk", mode="plan", state_ref=ref)
    env, window, dropped = ActivityEnvironment(), 6_100, []
    for budgets in ({"window": window}, {}):
        activities = nodes(script, sessions, **budgets)
        dropped.append((await env.run(activities.understand, understand)).context_dropped)
        dropped.append((await env.run(activities.act, act)).context_dropped)
    small, large = script.calls[:2], script.calls[2:]
    for call in small:
        sent = estimate_tokens(call.system) + estimate_tokens(call.user) + call.max_tokens
        assert sent + CHAT_OVERHEAD <= window
    assert dropped == [["Recent conversation"], ["Conversation"], [], []]
    assert small[0].max_tokens == output_cap("understand")  # room to spare
    assert small[1].max_tokens < output_cap("act", "read")
    assert all(estimate_tokens(c.system) + estimate_tokens(c.user) > window for c in large)


async def test_a_window_too_small_for_an_answer_is_a_clear_error_and_no_call(sessions, user):
    """A prompt that leaves fewer than ``MIN_ANSWER`` tokens of the window is not sent: a
    non-retryable ``context_window`` error says so (a one-token answer would only be
    repaired three times and called invalid)."""
    script = ScriptProvider.from_responses([{"node": "understand", "output": {}}])
    system = render("understand", mode_hint=mode_config("plan").understand_hint).text
    window = estimate_tokens(system) + MIN_CONTEXT + CHAT_OVERHEAD + MIN_ANSWER - 1
    activity = nodes(script, sessions, window=window).understand
    ref = await saved(sessions, user, history_words=1)
    long = UnderstandRequest(message="add milk and " * 1_000, mode="plan", state_ref=ref)
    with pytest.raises(ApplicationError) as error:
        await ActivityEnvironment().run(activity, long)
    assert error.value.type == "context_window" and error.value.non_retryable
    assert f"in the model's {window}-token context window" in str(error.value)
    assert script.calls == []


async def test_a_create_in_a_step_that_marks_rows_is_sent_back_to_change_them(sessions, user):
    """For "Mark the paper towels as bought" the 1.5B local model created the paper towels
    again, bought, beside the row on the list: the create is sent back once, and the
    update it gives then is the step's answer."""
    towels = [{"field": "name", "op": "=", "value": "paper towels"}]
    create = {
        "decision": {
            "action": "tool_call",
            "tool": "db_create",
            "table": "shopping_list",
            "rows": [{"name": "paper towels", "is_purchased": True}],
        }
    }
    update = {
        "decision": {
            "action": "tool_call",
            "tool": "db_update",
            "table": "shopping_list",
            "filters": towels,
            "or_filters": [],
            "changes": [{"column": "is_purchased", "value": True}],
        }
    }
    script = ScriptProvider.from_responses(
        [{"node": "act", "output": create}, {"node": "act", "output": update}]
    )
    mark = "Mark the paper towels as bought in the shopping list"
    plan = [ThinkStep(description=mark, step_type="write", subdomain="shopping", group=0)]
    ref = await saved(sessions, user, history_words=1)
    request = ActRequest(goal="g", plan=plan, step_index=0, mode="plan", state_ref=ref)
    result = await environment(timedelta(minutes=5)).run(nodes(script, sessions).act, request)
    assert len(script.calls) == 2
    shown = script.calls[1].user  # the note, as Act's tool result (JSON)
    assert 'not made: the step is \\"Mark the paper towels' in shown
    assert "db_create adds new rows" in shown
    call = result.output.tool_call
    assert call is not None and call.tool == "db_update"


async def test_a_saved_recipe_copied_for_a_change_is_sent_back_to_change_it(sessions, user):
    """For "add a step to the dal: squeeze lemon over before serving" the 1.5B local model
    saved "Red Lentil Dal with Lemon" beside the dal: the create is sent back once, and
    the update it gives then is the step's answer."""
    copy = {
        "decision": {
            "action": "tool_call",
            "tool": "db_create",
            "table": "recipes",
            "rows": [{"name": "Red Lentil Dal with Lemon", "instructions": ["Simmer.", "Lemon."]}],
        }
    }
    update = {
        "decision": {
            "action": "tool_call",
            "tool": "db_update",
            "table": "recipes",
            "filters": [{"field": "name", "op": "=", "value": "Red Lentil Dal"}],
            "or_filters": [],
            "changes": [{"column": "instructions", "value": ["Simmer.", "Lemon."]}],
        }
    }
    script = ScriptProvider.from_responses(
        [{"node": "act", "output": copy}, {"node": "act", "output": update}]
    )
    words = "add a step to the dal: squeeze lemon over before serving"
    step = "Add the step 'Squeeze lemon over before serving' to the Red Lentil Dal recipe"
    plan = [ThinkStep(description=step, step_type="write", subdomain="recipes", group=0)]
    ref = await saved(sessions, user, history_words=1)
    context = TurnContext(dashboard=KitchenDashboard(named={"recipes": ["Red Lentil Dal"]}))
    request = ActRequest(
        goal="g",
        plan=plan,
        step_index=0,
        mode="plan",
        state_ref=ref,
        message=words,
        context=context,
    )
    result = await environment(timedelta(minutes=5)).run(nodes(script, sessions).act, request)
    assert len(script.calls) == 2
    assert "not made: Red Lentil Dal is a saved recipe" in script.calls[1].user
    call = result.output.tool_call
    assert call is not None and call.tool == "db_update"


async def test_a_date_set_elsewhere_than_the_words_move_it_is_sent_back_once(sessions, user):
    """Asked to "push everything on my todo list back a week", shown each task's date
    moved, the 1.5B local model set the plumber's to the oven's: sent back once with the
    date the words give, and the update it gives then is the step's answer."""
    plumber = [{"field": "title", "op": "=", "value": "Call the plumber"}]

    def update(day: str) -> dict:
        return {
            "decision": {
                "action": "tool_call",
                "tool": "db_update",
                "table": "tasks",
                "filters": plumber,
                "or_filters": [],
                "changes": [{"column": "due_date", "value": day}],
            }
        }

    answers = [update("2026-12-10"), update("2026-12-12")]
    script = ScriptProvider.from_responses([{"node": "act", "output": a} for a in answers])
    row = {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-05"}
    tasks = StepResult(
        step_index=0,
        description="Read the tasks",
        step_type="read",
        subdomain="tasks",
        tool_results=[ToolEntry(tool="db_read", params={"table": "tasks"}, rows=[row], count=1)],
    )
    move = "Move the plumber task a week later"
    plan = [
        ThinkStep(description="Read the tasks", step_type="read", subdomain="tasks", group=0),
        ThinkStep(description=move, step_type="write", subdomain="tasks", group=1),
    ]
    ref = await saved(sessions, user, history_words=1)
    request = ActRequest(
        goal="g",
        plan=plan,
        step_index=1,
        mode="plan",
        state_ref=ref,
        message="push everything on my todo list back a week",
        prior_results=[tasks],
    )
    result = await environment(timedelta(minutes=5)).run(nodes(script, sessions).act, request)
    assert len(script.calls) == 2
    assert "it is Sat 2026-12-12 (7 days later), not Thu 2026-12-10" in script.calls[1].user
    call = result.output.tool_call
    assert call is not None and call.params["data"] == {"due_date": "2026-12-12"}
    # sent again as it was (the 1.5B's second answer): written where the words move it
    again = ScriptProvider.from_responses([{"node": "act", "output": answers[0]}] * 2)
    result = await environment(timedelta(minutes=5)).run(nodes(again, sessions).act, request)
    call = result.output.tool_call
    assert call is not None and call.params["data"] == {"due_date": "2026-12-12"}


ONION = [{"field": "name", "op": "=", "value": "onion"}]
CUMIN = {"recipe_id": "recipe_1", "name": "cumin", "quantity": 1, "unit": "tsp"}


def _act(tool: str, **params: Any) -> dict:
    return {
        "decision": {"action": "tool_call", "tool": tool, "table": "recipe_ingredients", **params}
    }


@pytest.mark.parametrize(
    ("step", "update", "meant", "told"),
    [
        (  # the 1.5B set one of the dal's ingredients to 1
            "Add a teaspoon of cumin to the Red Lentil Dal recipe, one row",
            {
                "filters": [{"field": "id", "op": "=", "value": "ri_3"}],
                "changes": [{"column": "quantity", "value": 1}],
            },
            _act("db_create", rows=[CUMIN]),
            "which adds rows, and db_update changes rows already there",
        ),
        (  # "the dal recipe shouldnt have onion in it": the 1.5B set the onion optional, twice
            "Remove the onion row from the Red Lentil Dal recipe",
            {"filters": ONION, "changes": [{"column": "is_optional", "value": True}]},
            _act("db_delete", filters=ONION, or_filters=[]),
            "which removes rows, and db_update keeps them",
        ),
    ],
)
async def test_an_update_in_a_step_that_adds_or_removes_rows_is_sent_back_once(
    sessions, user, step: str, update: dict, meant: dict, told: str
):
    """The update is sent back once, and the call it gives then is the step's answer; sent
    again, an update stands."""
    update = _act("db_update", or_filters=[], **update)
    plan = [ThinkStep(description=step, step_type="write", subdomain="recipes", group=0)]
    ref = await saved(sessions, user, history_words=1)
    request = ActRequest(goal="g", plan=plan, step_index=0, mode="plan", state_ref=ref)
    for second in (meant, update):
        script = ScriptProvider.from_responses(
            [{"node": "act", "output": update}, {"node": "act", "output": second}]
        )
        result = await environment(timedelta(minutes=5)).run(nodes(script, sessions).act, request)
        assert len(script.calls) == 2
        assert told in script.calls[1].user
        call = result.output.tool_call
        assert call is not None and call.tool == second["decision"]["tool"]


async def test_a_meal_linked_by_a_made_up_ref_is_sent_back_to_say_its_meal(sessions, user):
    """For "we are doing pasta on friday night", no recipe holding pasta, the 1.5B local
    model planned Friday's dinner on "gen_recipe_1", a ref no row has, twice: refused each
    time by the database's whitelist, nothing was planned. The activity sends it back once
    with what a meal plan row needs, and the meal named in its notes is the answer."""
    friday = {"date": "2026-12-04", "meal_type": "dinner", "servings": 1}

    def create(row: dict) -> dict:
        rows = [{**friday, **row}]
        return {
            "decision": {
                "action": "tool_call",
                "tool": "db_create",
                "table": "meal_plans",
                "rows": rows,
            }
        }

    script = ScriptProvider.from_responses(
        [
            {"node": "act", "output": create({"recipe_id": "gen_recipe_1", "notes": None})},
            {"node": "act", "output": create({"recipe_id": None, "notes": "pasta"})},
        ]
    )
    plan = [
        ThinkStep(
            description="Add pasta to the meal plan for Friday 2026-12-04, dinner",
            step_type="write",
            subdomain="meal_plans",
            group=0,
        )
    ]
    ref = await saved(sessions, user, history_words=1)
    request = ActRequest(goal="g", plan=plan, step_index=0, mode="plan", state_ref=ref)
    result = await environment(timedelta(minutes=5)).run(nodes(script, sessions).act, request)
    assert len(script.calls) == 2
    assert "not run: gen_recipe_1 is no saved recipe's ref" in script.calls[1].user
    call = result.output.tool_call
    assert call is not None and call.params["data"][0]["notes"] == "pasta"


async def test_a_recipe_holding_an_allergen_is_sent_back_once_with_what_rules_it_out(
    sessions, user
):
    """The profile's allergy rules peanuts out of what a generate step invents: the
    satay comes back once with why, and the recipe made without them is the answer."""

    def invented(name: str, *ingredients: str) -> dict:
        content = {
            "name": name,
            "servings": 2,
            "ingredients": [{"name": i, "quantity": 1, "unit": "piece"} for i in ingredients],
            "instructions": ["Cook it all."],
        }
        return {
            "decision": {
                "action": "step_complete",
                "artifacts": [{"type": "recipe", "content": content}],
                "result_summary": f"Invented {name}",
            }
        }

    script = ScriptProvider.from_responses(
        [
            {"node": "act", "output": invented("Tofu Satay", "tofu", "peanut butter")},
            {"node": "act", "output": invented("Tofu Stir-fry", "tofu", "soy sauce")},
        ]
    )
    step = "Invent a quick dinner for two"
    plan = [ThinkStep(description=step, step_type="generate", subdomain="recipes", group=0)]
    ref = await saved(sessions, user, history_words=1)
    request = ActRequest(
        goal="g",
        plan=plan,
        step_index=0,
        mode="plan",
        state_ref=ref,
        message="suggest a quick dinner for two",
        context=TurnContext(profile={"allergies": ["peanuts"]}),
    )
    result = await environment(timedelta(minutes=5)).run(nodes(script, sessions).act, request)
    assert len(script.calls) == 2
    assert "Tofu Satay holds peanut (ruled out: the peanuts allergy)." in script.calls[1].user
    assert [a.content["name"] for a in result.output.artifacts] == ["Tofu Stir-fry"]


async def test_a_task_is_created_without_links_to_rows_that_do_not_exist(sessions, user):
    """The 0.5B local model created "Buy candles" with recipe_id and meal_plan_id both
    "1", twice refused: the activity's answer is the create without them."""
    row = {"title": "Buy candles", "due_date": "2026-12-04", "recipe_id": "1", "meal_plan_id": "1"}
    create = {
        "decision": {"action": "tool_call", "tool": "db_create", "table": "tasks", "rows": [row]}
    }
    script = ScriptProvider.from_responses([{"node": "act", "output": create}])
    step = "Create the task 'Buy candles', due Friday 2026-12-04"
    plan = [ThinkStep(description=step, step_type="write", subdomain="tasks", group=0)]
    ref = await saved(sessions, user, history_words=1)
    request = ActRequest(goal="g", plan=plan, step_index=0, mode="plan", state_ref=ref)
    result = await environment(timedelta(minutes=5)).run(nodes(script, sessions).act, request)
    call = result.output.tool_call
    assert call is not None
    assert call.params["data"] == [{"title": "Buy candles", "due_date": "2026-12-04"}]


async def test_a_quick_read_from_the_day_the_words_name_is_recorded_as_that_day(sessions, user):
    """The activity's result holds the read the turn runs
    (``domain.enforced.read_filters.one_day``)."""
    onward = {"field": "date", "op": ">=", "value": "2026-11-30"}
    read = {"tool": "db_read", "params": {"table": "meal_plans", "filters": [onward]}}
    script = ScriptProvider.from_responses([{"node": "act_quick", "output": read}])
    ref = await saved(sessions, user, history_words=1)
    request = ActQuickRequest(
        intent="dinner next monday",
        subdomain="meal_plans",
        message="what's planned for dinner next Monday?",
        clock=Clock(now=datetime(2026, 11, 28, 17, 0, tzinfo=UTC), timezone="UTC"),
        state_ref=ref,
    )
    result = await ActivityEnvironment().run(nodes(script, sessions).act_quick, request)
    assert result.output.params["filters"] == [{**onward, "op": "="}]
