"""The turn's events carry typed data that serializes as clients read it: the fields set,
no nulls for fields left out; every event type has its model."""

from __future__ import annotations

import typing

import pytest
from pydantic import ValidationError

from domain.nodes import Handoff, ThinkStep
from workflows.events import DATA_BY_TYPE, Done, PlanMade, Thinking, Working
from workflows.interface import EventType, TurnEvent


def test_every_event_type_has_a_model():
    assert set(DATA_BY_TYPE) == set(typing.get_args(EventType))


def test_an_event_serializes_the_fields_it_set_and_reads_back_typed():
    plain = TurnEvent(seq=1, type="thinking", data=Thinking(message="hi"))
    assert plain.model_dump(mode="json") == {
        "seq": 1,
        "type": "thinking",
        "attempt": 1,
        "data": {"message": "hi"},
    }
    step = ThinkStep(description="Read", step_type="read", subdomain="recipes")
    plan = TurnEvent(seq=2, type="plan", data=PlanMade(goal=None, total_steps=1, steps=[step]))
    back = TurnEvent.model_validate_json(plan.model_dump_json())
    assert isinstance(back.data, PlanMade) and back.data.steps == [step]
    assert back.model_dump(mode="json")["data"]["goal"] is None  # set to None: kept
    done = Done(response="ok", mode="cook", exit=False)
    done.handoff = Handoff(summary="cooked", action="close")
    assert done.model_dump() == {
        "response": "ok",
        "mode": "cook",
        "exit": False,
        "handoff": {"summary": "cooked", "action": "close", "recipe": None},
    }


def test_an_event_whose_data_does_not_fit_its_type_is_refused():
    with pytest.raises(ValidationError, match="action"):
        TurnEvent.model_validate({"seq": 1, "type": "working", "data": {"step": 0}})
    with pytest.raises(ValidationError, match="carries Working, not Thinking"):
        TurnEvent(seq=1, type="working", data=Thinking(message="hi"))


def test_a_field_a_newer_worker_added_does_not_stop_an_older_reader():
    sent = {"seq": 3, "type": "working", "data": {"step": 0, "action": "tool_call", "new": 1}}
    assert TurnEvent.model_validate(sent).data == Working(step=0, action="tool_call")
