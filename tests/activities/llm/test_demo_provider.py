"""The offline demo model, node by node through the gateway (outputs validated by contract)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pydantic import BaseModel

from activities.llm.demo_provider import (
    HELP_TEXT,
    SAVE_HINT,
    SAVE_NOTHING_QUESTION,
    WHICH_ONE_QUESTION,
    DemoProvider,
    cannot_text,
    profile_changes,
)
from activities.llm.demo_recipes import RECIPES, find_recipe
from activities.llm.gateway import LlmGateway
from activities.llm.openai_provider import OpenAIProvider
from activities.llm.provider import LlmError, LlmRequest
from activities.llm.providers import provider_from_settings
from activities.llm.script_provider import ScriptProvider
from activities.payloads import (
    ActQuickRequest,
    ActRequest,
    BypassRequest,
    ReplyRequest,
    StateRef,
    SummarizeRequest,
    ThinkRequest,
    UnderstandRequest,
)
from domain.answers import answer_model
from domain.conversation import (
    BypassSession,
    StepResult,
    TurnExecutionSummary,
    TurnRecord,
)
from domain.nodes import ThinkStep, UnderstandOutput
from domain.registry import SessionIdRegistry
from domain.settings import Settings
from domain.turn_context import TurnContext

WEDNESDAY = dt.date(2026, 11, 18)
GATEWAY = LlmGateway(DemoProvider(today=lambda: WEDNESDAY))
TURN = StateRef(user_id="u", conversation_id="c", version=1)
"""The state a request names: the demo model reads only the request and what it was shown."""


def answer_for(node: str, facts: BaseModel | None) -> Any:
    """The answer model the node's activity would ask for."""
    if isinstance(facts, ActRequest):
        current = facts.plan[facts.step_index]
        return answer_model(node, step_type=current.step_type, subdomain=current.subdomain)
    if isinstance(facts, ActQuickRequest):
        return answer_model(node, subdomain=facts.subdomain)
    return answer_model(node)


async def call(
    node: str,
    facts: BaseModel | None,
    step: int | None = None,
    shown: SessionIdRegistry | None = None,
) -> dict[str, Any]:
    request = LlmRequest(
        node=node,
        system="(ignored by the demo)",
        user="(ignored by the demo)",
        answer=answer_for(node, facts),
        step=step,
        facts=facts,
        shown=shown,
    )
    result = await GATEWAY.call(request)
    assert result.model == "demo" and result.attempts == 1
    assert result.usage.prompt_tokens == result.usage.completion_tokens == 0
    return result.output


def registry_with_recipe(name: str = "Shakshuka") -> SessionIdRegistry:
    registry = SessionIdRegistry()
    registry.begin_turn(1)
    content = next(r for r in RECIPES if r["name"] == name)
    registry.register_generated("recipe", content)
    return registry


async def understand(
    message: str, registry: SessionIdRegistry | None = None, pending: dict | None = None
) -> dict:
    facts = UnderstandRequest(message=message, mode="plan", state_ref=TURN, pending=pending)
    return await call("understand", facts, shown=registry or SessionIdRegistry())


async def think(
    message: str,
    registry: SessionIdRegistry | None = None,
    pending: dict | None = None,
    profile: dict | None = None,
) -> dict:
    facts = ThinkRequest(
        message=message,
        mode="plan",
        understand=UnderstandOutput(),
        state_ref=TURN,
        pending=pending,
        context=TurnContext(profile=profile),
    )
    return await call("think", facts, shown=registry or SessionIdRegistry())


async def act(
    plan: dict,
    *,
    step: int = 0,
    tool_results: list[dict] | None = None,
    prior: list[StepResult] | None = None,
    registry: SessionIdRegistry | None = None,
    profile: dict | None = None,
) -> dict:
    facts = ActRequest(
        goal=plan["goal"],
        plan=[ThinkStep.model_validate(s) for s in plan["steps"]],
        step_index=step,
        mode="plan",
        prior_results=prior or [],
        tool_results=tool_results or [],
        state_ref=TURN,
        context=TurnContext(profile=profile),
    )
    return await call("act", facts, step=step, shown=registry or SessionIdRegistry())


async def reply(steps: list[StepResult], **fields: Any) -> str:
    facts = ReplyRequest(
        message="(the user's message)",
        mode="plan",
        step_results=steps,
        state_ref=TURN,
        **fields,
    )
    return (await call("reply", facts))["response"]


