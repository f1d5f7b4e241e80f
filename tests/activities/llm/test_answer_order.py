"""Specification: every schema a model is sent lists what a verdict rests on before the
verdict (issue 28 §2). A model writes JSON in the schema's order, so a decision or a flag
written after its evidence is decided with the evidence already written. Act is the
exception that proves the rule: its action chooses the answer's shape, so it comes first.

The orders are read from the ``response_format`` the ``openai`` provider sends; names and
nesting are unchanged, so answers recorded in the older order still parse."""

from __future__ import annotations

import json
from typing import Any

import pytest

from activities.llm.openai_provider import _response_format
from activities.llm.provider import LlmRequest
from activities.llm.schema import strict_problems
from domain.answers import answer_model
from domain.kitchen.tables import SUBDOMAINS
from domain.nodes import ActDecision, ThinkOutput


def sent(node: str, **call: Any) -> dict[str, Any]:
    """The JSON schema a strict request for ``node`` carries."""
    request = LlmRequest(
        node=node, system="s", user="u", answer=answer_model(node, **call), complexity="low"
    )
    response_format = _response_format(request, "json_schema")
    assert response_format["json_schema"]["strict"] is True
    return response_format["json_schema"]["schema"]


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    return schema["$defs"][ref.rsplit("/", 1)[-1]] if ref else node


