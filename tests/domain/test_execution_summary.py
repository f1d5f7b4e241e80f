"""Reply's execution summary: the plan against what ran, batches, the primary output,
warnings where words and deeds differ, and one next step."""

from __future__ import annotations

from domain.batch import BatchItem, BatchManifest
from domain.context import reply_context
from domain.conversation import ConversationState, StepExit, StepResult
from domain.execution_summary import (
    PlannedStep,
    next_step,
    plan_overview,
    primary_step,
    warnings,
)
from domain.registry import SessionIdRegistry


def planned(*statuses: str) -> list[PlannedStep]:
    return [
        PlannedStep(
            index=i, description=f"step {i}", step_type="read", subdomain="recipes", status=s
        )
        for i, s in enumerate(statuses)
    ]


def result(index: int, step_type: str, *tools: dict, **fields) -> StepResult:
    return StepResult(
        step_index=index,
        description=f"{step_type} things",
        step_type=step_type,
        subdomain="recipes",
        tool_results=list(tools),
        **fields,
    )


READ = {"tool": "db_read", "params": {"table": "recipes"}, "count": 2, "rows": []}
WROTE = {"tool": "db_create", "params": {"table": "shopping_list"}, "count": 1, "rows": []}
REFUSED = {"tool": "db_create", "params": {"table": "shopping_list"}, "error": "bad value"}


def test_the_plan_overview_counts_steps_by_outcome_including_the_skipped():
    text = plan_overview(planned("completed", "blocked", "skipped"))
    assert text.splitlines()[0] == "3 steps planned: 1 completed, 1 blocked, 1 skipped."
    assert text.splitlines()[3] == "- step 2 [read/recipes] step 2: skipped"
    assert plan_overview([]) == ""


def test_the_primary_output_is_the_last_completed_analyze_or_generate_step():
    steps = [result(0, "read"), result(1, "generate"), result(2, "analyze"), result(3, "write")]
    assert primary_step(steps) is steps[2]
    assert primary_step([result(0, "read")]) is None


def test_an_analysis_its_outcomes_do_not_support_is_not_the_primary_output():
    """For "how much olive oil am i getting" the 1.5B local model's analyze step named an
    inventory row that does not exist, and the reply led with it."""
    unfounded = result(2, "analyze", flags=["it names refs that do not exist: inv_1"])
    steps = [result(0, "read"), result(1, "analyze"), unfounded]
    assert primary_step(steps) is steps[1]
    assert primary_step([result(0, "read"), unfounded]) is None


def test_a_change_asked_for_and_only_reads_made_is_an_action_mismatch():
    registry = SessionIdRegistry()
    only_read = warnings("add eggs to my list", [result(0, "read", READ)], registry)
    failed = warnings("add eggs to my list", [result(0, "write", REFUSED)], registry)
    done = warnings("add eggs to my list", [result(0, "write", WROTE)], registry)
    looked_up = warnings("what's on my list?", [result(0, "read", READ)], registry)
    quick = warnings("add eggs", [], registry, quick_result={"table": "shopping_list"})
    assert only_read[0].startswith('ACTION MISMATCH: the user asked for a change ("add")')
    assert "only looked data up" in only_read[0] and failed == only_read
    assert done == [] and looked_up == []
    assert "only looked data up" in quick[0]


DAL = {
    "id": "recipe_1",
    "name": "Red Lentil Dal",
    "recipe_ingredients": [{"id": "ri_1", "name": "red lentils", "quantity": 200, "unit": "g"}],
}
DAL_READ = {"tool": "db_read", "params": {"table": "recipes"}, "count": 1, "rows": [DAL]}


def test_an_amount_the_user_set_that_no_write_set_is_flagged():
    """For "dal should be 250g lentils not 200" the 1.5B local model set the dal's
    description; the reply said the recipe now used 250 g."""
    registry = SessionIdRegistry()
    words = "dal should be 250g lentils not 200"
    described = {"tool": "db_update", "count": 1, "rows": [{"id": "recipe_1", "description": "x"}]}
    set_ = {"tool": "db_update", "count": 1, "rows": [{"id": "ri_1", "quantity": 250}]}
    read, wrote = result(0, "read", DAL_READ), result(1, "write", described)
    assert warnings(words, [read, wrote], registry) == [
        "AMOUNT NOT SET: the user's words give red lentils (in Red Lentil Dal) 250 g, and it "
        "is still 200 g: no write of this turn set it. Say so plainly; do not say it was "
        "changed."
    ]
    assert warnings(words, [read, result(1, "write", described, set_)], registry) == []
    stopped = StepExit(kind="blocked", step=1, tool_results=[set_])
    assert warnings(words, [read, wrote], registry, stopped=stopped) == []
    assert warnings(words, [read], registry) == []  # no write step: nothing tried to set it
    assert warnings("what's in the dal?", [read, wrote], registry) == []  # no amount said


