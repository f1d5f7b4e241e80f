"""The next message as clients send it: right after the reply shows (queued, never
refused), while the turn still works (409 with Retry-After), and sent twice (one turn)."""

from __future__ import annotations

import asyncio
import json

from domain.turn_store import load_conversation
from tests.api.conftest import Api, sse_blocks
from tests.api.test_turns import SHOP, add_milk, quick_list, script, settled
from tests.workflows.held_summaries import HeldSummaries
from tests.workflows.script import clarify_first, plan, understand


def held_add_then_list() -> HeldSummaries:
    return HeldSummaries(script(understand(), plan("Add milk", SHOP), *add_milk(), *quick_list()))


def messages(conversation: str) -> str:
    return f"/v1/conversations/{conversation}/messages"


async def test_a_message_sent_as_the_reply_shows_is_queued_then_runs_on_the_saved_state(
    api: Api,
):
    conversation = await api.conversation()
    model = HeldSummaries(script(understand(), plan("Add milk", SHOP), *add_milk(), *quick_list()))
    async with api.worker(model):
        first = await api.post(f"{messages(conversation)}?wait=true", json={"text": "add milk"})
        assert first.json()["status"] == "replied"
        second = await api.post(messages(conversation), json={"text": "what's on my list?"})
        assert second.status_code == 202
        assert second.json()["turn_number"] == 2 and second.json()["status"] == "queued"
        model.release.set()
        done = await settled(api, second.json()["id"], "completed")
    assert "milk" in done["response"]  # it read the list turn 1 wrote
    state, _ = await load_conversation(api.services.sessions, str(api.user_id), conversation)
    assert [(t.turn, t.user_message) for t in state.recent_turns] == [
        (1, "add milk"),
        (2, "what's on my list?"),
    ]


async def test_a_message_while_the_turn_works_on_its_reply_is_409_saying_when_to_retry(
    api: Api,
):
    conversation = await api.conversation()
    # No worker: the first turn is started but cannot reply.
    await api.post(messages(conversation), json={"text": "hi"})
    refused = await api.post(messages(conversation), json={"text": "hello"})
    assert refused.status_code == 409 and refused.headers["retry-after"] == "2"
    assert refused.json()["error"] == {
        "code": "turn_in_progress",
        "message": "turn 1 of this conversation is still working on the previous message; "
        "send this one once it has replied",
    }


async def test_a_message_sent_twice_with_one_idempotency_key_starts_one_turn(api: Api):
    conversation = await api.conversation()
    headers = {**api.auth, "Idempotency-Key": "msg-1"}
    first = await api.http.post(messages(conversation), json={"text": "hi"}, headers=headers)
    again = await api.http.post(messages(conversation), json={"text": "hi"}, headers=headers)
    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"]
    detail = (await api.get(f"/v1/conversations/{conversation}")).json()
    assert len(detail["turns"]) == 1


async def test_an_answer_sent_again_after_its_turn_ended_finds_that_turn(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(clarify_first("Which list?"), *quick_list())):
        await api.post(f"{messages(conversation)}?wait=true", json={"text": "show that one"})
        answer = {"text": "the shopping list", "input_id": "answer-1"}
        answered = await api.post(messages(conversation), json=answer)
        await settled(api, answered.json()["id"], "completed")
        again = await api.post(messages(conversation), json=answer)
    assert again.status_code == 202 and again.json()["id"] == answered.json()["id"]
    detail = (await api.get(f"/v1/conversations/{conversation}")).json()
    assert [t["turn_number"] for t in detail["turns"]] == [1]


async def test_a_queued_turn_goes_on_when_the_turn_before_it_is_gone(api: Api):
    conversation = await api.conversation()
    model = HeldSummaries(script(understand(), plan("Add milk", SHOP), *add_milk(), *quick_list()))
    async with api.worker(model):
        first = await api.post(f"{messages(conversation)}?wait=true", json={"text": "add milk"})
        await settled(api, first.json()["id"], "replied")  # a slow machine outlasts the wait
        second = await api.post(messages(conversation), json={"text": "what's on my list?"})
        await api.services.turns.handle(first.json()["workflow_id"]).terminate("operator")
        done = await settled(api, second.json()["id"], "replied")  # its own summary is held
        model.release.set()
    assert "milk" in done["response"]  # turn 1's write stands; its summary never came
    gone = (await api.get(f"/v1/turns/{first.json()['id']}")).json()
    assert gone["status"] == "failed"
    assert "its workflow ended before it saved its result" in gone["response"]


async def test_a_queued_turn_cancelled_before_it_ran_leaves_the_state_to_the_turn_before(
    api: Api,
):
    conversation = await api.conversation()
    model = HeldSummaries(script(understand(), plan("Add milk", SHOP), *add_milk(), *quick_list()))
    async with api.worker(model):
        first = await api.post(f"{messages(conversation)}?wait=true", json={"text": "add milk"})
        await settled(api, first.json()["id"], "replied")  # a slow machine outlasts the wait
        second = await api.post(messages(conversation), json={"text": "what's on my list?"})
        cancelled = await api.post(f"/v1/turns/{second.json()['id']}/cancel")
        assert cancelled.status_code in (200, 202)
        await settled(api, second.json()["id"], "cancelled")
        model.release.set()
        await settled(api, first.json()["id"], "completed")
        third = await api.post(f"{messages(conversation)}?wait=true", json={"text": "show it"})
        assert third.json()["turn_number"] == 3
    state, _ = await load_conversation(api.services.sessions, str(api.user_id), conversation)
    assert [t.turn for t in state.recent_turns] == [1, 3]


async def read_sse(http, url: str, until, headers: dict | None = None) -> list[dict]:
    """Events of an open SSE stream, read until ``until(events)`` holds."""
    events: list[dict] = []
    async with asyncio.timeout(20):
        async with http.stream("GET", url, headers=headers or {}) as r:
            async for block in sse_blocks(r):
                if "event" in block:
                    events.append(
                        {
                            "id": block["id"],
                            "event": block["event"],
                            "data": json.loads(block["data"]),
                        }
                    )
                    if until(events):
                        return events
    return events


def final_of(turn: int):
    return lambda events: any(
        e["event"] == "context_updated" and e["data"]["turn"] == turn for e in events
    )


async def test_the_conversation_stream_carries_every_turn_in_order_and_resumes(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(understand(), plan("Add milk", SHOP), *add_milk(), *quick_list())):
        first = await api.post(f"{messages(conversation)}?wait=true", json={"text": "add milk"})
        await api.post(messages(conversation), json={"text": "what's on my list?"})
        url = f"/v1/conversations/{conversation}/events"
        async with api.served() as http:
            events = await read_sse(http, f"{url}?from_turn=1", final_of(2))
            again = await read_sse(http, url, final_of(2), {"Last-Event-ID": "1:3"})
    turns = [e["data"]["turn"] for e in events]
    assert turns == sorted(turns) and set(turns) == {1, 2}
    assert {e["data"]["turn_id"] for e in events if e["data"]["turn"] == 1} == {first.json()["id"]}
    assert [e["event"] for e in events if e["data"]["turn"] == 1 and e["event"] != "token"] == [
        "thinking",
        "think_complete",
        "plan",
        "step",
        "working",
        "step_complete",
        "active_context",
        "done",
        "context_updated",
    ]
    assert [e["id"] for e in events][:3] == ["1:1", "1:2", "1:3"]
    assert again == events[3:]
