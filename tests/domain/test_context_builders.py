"""What each node is shown (seed 001's builder table), for a prepared registry and
conversation: sections, tags, windows and the user's kitchen."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from domain.batch import BatchItem, BatchManifest
from domain.clock import Clock
from domain.context import (
    act_context,
    act_quick_context,
    dashboard_section,
    read_said,
    reply_context,
    summarize_context,
    think_context,
    understand_context,
)
from domain.conversation import (
    ConversationState,
    CurationSummary,
    PendingContext,
    StepResult,
    TurnExecutionSummary,
    TurnRecord,
)
from domain.nodes import EntityCuration, RetainDecision, ThinkStep, UnderstandOutput
from domain.registry import SessionIdRegistry
from domain.shown import REPLY_SECTIONS, repeats_the_prompt
from domain.tool_results import ToolEntry
from domain.turn_context import FreshEntity, KitchenDashboard, TurnContext


def uid(n: int) -> str:
    return str(uuid.UUID(int=n))


def kitchen_session() -> tuple[ConversationState, SessionIdRegistry]:
    """Turn 1 read two recipes (one in full), turn 2 generated a recipe, now turn 3."""
    registry = SessionIdRegistry()
    registry.begin_turn(1)
    registry.translate_read_output(
        [
            {
                "id": uid(1),
                "name": "Butter Chicken",
                "instructions": ["cook"],
                "recipe_ingredients": [],
            },
            {"id": uid(2), "name": "Dal"},
        ],
        "recipes",
    )
    registry.ref_for_uuid(uid(3), "inv", action="read", label="milk")
    registry.set_active_reason("inv_1", "the user is using up the milk")
    registry.begin_turn(2)
    registry.register_generated("recipe", {"name": "Lime Rice", "instructions": ["boil"]})
    registry.touch("recipe_1")
    registry.begin_turn(3)
    state = ConversationState(
        recent_turns=[
            TurnRecord(
                turn=1,
                user_message="show my curries",
                assistant_response="Butter Chicken and Dal.",
                entities=["recipe_1", "recipe_2"],
            ),
            TurnRecord(
                turn=2,
                user_message="make a rice side",
                assistant_response="Here is Lime Rice.",
                entities=["gen_recipe_1"],
            ),
        ],
        turn_summaries=[
            TurnExecutionSummary(
                turn_num=2,
                think_decision="plan_direct",
                think_goal="a rice side",
                entity_curation=CurationSummary(
                    retained=[RetainDecision(ref="inv_1", reason="the user is using up the milk")],
                    demoted=["recipe_2"],
                ),
                conversation_phase="narrowing",
                user_expressed="wants quick sides",
            )
        ],
    )
    return state, registry


USER = TurnContext(
    profile={"allergies": ["peanuts"], "household_adults": 2, "favorite_cuisines": []},
    dashboard=KitchenDashboard(
        inventory_by_location={"fridge": 4},
        inventory_expiring_soon=2,
        recipe_count=2,
        recipes_by_cuisine={"indian": 2},
        meal_plan_next_7_days=["2026-11-23 dinner: Dal"],
        shopping_open=3,
        tasks_open=1,
        tasks_next=["put the bins out (due 2026-11-23)"],
    ),
    entities=[
        FreshEntity(
            table="recipes",
            id=uid(1),
            action="mentioned:user",
            ref="recipe_1",
            data={"name": "Butter Chicken", "servings": 4},
        )
    ],
    unresolved_mentions=["@[Paella](recipe:" + uid(99) + ")"],
)


def sections(text: str) -> list[str]:
    return [line[3:] for line in text.splitlines() if line.startswith("## ")]


def test_understand_sees_the_registry_annotated_turns_and_its_decision_history():
    state, registry = kitchen_session()
    text = understand_context("save it", state, registry, context=USER).text
    assert sections(text) == [
        "Current message",
        "Changed or mentioned by the user",
        "Recent conversation",
        "Entity registry",
        "Decision history",
        "Previous turns' plans",
    ]
    assert "| gen_recipe_1 | recipe | Lime Rice | generated | T2 | T2 |" in text
    assert "Turn 1 — entities: recipe_1: Butter Chicken (new); recipe_2: Dal (new)" in text
    assert "Turn 2 — entities: gen_recipe_1: Lime Rice (generated)" in text
    assert "| T2 | inv_1 | retain | the user is using up the milk |" in text
    assert "| T2 | recipe_2 | demote | |" in text
    assert "- `recipe_1` [mentioned:user] Butter Chicken" in text
    assert "mentioned but not found in the user's kitchen: Paella\n" in text
    assert '"servings"' not in text  # Understand gets refs, not row data


def test_the_dashboards_meal_plan_span_says_no_number_of_days():
    """Shown "meal plan, next 7 days", the 1.5B local model planned "the next 7 days" for
    "next weeks meal plan" and answered "7 days left" for a task due in 3."""
    text = dashboard_section(USER.dashboard)
    assert "- meal plan from today, a week ahead: " in text
    assert "7 days" not in text


def test_the_dashboards_cuisines_are_counted_before_their_names():
    """Shown "recipes: 2 (indian 1, mexican 1)", the 1.5B local model planned meals of
    recipes it named "Mexican 1" and "Indian 1"."""
    board = USER.dashboard.model_copy(update={"recipes_by_cuisine": {"indian": 1, "mexican": 1}})
    assert "- recipes: 2 (1 indian, 1 mexican)\n" in dashboard_section(board)


def test_the_dashboard_names_the_rows_the_request_names_beside_their_counts():
    board = USER.dashboard.model_copy(
        update={"named": {"shopping_list": ["paper towels", "bread"], "inventory": ["milk"]}}
    )
    text = dashboard_section(board)
    assert (
        "- shopping list: 3 to buy; among them paper towels, bread, named in the request\n" in text
    )
    assert "- inventory: 4 fridge; among them milk, named in the request\n" in text
    assert "named in the request" not in dashboard_section(USER.dashboard)
    tasks = dashboard_section(USER.dashboard.model_copy(update={"named": {"tasks": ["Bins"]}}))
    assert "- tasks: 1 open, 0 overdue; among them Bins, named in the request; due first:\n" in (
        tasks
    )


def test_think_sees_tags_unsaved_content_memory_curation_profile_and_dashboard():
    state, registry = kitchen_session()
    understood = UnderstandOutput(
        referenced_entities=["gen_recipe_1"],
        entity_curation=EntityCuration(
            retain_active=[RetainDecision(ref="gen_recipe_1", reason="the side being refined")],
            demote=["recipe_2"],
        ),
    )
    text = think_context("save it", understood, state, registry, context=USER).text
    assert "- `gen_recipe_1`: Lime Rice [unsaved]" in text
    assert "- `recipe_1`: Butter Chicken (recipe) [read:full] T2" in text
    assert "Long-term memory:\n- `inv_1`: milk — the user is using up the milk" in text
    assert "- keep `gen_recipe_1`: the side being refined\n- demoted `recipe_2`" in text
    assert "- allergies: peanuts\n- household adults: 2" in text
    assert "favorite cuisines" not in text  # empty fields are left out
    assert "- inventory: 4 fridge\n" in text
    assert "expir" not in text  # the planner is not primed to read what is expiring
    assert "  - 2026-11-23 dinner: Dal" in text
    assert "- tasks: 1 open, 0 overdue, due first:\n  - put the bins out (due 2026-11-23)" in text
    assert '`recipe_1` [mentioned:user]: {"name": "Butter Chicken", "servings": 4}' in text


def test_think_asked_again_sees_why_right_after_the_request():
    state, registry = kitchen_session()
    first = think_context("add eggs", UnderstandOutput(), state, registry).text
    again = think_context("add eggs", UnderstandOutput(), state, registry, replan="It reads.").text
    assert "## Your plan, asked again" not in first
    assert again.index("## User request") < again.index("## Your plan, asked again\nIt reads.")
    assert again.index("## Your plan, asked again") < again.index("## Entities")


def test_think_with_no_profile_says_so():
    state, registry = kitchen_session()
    text = think_context("hi", UnderstandOutput(), state, registry).text
    assert "## User profile\n(no preferences saved yet)" in text


def plan_of(*types: str, subdomain: str = "recipes") -> list[ThinkStep]:
    return [ThinkStep(description=f"{t} things", step_type=t, subdomain=subdomain) for t in types]


def act_text(
    types: tuple[str, ...], index: int, prior=(), context=USER, subdomain: str = "recipes"
) -> str:
    state, registry = kitchen_session()
    return act_context(
        goal="g",
        plan=plan_of(*types, subdomain=subdomain),
        step_index=index,
        prior_results=list(prior),
        tool_results=[],
        registry=registry,
        state=state,
        context=context,
    ).text


def test_read_and_write_steps_get_the_schema_and_generate_analyze_write_get_the_profile():
    read = act_text(("read",), 0)
    generate = act_text(("generate",), 0)
    analyze = act_text(("analyze",), 0)
    write = act_text(("write",), 0)
    assert "## Schema: recipes" in read and "## Schema: recipes" in write
    assert "## Schema" not in generate and "## Schema" not in analyze
    assert "## User profile" not in read
    for text in (generate, analyze, write):
        assert "## User profile\n- allergies: peanuts" in text
        assert "## Kitchen dashboard" in text
    for text in (read, generate, analyze, write):  # every step sees the user's fresh rows
        assert '"servings": 4' in text


@pytest.mark.parametrize(
    ("step_type", "subdomain", "shown"),
    [
        ("generate", "recipes", True),
        ("analyze", "inventory", True),
        ("generate", "meal_plans", True),
        ("analyze", "shopping", False),
        ("generate", "tasks", False),
        ("write", "inventory", False),
    ],
)
def test_only_steps_choosing_food_see_how_many_items_near_their_expiry_date(
    step_type: str, subdomain: str, shown: bool
):
    text = act_text((step_type,), 0, subdomain=subdomain)
    fact = "- inventory: 4 fridge (2 of them past or within 3 days of their expiry date)\n"
    assert (fact in text) is shown
    assert ("- inventory: 4 fridge\n" in text) is not shown


def test_no_expiry_fact_when_nothing_is_near_its_date():
    board = USER.dashboard.model_copy(update={"inventory_expiring_soon": 0})
    text = act_text(("generate",), 0, context=USER.model_copy(update={"dashboard": board}))
    assert "- inventory: 4 fridge\n" in text and "expiry" not in text


def test_a_write_step_sees_what_needs_creating_in_full():
    write = act_text(("write",), 0)
    assert '`gen_recipe_1`: {"name": "Lime Rice", "instructions": ["boil"]}' in write
    assert "## Needs creating" not in act_text(("read",), 0)


def result(i: int, step_type: str = "read") -> StepResult:
    return StepResult(
        step_index=i,
        description=f"step {i}",
        step_type=step_type,
        subdomain="recipes",
        summary=f"did {i}",
        tool_results=[{"tool": "db_read", "rows": [{"id": f"recipe_{i}", "name": f"secret{i}"}]}],
    )


def test_older_steps_are_summarized_except_generated_content_for_a_write_step():
    types = ("generate", "read", "read", "read", "read", "write")
    prior = [result(0, "generate"), *(result(i) for i in range(1, 5))]
    text = act_text(types, 5, prior)
    # FULL_DETAIL_STEPS = 3: steps 2-4 in full, step 1 summarized, step 0 (generate) in full.
    assert "secret1" not in text and "use retrieve_step 1 for the data" in text
    assert all(f"secret{i}" in text for i in (0, 2, 3, 4))
    read_text = act_text((*types[:5], "read"), 5, prior)
    assert "secret0" not in read_text  # a read step does not need old generated content


def reply_for(state: ConversationState, registry: SessionIdRegistry, **fields) -> str:
    """Reply's prompt for a turn that ran nothing, with ``fields`` given."""
    defaults = {"goal": "g", "step_results": [], "quick_result": None, "blocked": None}
    return reply_context(**{**defaults, **fields}, breakers=[], registry=registry, state=state).text


