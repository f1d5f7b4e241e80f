"""/v1/conversations and messages: create, list, read, and a turn started by a message."""

from __future__ import annotations

import uuid

from activities.llm.script_provider import ScriptProvider
from tests.api.conftest import Api
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import quick

SUMMARY = [SUMMARIZE, COMPRESS]


async def test_healthz_needs_no_token(http):
    response = await http.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


async def test_readyz_checks_database_and_temporal(http):
    response = await http.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"ready": True, "checks": {"database": True, "temporal": True}}


async def test_create_and_read_a_conversation(api: Api):
    created = await api.post("/v1/conversations", json={"title": "dinner"})
    assert created.status_code == 201
    body = created.json()
    assert body["title"] == "dinner" and body["current_turn"] == 0
    read = await api.get(f"/v1/conversations/{body['id']}")
    assert read.status_code == 200
    assert read.json()["turns"] == [] and read.json()["active_entities"] == []


async def test_quick_message_with_wait_returns_the_finished_reply(api: Api):
    conversation = await api.conversation()
    script = ScriptProvider.from_responses(
        [
            quick("Show the shopping list", "shopping"),
            {
                "node": "act_quick",
                "output": {"tool": "db_read", "params": {"table": "shopping_list"}},
            },
            *SUMMARY,
        ]
    )
    async with api.worker(script):
        response = await api.post(
            f"/v1/conversations/{conversation}/messages?wait=true",
            json={"text": "what's on my list?"},
        )
    assert response.status_code == 200, response.text
    turn = response.json()
    assert turn["status"] in ("replied", "completed")
    assert "empty" in turn["response"].lower()
    assert turn["workflow_id"] == f"turn-{conversation}-1"
    assert turn["temporal_ui_url"].endswith(f"/workflows/turn-{conversation}-1/{turn['run_id']}")


async def test_unknown_conversation_is_404(api: Api):
    response = await api.get(f"/v1/conversations/{uuid.uuid4()}")
    assert response.status_code == 404


async def test_a_non_finite_number_in_a_body_is_422_not_500(api: Api):
    response = await api.http.post(
        "/v1/conversations",
        content=b'{"title": NaN}',
        headers={**api.auth, "Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert response.json()["error"]["details"][0]["loc"] == ["body", "title"]
