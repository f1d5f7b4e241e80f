"""Specification of the prompt templates and their renderer (no database, no model)."""

from __future__ import annotations

import re
from pathlib import Path
from string import Template
from typing import get_args

import pytest
from pydantic import BaseModel

from domain import prompts
from domain.answers import act as act_answers
from domain.answers import answer_model, prose, table_rows
from domain.answers import plan as plan_answers
from domain.nodes import NODE_OUTPUTS, ActDecision, StepType, ThinkStep
from domain.prompts import (
    PERSONAS,
    PromptNotFoundError,
    PromptTemplate,
    PromptVariableError,
    RenderedPrompt,
    _load_from,
    _substitute,
    act_templates,
    load,
    render,
    render_many,
    template_names,
)

VARIABLES: dict[str, dict[str, object]] = {
    "understand": {"mode_hint": "The user is in plan mode."},
    "think": {
        "mode": "plan",
        "max_steps": 8,
        "mode_guidance": "Propose complex plans first.",
        "mode_examples": "- one write",
        "plan_examples": "- read, then analyze",
    },
    "act/base": {
        "step_type": "read",
        "subdomain": "recipes",
        "persona": "Chef",
        "max_tool_calls": 3,
    },
    "reply": {"verbosity": "focused"},
}
"""The documented variables of each template; templates not listed take none."""

FIELDS_IN_TEMPLATE: dict[str, tuple[type[BaseModel], ...]] = {
    "understand": (
        plan_answers.UnderstandAnswer,
        plan_answers.Curation,
        plan_answers.Retain,
        plan_answers.Mention,
        plan_answers.Option,
    ),
    "think": (
        answer_model("think", max_steps=8),
        plan_answers.Step,
        plan_answers._PlanDirect,  # noqa: SLF001
        plan_answers._Propose,  # noqa: SLF001
        plan_answers.Clarify,
    ),
    "act/base": (
        answer_model("act", step_type="read", subdomain="inventory"),
        act_answers.StepComplete,
        act_answers.StepData,
        *act_answers.COMMON,
    ),
    "act/read": (act_answers.ReadCall, table_rows.Filter),
    "act/write": (
        act_answers._Create,  # noqa: SLF001
        act_answers._Update,  # noqa: SLF001
        act_answers._Delete,  # noqa: SLF001
        table_rows.change_model("tasks"),
    ),
    "act/analyze": (act_answers.StepData,),
    "act/generate": (
        act_answers.GeneratedComplete,
        act_answers.RecipeArtifact,
        table_rows.RecipeContent,
        table_rows.IngredientLine,
        table_rows.MealContent,
        table_rows.TaskContent,
    ),
    "act_quick": (answer_model("act_quick", subdomain="inventory"), act_answers.ReadParams),
    "reply": (prose.ReplyAnswer,),
    "summarize": (prose.SummarizeAnswer,),
    "compress": (prose.CompressAnswer,),
    "cook": (prose.BypassAnswer, prose.HandoffAnswer, table_rows.RecipeContent),
    "brainstorm": (prose.BypassAnswer, prose.HandoffAnswer, table_rows.RecipeContent),
}
"""The answer models (``domain.answers``) whose fields each template must name."""

PLACEHOLDER = re.compile(r"\$(\{\w+\}|[A-Za-z_]\w*)")


def write(directory: Path, relative: str, text: str) -> None:
    path = directory / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_every_node_has_a_template() -> None:
    assert set(prompts.NODE_TEMPLATES) == set(NODE_OUTPUTS)
    for template in prompts.NODE_TEMPLATES.values():
        assert template in template_names()


@pytest.mark.parametrize("step_type", get_args(StepType))
def test_every_step_type_has_an_act_template(step_type: str) -> None:
    assert act_templates(step_type) == ["act/base", f"act/{step_type}"]
    assert f"act/{step_type}" in template_names()


def test_every_subdomain_has_a_persona() -> None:
    subdomains = get_args(ThinkStep.model_fields["subdomain"].annotation)
    assert set(PERSONAS) == set(subdomains)


@pytest.mark.parametrize("name", template_names())
def test_template_placeholders_are_exactly_its_documented_variables(name: str) -> None:
    identifiers = set(Template(load(name).text).get_identifiers())
    assert identifiers == set(VARIABLES.get(name, {}))


@pytest.mark.parametrize("name", template_names())
def test_template_renders_with_its_variables_and_leaves_no_placeholder(name: str) -> None:
    rendered = render(name, **VARIABLES.get(name, {}))
    assert rendered.template == name
    assert rendered.version == load(name).version
    assert not PLACEHOLDER.search(rendered.text), PLACEHOLDER.search(rendered.text)


@pytest.mark.parametrize("name", sorted(FIELDS_IN_TEMPLATE))
def test_template_mentions_every_field_of_its_answer(name: str) -> None:
    text = load(name).text
    fields = {f for model in FIELDS_IN_TEMPLATE[name] for f in model.model_fields}
    # Named as code or as a JSON key, so "type" in "step type" does not count.
    missing = sorted(f for f in fields if f"`{f}`" not in text and f'"{f}"' not in text)
    assert missing == []