def objects(schema: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    """The object schemas ``node`` may be (its union's branches; null left out)."""
    node = resolve(schema, node)
    if "anyOf" in node:
        return [o for branch in node["anyOf"] for o in objects(schema, branch)]
    return [node] if node.get("type") == "object" else []


def order(schema: dict[str, Any], *path: str) -> list[list[str]]:
    """The property orders of the objects at ``path`` (``[]`` steps into a list's items;
    a name, into the union's branches that have it)."""
    nodes = [schema]
    for part in path:
        if part == "[]":
            nodes = [resolve(schema, node)["items"] for node in nodes]
        else:
            branches = [o for node in nodes for o in objects(schema, node)]
            nodes = [o["properties"][part] for o in branches if part in o["properties"]]
    return [list(obj["properties"]) for node in nodes for obj in objects(schema, node)]


def test_understand_resolves_and_curates_before_it_flags():
    assert order(sent("understand")) == [
        [
            "referenced_entities",
            "entity_mentions",
            "constraint_snapshot",
            "entity_curation",
            "disambiguation_options",
            "needs_disambiguation",
            "clarification_questions",
            "needs_clarification",
            "quick_subdomain",
            "quick_intent",
            "quick_mode",
        ]
    ]


@pytest.mark.parametrize("max_steps", [2, 4, 8])
def test_think_writes_its_steps_or_questions_before_its_decision(max_steps: int):
    schema = sent("think", max_steps=max_steps)
    assert order(schema) == [["goal", "outcome"]]
    assert order(schema, "outcome") == [
        ["steps", "decision"],
        ["steps", "decision", "proposal_message"],
        ["clarification_questions", "decision"],
    ]
    assert (
        order(schema, "outcome", "steps", "[]")
        == [["description", "step_type", "subdomain", "group"]] * 2
    )


def test_thinks_union_is_still_told_apart_by_its_decision():
    schema = sent("think", max_steps=8)
    assert strict_problems(schema) == []
    branches = objects(schema, schema["properties"]["outcome"])
    assert [b["properties"]["decision"]["enum"] for b in branches] == [
        ["plan_direct"],
        ["propose"],
        ["clarify"],
    ]
    assert all(sorted(b["required"]) == sorted(b["properties"]) for b in branches)
    assert all(b["additionalProperties"] is False for b in branches)


@pytest.mark.parametrize(
    ("outcome", "decision"),
    [
        (
            {
                "steps": [
                    {
                        "description": "Read it",
                        "step_type": "read",
                        "subdomain": "inventory",
                        "group": 0,
                    }
                ],
                "decision": "plan_direct",
            },
            "plan_direct",
        ),
        ({"steps": [], "decision": "propose", "proposal_message": "Shall I?"}, "propose"),
        ({"clarification_questions": ["Which days?"], "decision": "clarify"}, "clarify"),
        ({"decision": "propose", "proposal_message": "Shall I?", "steps": []}, "propose"),
        ({"decision": "clarify", "clarification_questions": ["Which days?"]}, "clarify"),
    ],
)
def test_think_answers_in_either_order_read_as_their_decision(outcome: dict, decision: str):
    text = json.dumps({"goal": "Dinner", "outcome": outcome})
    output = answer_model("think", max_steps=8).model_validate_json(text).to_output()
    assert isinstance(output, ThinkOutput) and output.decision == decision


WRITE_SHOPPING = [
    [
        "action",
        "tool",
        "table",
        "filters",
        "or_filters",
        "columns",
        "limit",
        "order_by",
        "order_dir",
    ],
    ["action", "tool", "table", "rows"],
    ["action", "tool", "table", "filters", "or_filters", "changes"],
    ["action", "tool", "table", "filters", "or_filters"],
    ["action", "data", "result_summary", "note_for_next_step"],
    ["action", "subdomain"],
    ["action", "step_index"],
    ["action", "archive_key"],
    ["action", "question"],
    ["action", "details", "reason_code", "suggested_next"],
    ["action", "user_message"],
]


def test_act_names_its_action_first_then_what_it_rests_on():
    """The action picks the decision's shape: a model chooses it at the first key, by its
    name. With the action last, a 1.5B model chose shapes by their first field's name and
    asked for a step not yet run 13 times in one turn."""
    schema = sent("act", step_type="write", subdomain="shopping")
    assert order(schema) == [["decision"]]
    assert order(schema, "decision") == WRITE_SHOPPING


def test_a_generate_step_writes_its_content_before_its_summary():
    schema = sent("act", step_type="generate", subdomain="recipes")
    assert order(schema, "decision")[0] == [
        "action",
        "artifacts",
        "data",
        "result_summary",
        "note_for_next_step",
    ]
    assert order(schema, "decision", "artifacts", "[]") == [["type", "ref", "content"]] * 3


@pytest.mark.parametrize("step_type", ["read", "write", "analyze", "generate"])
@pytest.mark.parametrize("subdomain", sorted(SUBDOMAINS))
def test_every_act_decision_opens_with_its_action(step_type: str, subdomain: str):
    schema = sent("act", step_type=step_type, subdomain=subdomain)
    for properties in order(schema, "decision"):
        opening = ["action", "tool"] if "tool" in properties else ["action"]
        assert properties[: len(opening)] == opening, properties


def test_act_quick_writes_its_read_before_naming_the_tool():
    schema = sent("act_quick", subdomain="inventory")
    assert order(schema) == [["params", "tool"]]


def test_summarize_classifies_the_phase_after_what_the_user_expressed():
    assert order(sent("summarize")) == [
        ["assistant_summary", "engagement_summary", "user_expressed", "conversation_phase"]
    ]


@pytest.mark.parametrize("mode", ["cook", "brainstorm"])
def test_a_bypass_answer_exits_after_its_response_and_handoff(mode: str):
    schema = sent(mode)
    assert order(schema) == [["response", "handoff", "exit"]]
    assert order(schema, "handoff") == [["summary", "recipe", "action"]]


def test_the_prose_answers_are_one_field():
    assert order(sent("reply")) == [["response"]]
    assert order(sent("compress")) == [["summary"]]


def test_an_act_answer_in_another_order_still_parses():
    """Answers are read by name: a model that writes the fields in another order is
    understood the same."""
    model = answer_model("act", step_type="write", subdomain="shopping")
    older = {
        "decision": {
            "action": "tool_call",
            "tool": "db_delete",
            "table": "shopping_list",
            "filters": [{"field": "id", "op": "=", "value": "shop_1"}],
            "or_filters": [],
        }
    }
    newer = {
        "decision": {
            "table": "shopping_list",
            "filters": [{"field": "id", "op": "=", "value": "shop_1"}],
            "or_filters": [],
            "action": "tool_call",
            "tool": "db_delete",
        }
    }
    read = [model.model_validate_json(json.dumps(a)).to_output() for a in (older, newer)]
    assert read[0] == read[1] and isinstance(read[0], ActDecision)
    assert read[0].tool_call is not None and read[0].tool_call.tool == "db_delete"


def test_the_answers_a_script_writes_follow_the_schemas_order():
    """The demo model and the test scripts answer through ``from_output``: in the order a
    real model is asked for."""
    think = ThinkOutput(goal="g", decision="propose", proposal_message="Ok?", steps=[])
    answer = answer_model("think", max_steps=8).from_output(think)
    assert list(answer["outcome"]) == ["steps", "decision", "proposal_message"]
    act = answer_model("act", step_type="write", subdomain="shopping")
    call = ActDecision.model_validate(
        {
            "action": "tool_call",
            "tool_call": {
                "tool": "db_create",
                "params": {"table": "shopping_list", "data": [{"name": "eggs"}]},
            },
        }
    )
    assert list(act.from_output(call)["decision"])[:2] == ["action", "tool"]
    done = ActDecision(action="step_complete", result_summary="Added eggs.")
    assert list(act.from_output(done)["decision"]) == [
        "action",
        "data",
        "result_summary",
        "note_for_next_step",
    ]


def test_retrieve_step_is_sent_with_the_steps_it_may_name():
    first = sent("act", step_type="write", subdomain="shopping", finished=())
    later = sent("act", step_type="write", subdomain="shopping", finished=(0, 1))
    assert ["action", "step_index"] not in order(first, "decision")
    assert ["action", "step_index"] in order(later, "decision")
    (branch,) = [
        b
        for b in objects(later, later["properties"]["decision"])
        if "step_index" in b["properties"]
    ]
    assert resolve(later, branch["properties"]["step_index"])["enum"] == [0, 1]
