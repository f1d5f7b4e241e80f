"""Answers to a pause go through the ``answer`` update: one answer per pause, checked
before it reaches history, idempotent by input id."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowUpdateFailedError

from tests.workflows.conftest import Turns, keep_history, progress, send, wait_for
from tests.workflows.script import (
    bypass,
    propose,
    understand,
)
from tests.workflows.test_durability import ASK_THEN_PROPOSE, RUN_PLAN, SHOP, awaiting
from workflows.interface import UserInput


def user_input(action: str, text: str | None = None, **fields) -> UserInput:
    return UserInput(input_id=uuid.uuid4().hex, action=action, text=text, **fields)


async def rejection(handle, answer: UserInput) -> str:
    """The type of the validator's refusal."""
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await send(handle, answer)
    return refused.value.cause.type


async def accepted_updates(handle) -> int:
    history = await handle.fetch_history()
    return sum(
        e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
        for e in history.events
    )


async def test_ten_simultaneous_answers_to_one_proposal_count_once(turns: Turns):
    script = turns.script(understand(), propose("Add milk", "Add milk?", SHOP), *RUN_PLAN)
    async with turns.worker(script):
        handle = await turns.start("add milk")
        pause = (await awaiting(handle)).pending
        answers = [user_input("confirm", pause_id=pause.pause_id) for _ in range(10)]
        outcomes = await asyncio.gather(*(send(handle, a) for a in answers), return_exceptions=True)
        result = await handle.result()
    receipts = [o for o in outcomes if not isinstance(o, BaseException)]
    refusals = [o for o in outcomes if isinstance(o, WorkflowUpdateFailedError)]
    assert len(receipts) == 1 and receipts[0].pause_id == pause.pause_id
    assert len(refusals) == 9
    assert {r.cause.type for r in refusals} == {"already_answered"}
    assert result.status == "completed" and result.response == "Added milk."
    assert await accepted_updates(handle) == 1  # the refused ones never reached history


async def test_the_same_input_id_twice_is_answered_as_the_first(turns: Turns):
    script = turns.script(understand(), propose("Add milk", "Add milk?", SHOP), *RUN_PLAN)
    async with turns.worker(script):
        handle = await turns.start("add milk")
        await awaiting(handle)
        answer = user_input("confirm")
        first = await send(handle, answer)
        again = await send(handle, answer)  # a client retrying after a timeout
        result = await handle.result()
    assert again == first
    assert result.response == "Added milk."
    assert await accepted_updates(handle) == 1


async def test_an_answer_naming_another_pause_than_the_open_one_is_refused(turns: Turns):
    script = turns.script(*ASK_THEN_PROPOSE)
    async with turns.worker(script):
        handle = await turns.start("add it")
        question = (await awaiting(handle)).pending
        await send(handle, user_input("answer", "the shopping list", pause_id=question.pause_id))
        proposal = (await awaiting(handle, count=2)).pending
        assert proposal.pause_id != question.pause_id
        stale = user_input("confirm", pause_id=question.pause_id)
        assert await rejection(handle, stale) == "already_answered"
        unknown = user_input("confirm", pause_id=f"{question.pause_id}-never-asked")
        assert await rejection(handle, unknown) == "not_the_open_pause"
        assert (await progress(handle)).status == "awaiting_input"
        await send(handle, user_input("confirm", pause_id=proposal.pause_id))
        result = await handle.result()
        await keep_history(handle, "answered_by_update")
    assert result.response == "Added milk."


async def test_an_answer_with_no_pause_open_is_refused(turns: Turns):
    script = turns.script(understand(), propose("Add milk", "Add milk?", SHOP), *RUN_PLAN)
    async with turns.worker(script):
        handle = await turns.start("add milk")
        await awaiting(handle)
        await send(handle, user_input("confirm"))
        await wait_for(handle, lambda p: p.status != "awaiting_input")
        late = user_input("reject")
        assert await rejection(handle, late) == "not_awaiting_input"
        result = await handle.result()
    assert result.response == "Added milk."


async def test_a_bypass_turn_refuses_every_answer(turns: Turns):
    script = turns.script(bypass("cook", "Step 1: rinse the lentils."))
    async with turns.worker(script):
        handle = await turns.start("let's cook", mode="cook")
        assert await rejection(handle, user_input("confirm")) == "not_awaiting_input"
        await handle.result()
