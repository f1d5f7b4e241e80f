"""A kitchen edit made through the API reaches the conversation's next turn (seed 000
pre-processing: UI changes are registered before Understand, tagged ``:user``)."""

from __future__ import annotations

from activities.llm.script_provider import ScriptProvider
from tests.api.conftest import Api
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import quick


async def test_an_inventory_edit_is_registered_for_the_next_turn(api: Api):
    conversation = await api.conversation()
    created = await api.post("/v1/inventory", json={"name": "saffron", "quantity": 1})
    assert created.status_code == 201
    provider = ScriptProvider.from_responses(
        [
            quick("Show the inventory", "inventory"),
            {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "inventory"}}},
            SUMMARIZE,
            COMPRESS,
        ]
    )
    async with api.worker(provider):
        turn = await api.post(
            f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "what do I have?"}
        )
    assert turn.status_code == 200
    understand = provider.calls[0].user
    assert "| inv_1 | inv | saffron | created:user |" in understand
    detail = (await api.get(f"/v1/conversations/{conversation}")).json()
    assert any(e["label"] == "saffron" for e in detail["active_entities"])


async def test_edits_made_before_a_conversation_began_are_not_replayed_into_it(api: Api):
    await api.post("/v1/inventory", json={"name": "saffron", "quantity": 1})
    conversation = await api.conversation()
    provider = ScriptProvider.from_responses(
        [
            quick("Show the inventory", "inventory"),
            {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "inventory"}}},
            SUMMARIZE,
            COMPRESS,
        ]
    )
    async with api.worker(provider):
        await api.post(
            f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "what do I have?"}
        )
    assert "created:user" not in provider.calls[0].user