def suggested(plan: dict, decision: dict, index: int = 0) -> StepResult:
    """The generate step's result as the workflow records Act's completion."""
    contents = {f"gen_recipe_{n}": a["content"] for n, a in enumerate(decision["artifacts"], 1)}
    return done(
        plan, [], index, summary=decision["result_summary"], data=contents or decision["data"]
    )


def done(plan: dict, tool_results: list[dict], index: int = 0, **fields: Any) -> StepResult:
    step = plan["steps"][index]
    return StepResult(
        step_index=index,
        description=step["description"],
        step_type=step["step_type"],
        subdomain=step["subdomain"],
        tool_results=tool_results,
        **fields,
    )


# --- show ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "subdomain", "table"),
    [
        ("Show my pantry", "inventory", "inventory"),
        ("what's on my shopping list?", "shopping", "shopping_list"),
        ("list my recipes", "recipes", "recipes"),
        ("show my meal plans", "meal_plans", "meal_plans"),
        ("What are my tasks?", "tasks", "tasks"),
    ],
)
async def test_show_is_a_quick_read_of_the_table(message: str, subdomain: str, table: str):
    out = await understand(message)
    assert out["quick_mode"] is True and out["quick_subdomain"] == subdomain
    assert out["quick_intent"]
    quick = ActQuickRequest(
        message=message, intent=out["quick_intent"], subdomain=subdomain, state_ref=TURN
    )
    decision = await call("act_quick", quick)
    assert decision["tool"] == "db_read" and decision["params"]["table"] == table
    if table == "meal_plans":
        assert decision["params"]["order_by"] == "date"


async def test_a_show_message_reaching_think_is_one_read_step_and_reply_formats_it():
    plan = await think("show my shopping list")
    assert [(s["step_type"], s["subdomain"]) for s in plan["steps"]] == [("read", "shopping")]
    decision = await act(plan)
    assert decision["tool_call"] == {"tool": "db_read", "params": {"table": "shopping_list"}}
    found = {"tool": "db_read", "table": "shopping_list", "count": 1, "rows": [{"name": "milk"}]}
    assert await reply([done(plan, [found])]) == "1 item on your shopping list:\n- milk"


# --- add / remove --------------------------------------------------------------------------


async def test_add_plans_one_write_step_and_creates_one_batch():
    assert (
        await understand("add milk and eggs to my shopping list")
    ) == UnderstandOutput().model_dump()
    plan = await think("add milk and eggs to my shopping list")
    assert plan["decision"] == "plan_direct" and len(plan["steps"]) == 1
    assert plan["steps"][0]["step_type"] == "write"
    assert plan["steps"][0]["subdomain"] == "shopping"
    assert plan["steps"][0]["description"] == "Add milk, eggs to the shopping list"
    decision = await act(plan)
    assert decision["action"] == "tool_call"
    assert decision["tool_call"] == {
        "tool": "db_create",
        "params": {"table": "shopping_list", "data": [{"name": "milk"}, {"name": "eggs"}]},
    }


async def test_add_takes_quantity_unit_and_location():
    plan = await think("Add 2 kg of rice, 3 lemons and a dozen eggs to my pantry")
    assert plan["steps"][0]["subdomain"] == "inventory"
    decision = await act(plan)
    assert decision["tool_call"]["params"] == {
        "table": "inventory",
        "data": [
            {"name": "rice", "quantity": 2, "unit": "kg", "location": "pantry"},
            {"name": "lemons", "quantity": 3, "location": "pantry"},
            {"name": "eggs", "quantity": 12, "location": "pantry"},
        ],
    }


async def test_i_bought_adds_to_the_inventory():
    plan = await think("I bought 2 lemons")
    decision = await act(plan)
    assert decision["tool_call"]["params"] == {
        "table": "inventory",
        "data": [{"name": "lemons", "quantity": 2}],
    }


async def test_remove_one_item_is_a_name_filter_and_several_are_or_filters():
    one = await act(await think("remove milk from my shopping list"))
    assert one["tool_call"] == {
        "tool": "db_delete",
        "params": {
            "table": "shopping_list",
            "filters": [{"field": "name", "op": "=", "value": "milk"}],
        },
    }
    several = await act(await think("delete rice and the eggs from my inventory"))
    assert several["tool_call"]["params"] == {
        "table": "inventory",
        "or_filters": [
            {"field": "name", "op": "=", "value": "rice"},
            {"field": "name", "op": "=", "value": "eggs"},
        ],
    }