def test_reply_marks_saved_and_generated_content_and_the_conversation_phase():
    state, registry = kitchen_session()
    registry.register_generated("recipe", {"name": "Mango Lassi"})
    registry.register_created(uid(7), "recipes", {"name": "Lime Rice"}, gen_ref="gen_recipe_1")
    text = reply_for(state, registry, message="save the rice and make a drink")
    assert "NOT YET SAVED (show in full, offer to save): Mango Lassi" in text
    assert "ALREADY SAVED this turn (don't offer to save): Lime Rice" in text
    assert "## Conversation phase\nnarrowing; the user expressed: wants quick sides" in text


def test_a_reply_that_gives_back_reply_s_prompt_is_known_for_one():
    """Every section title Reply is sent is one ``repeats_the_prompt`` knows, so a reply
    made of them is told apart from an answer."""
    state, registry = kitchen_session()
    registry.register_generated("recipe", {"name": "Mango Lassi"})
    text = reply_for(state, registry, message="save it", blocked=None)
    titles = [line[3:].lower() for line in text.splitlines() if line.startswith("## ")]
    assert len(titles) >= 4 and set(titles) <= set(REPLY_SECTIONS)
    assert repeats_the_prompt(text)


def test_reply_reads_the_users_earlier_words_but_not_its_own_earlier_replies():
    """Reply writes from what happened this turn; an earlier reply in its prompt was given
    again, word for word, as the answer (the 1.5B local model, three turns)."""
    state, registry = kitchen_session()
    text = reply_for(state, registry, message="save it")
    conversation = text.split("## Conversation\n", 1)[1]
    assert "Turn 1 — user: show my curries" in conversation
    assert "Turn 2 — user: make a rice side" in conversation
    assert "Butter Chicken and Dal." not in text and "Here is Lime Rice." not in text


