"""The harness: a recording that does not fit fails loudly, a check that does not hold
fails its scenario with the reason, recordings mean the same on any day, reports and
comparisons say what they must."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from activities.llm.openai_provider import OpenAIProvider
from domain.batch import MAX_EARLY_COMPLETIONS
from evals.cassette import CASSETTES_DIR, Call, Cassette, Replay
from evals.live import _record
from evals.report import Run, compare, markdown
from evals.runner import ScenarioResult, run_scenario
from evals.scenario import (
    PROBES_DIR,
    SCENARIOS_DIR,
    Scenario,
    expand,
    load,
    load_all,
    tokenize,
    tokens,
)
from tests.activities.llm.fake_openai import SNAPSHOT, FakeOpenAI

REFERENCE = CASSETTES_DIR / "reference"


def scenario(name: str) -> Scenario:
    return load(SCENARIOS_DIR / f"{name}.toml")


def reference(name: str) -> Cassette:
    return Cassette.load(REFERENCE, name)


async def run_with(eval_stack, name: str, cassette: Cassette, of: Scenario | None = None):
    replay = Replay(cassette)
    async with eval_stack(replay) as stack:
        return await run_scenario(of or scenario(name), stack, replay)


async def test_an_answer_that_no_longer_fits_the_contract_is_an_error(eval_stack):
    cassette = reference("quick_shopping_list")
    quick = next(c for c in cassette.calls if c.node == "act_quick")
    quick.content = {"tool": "db_read", "params": {"table": "shopping_lists"}}
    result = await run_with(eval_stack, "quick_shopping_list", cassette)
    assert not result.passed
    assert result.error is not None
    assert result.error.startswith(
        "recording no longer fits: act_quick: the recorded answer no longer fits the contract "
        "(params.table: Input should be 'shopping_list')"
    )


async def test_a_call_the_recording_cannot_answer_is_an_error(eval_stack):
    cassette = reference("bought_items")
    cassette.calls = [c for c in cassette.calls if c.node != "reply"]
    result = await run_with(eval_stack, "bought_items", cassette)
    assert not result.passed
    assert result.error == (
        "recording no longer fits: reply: the recording has no answer for this call"
    )


async def test_recorded_calls_the_run_never_made_are_an_error(eval_stack):
    cassette = reference("quick_fridge")
    cassette.calls.append(cassette.calls[0].model_copy(update={"node": "think"}))
    result = await run_with(eval_stack, "quick_fridge", cassette)
    assert result.error == "the run took another way than recorded: unused think"


async def test_a_recorded_failure_that_was_retried_is_retried_on_replay(eval_stack):
    """Live, a dropped connection failed the read and the retry answered: the replay
    serves the retry the next recorded answer. A failure that was final stays final."""
    cassette = reference("quick_fridge")
    read = next(i for i, c in enumerate(cassette.calls) if c.node == "act_quick")
    dropped = Call(node="act_quick", error="connection: act_quick: dropped", retryable=True)
    cassette.calls.insert(read, dropped)
    assert (await run_with(eval_stack, "quick_fridge", cassette)).passed
    cassette.calls[read] = dropped.model_copy(update={"retryable": False})
    final = await run_with(eval_stack, "quick_fridge", cassette)  # the quick read gave up
    assert (
        final.error == "recording no longer fits: think: the recording has no answer for this call"
    )


async def test_a_check_that_does_not_hold_fails_the_scenario_naming_it(eval_stack):
    wrong = scenario("add_to_shopping_list")
    wrong.turns[0].expect.rows[1].fields = {"quantity": 3}
    result = await run_with(eval_stack, "add_to_shopping_list", reference(wrong.id), wrong)
    assert result.error is None and not result.passed
    failed = [c for c in result.turns[0].checks if not c.passed]
    assert [c.name for c in failed] == ["shopping_list where {'name': 'lemon'} has {'quantity': 3}"]
    assert "'quantity': 2" in failed[0].detail


async def test_a_recording_through_the_openai_provider_replays_to_the_same_verdict(
    eval_stack, tmp_path
):
    """Record a scenario from a model over HTTP, then replay the cassette: same result."""
    chosen = scenario("task_for_tomorrow")
    today = dt.datetime.now(dt.UTC).date()
    answers = [expand(c.content, today) for c in reference(chosen.id).calls if not c.repeat]
    summary = expand(reference(chosen.id).calls[-2].content, today)
    with FakeOpenAI() as fake:
        for answer in [*answers, summary]:
            fake.reply(json.dumps(answer))
        provider = OpenAIProvider(
            api_key="sk-eval",
            base_url=fake.base_url,
            model="gpt-test",
            mini_model="gpt-test",
            timeout=10,
        )
        async with eval_stack(provider) as stack:
            recorded = await run_scenario(chosen, stack)
        await provider.aclose()
    assert recorded.passed, recorded
    _record(chosen, recorded, "gpt-test", tmp_path)
    cassette = Cassette.load(tmp_path, chosen.id)
    assert {c.model for c in cassette.calls} == {"gpt-test" + SNAPSHOT}  # as it answered
    task = next(c for c in cassette.calls if "db_create" in str(c.content))
    assert "{tomorrow}" in task.content and today.isoformat() not in task.content
    replayed = await run_with(eval_stack, chosen.id, cassette)
    assert replayed.passed and replayed.error is None


def test_recorded_dates_are_written_as_the_scenarios_own_tokens_first():
    chosen = scenario("plan_week_confirmed")
    tuesday = dt.date(2026, 11, 24)
    dates = tokens(chosen, tuesday)
    assert dates["2026-11-30"] == "{next monday}"
    assert dates["2026-11-25"] == "{this wednesday}"
    assert dates["2027-01-10"] == "{today+47}"
    written = tokenize({"date": "2026-11-30", "note": "from 2026-12-06"}, dates)
    assert written == {"date": "{next monday}", "note": "from {next sunday}"}
    friday = dt.date(2026, 12, 4)
    assert expand(written, friday) == {"date": "2026-12-07", "note": "from 2026-12-13"}


def test_a_day_the_scenario_names_by_weekday_is_recorded_as_that_weekday():
    """The probes' dal is planned on ``{next monday}`` and their milk expires on
    ``{today+2}``: on a Saturday both are 2026-11-30. Recorded as ``{today+2}``, the
    dal's Monday replayed on a Sunday was a Tuesday."""
    probe = load(PROBES_DIR / "p_dal_off.toml")
    saturday = dt.date(2026, 11, 28)
    dates = tokens(probe, saturday)
    assert dates["2026-11-30"] == "{next monday}"
    written = tokenize({"filters": [{"field": "date", "value": "2026-11-30"}]}, dates)
    sunday = dt.date(2026, 11, 29)
    assert expand(written, sunday) == {"filters": [{"field": "date", "value": "2026-11-30"}]}