async def test_act_completes_from_its_own_tool_result_and_reply_confirms():
    plan = await think("add milk and eggs to my shopping list")
    result = {
        "tool": "db_create",
        "params": {},
        "table": "shopping_list",
        "count": 2,
        "rows": [{"id": "shop_1", "name": "milk"}, {"id": "shop_2", "name": "eggs"}],
    }
    decision = await act(plan, tool_results=[result])
    assert decision["action"] == "step_complete"
    assert "milk" in decision["result_summary"]
    assert decision["data"]["refs"] == ["shop_1", "shop_2"]
    text = await reply([done(plan, [result])], goal=plan["goal"])
    assert text == "Added milk and eggs to your shopping list."


async def test_a_delete_that_removed_nothing_says_so():
    plan = await think("remove bananas from my shopping list")
    decision = await act(plan)
    result = {"tool": "db_delete", "params": decision["tool_call"]["params"], "rows": []}
    result.update(table="shopping_list", count=0)
    assert (await act(plan, tool_results=[result]))["action"] == "step_complete"
    text = await reply([done(plan, [result])])
    assert text == "Nothing matched bananas on your shopping list, so nothing was removed."


async def test_a_tool_error_blocks_the_step_with_the_error():
    plan = await think("add milk to my shopping list")
    error = {"tool": "db_create", "error": "data[0].name: required"}
    decision = await act(plan, tool_results=[error])
    assert decision["action"] == "blocked"
    assert decision["details"] == "data[0].name: required"


async def test_act_never_makes_a_third_tool_call_in_a_step():
    plan = await think("add milk to my shopping list")
    other = {"tool": "db_read", "table": "inventory", "count": 0, "rows": []}
    decision = await act(plan, tool_results=[other, other])
    assert decision["action"] == "blocked" and decision["reason_code"] == "demo_gave_up"


# --- suggest and save ------------------------------------------------------------------------


async def test_suggest_generates_a_matching_built_in_recipe():
    plan = await think("Suggest a recipe with chicken")
    assert plan["steps"] == [
        {
            "description": "Suggest a recipe with chicken",
            "step_type": "generate",
            "subdomain": "recipes",
            "group": 0,
        }
    ]
    decision = await act(plan)
    assert decision["action"] == "step_complete"
    (artifact,) = decision["artifacts"]
    assert artifact["type"] == "recipe"
    recipe = artifact["content"]
    assert recipe["name"] == "Lemon Chicken Traybake"
    assert recipe["instructions"] and recipe["servings"] == 4
    assert {"name": "chicken thighs", "quantity": 8, "unit": "piece"} in recipe["ingredients"]


async def test_an_idea_for_dinner_with_lentils_is_the_dal():
    plan = await think("give me an idea for dinner with lentils")
    assert plan["steps"][0]["description"] == "Suggest a recipe with lentils"
    decision = await act(plan)
    assert decision["artifacts"][0]["content"]["name"] == "Red Lentil Dal"


async def test_reply_shows_the_recipe_in_full_and_offers_to_save():
    plan = await think("suggest a recipe with chicken")
    decision = await act(plan)
    recipe = decision["artifacts"][0]["content"]
    step = suggested(plan, decision)
    text = await reply([step])
    assert text.startswith("Here's an idea:\n\n**Lemon Chicken Traybake**")
    assert recipe["name"] == "Lemon Chicken Traybake"
    assert "- chicken thighs — 8 piece" in text
    assert "1. Heat the oven to 200°C." in text
    assert text.endswith(SAVE_HINT)


async def test_no_match_offers_the_first_recipe_and_says_so():
    plan = await think("suggest a recipe with durian")
    decision = await act(plan)
    content = decision["artifacts"][0]["content"]
    assert content["name"] == RECIPES[0]["name"]
    text = await reply([suggested(plan, decision)])
    assert text.startswith("I don't know a recipe with durian")


async def test_the_built_in_set_has_complete_recipes():
    assert len(RECIPES) >= 6
    for recipe in RECIPES:
        assert recipe["name"] and recipe["description"] and recipe["cuisine"]
        assert recipe["servings"] and recipe["prep_time_minutes"] and recipe["cook_time_minutes"]
        assert len(recipe["instructions"]) >= 3
        assert all({"name", "quantity", "unit"} <= set(i) for i in recipe["ingredients"])