def test_content_the_user_asked_to_save_that_is_only_generated_is_flagged():
    registry = SessionIdRegistry()
    registry.register_generated("recipe", {"name": "Dal"})
    steps = [result(0, "generate", artifacts=["gen_recipe_1"])]
    assert warnings("save the dal", steps, registry) == [
        "NOT SAVED: the user asked to save, but these are only generated: Dal."
    ]
    assert warnings("invent a dal", steps, registry) == []


def test_one_next_step_the_blocked_steps_own_then_saving_then_what_was_skipped():
    registry = SessionIdRegistry()
    assert next_step(
        planned("skipped"),
        registry,
        StepExit(kind="blocked", step=0, suggested_next="Try tomorrow."),
    ) == ("Try tomorrow.")
    assert next_step(planned("completed", "skipped"), registry, None) == (
        "Offer to try what was not done: step 1."
    )
    registry.register_generated("recipe", {"name": "Dal"})
    assert next_step(planned("skipped"), registry, None) == (
        "Offer to save Dal, or to change it first."
    )
    assert next_step(planned("completed"), SessionIdRegistry(), None) == ""


def test_reply_is_shown_the_warnings_the_plan_the_batch_and_the_suggestion():
    batch = BatchManifest(
        step_index=1,
        items=[
            BatchItem(
                ref="gen_recipe_1", label="Dal", status="completed", result_ref="gen_recipe_1"
            ),
            BatchItem(ref="gen_recipe_2", label="Naan", status="failed", error="no name"),
        ],
    )
    text = reply_context(
        message="delete the old tacos",
        goal="Tidy up",
        step_results=[result(0, "read", READ), result(1, "write", batch=batch)],
        quick_result=None,
        blocked=None,
        breakers=[],
        registry=SessionIdRegistry(),
        state=ConversationState(),
        plan=planned("completed", "completed", "skipped"),
    ).text
    assert "## Warnings\nACTION MISMATCH" in text
    assert "## Plan overview\n3 steps planned: 2 completed, 1 skipped." in text
    assert "## Batch progress\nStep 1: 1 of 2 saved; Naan (gen_recipe_2) failed: no name\n" in text
    assert "## Suggested next step\nOffer to try what was not done: step 2." in text


def test_a_write_made_by_the_step_that_stopped_is_a_change():
    stopped = StepExit(kind="breaker", breaker="llm_call_cap", step=0, tool_results=[WROTE])
    assert warnings("add eggs", [], SessionIdRegistry(), stopped=stopped) == []
    refused = StepExit(kind="blocked", step=0, tool_results=[REFUSED])
    assert warnings("add eggs", [], SessionIdRegistry(), stopped=refused)[0].startswith(
        "ACTION MISMATCH"
    )


def shown_after(stopped: StepExit, written: list[str]) -> str:
    """What Reply is shown when ``stopped`` ended a one-step plan that wrote ``written``."""
    return reply_context(
        message="add milk and bread",
        goal="Shop",
        step_results=[],
        quick_result=None,
        blocked=stopped,
        breakers=[],
        registry=SessionIdRegistry(),
        state=ConversationState(),
        plan=planned("blocked"),
        written=written,
    ).text


def section(text: str, title: str) -> str:
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_step_that_stopped_is_in_the_execution_summary_with_what_it_wrote():
    milk = {**WROTE, "table": "shopping_list", "rows": [{"name": "milk"}]}
    stopped = StepExit(
        kind="blocked",
        step=0,
        reason_code="model_unavailable",
        details="Step 1 stopped: the model service did not answer",
        tool_results=[milk],
    )
    text = shown_after(stopped, ["Added 1 item to your shopping list: milk."])
    summary = section(text, "Execution summary")
    assert summary.startswith(
        "Step 0 (read, recipes): step 0 → blocked. Step 1 stopped: the model service did not "
        "answer\ntool result: Added 1 item to your shopping list: milk."
    )
    assert summary.endswith("\n\nChanges made: Added 1 item to your shopping list: milk.\n")
    problems = section(text, "Problems")
    assert '"reason_code": "model_unavailable"' in problems and "db_create" not in problems


def test_a_turn_that_wrote_nothing_is_shown_so():
    text = shown_after(StepExit(kind="blocked", step=0, details="Step 1 stopped"), [])
    assert section(text, "Execution summary").endswith(
        "→ blocked. Step 1 stopped\n\nNothing was changed.\n"
    )
    assert "nothing was executed" not in text