def test_a_day_the_words_say_is_recorded_as_the_words_say_it():
    """Recorded on a Sunday, "put the dal down for lunch tomorrow" wrote the dal's Monday as
    the kitchen's ``{next monday}``; replayed on a Wednesday, it was planned five days
    late."""
    probe = load(PROBES_DIR / "p_dal_lunch.toml")
    sunday = dt.date(2026, 11, 29)
    dates = tokens(probe, sunday)
    assert dates["2026-11-30"] == "{tomorrow}"  # said: "tomorrow"
    written = tokenize({"date": "2026-11-30"}, dates)
    assert expand(written, dt.date(2026, 12, 2)) == {"date": "2026-12-03"}
    monday = load(PROBES_DIR / "p_dal_off.toml")  # "take the dal off monday"
    assert tokens(monday, sunday)["2026-11-30"] == "{next monday}"


def test_the_suite_has_25_scenarios_that_reach_every_path_between_them():
    scenarios = load_all()
    assert len(scenarios) >= 25
    covered = {p for s in scenarios for p in s.covers}
    from evals.scenario import PATHS

    assert covered == set(PATHS)


def test_a_scenario_naming_an_unknown_path_does_not_load(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text('id = "x"\ntitle = "x"\ncovers = ["teleport"]\n[[turns]]\nsay = "hi"\n')
    with pytest.raises(ValueError, match="unknown paths or nodes \\['teleport'\\]"):
        load(path)


def result(id: str, passed: bool, error: str | None = None) -> ScenarioResult:
    return ScenarioResult(id=id, title=id, covers=[], passed=passed, error=error)


def test_the_report_gives_the_pass_rate_and_the_paths_no_scenario_reached():
    run = Run(label="model-x", scenarios=[result("a", True), result("b", False, "boom")])
    text = markdown(run)
    assert "**1 of 2 scenarios passed** (50 %)" in text
    assert "| b | error | 0 | 0 | 0 / 0 | 0.0 | $0.0000 |" in text
    assert "- **b**: boom" in text
    assert "Paths no scenario reached: quick, plan_direct" in text


def test_the_report_prices_a_dated_model_at_its_models_price():
    call = Call(node="think", model="gpt-4.1-2025-04-14", prompt_tokens=1_000_000)
    scenario = result("a", True).model_copy(update={"calls": [call]})
    run = Run(label="gpt-4.1", prices={"gpt-4.1": (2.0, 8.0)}, scenarios=[scenario])
    assert run.cost(scenario) == pytest.approx(2.0)
    assert "cost $2.0000." in markdown(run)


def test_a_comparison_says_what_a_change_fixed_and_what_it_broke():
    before = Run(label="v1", scenarios=[result("a", False), result("b", True)])
    after = Run(label="v2", scenarios=[result("a", True), result("b", False)])
    text = compare(before, after)
    assert "| a | fail | pass |" in text and "| b | pass | fail |" in text
    assert "Fixed: a." in text and "Broke: b." in text


# --- scenarios grade the effect, not one model's way to it -------------------------------------


def failures(result: ScenarioResult) -> list[str]:
    assert result.error is None, result.error
    return [
        f"turn {n}: {c.name}"
        for n, t in enumerate(result.turns, 1)
        for c in t.checks
        if not c.passed
    ]


def swap(cassette: Cassette, node: str, content: dict, nth: int = 0) -> None:
    """The ``nth`` recorded answer of ``node`` is ``content`` instead."""
    [c for c in cassette.calls if c.node == node][nth].content = content


async def test_a_plan_proposed_after_the_days_were_answered_is_confirmed_and_passes(eval_stack):
    """plan_asks_which_days: plan mode proposes a plan that saves what it chose; a model
    whose plan is proposed after the answer is not wrong (``may_propose``)."""
    cassette = reference("plan_asks_which_days")
    planned = [c for c in cassette.calls if c.node == "think"][1].content
    proposed = {**planned["outcome"], "decision": "propose", "proposal_message": "Go ahead?"}
    swap(cassette, "think", {**planned, "outcome": proposed}, nth=1)
    result = await run_with(eval_stack, "plan_asks_which_days", cassette)
    assert failures(result) == []
    assert result.turns[0].pauses == ["clarification", "proposal"]
    strict = scenario("plan_asks_which_days")
    strict.turns[0].expect.may_propose = False
    cassette = reference("plan_asks_which_days")
    swap(cassette, "think", {**planned, "outcome": proposed}, nth=1)
    result = await run_with(eval_stack, "plan_asks_which_days", cassette, of=strict)
    assert not result.passed  # without it, the turn waits on the proposal
    assert (result.turns[0].status, result.turns[0].pauses) == (
        "awaiting_input",
        ["clarification", "proposal"],
    )


@pytest.mark.parametrize(
    ("said", "passes"),
    [
        ("The recipe that can be cooked with what you have is Red Lentil Dal.", True),
        (  # the 1.5B local model's answer: the chili needs beef mince
            "The recipes that can be cooked with the ingredients in the inventory are Red "
            "Lentil Dal and Weeknight Chili.",
            False,
        ),
    ],
    ids=["passive-and-right", "passive-with-the-chili"],
)
async def test_what_can_be_cooked_is_graded_in_the_passive_too(eval_stack, said, passes):
    cassette = reference("what_can_i_cook")
    swap(cassette, "reply", {"response": said})
    result = await run_with(eval_stack, "what_can_i_cook", cassette)
    assert (failures(result) == []) is passes


async def test_a_missing_value_asked_by_think_instead_of_act_passes(eval_stack):
    """ask_how_much: Think's clarification reaches the same row as Act's question."""
    cassette = reference("ask_how_much")
    asking = next(
        c for c in cassette.calls if c.content.get("decision", {}).get("action") == "ask_user"
    )
    answered = cassette.calls[cassette.calls.index(asking) + 1]  # Understand reads the answer
    cassette.calls.remove(asking)
    cassette.calls.remove(answered)
    clarify = {
        "goal": "Update the milk",
        "outcome": {
            "decision": "clarify",
            "clarification_questions": ["How much milk do you have now?"],
        },
    }
    think = next(i for i, c in enumerate(cassette.calls) if c.node == "think")
    cassette.calls[think:think] = [
        Call(node="think", content=clarify),
        Call(node="understand", content={}),
    ]
    result = await run_with(eval_stack, "ask_how_much", cassette)
    assert result.turns[0].pauses == ["clarification"]
    assert failures(result) == []


def risotto() -> dict:
    return {
        "name": "Mushroom Risotto",
        "description": None,
        "cuisine": "italian",
        "difficulty": "easy",
        "servings": 2,
        "prep_time_minutes": 5,
        "cook_time_minutes": 25,
        "instructions": ["Toast the rice.", "Add stock a ladle at a time with the mushrooms."],
        "ingredients": [
            {"name": "arborio rice", "quantity": 160, "unit": "g", "notes": None},
            {"name": "mushrooms", "quantity": 250, "unit": "g", "notes": None},
            {"name": "vegetable stock", "quantity": 800, "unit": "ml", "notes": None},
        ],
        "tags": ["vegetarian"],
    }


async def test_any_recipe_that_fits_the_request_is_saved_as_suggested(eval_stack):
    cassette = reference("suggest_then_save")
    generate = next(c for c in cassette.calls if "artifacts" in str(c.content))
    generate.content["decision"]["artifacts"][0]["content"] = risotto()
    shown = "How about **Mushroom Risotto** for two?\n- 160 g arborio rice\n- 250 g mushrooms\n"
    swap(cassette, "reply", {"response": shown + "- 800 ml vegetable stock\n\nNot saved yet."})
    result = await run_with(eval_stack, "suggest_then_save", cassette)
    assert failures(result) == []


async def test_a_save_that_writes_another_recipe_than_the_suggested_one_fails(eval_stack):
    """A name from the user's words ("a quick vegetarian dinner"): one nobody said is not
    saved at all (domain.step_checks.invented_recipe)."""
    cassette = reference("suggest_then_save")
    other = {
        "action": "tool_call",
        "tool": "db_create",
        "table": "recipes",
        "rows": [{"name": "Vegetarian Dinner"}],
    }
    swap(cassette, "act", {"decision": other}, nth=1)
    done = {
        "action": "step_complete",
        "result_summary": "Saved Vegetarian Dinner.",
        "data": None,
        "note_for_next_step": None,
    }
    completed = next(
        c for c in cassette.calls if c.node == "act" and "Saved Chickpea" in str(c.content)
    )
    at = cassette.calls.index(completed)
    # gen_recipe_1 is still unsaved: the step's completion is refused twice, then taken
    cassette.calls[at : at + 1] = [Call(node="act", step=0, content={"decision": done})] * (
        MAX_EARLY_COMPLETIONS + 1
    )
    result = await run_with(eval_stack, "suggest_then_save", cassette)
    assert failures(result) == ["turn 2: 0 unsaved", "turn 2: 1 saved"]


async def test_a_cook_session_that_goes_on_after_the_user_is_done_fails(eval_stack):
    cassette = reference("cook_dal")
    swap(
        cassette,
        "cook",
        {"response": "Next, stir in the spinach.", "exit": False, "handoff": None},
        nth=2,
    )
    result = await run_with(eval_stack, "cook_dal", cassette)
    assert failures(result) == ["turn 3: session ended"]


async def test_a_ui_edit_seen_by_a_turn_that_writes_a_row_fails(eval_stack):
    """ui_edit_seen once passed with a junk milk row written: the reply's "3" was enough.
    (Think, asked again about a write for a question, gives the same plan; Act, its create
    of the milk held sent back, sends it again: ``act_rules.created_beside``.)"""
    cassette = reference("ui_edit_seen")
    plan = {
        "goal": "Milk",
        "outcome": {
            "decision": "plan_direct",
            "steps": [
                {
                    "description": "Note the milk",
                    "step_type": "write",
                    "subdomain": "inventory",
                    "group": 0,
                }
            ],
        },
    }
    write = {
        "action": "tool_call",
        "tool": "db_create",
        "table": "inventory",
        "rows": [{"name": "milk", "quantity": 3, "unit": "l"}],
    }
    done = {
        "action": "step_complete",
        "result_summary": "Noted.",
        "data": None,
        "note_for_next_step": None,
    }
    cassette.calls[:2] = [
        Call(node="understand", content={}),
        Call(node="think", content=plan),
        Call(node="think", content=plan),
        Call(node="act", step=0, content={"decision": write}),
        Call(node="act", step=0, content={"decision": write}),
        Call(node="act", step=0, content={"decision": done}),
        Call(node="reply", content={"response": "You have 3 l of milk."}),
    ]
    result = await run_with(eval_stack, "ui_edit_seen", cassette)
    assert failures(result) == ["turn 1: no writes"]


async def test_a_week_run_directly_is_thinks_error_and_fails(eval_stack):
    """plan_week_confirmed: meals the plan chooses are content the user has not seen, which
    plan mode's guidance says to propose; no rule can tell from these steps (read, write,
    write) that a write chooses them, so a direct plan is Think's call, and wrong."""
    cassette = reference("plan_week_confirmed")
    think = next(c for c in cassette.calls if c.node == "think")
    think.content["outcome"] = {
        "decision": "plan_direct",
        "steps": think.content["outcome"]["steps"],
    }
    result = await run_with(eval_stack, "plan_week_confirmed", cassette)
    assert result.turns[0].pauses == []
    assert "turn 1: pauses" in failures(result)


async def test_a_week_of_dinners_without_its_shopping_list_fails(eval_stack):
    """The shopping step ends without writing, twice (sent back once, then it stands): a
    plan without the list's step would be asked for again (the words name the list)."""
    cassette = reference("plan_week_confirmed")
    shop = next(c for c in cassette.calls if c.step == 2 and "tool_call" in str(c.content))
    done = next(c for c in cassette.calls if c.step == 2 and c is not shop)
    shop.content = done.content
    result = await run_with(eval_stack, "plan_week_confirmed", cassette)
    assert failures(result) == ["turn 1: shopping_list where "]