def test_reply_is_sent_the_turns_primary_output_once_in_its_own_section():
    """The last generate step's content is the primary output: shown there, in full, and
    nowhere else (no pointer either: a weak model answered "Under Primary output");
    content left unsaved by an earlier turn is still shown in full."""
    state, registry = kitchen_session()
    lassi = {"name": "Mango Lassi", "instructions": ["blend the mango with yogurt"]}
    ref = registry.register_generated("recipe", lassi)
    generate = StepResult(
        step_index=0,
        description="a drink",
        step_type="generate",
        subdomain="recipes",
        data={ref: lassi},
        artifacts=[ref],
    )
    sections = reply_for(
        state, registry, message="make a drink", goal="a drink", step_results=[generate]
    ).split("\n## ")
    primary, summary, unsaved = (
        next(s for s in sections if s.startswith(name))
        for name in ("Primary output", "Execution summary", "Saved vs generated")
    )
    assert primary.startswith("Primary output\nStep 0 (generate): a drink\n")
    assert "\n".join(sections).count("blend the mango") == 1 and "blend the mango" in primary
    assert "data:" not in summary and "under Primary output" not in "\n".join(sections)
    assert "NOT YET SAVED (show in full, offer to save): Lime Rice, Mango Lassi" in unsaved
    assert 'Lime Rice: {"name": "Lime Rice", "instructions": ["boil"]}' in unsaved


