"""The main job, end to end: `alfred run` as `make run` starts it (embedded PostgreSQL, the
Temporal dev server with its UI, the worker, the API), driven over real HTTP with the
script provider."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest
from temporalio.client import Client

from tests.e2e.live_stack import Stack
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


WRITE_MILK = [
    tool("db_create", table="shopping_list", data={"name": "milk"}),
    complete("Added milk"),
]


def plan_milk() -> dict:
    return plan("Add milk", step("Add milk", "write", "shopping"))


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


async def test_a_port_taken_after_it_was_picked_is_said_and_fresh_ports_are_used(stack):
    alfred = stack(LIST)
    taken = alfred.ports["temporal"]
    with socket.create_server(("127.0.0.1", taken)):
        alfred.start()
    assert f"cannot start: 127.0.0.1:{taken} is already in use" in alfred.refused[0]
    assert alfred.ports["temporal"] != taken
    async with alfred.client() as http:
        assert (await http.get("/readyz")).json()["ready"] is True
    assert alfred.stop() == 0


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


async def reply_running(stack: Stack) -> None:
    """Until the stack's worker is in the middle of a turn's reply (a model call)."""
    client = await Client.connect(f"127.0.0.1:{stack.ports['temporal']}")
    async with asyncio.timeout(60):
        while True:
            async for listed in client.list_workflows("ExecutionStatus='Running'"):
                described = await client.get_workflow_handle(listed.id).describe()
                pending = described.raw_description.pending_activities
                if any(p.activity_type.name == "reply" for p in pending):
                    return
            await asyncio.sleep(0.1)


async def test_ctrl_c_with_a_turn_in_flight_stops_cleanly_and_the_turn_resumes_on_restart(stack):
    """A terminal's Ctrl-C reaches the whole process group: only `alfred run` may act on
    it. The worker drains the model call it is in, then the API, the dev server and
    PostgreSQL stop; the next start finishes the turn."""
    slow_reply = {**reply("Added milk."), "delay_seconds": 3}
    first = stack([understand(), plan_milk(), *WRITE_MILK, slow_reply])
    first.start()
    async with first.client() as http:
        conversation = (await http.post("/v1/conversations", json={})).json()["id"]
        sent = (
            await http.post(f"/v1/conversations/{conversation}/messages", json={"text": "milk"})
        ).json()
    await reply_running(first)
    assert first.interrupt() == 0
    said = "".join(first.output)
    assert "alfred: stopped" in said
    assert "Traceback" not in said and "WARN" not in said, said[-3000:]
    assert first.children() == []  # nothing left running

    second = stack([])  # the reply finished while the worker drained: only Summarize is left
    second.start()
    async with second.client() as http:
        done = await until(http, sent["id"], "completed")
    assert done["response"] == "Added milk."
    assert second.interrupt() == 0


async def test_run_with_two_workers_serves_turns_and_stops_them_all(tmp_path):
    """`alfred run --workers 2`: a worker process beside the one in `alfred run`; turns are
    served; Ctrl-C stops both, the dev server and PostgreSQL, and nothing is left."""
    alfred = Stack(tmp_path, [*LIST, *LIST], args=("--workers", "2"))
    try:
        alfred.start()
        assert "workers      2 processes" in "".join(alfred.output)
        assert len([p for p in alfred.children() if p != alfred.process.pid]) >= 2
        async with alfred.client() as http:
            conversation = (await http.post("/v1/conversations", json={})).json()["id"]
            for _ in range(2):
                turn = (
                    await http.post(
                        f"/v1/conversations/{conversation}/messages?wait=true",
                        json={"text": "what is on my shopping list?"},
                    )
                ).json()
                assert turn["status"] in ("replied", "completed"), turn
                await until(http, turn["id"], "completed")
        assert alfred.interrupt() == 0
        assert "alfred: stopped" in "".join(alfred.output)
        assert alfred.children() == []
    finally:
        alfred.kill()
