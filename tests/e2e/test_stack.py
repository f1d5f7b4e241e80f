"""The main job, end to end: `alfred run` as `make run` starts it (embedded PostgreSQL, the
Temporal dev server with its UI, the worker, the API), driven over real HTTP with the
script provider."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from temporalio.client import Client

from tests.e2e.live_stack import Stack
from tests.workflows.script import (
    clarify_first,
    complete,
    propose,
    quick,
    reply,
    step,
    tool,
    understand,
)

LIST = [
    quick("Show the shopping list", "shopping"),
    {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "shopping_list"}}},
]
PROPOSAL = [
    understand(),
    propose("Stock up", "Shall I add milk?", step("Add milk", "write", "shopping")),
    tool("db_create", table="shopping_list", data={"name": "milk"}),
    complete("Added milk"),
    reply("Added milk."),
]


async def until(http: httpx.AsyncClient, turn_id: str, status: str) -> dict:
    async with asyncio.timeout(60):
        while True:
            body = (await http.get(f"/v1/turns/{turn_id}")).json()
            if body["status"] == status:
                return body
            await asyncio.sleep(0.1)


@pytest.fixture
def stack(tmp_path):
    stacks: list[Stack] = []

    def make(script: list[dict]) -> Stack:
        running = Stack(tmp_path, script)
        stacks.append(running)
        return running

    yield make
    for running in stacks:
        running.kill()


async def test_make_run_serves_quick_reads_proposals_and_clarifications(stack):
    alfred = stack([*LIST, *PROPOSAL, clarify_first("Which list?"), *LIST])
    alfred.start()
    banner = "".join(alfred.output)
    assert "model        script" in banner and "Temporal UI" in banner
    async with alfred.client() as http:
        assert (await http.get("/readyz")).json()["ready"] is True
        conversation = (await http.post("/v1/conversations", json={})).json()["id"]
        send = f"/v1/conversations/{conversation}/messages?wait=true"

        quick_turn = (await http.post(send, json={"text": "what's on my list?"})).json()
        assert "empty" in quick_turn["response"].lower()
        await until(http, quick_turn["id"], "completed")

        proposal = (await http.post(send, json={"text": "stock up"})).json()
        assert proposal["pending"]["kind"] == "proposal"
        assert (
            await http.post(f"/v1/turns/{proposal['id']}/input", json={"action": "confirm"})
        ).status_code == 202
        assert (await until(http, proposal["id"], "completed"))["response"] == "Added milk."

        question = (await http.post(send, json={"text": "show me that one"})).json()
        assert question["pending"]["kind"] == "clarification"
        answered = (await http.post(send, json={"text": "the shopping list"})).json()
        assert answered["id"] == question["id"]
        done = await until(http, question["id"], "completed")
        assert "milk" in done["response"]

        ui = await httpx.AsyncClient().get(f"http://127.0.0.1:{alfred.ports['ui']}/")
        assert ui.status_code == 200
    temporal = await Client.connect(f"127.0.0.1:{alfred.ports['temporal']}")
    found = [w.id async for w in temporal.list_workflows(f"ConversationId = '{conversation}'")]
    assert sorted(found) == [f"turn-{conversation}-{n}" for n in (1, 2, 3)]
    assert alfred.stop() == 0
    assert "alfred: stopped" in "".join(alfred.output)


async def test_a_paused_turn_survives_a_restart_of_everything(stack):
    first = stack(PROPOSAL)
    first.start()
    async with first.client() as http:
        conversation = (await http.post("/v1/conversations", json={})).json()["id"]
        paused = (
            await http.post(
                f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "stock up"}
            )
        ).json()
        assert paused["status"] == "awaiting_input"
    assert first.stop() == 0

    second = stack(PROPOSAL[2:])  # the new process's script: what is left after the pause
    second.start()
    async with second.client() as http:
        assert (await http.get(f"/v1/turns/{paused['id']}")).json()["status"] == "awaiting_input"
        await http.post(f"/v1/turns/{paused['id']}/input", json={"action": "confirm"})
        done = await until(http, paused["id"], "completed")
        assert done["response"] == "Added milk."
    assert second.stop() == 0
