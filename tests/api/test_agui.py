"""An AG-UI client drives a conversation: a run per message, the proposal as an interrupt,
the answer as a resume, the reply as text messages; every event is AG-UI's own."""

from __future__ import annotations

import json
import uuid

from ag_ui.core import Event
from pydantic import TypeAdapter

from activities.llm.script_provider import ScriptProvider
from tests.api.conftest import Api
from tests.api.test_turns import add_milk, script
from tests.workflows.script import propose, step, understand

EVENTS = TypeAdapter(Event)


async def run(api: Api, body: dict) -> list:
    """POST a run; the AG-UI events of its server-sent stream, each parsed as AG-UI's."""
    response = await api.post("/v1/agui", json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    data = [
        line[len("data: ") :] for line in response.text.splitlines() if line.startswith("data: ")
    ]
    return [EVENTS.validate_python(json.loads(d)) for d in data]


def kinds(events: list) -> list[str]:
    return [e.type.value for e in events]


def proposal() -> ScriptProvider:
    return script(
        understand(),
        propose("Stock up", "Shall I add milk?", step("Add milk to the list", "write", "shopping")),
        *add_milk(),
    )


async def test_an_ag_ui_client_runs_a_conversation_through_a_proposal(api: Api):
    thread = await api.conversation()
    user = {"id": "m1", "role": "user", "content": "stock up"}
    first = {"threadId": thread, "runId": "run-1", "messages": [user], "tools": [], "context": []}
    async with api.worker(proposal()):
        asked = await run(api, first)
        assert kinds(asked) == ["RUN_STARTED", "RUN_FINISHED"]
        (interrupt,) = asked[-1].outcome.interrupts
        assert interrupt.reason == "proposal" and interrupt.message.startswith("Shall I add milk?")
        resume = {
            **first,
            "runId": "run-2",
            "resume": [
                {
                    "interruptId": interrupt.id,
                    "status": "resolved",
                    "payload": {"action": "confirm"},
                }
            ],
        }
        done = await run(api, resume)
    assert kinds(done)[0] == "RUN_STARTED" and kinds(done)[-1] == "RUN_FINISHED"
    assert done[-1].outcome.type == "success"
    assert "STEP_STARTED" in kinds(done) and "STEP_FINISHED" in kinds(done)
    snapshot = [e for e in done if e.type.value == "STATE_SNAPSHOT"][-1].snapshot
    assert [c["label"] for c in snapshot["active_context"]] == ["milk"]
    text = "".join(e.delta for e in done if e.type.value == "TEXT_MESSAGE_CONTENT")
    assert text == "Added milk."
    starts = [e for e in done if e.type.value == "TEXT_MESSAGE_START"]
    ends = [e for e in done if e.type.value == "TEXT_MESSAGE_END"]
    assert len(starts) == len(ends) == 1 and starts[0].message_id == ends[0].message_id


async def test_a_run_for_a_thread_that_is_not_a_conversation_is_404(api: Api):
    body = {"threadId": str(uuid.uuid4()), "runId": "r", "messages": [], "tools": [], "context": []}
    response = await api.post("/v1/agui", json=body)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "conversation_not_found"
