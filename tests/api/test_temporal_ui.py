"""What a person sees in the Temporal UI: the message as the workflow's summary, a readable
summary on each activity, and the search attributes."""

from __future__ import annotations

import json

from temporalio.api.enums.v1 import EventType

from activities.llm.script_provider import ScriptProvider
from domain.turn_store import set_turn_status
from tests.api.conftest import Api
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import complete, plan, reply, step, tool, understand
from workflows.search_attributes import TURN_STATUS


def summary(event) -> str:
    payload = event.user_metadata.summary
    return json.loads(payload.data) if payload.data else ""


async def test_turn_summaries_read_like_the_conversation(api: Api):
    conversation = await api.conversation()
    provider = ScriptProvider.from_responses(
        [
            understand(),
            plan("Add milk", step("Add milk", "write", "shopping")),
            tool("db_create", table="shopping_list", data={"name": "milk"}),
            complete("Added milk"),
            reply("Added milk."),
            SUMMARIZE,
            COMPRESS,
        ]
    )
    async with api.worker(provider):
        turn = (
            await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true",
                json={"text": "add milk to my list"},
            )
        ).json()
        handle = api.services.turns.handle(turn["workflow_id"])
        await handle.result()
        history = await handle.fetch_history()
        description = await handle.describe()
    assert summary(history.events[0]) == "add milk to my list"
    scheduled = [
        summary(e)
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert scheduled == [
        "understand",
        "think",
        "act step 1/1: write shopping",
        "act step 1/1: write shopping",
        "reply",
        "summarize",
    ]
    attributes = {k.name: v for k, v in description.typed_search_attributes}
    ours = {k: attributes[k] for k in ("ConversationId", "UserId", "TurnStatus")}
    assert ours == {
        "ConversationId": conversation,
        "UserId": str(api.user_id),
        "TurnStatus": "completed",
    }


async def test_a_queued_turn_is_listed_as_queued_before_its_workflow_runs(api: Api):
    """No worker: the search attributes are those the turn was started with."""
    conversation = await api.conversation()
    first = (
        await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "hi"})
    ).json()
    await set_turn_status(
        api.services.sessions,
        user_id=str(api.user_id),
        conversation_id=conversation,
        turn_number=1,
        status="replied",  # as it is while it saves its state
    )
    second = (
        await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "and eggs"})
    ).json()
    statuses = []
    for turn in (first, second):
        description = await api.services.turns.handle(turn["workflow_id"]).describe()
        statuses.append(description.typed_search_attributes.get(TURN_STATUS))
    assert statuses == ["running", "queued"]