async def test_save_it_names_the_newest_unsaved_recipe():
    registry = registry_with_recipe("Shakshuka")
    registry.register_generated("recipe", find_recipe("salmon")[0])
    out = await understand("save it", registry)
    assert out["referenced_entities"] == ["gen_recipe_2"]
    plan = await think("save that recipe", registry)
    assert plan["decision"] == "plan_direct"
    assert plan["steps"][0]["step_type"] == "write"
    assert "gen_recipe_2" in plan["steps"][0]["description"]
    assert plan["goal"] == "Save Honey Soy Salmon to your recipes"
    decision = await act(plan, registry=registry)
    assert decision["tool_call"] == {
        "tool": "db_create",
        "params": {"table": "recipes", "data": [{"id": "gen_recipe_2"}]},
    }
    created = {
        "tool": "db_create",
        "table": "recipes",
        "count": 1,
        "rows": [{"id": "gen_recipe_2", "name": "Honey Soy Salmon"}],
    }
    assert (await act(plan, tool_results=[created]))["action"] == "step_complete"
    assert await reply([done(plan, [created])]) == "Saved Honey Soy Salmon to your recipes."


async def test_save_the_named_recipe_prefers_the_matching_label():
    registry = registry_with_recipe("Shakshuka")
    registry.register_generated("recipe", find_recipe("salmon")[0])
    out = await understand("save the shakshuka recipe", registry)
    assert out["referenced_entities"] == ["gen_recipe_1"]


async def test_save_with_nothing_unsaved_asks_which_recipe():
    out = await understand("save the recipe")
    assert out["needs_clarification"] is True
    assert out["clarification_questions"] == [SAVE_NOTHING_QUESTION]


# --- plan the week ---------------------------------------------------------------------------


async def test_plan_dinners_proposes_next_monday_to_sunday():
    plan = await think("plan my dinners for next week")
    assert plan["decision"] == "propose"
    assert plan["proposal_message"] == (
        "I'll plan dinners for Mon 2026-11-23 to Sun 2026-11-29 using your saved recipes. Shall I?"
    )
    assert [(s["step_type"], s["subdomain"], s["group"]) for s in plan["steps"]] == [
        ("read", "recipes", 0),
        ("write", "meal_plans", 1),
    ]


async def test_planning_on_a_monday_starts_the_week_after():
    provider = DemoProvider(today=lambda: dt.date(2026, 11, 23))
    facts = ThinkRequest(
        message="plan my dinners for next week",
        mode="plan",
        understand=UnderstandOutput(),
        state_ref=TURN,
    )
    request = LlmRequest(
        node="think",
        system="",
        user="",
        answer=answer_model("think"),
        facts=facts,
    )
    output = (await LlmGateway(provider).call(request)).output
    assert "Mon 2026-11-30 to Sun 2026-12-06" in output["proposal_message"]


async def test_plan_reads_recipes_then_writes_seven_dinners_cycling_them():
    plan = await think("plan my dinners for next week")
    read = await act(plan, step=0)
    assert read["tool_call"]["tool"] == "db_read"
    assert read["tool_call"]["params"]["table"] == "recipes"
    rows = [{"id": "recipe_1", "name": "Dal"}, {"id": "recipe_2", "name": "Tacos"}]
    found = {"tool": "db_read", "table": "recipes", "count": 2, "rows": rows}
    finished = await act(plan, step=0, tool_results=[found])
    assert finished["action"] == "step_complete"
    assert finished["data"]["refs"] == ["recipe_1", "recipe_2"]
    write = await act(plan, step=1, prior=[done(plan, [found])])
    params = write["tool_call"]["params"]
    assert write["tool_call"]["tool"] == "db_create" and params["table"] == "meal_plans"
    assert [r["date"] for r in params["data"]] == [f"2026-11-{d}" for d in range(23, 30)]
    assert {r["meal_type"] for r in params["data"]} == {"dinner"}
    assert [r["recipe_id"] for r in params["data"]] == ["recipe_1", "recipe_2"] * 3 + ["recipe_1"]


async def test_plan_uses_saved_recipes_that_kept_their_generated_ref():
    plan = await think("plan my dinners for next week")
    rows = [{"id": "gen_recipe_1", "name": "Shakshuka"}, {"id": "recipe_3", "name": "Tacos"}]
    found = {"tool": "db_read", "table": "recipes", "count": 2, "rows": rows}
    write = await act(plan, step=1, prior=[done(plan, [found])])
    refs = [r["recipe_id"] for r in write["tool_call"]["params"]["data"]]
    assert refs[:2] == ["gen_recipe_1", "recipe_3"]


