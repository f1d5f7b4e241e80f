"""Act's answers: what each step may decide, and how a decision reads into the contract."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from domain.answers import answer_model
from domain.answers.act import decision_answer, decisions
from domain.nodes import ActDecision, ToolCall


def tags(step_type: str, subdomain: str) -> list[str]:
    return [m.__name__ for m in decisions(step_type, subdomain)]


def read(answer: dict, step_type: str = "write", subdomain: str = "shopping") -> ActDecision:
    model = answer_model("act", step_type=step_type, subdomain=subdomain)
    return model.model_validate({"decision": answer}).to_output()


def test_a_read_step_reads_and_never_writes():
    assert tags("read", "recipes")[0] == "ReadCall"
    assert not any(t.startswith(("Create", "Update", "Delete")) for t in tags("read", "recipes"))


def test_a_write_step_writes_only_its_subdomains_tables():
    assert tags("write", "shopping")[:4] == [
        "ReadCall",
        "CreateShoppingList",
        "UpdateShoppingList",
        "DeleteShopping",
    ]
    assert "CreateRecipes" in tags("write", "recipes")
    assert "CreateIngredients" not in tags("write", "inventory")  # the catalog is read only


@pytest.mark.parametrize("step_type", ["analyze", "generate"])
def test_analyze_and_generate_steps_make_no_tool_calls(step_type: str):
    with pytest.raises(ValidationError, match="does not match any of the expected tags"):
        read({"action": "tool_call", "tool": "db_read", "table": "inventory"}, step_type)


def test_a_create_outside_the_step_is_refused_naming_what_the_step_may_do():
    with pytest.raises(ValidationError) as error:
        read({"action": "tool_call", "tool": "db_create", "table": "recipes", "rows": [{}]})
    assert "'db_create:recipes'" in str(error.value)
    assert "'db_create:shopping_list'" in str(error.value)


def test_typed_rows_become_the_executors_rows_without_their_absent_values():
    decision = read(
        {
            "action": "tool_call",
            "tool": "db_create",
            "table": "shopping_list",
            "rows": [
                {"name": "milk", "quantity": 2, "unit": "l", "notes": None},
                {"name": "eggs", "quantity": None},
            ],
        }
    )
    assert decision.tool_call == ToolCall(
        tool="db_create",
        params={
            "table": "shopping_list",
            "data": [{"name": "milk", "quantity": 2, "unit": "l"}, {"name": "eggs"}],
        },
    )


def test_a_recipe_is_created_with_its_ingredients_nested():
    decision = read(
        {
            "action": "tool_call",
            "tool": "db_create",
            "table": "recipes",
            "rows": [
                {
                    "name": "Dal",
                    "instructions": ["Simmer."],
                    "recipe_ingredients": [{"name": "lentils", "quantity": 200, "unit": "g"}],
                }
            ],
        },
        subdomain="recipes",
    )
    assert decision.tool_call is not None
    assert decision.tool_call.params["data"] == [
        {
            "name": "Dal",
            "instructions": ["Simmer."],
            "recipe_ingredients": [{"name": "lentils", "quantity": 200, "unit": "g"}],
        }
    ]


def test_a_closed_value_set_is_in_the_row_schema():
    with pytest.raises(ValidationError, match="meal_type"):
        read(
            {
                "action": "tool_call",
                "tool": "db_create",
                "table": "meal_plans",
                "rows": [{"date": "2026-01-05", "meal_type": "brunch"}],
            },
            subdomain="meal_plans",
        )


def test_an_update_sets_the_columns_it_names_and_a_null_clears_one():
    decision = read(
        {
            "action": "tool_call",
            "tool": "db_update",
            "table": "tasks",
            "filters": [{"field": "id", "op": "=", "value": "task_1"}],
            "or_filters": [],
            "changes": [
                {"column": "completed", "value": True},
                {"column": "due_date", "value": None},
            ],
        },
        subdomain="tasks",
    )
    assert decision.tool_call is not None
    assert decision.tool_call.params == {
        "table": "tasks",
        "filters": [{"field": "id", "op": "=", "value": "task_1"}],
        "data": {"completed": True, "due_date": None},
    }


def test_profile_guidance_is_written_as_entries_and_stored_as_an_object():
    decision = read(
        {
            "action": "tool_call",
            "tool": "db_create",
            "table": "preferences",
            "rows": [{"subdomain_guidance": [{"subdomain": "recipes", "guidance": "no chilli"}]}],
        },
        subdomain="preferences",
    )
    assert decision.tool_call is not None
    assert decision.tool_call.params["data"] == [{"subdomain_guidance": {"recipes": "no chilli"}}]


def test_only_a_generate_step_completes_with_generated_content():
    complete = {
        "action": "step_complete",
        "result_summary": "Made one.",
        "artifacts": [{"type": "recipe", "ref": None, "content": {"name": "Dal"}}],
    }
    with pytest.raises(ValidationError, match="artifacts"):
        read(complete, "analyze")
    decision = read(complete, "generate", "recipes")
    assert [(a.type, a.content, a.ref) for a in decision.artifacts] == [
        ("recipe", {"name": "Dal"}, None)
    ]


def test_a_blocked_step_must_say_why():
    with pytest.raises(ValidationError, match="must not be empty"):
        read({"action": "blocked", "reason_code": "not_found", "details": " "})


DECISIONS = [
    ActDecision(
        action="tool_call",
        tool_call=ToolCall(tool="db_read", params={"table": "inventory", "limit": 5}),
    ),
    ActDecision(
        action="tool_call",
        tool_call=ToolCall(
            tool="db_delete",
            params={
                "table": "shopping_list",
                "or_filters": [{"field": "name", "op": "=", "value": "milk"}],
            },
        ),
    ),
    ActDecision(
        action="step_complete", result_summary="Found 2.", data={"refs": ["shop_1"], "text": None}
    ),
    ActDecision(action="ask_user", question="Which one?"),
    ActDecision(action="blocked", reason_code="not_found", details="No rice.", suggested_next=None),
    ActDecision(action="fail", user_message="I can't."),
    ActDecision(action="request_schema", subdomain="recipes"),
    ActDecision(action="retrieve_step", step_index=0),
]


@pytest.mark.parametrize("decision", DECISIONS, ids=[d.action for d in DECISIONS])
def test_a_decision_written_as_an_answer_reads_back_the_same(decision: ActDecision):
    assert read(decision_answer(decision)) == decision


def test_a_step_retrieves_only_steps_of_earlier_groups():
    """A step of a later group has not run: its result cannot be fetched, so the schema
    offers only the finished steps, and no retrieve_step at all before any has run."""
    assert "RetrieveStep" not in " ".join(m.__name__ for m in decisions("write", "shopping", ()))
    model = answer_model("act", step_type="write", subdomain="shopping", finished=(0, 2))
    fetched = model.model_validate({"decision": {"action": "retrieve_step", "step_index": 2}})
    assert fetched.to_output().step_index == 2
    with pytest.raises(ValidationError):
        model.model_validate({"decision": {"action": "retrieve_step", "step_index": 1}})
    first = answer_model("act", step_type="write", subdomain="shopping", finished=())
    with pytest.raises(ValidationError, match="does not match any of the expected tags"):
        first.model_validate({"decision": {"action": "retrieve_step", "step_index": 0}})


@pytest.mark.parametrize(
    ("subdomain", "table"), [("shopping", "shopping_list"), ("inventory", "inventory")]
)
def test_a_row_is_linked_to_the_catalog_by_the_system_never_by_the_model(subdomain, table):
    """The executor links a row to the ingredient catalog by its name: ``ingredient_id``
    is not the model's to write (a 1.5B model filled it with invented refs, and the
    write failed)."""
    with pytest.raises(ValidationError, match="ingredient_id"):
        read(
            {
                "action": "tool_call",
                "tool": "db_create",
                "table": table,
                "rows": [{"name": "lemon", "ingredient_id": "gen_ingredient_1"}],
            },
            subdomain=subdomain,
        )
    made = read(
        {"action": "tool_call", "tool": "db_create", "table": table, "rows": [{"name": "lemon"}]},
        subdomain=subdomain,
    )
    assert made.tool_call is not None and made.tool_call.params["data"] == [{"name": "lemon"}]


def test_a_created_row_saves_only_generated_content_that_is_still_unsaved():
    """A row's ``id`` is the database's; a model names one only to save generated content,
    so the schema offers exactly the unsaved ``gen_`` refs of the table's type (a 1.5B
    model filled it with ``task_2`` and ``gen_task_1``, refs that did not exist)."""
    unsaved = ("gen_recipe_1", "gen_task_1")

    def create(row: dict, saving: tuple[str, ...] | None) -> ActDecision:
        model = answer_model("act", step_type="write", subdomain="tasks", saving=saving)
        call = {"action": "tool_call", "tool": "db_create", "table": "tasks", "rows": [row]}
        return model.model_validate({"decision": call}).to_output()

    saved = create({"id": "gen_task_1", "title": "Defrost"}, unsaved)
    assert saved.tool_call is not None and saved.tool_call.params["data"][0]["id"] == "gen_task_1"
    for invented in ("gen_task_2", "task_2", "gen_recipe_1"):
        with pytest.raises(ValidationError):
            create({"id": invented, "title": "Defrost"}, unsaved)
    with pytest.raises(ValidationError, match="id"):
        create({"id": "gen_task_1", "title": "Defrost"}, ())  # nothing left to save
    assert create({"title": "Defrost"}, ()).tool_call is not None


def test_the_profile_is_updated_without_naming_rows():
    """Preferences are one row per user: the update names only the columns it sets."""
    change = {"column": "dietary_restrictions", "value": ["vegetarian"]}
    update = {"action": "tool_call", "tool": "db_update", "table": "preferences"}
    made = read({**update, "changes": [change]}, subdomain="preferences")
    assert made.tool_call is not None
    assert made.tool_call.params == {
        "table": "preferences",
        "data": {"dietary_restrictions": ["vegetarian"]},
    }
    with pytest.raises(ValidationError, match="filters"):
        read({**update, "changes": [change], "filters": []}, subdomain="preferences")
