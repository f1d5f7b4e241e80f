"""Understand's and Think's answers: safe readings, and rules the schema states."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from domain.answers import answer_model
from domain.nodes import ThinkOutput, ThinkStep

UNDERSTAND = answer_model("understand")


def understand(**fields):
    return UNDERSTAND.model_validate(fields).to_output()


def test_a_clarification_wins_over_the_quick_path():
    out = understand(
        quick_mode=True,
        quick_intent="Show recipes",
        quick_subdomain="recipes",
        needs_clarification=True,
        clarification_questions=["Which recipe?"],
    )
    assert out.needs_clarification and not out.quick_mode and out.quick_subdomain is None


def test_quick_mode_without_a_subdomain_takes_the_planned_path():
    out = understand(quick_mode=True, quick_intent="Show it", quick_subdomain=None)
    assert not out.quick_mode and out.quick_intent is None


def test_a_clarification_without_a_question_is_no_clarification():
    out = understand(needs_clarification=True, clarification_questions=["  "])
    assert not out.needs_clarification and out.clarification_questions == []


OPTIONS = [{"ref": "recipe_1", "label": "Chicken curry"}, {"ref": "recipe_2", "label": "Dal"}]


def test_a_choice_wins_over_a_question_and_the_quick_path_and_keeps_its_question():
    out = understand(
        needs_disambiguation=True,
        disambiguation_options=OPTIONS,
        needs_clarification=True,
        clarification_questions=["Which curry?"],
        quick_mode=True,
        quick_intent="Show recipes",
        quick_subdomain="recipes",
    )
    assert out.needs_disambiguation and [o.ref for o in out.disambiguation_options] == [
        "recipe_1",
        "recipe_2",
    ]
    assert not out.needs_clarification and not out.quick_mode
    assert out.clarification_questions == ["Which curry?"]


def test_a_choice_needs_two_different_candidates():
    once = understand(needs_disambiguation=True, disambiguation_options=OPTIONS[:1])
    twice = understand(needs_disambiguation=True, disambiguation_options=[OPTIONS[0]] * 2)
    for out in (once, twice):
        assert not out.needs_disambiguation and out.disambiguation_options == []


def test_options_without_the_flag_are_no_choice():
    out = understand(needs_disambiguation=False, disambiguation_options=OPTIONS)
    assert not out.needs_disambiguation and out.disambiguation_options == []


def test_entity_mentions_keep_the_users_words_and_the_confidence():
    out = understand(
        entity_mentions=[{"text": "the curry", "ref": None, "confidence": "low"}],
    )
    assert out.entity_mentions[0].text == "the curry"
    assert out.entity_mentions[0].ref is None and out.entity_mentions[0].confidence == "low"


def think(outcome: dict, max_steps: int = 8) -> ThinkOutput:
    model = answer_model("think", max_steps=max_steps)
    return model.model_validate({"goal": "Dinner", "outcome": outcome}).to_output()


STEP = {"description": "Read the pantry", "step_type": "read", "subdomain": "inventory", "group": 0}


def test_a_plan_direct_needs_a_step():
    with pytest.raises(ValidationError, match="at least 1 item"):
        think({"decision": "plan_direct", "steps": []})


def test_a_plan_holds_at_most_the_modes_steps():
    with pytest.raises(ValidationError, match="at most 2 items"):
        think({"decision": "plan_direct", "steps": [STEP] * 3}, max_steps=2)


def test_a_proposal_carries_its_message_and_the_steps_confirming_runs():
    out = think({"decision": "propose", "proposal_message": "Shall I?", "steps": [STEP]})
    assert out == ThinkOutput(
        goal="Dinner",
        decision="propose",
        proposal_message="Shall I?",
        steps=[ThinkStep(**STEP)],
    )


def test_a_proposal_without_its_message_is_not_an_answer():
    with pytest.raises(ValidationError, match="proposal_message"):
        think({"decision": "propose", "steps": [STEP]})


@pytest.mark.parametrize(
    "output",
    [
        ThinkOutput(goal="g", decision="plan_direct", steps=[ThinkStep(**STEP)]),
        ThinkOutput(goal="g", decision="propose", proposal_message="ok?", steps=[]),
        ThinkOutput(goal="g", decision="clarify", clarification_questions=["When?"]),
    ],
    ids=["plan_direct", "propose", "clarify"],
)
def test_a_think_output_written_as_an_answer_reads_back_the_same(output: ThinkOutput):
    model = answer_model("think", max_steps=8)
    assert model.model_validate(model.from_output(output)).to_output() == output