def test_reply_is_told_a_write_by_its_sentence_and_a_failed_one_with_its_error():
    """Reply says what changed: a saved recipe is "Saved 1 recipe: …", not the rows sent
    and returned (a weak model lost the one line that mattered in 6,000 characters of
    them); a refused write keeps its call and error, which Reply explains."""
    state, registry = kitchen_session()
    saved = ToolEntry(
        tool="db_create",
        params={"table": "recipes", "data": [{"name": "Pea Soup", "instructions": ["simmer"]}]},
        table="recipes",
        count=1,
        rows=[{"id": "recipe_3", "name": "Pea Soup", "instructions": ["simmer"]}],
    )
    refused = ToolEntry(
        tool="db_update", params={"table": "inventory"}, error="no rows match: name = 'kale'"
    )
    write = StepResult(
        step_index=0,
        description="Save the soup",
        step_type="write",
        subdomain="recipes",
        summary="Saved it",
        tool_results=[saved, refused],
    )
    text = reply_for(state, registry, message="save it", step_results=[write])
    assert "tool result: Saved 1 recipe: Pea Soup." in text
    assert "simmer" not in text
    assert "no rows match: name = 'kale'" in text and '"tool": "db_update"' in text


CHILI_NIGHT = {
    "id": "meal_1",
    "date": "2026-11-29",
    "meal_type": "dinner",
    "recipe_id": "recipe_1",
    "_recipe_id_label": "Weeknight Chili",
}
ON_SUNDAY = {
    "table": "meal_plans",
    "filters": [{"field": "date", "op": "=", "value": "2026-11-29"}],
    "columns": ["id", "date", "meal_type", "recipe_id"],
    "limit": 1,
    "order_by": "date",
}


def read_step(*reads: ToolEntry) -> StepResult:
    return StepResult(
        step_index=0,
        description="Read tomorrow's dinner",
        step_type="read",
        subdomain="meal_plans",
        tool_results=list(reads),
    )


def test_reply_is_shown_a_read_as_what_it_asked_and_found_then_its_rows():
    """The 1.5B local model, sent the read as the executor's JSON (its query's columns,
    order and limit first, the recipe beside a ref), said it had no information about
    tomorrow's dinner; sent what was found as a user reads it, it named the chili."""
    state, registry = kitchen_session()
    found = ToolEntry(
        tool="db_read", params=ON_SUNDAY, table="meal_plans", count=1, rows=[CHILI_NIGHT]
    )
    text = reply_for(
        state, registry, message="whats for dinner tomorrow", step_results=[read_step(found)]
    )
    assert (
        "tool result: read meal_plans where date = 2026-11-29: 1 planned meal:\n"
        "- Sun 2026-11-29 · Dinner: Weeknight Chili\nrows: [{" in text
    )
    assert '"columns"' not in text and '"order_by"' not in text


def test_reply_is_told_how_many_days_away_a_task_is_due():
    """For "how many days till the plumber", told the task was due Wed 2026-12-02 on a
    Sunday, the 1.5B local model answered 7 days: the count is the system's."""
    state, registry = kitchen_session()
    plumber = {"title": "Call the plumber", "due_date": "2026-12-02", "completed": False}
    found = ToolEntry(
        tool="db_read", params={"table": "tasks"}, table="tasks", count=1, rows=[plumber]
    )
    step = read_step(found).model_copy(update={"subdomain": "tasks"})
    text = reply_for(
        state,
        registry,
        message="how many days till the plumber",
        step_results=[step],
        clock=FRIDAY_NOON,
    )
    assert "- [ ] Call the plumber (due Wed 2026-12-02, in 5 days)" in text
    undated = reply_for(
        state, registry, message="how many days till the plumber", step_results=[step]
    )
    assert "- [ ] Call the plumber (due Wed 2026-12-02)" in undated  # no clock, no count