async def test_plan_without_saved_recipes_puts_built_in_ideas_in_the_notes():
    plan = await think("plan my dinners for next week")
    empty = {"tool": "db_read", "table": "recipes", "count": 0, "rows": []}
    write = await act(plan, step=1, prior=[done(plan, [empty])])
    data = write["tool_call"]["params"]["data"]
    assert len(data) == 7 and not any("recipe_id" in r for r in data)
    assert data[0]["notes"] == f"Idea: {RECIPES[0]['name']}"


async def test_reply_summarises_the_planned_week():
    plan = await think("plan my dinners for next week")
    rows = [
        {"id": f"meal_{n}", "date": f"2026-11-{22 + n}", "meal_type": "dinner"}
        | {"recipe_id": "recipe_1", "_recipe_id_label": "Dal"}
        for n in range(1, 8)
    ]
    created = {"tool": "db_create", "table": "meal_plans", "count": 7, "rows": rows}
    found = {"tool": "db_read", "table": "recipes", "count": 1, "rows": [{"id": "recipe_1"}]}
    text = await reply([done(plan, [found]), done(plan, [created], index=1)])
    assert text.startswith("Planned 7 dinners for Mon 2026-11-23 to Sun 2026-11-29:")
    assert "- Sun 2026-11-29: Dal" in text


async def test_a_typed_yes_to_the_proposal_runs_the_plan():
    proposal = await think("plan my dinners for next week")
    pending = {"kind": "proposal", "message": proposal["proposal_message"], "answer": "yes"}
    plan = await think("yes please", pending=pending)
    assert plan["decision"] == "plan_direct" and plan["steps"] == proposal["steps"]


# --- that one, and everything else --------------------------------------------------------


@pytest.mark.parametrize("message", ["add that one", "show me that one", "I'll take that one"])
async def test_that_one_asks_which_one(message: str):
    out = await understand(message)
    assert out["needs_clarification"] is True
    assert out["clarification_questions"] == [WHICH_ONE_QUESTION]


async def test_the_answer_to_which_one_goes_through_the_same_rules():
    pending = {
        "kind": "clarification",
        "source": "understand",
        "questions": [WHICH_ONE_QUESTION],
        "answer": "the chicken recipe",
    }
    out = await understand("the chicken recipe", pending=pending)
    assert out["needs_clarification"] is False and out["quick_mode"] is False
    plan = await think("the chicken recipe", pending=pending)
    assert plan["steps"][0]["description"] == "Suggest a recipe with chicken"
    shown = await understand("show my recipes", pending={**pending, "answer": "show my recipes"})
    assert shown["quick_subdomain"] == "recipes"


async def test_a_message_it_does_not_understand_gets_an_honest_i_cannot():
    assert await understand("What's the weather like?") == UnderstandOutput().model_dump()
    plan = await think("What's the weather like?")
    assert plan["decision"] == "plan_direct"
    assert [s["step_type"] for s in plan["steps"]] == ["analyze"]
    decision = await act(plan)
    assert decision["action"] == "step_complete"
    text = await reply([done(plan, [], summary=decision["result_summary"], data=decision["data"])])
    assert text == cannot_text("what's the weather like")
    assert text.startswith("I can't help with \"what's the weather like\", so I did nothing.")
    assert HELP_TEXT in text and "not a language model" in text


@pytest.mark.parametrize("message", ["hello", "help", "What can you do?", "thanks"])
async def test_small_talk_gets_the_list_of_what_it_understands(message: str):
    plan = await think(message)
    decision = await act(plan)
    assert await reply([done(plan, [], data=decision["data"])]) == HELP_TEXT


@pytest.mark.parametrize(
    "message",
    [
        "delete everything",
        "remove all items from my shopping list",
        "clear my shopping list",
        "empty my fridge",
        "remind me to defrost the chicken tomorrow",
        "add a reminder to defrost the chicken",
        "add chicken to tuesday's dinner",
        "change my diet to vegan",
        "I'm allergic to peanuts",
        "delete my recipes",
        "delete the chicken recipe",
        "move the milk to the fridge",
        "mark milk as bought",
        "how long do eggs keep in the fridge?",
        "can I freeze cooked rice?",
        "double the recipe",
        "plan a party menu",
        "ad milk to my list",
        "add milk to my shoping list",
        "set a timer for 10 minutes",
    ],
)
async def test_a_request_no_rule_carries_out_is_said_and_not_guessed(message: str):
    """Each of these once became an add, a delete, a show or a recipe."""
    assert await understand(message) == UnderstandOutput().model_dump()
    plan = await think(message)
    (step,) = plan["steps"]
    assert step["step_type"] == "analyze"
    decision = await act(plan)
    assert decision["action"] == "step_complete" and not decision["tool_call"]
    text = await reply([done(plan, [], data=decision["data"])])
    assert text.startswith(f'I can\'t help with "{message.lower().rstrip("?")}", so I did nothing.')