def test_every_nodes_answer_is_covered_by_its_template() -> None:
    for node in NODE_OUTPUTS:
        model = answer_model(node, step_type="read", subdomain="inventory", max_steps=8)
        assert model in FIELDS_IN_TEMPLATE[prompts.NODE_TEMPLATES[node]]


def test_act_base_names_all_eight_actions() -> None:
    text = load("act/base").text
    for action in get_args(ActDecision.model_fields["action"].annotation):
        assert f"`{action}`" in text


def test_highest_version_wins(tmp_path: Path) -> None:
    write(tmp_path, "think.v1.md", "one")
    write(tmp_path, "think.v9.md", "nine")
    write(tmp_path, "think.v10.md", "ten")
    write(tmp_path, "thinker.v20.md", "other template")

    assert _load_from(tmp_path, "think") == PromptTemplate("think", "v10", "ten")


def test_nested_template_names_load_from_subdirectories(tmp_path: Path) -> None:
    write(tmp_path, "act/read.v1.md", "read one")
    write(tmp_path, "act/read.v2.md", "read two")

    assert _load_from(tmp_path, "act/read") == PromptTemplate("act/read", "v2", "read two")


def test_missing_template_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path, "think.md", "no version in the name")

    with pytest.raises(PromptNotFoundError, match="'think'") as raised:
        _load_from(tmp_path, "think")
    assert isinstance(raised.value, KeyError)
    with pytest.raises(KeyError, match="nope"):
        load("nope")


def test_missing_variable_names_the_template_and_variable() -> None:
    with pytest.raises(PromptVariableError) as raised:
        render("think", mode="plan", mode_guidance="Run directly.")

    assert (raised.value.template, raised.value.variable) == ("think", "max_steps")
    assert "'think'" in str(raised.value) and "'max_steps'" in str(raised.value)


def test_extra_variables_are_ignored() -> None:
    assert render("compress", verbosity="rich").text == load("compress").text


def test_double_dollar_renders_a_literal_dollar() -> None:
    template = PromptTemplate("price", "v1", "Costs $$$amount, not $$5.")

    assert _substitute(template, {"amount": 3}) == "Costs $3, not $5."


def test_render_many_joins_templates_with_a_blank_line() -> None:
    variables = VARIABLES["act/base"]

    combined = render_many(act_templates("read"), **variables)

    assert combined == RenderedPrompt(
        template="act/base+act/read",
        version=f"{load('act/base').version}+{load('act/read').version}",
        text=combined.text,
    )
    base = render("act/base", **variables).text.strip("\n")
    read = render("act/read", **variables).text.strip("\n")
    assert combined.text == f"{base}\n\n{read}\n"


def test_act_base_renders_the_step_persona_and_limit() -> None:
    text = render(
        "act/base", step_type="write", subdomain="shopping", persona="Ops Manager", max_tool_calls=3
    ).text

    assert "Ops Manager of the shopping subdomain" in text
    assert "`write`" in text
    assert "At most 3 tool calls per step" in text


def test_template_names_are_sorted_and_complete() -> None:
    names = template_names()

    assert names == sorted(names)
    assert set(names) == {
        "understand",
        "think",
        "act_quick",
        "reply",
        "summarize",
        "compress",
        "cook",
        "brainstorm",
        "act/base",
        "act/read",
        "act/write",
        "act/analyze",
        "act/generate",
        "think_patterns",
        "think_library",
    }


def test_acts_prompts_name_refs_by_their_kind_never_one_a_row_could_have():
    """A small model copied the example refs ``recipe_1`` and ``meal_2`` into filters on
    other tables (five of thirty scenarios): Act is shown ``recipe_<n>``, never a ref."""
    for name in ("act/base", "act/read", "act/write", "act/analyze", "act/generate", "act_quick"):
        text = load(name).text
        assert re.findall(r"\b(?:gen_)?[a-z]+_\d+\b", text) == [], name
    assert "`recipe_<n>`" in load("act/base").text


def test_every_prompt_whose_calls_filter_says_what_filters_and_or_filters_mean():
    """The write step was shown ``filters`` and ``or_filters`` with no meaning (it pointed
    to the read's operators, which a write step is not shown): for "got the paper towels
    and the bread" the 1.5B local model sent ``name = bread`` in one and ``name = paper
    towels`` in the other, three times, and no row could match."""
    for name in ("act/read", "act/write", "act_quick"):
        text = " ".join(load(name).text.split())
        assert re.search(r"`filters`:[^.]*?(all must|must all|all of which must) hold", text)
        assert re.search(r"`or_filters`:[^.]*?at least one (of which )?must hold", text), name
    assert "one filter per row in `or_filters`" in load("act/write").text


def test_thinks_prompt_says_what_a_report_of_food_used_or_gone_writes():
    """Told only that "ticking off" and "recording food … finished" are writes, the 1.5B
    local model planned "Tick off the milk row in the inventory (finished)" for "milk is
    finished" (three runs in two sessions), and Act set the milk's location to
    "finished"."""
    text = " ".join(load("think").text.split())
    assert "its inventory row deleted: an inventory row is never ticked off" in text
    assert "some of it used (its quantity lowered)" in text
    assert "a shopping list item as bought, a task as done" in text