def test_reply_is_told_a_read_found_nothing_and_the_reads_notes():
    state, registry = kitchen_session()
    empty = ToolEntry(
        tool="db_read",
        params={
            "table": "inventory",
            "filters": [{"field": "name", "op": "=", "value": "freezer"}],
        },
        table="inventory",
        count=0,
        rows=[],
        notes=["'freezer' is the location of 2 row(s), not their name"],
    )
    quick = reply_for(state, registry, message="whats in the freezer", quick_result=empty)
    assert (
        "Quick read result: read inventory where name = freezer: "
        "I couldn't find anything matching in your inventory." in quick
    )
    assert "rows:" not in quick
    assert "\nnote: 'freezer' is the location of 2 row(s), not their name" in quick


def test_reply_sees_the_steps_that_found_rows_first_and_no_note_act_left_its_next_step():
    """For "anything i need to do this week?" the 1.5B local model read five tables, the
    tasks last, and answered from the first empty read and a read step's note to its next
    step ("You can add meals to your plan by creating a new meal plan entry")."""
    state, registry = kitchen_session()
    nothing = ToolEntry(
        tool="db_read", params={"table": "recipes"}, table="recipes", count=0, rows=[]
    )
    empty = read_step(nothing).model_copy(
        update={"description": "Read the recipes", "note": "Add recipes to your box first."}
    )
    oven = {"id": "task_1", "title": "Clean the oven", "due_date": "2026-11-29", "completed": False}
    tasks = ToolEntry(
        tool="db_read", params={"table": "tasks"}, table="tasks", count=1, rows=[oven]
    )
    found = read_step(tasks).model_copy(update={"step_index": 1, "description": "Read the tasks"})
    text = reply_for(
        state, registry, message="anything i need to do this week?", step_results=[empty, found]
    )
    summary = text.split("## Execution summary", 1)[1]
    assert summary.index("Step 1 (read, meal_plans): Read the tasks") < summary.index(
        "Step 0 (read, meal_plans): Read the recipes"
    )
    assert "Add recipes to your box first." not in text
    assert "Add recipes to your box first." in act_text(("read", "read"), 1, [empty])  # Act's


def test_reply_is_not_told_a_missed_read_the_step_read_again_nor_a_writes_lookups():
    """For "chili tonight" the 1.5B local model answered "I couldn't find a matching saved
    recipe" from a read of "chili" that a read of 'Weeknight Chili' followed, above the
    chili planned for tonight."""
    state, registry = kitchen_session()

    def read(value: str, rows: list) -> ToolEntry:
        params = {"table": "recipes", "filters": [{"field": "name", "op": "=", "value": value}]}
        return ToolEntry(tool="db_read", params=params, table="recipes", count=len(rows), rows=rows)

    missed, found = (
        read("chili", []),
        read("Weeknight Chili", [{"id": "recipe_1", "name": "Weeknight Chili"}]),
    )
    planned = ToolEntry(
        tool="db_create",
        params={"table": "meal_plans"},
        table="meal_plans",
        count=1,
        rows=[CHILI_NIGHT],
    )
    lookup = read_step(missed, found).model_copy(update={"subdomain": "recipes"})
    write = StepResult(
        step_index=1,
        description="Plan the chili",
        step_type="write",
        subdomain="meal_plans",
        summary="Planned",
        tool_results=[missed, found, planned],
    )
    text = reply_for(state, registry, message="chili tonight", step_results=[lookup, write])
    summary = text.split("## Execution summary", 1)[1]
    assert "where name = chili" not in summary
    assert summary.count("where name = Weeknight Chili") == 1  # the read step's, not the write's
    assert "tool result: Added 1 meal" in summary
    alone = read_step(missed).model_copy(update={"subdomain": "recipes"})
    assert "where name = chili" in reply_for(
        state, registry, message="chili?", step_results=[alone]
    )
    unwritten = write.model_copy(update={"tool_results": [missed, found]})
    assert "where name = Weeknight Chili" in reply_for(
        state, registry, message="chili tonight", step_results=[unwritten]
    )


def test_reply_sees_what_a_read_step_read_not_what_act_said_of_it():
    """The 1.5B local model completed a read of an empty shopping list with "No shopping
    list found this week. You may need to create one … Good luck with your shopping!"
    (and a made-up ref), which Reply gave the user."""
    state, registry = kitchen_session()
    empty = ToolEntry(
        tool="db_read", params={"table": "shopping_list"}, table="shopping_list", count=0, rows=[]
    )
    rant = "No shopping list found this week. Good luck with your shopping!"
    step = read_step(empty).model_copy(
        update={
            "summary": rant,
            "data": {"refs": ["gen_shopping_list_1"], "text": rant},
            "flags": ["it names refs that do not exist: gen_shopping_list_1"],
        }
    )
    text = reply_for(state, registry, message="what's on the list?", step_results=[step])
    assert "Good luck" not in text and "gen_shopping_list_1" not in text
    assert "Step 0 (read, meal_plans): Read tomorrow's dinner → completed.\n" in text
    assert "tool result: read shopping_list: Your shopping list is empty." in text
    analyzed = step.model_copy(update={"step_type": "analyze", "tool_results": []})
    assert rant in reply_for(state, registry, message="?", step_results=[analyzed])  # its own