@pytest.mark.parametrize(
    ("message", "subdomain"),
    [
        ("do I have milk?", "inventory"),
        ("how many eggs do I have", "inventory"),
        ("what's for dinner", "meal_plans"),
        ("my shopping list", "shopping"),
    ],
)
async def test_a_question_about_a_table_shows_it(message: str, subdomain: str):
    out = await understand(message)
    assert out["quick_mode"] is True and out["quick_subdomain"] == subdomain


@pytest.mark.parametrize(
    ("message", "items", "table"),
    [
        ("I'm out of eggs", ["eggs"], "inventory"),
        ("check off milk from my shopping list", ["milk"], "shopping_list"),
        ("add all-purpose flour", ["all-purpose flour"], "shopping_list"),
    ],
)
async def test_everyday_ways_to_add_or_remove_are_understood(
    message: str, items: list[str], table: str
):
    decision = await act(await think(message))
    params = decision["tool_call"]["params"]
    assert params["table"] == table
    named = [r["name"] for r in params.get("data", [])]
    named += [f["value"] for f in params.get("filters", []) + params.get("or_filters", [])]
    assert named == items


# --- keeping to the profile ------------------------------------------------------------------

VEGETARIAN = {"dietary_restrictions": ["vegetarian"]}


@pytest.mark.parametrize(
    ("profile", "message", "expected", "lead"),
    [
        (
            VEGETARIAN,
            "what can I make for dinner",
            "Red Lentil Dal",
            "Here's an idea that fits your preferences (vegetarian):",
        ),
        (
            {"dietary_restrictions": ["vegan"], "allergies": ["Peanuts"]},
            "suggest a recipe with rice",
            "Red Lentil Dal",
            "My recipes with rice don't fit your preferences (vegan, no Peanuts), so here is "
            "Red Lentil Dal instead:",
        ),
        (
            {"disliked_ingredients": ["mushrooms"]},
            "give me an idea with parmesan",
            "Tomato Basil Pasta",
            "Here's an idea that fits your preferences (no mushrooms):",
        ),
        (
            None,
            "suggest a vegetarian recipe without pasta that takes less than 25 minutes",
            "Vegetable Fried Rice",
            "Here's an idea that fits your request (ready in 25 minutes, vegetarian, no pasta):",
        ),
        (
            {"allergies": ["eggs"]},
            "a gluten-free recipe with rice please",
            "Mushroom Risotto",
            "Here's an idea that fits your preferences (no eggs) and your request (no gluten):",
        ),
    ],
)
async def test_a_suggestion_keeps_to_the_profile_and_says_so(profile, message, expected, lead):
    plan = await think(message, profile=profile)
    decision = await act(plan, profile=profile)
    (artifact,) = decision["artifacts"]
    assert artifact["content"]["name"] == expected
    text = await reply([suggested(plan, decision)])
    assert text.startswith(f"{lead}\n\n**{expected}**")


@pytest.mark.parametrize(
    ("profile", "message", "says"),
    [
        (
            VEGETARIAN,
            "suggest a recipe with chicken",
            "I won't suggest a recipe with chicken: your preferences say vegetarian.",
        ),
        (
            {"allergies": ["shellfish"]},
            "what can I cook with prawns",
            "I won't suggest a recipe with prawns: your preferences list an allergy to shellfish.",
        ),
        (
            None,
            "a vegan recipe with eggs",
            "I won't suggest a recipe with eggs: you asked for vegan.",
        ),
        (
            {"dietary_restrictions": ["keto"]},
            "suggest a recipe",
            "I suggested nothing: your preferences say keto, and the offline demo model can't "
            "check its recipes against that",
        ),
        (
            {"dietary_restrictions": ["vegan"], "allergies": ["coconut"]},
            "suggest a recipe",
            "None of my 8 built-in recipes fits your preferences (vegan, no coconut), so I "
            "suggested nothing",
        ),
    ],
)
async def test_a_suggestion_the_profile_forbids_is_refused_and_nothing_is_generated(
    profile, message, says
):
    plan = await think(message, profile=profile)
    decision = await act(plan, profile=profile)
    assert decision["action"] == "step_complete" and decision["artifacts"] == []
    assert (await reply([suggested(plan, decision)])).startswith(says)


