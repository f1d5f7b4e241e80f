"""/v1/turns and the message route as a client uses them: start, pause, answer, cancel,
stream — and every way a request can be refused."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from activities.llm.script_provider import ScriptProvider
from tests.api.conftest import Api
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import (
    clarify_first,
    complete,
    plan,
    propose,
    quick,
    reply,
    step,
    tool,
    understand,
)
from tests.workflows.test_batches import generate_then_save, saving

SHOP = step("Add milk", "write", "shopping")


def script(*responses: dict) -> ScriptProvider:
    return ScriptProvider.from_responses([*responses, SUMMARIZE, COMPRESS])


def quick_list() -> list[dict]:
    return [
        quick("Show the shopping list", "shopping"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "shopping_list"}}},
    ]


def add_milk() -> list[dict]:
    return [
        tool("db_create", table="shopping_list", data={"name": "milk"}),
        complete("Added milk"),
        reply("Added milk."),
    ]


async def settled(api: Api, turn_id: str, *states: str) -> dict:
    async with asyncio.timeout(20):
        while True:
            body = (await api.get(f"/v1/turns/{turn_id}")).json()
            if body["status"] in states:
                return body
            await asyncio.sleep(0.05)


def parse_sse(text: str) -> list[dict]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            events.append(
                {
                    "id": int(fields["id"]),
                    "event": fields["event"],
                    "data": json.loads(fields["data"]),
                }
            )
    return events


async def test_a_message_starts_a_turn_and_answers_202(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(*quick_list())):
        response = await api.post(
            f"/v1/conversations/{conversation}/messages", json={"text": "what's on my list?"}
        )
        assert response.status_code == 202
        turn = response.json()
        assert turn["turn_number"] == 1 and turn["message"] == "what's on my list?"
        done = await settled(api, turn["id"], "completed")
    assert "empty" in done["response"].lower()
    detail = (await api.get(f"/v1/conversations/{conversation}")).json()
    assert [t["status"] for t in detail["turns"]] == ["completed"]


async def test_a_second_message_while_a_turn_runs_is_409(api: Api):
    conversation = await api.conversation()
    # No worker: the first turn is started but cannot progress.
    first = await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "hi"})
    assert first.status_code == 202
    second = await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "hello"})
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "turn_in_progress"


async def test_a_plain_message_answers_a_paused_clarification(api: Api):
    conversation = await api.conversation()
    provider = script(clarify_first("Which list?"), *quick_list())
    async with api.worker(provider):
        paused = await api.post(
            f"/v1/conversations/{conversation}/messages?wait=true",
            json={"text": "show me that one"},
        )
        assert paused.status_code == 200
        body = paused.json()
        assert body["status"] == "awaiting_input"
        assert body["pending"]["kind"] == "clarification"
        assert body["pending"]["questions"] == ["Which list?"]
        answered = await api.post(
            f"/v1/conversations/{conversation}/messages?wait=true",
            json={"text": "the shopping list"},
        )
        assert answered.json()["id"] == body["id"]  # the same turn, resumed
        done = await settled(api, body["id"], "completed")
    assert "empty" in done["response"].lower()


async def test_a_choice_lists_its_options_and_a_number_answers_it(api: Api):
    for name in ("Chicken curry", "Lentil curry"):
        assert (await api.post("/v1/recipes", json={"name": name})).status_code == 201
    conversation = await api.conversation()
    choice = understand(
        needs_disambiguation=True,
        disambiguation_options=[
            {"ref": "recipe_1", "label": "?"},
            {"ref": "recipe_2", "label": "?"},
        ],
    )
    provider = script(
        quick("Show the recipes", "recipes"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "recipes"}}},
        choice,
        quick("Show recipe_2", "recipes"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "recipes"}}},
    )
    url = f"/v1/conversations/{conversation}/messages?wait=true"
    async with api.worker(provider):
        await api.post(url, json={"text": "my recipes"})
        body = (await api.post(url, json={"text": "open the curry"})).json()
        assert body["status"] == "awaiting_input"
        options = body["pending"]["options"]
        assert [o["ref"] for o in options] == ["recipe_1", "recipe_2"]
        assert sorted(o["label"] for o in options) == ["Chicken curry", "Lentil curry"]
        await api.post(url, json={"text": "2"})
        done = await settled(api, body["id"], "completed")
    assert done["status"] == "completed"
    understood = [c.user for c in provider.calls if c.node == "understand"][-1]
    assert f"The user chose: {options[1]['label']} (recipe_2)." in understood


async def test_a_finished_turn_shows_each_batch_items_status(api: Api):
    conversation = await api.conversation()
    save_all = generate_then_save(
        saving("gen_recipe_1", "gen_recipe_2", "gen_recipe_3"), complete("Saved all three")
    )
    async with api.worker(script(*save_all)):
        started = await api.post(
            f"/v1/conversations/{conversation}/messages",
            json={"text": "dinner, saved", "mode": "create"},  # plan mode would propose it
        )
        done = await settled(api, started.json()["id"], "completed")
    batch = done["steps"][1]["batch"]
    assert [(i["label"], i["status"]) for i in batch["items"]] == [
        ("Butter Chicken", "completed"),
        ("Dal", "completed"),
        ("Naan", "completed"),
    ]


async def test_a_proposal_is_confirmed_through_input(api: Api):
    conversation = await api.conversation()
    provider = script(understand(), propose("Stock up", "Add milk?", SHOP), *add_milk())
    async with api.worker(provider):
        paused = (
            await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "stock up"}
            )
        ).json()
        assert paused["pending"]["kind"] == "proposal"
        assert paused["pending"]["plan"][0]["subdomain"] == "shopping"
        confirmed = await api.post(f"/v1/turns/{paused['id']}/input", json={"action": "confirm"})
        assert confirmed.status_code == 202
        done = await settled(api, paused["id"], "completed")
    assert done["response"] == "Added milk."
    assert [s["status"] for s in done["steps"]] == ["completed"]


async def test_input_to_a_turn_that_is_not_paused_is_409(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(*quick_list())):
        turn = (
            await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "list"}
            )
        ).json()
        await settled(api, turn["id"], "completed")
    response = await api.post(f"/v1/turns/{turn['id']}/input", json={"action": "confirm"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "not_awaiting_input"


async def test_an_answer_without_text_is_422(api: Api):
    conversation = await api.conversation()
    turn = (
        await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "hi"})
    ).json()
    response = await api.post(f"/v1/turns/{turn['id']}/input", json={"action": "answer"})
    assert response.status_code == 422
    assert "an answer needs text" in response.text


async def test_cancelling_a_paused_turn(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(understand(), propose("Stock up", "Add milk?", SHOP))):
        paused = (
            await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "stock up"}
            )
        ).json()
        cancelled = await api.post(f"/v1/turns/{paused['id']}/cancel")
        assert cancelled.status_code == 202
        done = await settled(api, paused["id"], "cancelled")
        again = await api.post(f"/v1/turns/{paused['id']}/cancel")
    assert done["status"] == "cancelled"
    assert again.status_code == 409


async def test_events_stream_in_order_and_end_after_the_final_event(api: Api):
    conversation = await api.conversation()
    provider = script(understand(), plan("Add milk", SHOP), *add_milk())
    async with api.worker(provider):
        turn = (
            await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "add milk"})
        ).json()
        response = await api.get(f"/v1/turns/{turn['id']}/events")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))
    assert [e["event"] for e in events if e["event"] != "token"] == [
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
    assert events[-2]["data"]["response"] == "Added milk."
    tokens = [e for e in events if e["event"] == "token"]
    assert tokens[0]["data"] == {"kind": "reply", "take": "1.1", "reset": True, "text": ""}
    assert "".join(t["data"]["text"] for t in tokens) == "Added milk."
    assert max(t["id"] for t in tokens) < events[-2]["id"]  # the text, then ``done``


async def test_events_resume_after_last_event_id_without_repeats(api: Api):
    conversation = await api.conversation()
    provider = script(understand(), plan("Add milk", SHOP), *add_milk())
    async with api.worker(provider):
        turn = (
            await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "add milk"}
            )
        ).json()
        await settled(api, turn["id"], "completed")
        whole = parse_sse((await api.get(f"/v1/turns/{turn['id']}/events")).text)
        last = whole[-1]["id"]
        resumed = await api.get(f"/v1/turns/{turn['id']}/events", headers={"Last-Event-ID": "4"})
        at_end = await api.get(
            f"/v1/turns/{turn['id']}/events", headers={"Last-Event-ID": str(last)}
        )
    assert [e["id"] for e in parse_sse(resumed.text)] == list(range(5, last + 1))
    assert parse_sse(resumed.text) == whole[4:]
    assert parse_sse(at_end.text) == []


@pytest.mark.parametrize(
    "body",
    [
        {"text": ""},
        {"text": "hi", "mode": "turbo"},
        {"text": "hi", "ui_changes": [{"action": "created", "table": "users", "id": "x"}]},
        {},
    ],
)
async def test_invalid_messages_are_422_naming_the_field(api: Api, body):
    conversation = await api.conversation()
    response = await api.post(f"/v1/conversations/{conversation}/messages", json=body)
    assert response.status_code == 422
    assert response.json()["error"]["details"][0]["loc"][0] == "body"


ROUTES = [
    ("get", "/v1/conversations"),
    ("post", "/v1/conversations"),
    ("get", "/v1/conversations/{id}"),
    ("post", "/v1/conversations/{id}/messages"),
    ("get", "/v1/turns/{id}"),
    ("post", "/v1/turns/{id}/input"),
    ("post", "/v1/turns/{id}/cancel"),
    ("get", "/v1/turns/{id}/events"),
]


@pytest.mark.parametrize(("method", "route"), ROUTES)
async def test_requests_without_a_valid_token_are_401(http, method, route):
    url = route.format(id=uuid.uuid4())
    missing = await getattr(http, method)(url)
    wrong = await getattr(http, method)(url, headers={"Authorization": "Bearer nope"})
    assert missing.status_code == wrong.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"


async def test_another_users_conversation_and_turns_are_404(api: Api, other_api: Api):
    conversation = await api.conversation()
    async with api.worker(script(*quick_list())):
        turn = (
            await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "list"}
            )
        ).json()
    attempts = [
        await other_api.get(f"/v1/conversations/{conversation}"),
        await other_api.post(f"/v1/conversations/{conversation}/messages", json={"text": "hi"}),
        await other_api.get(f"/v1/turns/{turn['id']}"),
        await other_api.post(f"/v1/turns/{turn['id']}/input", json={"action": "confirm"}),
        await other_api.post(f"/v1/turns/{turn['id']}/cancel"),
        await other_api.get(f"/v1/turns/{turn['id']}/events"),
    ]
    assert [a.status_code for a in attempts] == [404] * 6
    assert all(conversation not in a.text or "not found" in a.text for a in attempts)
    assert (await other_api.get("/v1/conversations")).json() == []


async def test_unknown_routes_are_404(api: Api):
    assert (await api.get("/v1/nowhere")).status_code == 404


async def test_a_turn_the_model_failed_shows_its_fallbacks_and_repairs(api: Api):
    conversation = await api.conversation()
    broken = {"node": "think", "output": {"goal": "x", "decision": "clarify"}}
    async with api.worker(script(understand(), broken, broken, broken)):
        response = await api.post(
            f"/v1/conversations/{conversation}/messages", json={"text": "plan my week"}
        )
        done = await settled(api, response.json()["id"], "completed")
    assert done["response"].startswith("I couldn't plan this: the model's answer could not")
    assert done["fallbacks"] == ["think: invalid_output"]
    assert done["usage"]["repairs"] == 2
    assert "clarification_questions" not in done["response"]


async def test_a_finished_turn_reads_as_it_did_while_it_ran(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(understand(), plan("Add milk", SHOP), *add_milk())):
        replied = (
            await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "add milk"}
            )
        ).json()
        done = await settled(api, replied["id"], "completed")
    assert done["goal"] == replied["goal"] == "Add milk"
    assert done["plan"] == replied["plan"] and done["plan"][0]["description"] == "Add milk"
    assert done["steps"][0]["status"] == "completed"
    assert done["llm_calls"] == 6  # understand, think, act twice, reply, summarize
    assert done["llm_calls"] >= replied["llm_calls"] > 0