def test_generate_and_analyze_steps_see_unsaved_content_in_full_to_revise_it():
    for step_type in ("generate", "analyze"):
        text = act_text((step_type,), 0)
        section = "## Generated content (unsaved; revise it under the same ref)\n"
        assert section + '`gen_recipe_1`: {"name": "Lime Rice"' in text
    assert "## Generated content" not in act_text(("read",), 0)


def test_act_sees_the_last_two_turns_step_results_in_full():
    state, registry = kitchen_session()
    state.turn_step_results = {"2": [result(0)]}
    text = act_context(
        goal="g",
        plan=plan_of("analyze"),
        step_index=0,
        prior_results=[],
        tool_results=[],
        registry=registry,
        state=state,
    ).text
    assert "## Earlier turns' steps (last 2 turns)\nTurn 2: Step 0 (read, recipes)" in text
    assert '"name": "secret0"' in text


# --- each node sees what it needs, and nothing false -----------------------------------------


def test_an_analyze_step_sees_the_recipes_read_against_the_inventory_read():
    """For "want to make the dal this week, put what it needs on my groceries" the 1.5B
    local model named the inventory's milk, eggs and rice as the dal's missing ones."""
    dal = {"id": "recipe_1", "name": "Dal", "recipe_ingredients": [{"name": "red lentils"}]}
    reads = [
        StepResult(
            step_index=i,
            description="read",
            step_type="read",
            subdomain=table,
            tool_results=[ToolEntry(tool="db_read", params={"table": table}, rows=rows)],
        )
        for i, (table, rows) in enumerate([("recipes", [dal]), ("inventory", [{"name": "milk"}])])
    ]
    heading = "## Recipes against the inventory (compared by the system, from the reads above)"
    analyze = act_text(("read", "read", "analyze"), 2, reads)
    assert (
        f"{heading}\n- Dal: 0 of its 1 ingredient in the inventory read; missing: red lentils"
        in analyze
    )
    assert heading not in act_text(("read", "read", "write"), 2, reads)  # analyze steps only


def test_an_analyze_or_generate_step_sees_the_days_to_each_date_read():
    """Asked "how many days till the plumber" on a Sunday, with the task read as due on
    Wednesday, the 1.5B local model's analyze step said 2 days."""
    plumber = {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-02"}
    tasks = StepResult(
        step_index=0,
        description="read",
        step_type="read",
        subdomain="tasks",
        tool_results=[ToolEntry(tool="db_read", params={"table": "tasks"}, rows=[plumber])],
    )
    sunday = Clock(now=dt.datetime(2026, 11, 29, 9, 0, tzinfo=dt.UTC))
    heading = "## Days from today (counted by the system, from the reads above)"

    def text(second: str) -> str:
        state, registry = kitchen_session()
        return act_context(
            goal="g",
            plan=plan_of("read", second, subdomain="tasks"),
            step_index=1,
            prior_results=[tasks],
            tool_results=[],
            registry=registry,
            state=state,
            clock=sunday,
        ).text

    counted = f"{heading}\n- Call the plumber (task): due Wed 2026-12-02, in 3 days"
    assert counted in text("analyze")
    assert counted in text("generate")
    assert heading not in text("write")  # a write is shown the rows, not a count


def test_act_sees_the_users_own_words_for_the_turn():
    state, registry = kitchen_session()
    words = "save my dal: 200 g red lentils, 1 onion, 2 tsp cumin"
    text = act_context(
        message=words,
        goal="Save the dal",
        plan=plan_of("write"),
        step_index=0,
        prior_results=[],
        tool_results=[],
        registry=registry,
        state=state,
    ).text
    assert f"## The user's words this turn\n{words}\n" in text


FRIDAY_NOON = Clock(now=dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC))
NEXT_MONDAY = '- "next Monday\'s" is Monday 2026-11-30'