async def test_cooking_from_stock_keeps_to_the_profile():
    plan = await think("what can I cook with what I have", profile=VEGETARIAN)
    stock = [{"name": "chicken thighs"}, {"name": "lemon"}, {"name": "eggs"}]
    found = {"tool": "db_read", "table": "inventory", "count": 3, "rows": stock}
    decision = await act(plan, step=1, prior=[done(plan, [found])], profile=VEGETARIAN)
    assert decision["artifacts"][0]["content"]["name"] == "Vegetable Fried Rice"
    assert decision["result_summary"] == (
        "From what you have (chicken thighs, lemon and eggs), here's an idea that fits your "
        "preferences (vegetarian):"
    )


LEMON_CHICKEN_ROW = {
    "id": "recipe_1",
    "name": "Lemon Chicken Traybake",
    "recipe_ingredients": [{"name": "chicken thighs"}, {"name": "lemon"}],
}
DAL_ROW = {"id": "recipe_2", "name": "Dal", "recipe_ingredients": [{"name": "red lentils"}]}
TACOS_ROW = {"id": "recipe_3", "name": "Tacos"}


async def test_plan_leaves_out_saved_recipes_the_profile_forbids_and_says_so():
    proposal = await think("plan my dinners for next week", profile=VEGETARIAN)
    assert proposal["proposal_message"] == (
        "I'll plan dinners for Mon 2026-11-23 to Sun 2026-11-29 using your saved recipes that "
        "fit your preferences (vegetarian). Shall I?"
    )
    read = await act(proposal, step=0, profile=VEGETARIAN)
    assert "recipe_ingredients" in read["tool_call"]["params"]["columns"]
    rows = [LEMON_CHICKEN_ROW, DAL_ROW, TACOS_ROW]
    found = {"tool": "db_read", "table": "recipes", "count": 3, "rows": rows}
    prior = [done(proposal, [found])]
    write = await act(proposal, step=1, prior=prior, profile=VEGETARIAN)
    data = write["tool_call"]["params"]["data"]
    assert [r["recipe_id"] for r in data] == ["recipe_2"] * 7
    created = {"tool": "db_create", "table": "meal_plans", "count": 7, "rows": data}
    finished = await act(proposal, step=1, prior=prior, tool_results=[created], profile=VEGETARIAN)
    note = (
        "I left out Lemon Chicken Traybake (chicken thighs: your preferences say vegetarian); "
        "Tacos (I can't see its ingredients to check them)."
    )
    assert finished["note_for_next_step"] == note
    step = done(proposal, [created], index=1, note=finished["note_for_next_step"])
    assert (await reply([prior[0], step])).endswith(f"\n\n{note}")


async def test_plan_without_a_fitting_saved_recipe_pencils_in_fitting_ideas():
    plan = await think("plan my dinners for next week")
    found = {"tool": "db_read", "table": "recipes", "count": 1, "rows": [LEMON_CHICKEN_ROW]}
    write = await act(plan, step=1, prior=[done(plan, [found])], profile=VEGETARIAN)
    notes = [r["notes"] for r in write["tool_call"]["params"]["data"]]
    assert "Idea: Lemon Chicken Traybake" not in notes
    assert "Idea: Honey Soy Salmon" not in notes
    assert notes[0] == "Idea: Red Lentil Dal"


async def test_plan_with_a_diet_it_cannot_check_writes_nothing():
    keto = {"dietary_restrictions": ["keto"]}
    plan = await think("plan my dinners for next week")
    found = {"tool": "db_read", "table": "recipes", "count": 1, "rows": [DAL_ROW]}
    write = await act(plan, step=1, prior=[done(plan, [found])], profile=keto)
    assert write["action"] == "step_complete" and write["tool_call"] is None
    step = done(plan, [], index=1, summary=write["result_summary"])
    assert (await reply([step])).startswith("I planned nothing: your preferences say keto")


