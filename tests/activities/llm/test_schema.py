"""Every schema a model is sent lies in OpenAI's strict subset, and every answer that
schema allows is an answer the turn takes: the schema states every rule the reading checks."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_jsonschema import from_schema

from activities.llm.schema import strict_problems, strict_schema
from domain.answers import Answer, answer_model
from domain.kitchen.tables import SUBDOMAINS
from domain.modes import MODES
from domain.nodes import ActDecision, UnderstandOutput

STEP_TYPES = ("read", "write", "analyze", "generate")


def every_answer_model() -> list[tuple[str, type[Answer]]]:
    models = [
        (node, answer_model(node))
        for node in ("understand", "reply", "summarize", "compress", "cook")
    ]
    models += [
        (f"think/{mode}", answer_model("think", max_steps=c.max_steps)) for mode, c in MODES.items()
    ]
    models += [
        (f"act/{t}/{s}", answer_model("act", step_type=t, subdomain=s))
        for t in STEP_TYPES
        for s in SUBDOMAINS
    ]
    # as the act activity sends a write step that may save generated content (its id an
    # enum of the unsaved refs), and one with nothing to save (no id), fetching none
    unsaved = ("gen_recipe_1", "gen_meal_1", "gen_task_1")
    models += [
        (
            f"act/write/{s}/saving",
            answer_model("act", step_type="write", subdomain=s, saving=unsaved),
        )
        for s in ("recipes", "meal_plans", "tasks")
    ]
    models.append(
        (
            "act/write/tasks/nothing-to-save",
            answer_model("act", step_type="write", subdomain="tasks", finished=(), saving=()),
        )
    )
    models += [(f"act_quick/{s}", answer_model("act_quick", subdomain=s)) for s in SUBDOMAINS]
    return models


MODELS = every_answer_model()
DISTINCT = [
    (name, model)
    for name, model in MODELS
    if not name.startswith("act/") or name.startswith("act/write/") or name.endswith("/recipes")
]
"""One of each shape: read, analyze and generate steps answer alike in every subdomain."""


@pytest.mark.parametrize(("name", "model"), MODELS, ids=[n for n, _ in MODELS])
def test_every_answer_schema_is_in_the_strict_subset(name: str, model: type[Answer]):
    assert strict_problems(strict_schema(model)) == []


def test_a_free_form_object_is_outside_the_strict_subset():
    """The node contracts' ``dict[str, Any]`` fields are why answers exist at all."""
    with pytest.raises(ValueError, match="outside the strict subset"):
        strict_schema(ActDecision)


def test_the_checker_names_what_strict_mode_refuses():
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "minLength": 1}, "n": {"oneOf": []}},
        "required": ["name"],
    }
    problems = strict_problems(schema)
    assert "(root): additionalProperties must be false" in problems
    assert "(root): every property must be required" in problems
    assert "(root).name: 'minLength' is not allowed" in problems
    assert "(root).n: 'oneOf' is not allowed" in problems
    assert strict_problems({"anyOf": [schema]})[0] == "(root): must be an object, not a union"


def test_a_plan_direct_without_steps_cannot_be_written():
    schema = strict_schema(answer_model("think", max_steps=8))
    plan = schema["$defs"]["PlanDirect8"]["properties"]["steps"]
    assert plan["minItems"] == 1 and plan["maxItems"] == 8


SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


@pytest.mark.parametrize(("name", "model"), DISTINCT, ids=[n for n, _ in DISTINCT])
def test_every_answer_the_schema_allows_is_read_into_the_contract(name: str, model: type[Answer]):
    contract = model.contract

    @SETTINGS
    @given(from_schema(strict_schema(model)))
    def read(answer: dict) -> None:
        output = model.model_validate(answer).to_output()
        assert contract is not None and isinstance(output, contract)

    read()


@SETTINGS
@given(from_schema(strict_schema(answer_model("understand"))))
def test_understand_never_takes_the_quick_path_and_asks_at_once(answer: dict):
    output = answer_model("understand").model_validate(answer).to_output()
    assert isinstance(output, UnderstandOutput)
    assert not (output.quick_mode and output.needs_clarification)


def test_a_text_field_the_schema_requires_to_say_something_refuses_blank():
    model = answer_model("reply")
    assert strict_schema(model)["properties"]["response"]["pattern"] == r"\S"
    with pytest.raises(ValueError, match="must not be empty"):
        model.model_validate({"response": "  "})