def test_every_node_given_the_users_words_is_told_the_dates_of_their_day_phrases():
    state, registry = kitchen_session()
    words = "put the dal on next Monday's dinner"
    understood = UnderstandOutput()
    texts = {
        "understand": understand_context(words, state, registry, clock=FRIDAY_NOON).text,
        "think": think_context(words, understood, state, registry, clock=FRIDAY_NOON).text,
        "act": act_for("write", message=words, clock=FRIDAY_NOON),
        "act_quick": act_quick_context("i", "meal_plans", words, registry, FRIDAY_NOON),
        "reply": reply_for(state, registry, message=words, clock=FRIDAY_NOON),
    }
    for node, text in texts.items():
        today = text.split("## Today\n", 1)[1].split("\n## ", 1)[0]
        assert today.startswith("Now: Friday 2026-11-27, afternoon"), node
        assert today.rstrip().endswith(f"In the user's words:\n{NEXT_MONDAY}"), node


def test_think_and_understand_are_told_the_days_in_the_answer_to_a_pause_too():
    state, registry = kitchen_session()
    pending = PendingContext(kind="clarification", source="think", answer="tuesday next week")
    for text in (
        think_context(
            "plan me some dinners", UnderstandOutput(), state, registry, pending, clock=FRIDAY_NOON
        ).text,
        understand_context(
            "plan me some dinners", state, registry, pending, clock=FRIDAY_NOON
        ).text,
    ):
        assert '- "tuesday" is Tuesday 2026-12-01\n' in text


def test_words_without_day_phrases_add_nothing_to_the_calendar():
    state, registry = kitchen_session()
    text = think_context("add milk", UnderstandOutput(), state, registry, clock=FRIDAY_NOON).text
    assert "In the user's words" not in text and "Next week: Mon 2026-11-30" in text


def test_a_write_step_sees_each_date_read_moved_as_the_users_words_say():
    """Asked to "push everything on my todo list back a week", the 1.5B local model set
    each task the date it already had: every node's Today says what the words move, and
    the write step each date read moved."""
    oven = {"id": "task_1", "title": "Clean the oven", "due_date": "2026-12-03"}
    tasks = StepResult(
        step_index=0,
        description="read",
        step_type="read",
        subdomain="tasks",
        tool_results=[ToolEntry(tool="db_read", params={"table": "tasks"}, rows=[oven])],
    )
    heading = "## Dates moved as the user's words say (counted by the system, from the reads above)"
    words = "push everything on my todo list back a week"

    def text(second: str, subdomain: str = "tasks", message: str = words) -> str:
        state, registry = kitchen_session()
        return act_context(
            message=message,
            goal="g",
            plan=plan_of("read", second, subdomain=subdomain),
            step_index=1,
            prior_results=[tasks],
            tool_results=[],
            registry=registry,
            state=state,
            clock=FRIDAY_NOON,
        ).text

    write = text("write")
    assert (
        f"{heading}\n- Clean the oven (task): due Thu 2026-12-03; 7 days later: Thu 2026-12-10\n"
    ) in write
    moved = '- "back a week" moves a date 7 days later, from that date (not from today)'
    assert moved in write.split("## Today\n", 1)[1].split("\n## ", 1)[0]
    assert heading not in text("analyze")  # a write's, the step that sets the date
    assert heading not in text("write", subdomain="shopping")  # no dates of its own read
    assert heading not in text("write", message="move the oven to friday")  # a day, no move


def act_for(step_type: str = "write", **fields) -> str:
    """Act's prompt for a one-step plan of ``step_type``, with ``fields`` given."""
    state, registry = kitchen_session()
    defaults = {"goal": "g", "step_index": 0, "prior_results": [], "tool_results": []}
    return act_context(
        **{**defaults, **fields}, plan=plan_of(step_type), registry=registry, state=state
    ).text


@pytest.mark.parametrize(
    ("step_type", "shown"), [("write", True), ("generate", True), ("read", False)]
)
def test_steps_that_write_or_generate_hold_to_the_users_constraints(step_type: str, shown: bool):
    text = act_for(step_type, constraints=["no dairy", "use the cod"])
    assert ("## Constraints to hold to\n- no dairy\n- use the cod\n" in text) is shown


def test_a_write_step_saving_a_batch_is_shown_each_items_status():
    batch = BatchManifest(
        step_index=0,
        items=[
            BatchItem(
                ref="gen_recipe_1", label="Dal", status="completed", result_ref="gen_recipe_1"
            ),
            BatchItem(ref="gen_recipe_2", label="Naan"),
        ],
    )
    assert (
        "## Batch to save (every item saved before step_complete)\n"
        "- gen_recipe_1 (Dal): completed as gen_recipe_1\n- gen_recipe_2 (Naan): pending\n"
    ) in act_for("write", batch=batch)


def test_the_conversation_shows_what_alfred_said_not_a_summary_of_it():
    state, registry = kitchen_session()
    state.recent_turns[0].assistant_summary = "Listed two curries."
    text = understand_context("next", state, registry).text
    assert "Turn 1 — assistant: Butter Chicken and Dal." in text
    assert "Listed two curries." not in text