async def brainstorm(message: str, profile: dict | None) -> dict:
    facts = BypassRequest(
        message=message,
        mode="brainstorm",
        session=BypassSession(mode="brainstorm", started_turn=1),
        context=TurnContext(profile=profile),
    )
    return await call("brainstorm", facts)


async def test_brainstorm_keeps_to_the_profile():
    refused = await brainstorm("ideas with chicken", VEGETARIAN)
    assert refused["response"].startswith("I won't suggest a recipe with chicken")
    assert refused["exit"] is False and refused["handoff"] is None
    ideas = await brainstorm("some ideas", VEGETARIAN)
    assert "Chicken" not in ideas["response"] and "Salmon" not in ideas["response"]
    assert ideas["response"].endswith(
        "(all fit your preferences (vegetarian)). Say 'save that' to keep one."
    )
    kept = await brainstorm("save that", VEGETARIAN)
    assert kept["handoff"]["action"] == "save"
    assert kept["handoff"]["recipe"]["name"] == "Red Lentil Dal"


# --- summarize, compress, errors, settings --------------------------------------------------


async def test_summarize_is_deterministic():
    response = " ".join(f"w{n}" for n in range(150))
    facts = SummarizeRequest(
        state_ref=TURN,
        record=TurnRecord(turn=1, user_message="show my pantry", assistant_response=response),
        summary=TurnExecutionSummary(turn_num=1),
        step_results=[StepResult(step_index=0, description="d", step_type="read", subdomain="x")],
    )
    out = await call("summarize", facts)
    assert out["assistant_summary"] == " ".join(f"w{n}" for n in range(100))
    assert "show my pantry" in out["engagement_summary"]
    assert out["conversation_phase"] == "executing"
    idle = await call("summarize", facts.model_copy(update={"step_results": []}))
    assert idle["conversation_phase"] == "exploring"


async def test_compress_is_one_sentence_from_the_user_text():
    request = LlmRequest(
        node="compress",
        system="",
        user="## User\nshow my pantry\n\n## Assistant\n4 items.\n",
        answer=answer_model("compress"),
    )
    out = (await GATEWAY.call(request)).output
    assert out == {"summary": 'The user asked: "show my pantry".'}


async def test_a_node_call_without_its_request_is_a_final_error():
    with pytest.raises(LlmError) as error:
        await call("understand", None)
    assert error.value.kind == "demo_missing_facts" and not error.value.retryable


@pytest.fixture
def clean_env(monkeypatch):
    for name in (
        "OPENAI_API_KEY",
        "ALFRED_OPENAI_API_KEY",
        "ALFRED_LLM_PROVIDER",
        "ALFRED_LLM_SCRIPT",
    ):
        monkeypatch.delenv(name, raising=False)


def test_demo_is_the_default_without_a_key_or_a_script(clean_env):
    assert isinstance(provider_from_settings(Settings(_env_file=None)), DemoProvider)


def test_demo_can_be_chosen_explicitly_even_with_a_key(clean_env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ALFRED_LLM_PROVIDER", "demo")
    assert isinstance(provider_from_settings(Settings(_env_file=None)), DemoProvider)


def test_a_key_or_a_script_still_win_over_the_demo(clean_env, monkeypatch, tmp_path):
    script = tmp_path / "script.json"
    script.write_text('{"responses": []}')
    monkeypatch.setenv("ALFRED_LLM_SCRIPT", str(script))
    assert isinstance(provider_from_settings(Settings(_env_file=None)), ScriptProvider)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert isinstance(provider_from_settings(Settings(_env_file=None)), OpenAIProvider)


@pytest.mark.parametrize(
    ("words", "held", "changes"),
    [
        ("I'm allergic to peanuts", {}, {"allergies": ["peanuts"]}),
        (
            "im allergic to peanuts and shellfish",
            {"allergies": ["kiwi"]},
            {"allergies": ["kiwi", "peanuts", "shellfish"]},
        ),
        (
            "my husband hates mushrooms so leave them out",
            {},
            {"disliked_ingredients": ["mushrooms"]},
        ),
        ("cant stand coriander", {}, {"disliked_ingredients": ["coriander"]}),
        ("we went gluten-free", {}, {"dietary_restrictions": ["gluten-free"]}),
        ("were vegetarian now", {"dietary_restrictions": ["vegetarian"]}, {}),  # held already
        ("just got an air fryer", {}, {}),  # not a list the demo knows
    ],
)
def test_a_statement_about_the_cook_adds_to_the_profiles_lists(words, held, changes):
    assert profile_changes(words, held) == changes