def test_understands_registry_leaves_out_ingredient_rows_and_the_catalog():
    state, registry = kitchen_session()
    registry.translate_read_output(
        [{"id": uid(9), "name": "Tacos", "recipe_ingredients": [{"id": uid(10), "name": "lime"}]}],
        "recipes",
    )
    registry.ref_for_uuid(uid(11), "ing", action="read", label="lime")
    text = understand_context("next", state, registry).text
    assert "| recipe_3 | recipe | Tacos |" in text
    assert "| ri_" not in text and "| ing_" not in text


def test_summarize_is_shown_the_steps_what_was_saved_and_generated_and_the_conversation():
    state, registry = kitchen_session()
    state.registry = registry.clone()
    saved = StepResult(
        step_index=0,
        description="Add milk",
        step_type="write",
        subdomain="shopping",
        summary="Added milk",
        tool_results=[
            {"tool": "db_create", "table": "shopping_list", "rows": [{"name": "milk"}], "count": 1}
        ],
    )
    milk = "Added 1 item to your shopping list: milk."
    eggs = "Added 1 item to your shopping list: eggs."  # by a step that was then blocked
    text = summarize_context("add milk", "Milk is on your list.", state, [saved], [milk, eggs])
    assert "## Steps executed\n- Add milk → completed. Added milk\n" in text
    assert f"## Saved this turn\n{milk}\n{eggs}\n" in text
    assert "## Generated, not saved\nLime Rice" in text
    assert "## Recent conversation\n" in text and "Turn 2 — user: make a rice side" in text


def test_think_is_shown_only_the_refs_understand_named_that_exist():
    state, registry = kitchen_session()
    understood = UnderstandOutput(referenced_entities=["recipe_1", "milk_2l"])
    text = think_context("that one", understood, state, registry).text
    assert "Referenced: recipe_1\n" in text and "milk_2l" not in text


def test_thinks_reasoning_trace_shows_what_the_user_expressed_and_the_curation():
    state, registry = kitchen_session()
    state.turn_summaries = [
        TurnExecutionSummary(
            turn_num=2,
            think_decision="plan_direct",
            think_goal="Find a curry",
            conversation_phase="narrowing",
            user_expressed="wants it mild, no coconut",
            entity_curation=CurationSummary(
                retained=[RetainDecision(ref="recipe_1", reason="the curry they are weighing")],
                demoted=["recipe_2"],
            ),
        )
    ]
    state.turn_summaries[0].written = ["Added 1 item to your shopping list: milk."]
    text = think_context("that one", UnderstandOutput(), state, registry).text
    assert "  Changes made: Added 1 item to your shopping list: milk.\n" in text
    assert "  user expressed: wants it mild, no coconut" in text
    assert "  curation — kept in context: recipe_1 (the curry they are weighing)" in text
    assert "  curation — demoted: recipe_2" in text


def test_acts_trimmed_copy_of_the_state_gives_the_same_prompt():
    state, registry = kitchen_session()
    state.recent_turns = [
        TurnRecord(turn=n, user_message=f"message {n}", assistant_response=f"answer {n}")
        for n in range(1, 6)
    ]
    state.turn_summaries = [
        TurnExecutionSummary(turn_num=n, think_goal=f"goal {n}") for n in (4, 5)
    ]
    state.reasoning_summary = "Earlier plans."
    state.history_summary = "Long ago."
    state.notes = ["a note"]
    state.content_archive = {"gen_recipe_1": {"name": "Lime Rice"}}

    def act_with(shown: ConversationState, step_type: str) -> str:
        return act_context(
            goal="g",
            plan=plan_of(step_type),
            step_index=0,
            prior_results=[],
            tool_results=[],
            registry=registry,
            state=shown,
        ).text

    for step_type in ("read", "write", "generate", "analyze"):
        assert act_with(state.for_act(), step_type) == act_with(state, step_type)
    assert len(state.for_act().recent_turns) == 2 and state.for_act().turn_summaries == []


def test_a_reads_either_filters_are_said_with_or():
    """The recipes the system reads by name, two of them, are the one or the other."""
    named = [
        {"field": "name", "op": "=", "value": "Red Lentil Dal"},
        {"field": "name", "op": "=", "value": "Weeknight Chili"},
    ]
    read = ToolEntry(
        tool="db_read",
        params={"table": "recipes", "or_filters": named},
        table="recipes",
        count=0,
        rows=[],
    )
    said = read_said(read).splitlines()[0]
    assert said.startswith("read recipes where name = Red Lentil Dal or name = Weeknight Chili:")
    both = {**read.params, "filters": [{"field": "cuisine", "op": "=", "value": "indian"}]}
    said = read_said(read.model_copy(update={"params": both})).splitlines()[0]
    assert "where cuisine = indian and (name = Red Lentil Dal or name = Weeknight Chili):" in said
