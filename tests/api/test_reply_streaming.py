"""The reply's text streams to clients over the turn's workflow stream, and a retried
reply supersedes the failed attempt's text instead of being glued to it."""

from __future__ import annotations

import dataclasses

from activities.llm.provider import LlmError, LlmReply, LlmRequest
from activities.llm.script_provider import ScriptProvider
from tests.api.conftest import Api
from tests.api.test_turns import SHOP, add_milk, parse_sse, script, settled
from tests.workflows.script import complete, plan, reply, step, understand


@dataclasses.dataclass
class ReplyFailsMidway:
    """The first Reply call streams half its answer, then the server fails (503)."""

    inner: ScriptProvider
    failed: bool = False
    name: str = "script"

    async def complete(self, request: LlmRequest) -> LlmReply:
        if request.node == "reply" and not self.failed and request.stream is not None:
            self.failed = True
            request.stream.raw('{"response": "Added mi')
            raise LlmError("reply: HTTP 503", kind="http_503", retryable=True, retry_after=0.1)
        return await self.inner.complete(request)


def takes(events: list[dict]) -> dict[str, str]:
    """The text of each take, as a client assembles it."""
    texts: dict[str, str] = {}
    for event in events:
        if event["event"] == "token":
            data = event["data"]
            texts[data["take"]] = texts.get(data["take"], "") + data["text"]
    return texts


async def test_a_retried_reply_streams_again_as_a_new_take(api: Api):
    conversation = await api.conversation()
    model = ReplyFailsMidway(script(understand(), plan("Add milk", SHOP), *add_milk()))
    async with api.worker(model):
        turn = (
            await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "add milk"})
        ).json()
        await settled(api, turn["id"], "completed")
        events = parse_sse((await api.get(f"/v1/turns/{turn['id']}/events")).text)
    assert takes(events) == {"1.1": "Added mi", "2.1": "Added milk."}
    newest = [e for e in events if e["event"] == "token" and e["data"].get("reset")][-1]
    assert newest["data"]["take"] == "2.1"
    done = next(e for e in events if e["event"] == "done")
    assert done["data"]["response"] == "Added milk." and done["id"] > newest["id"]
    pieces = [e for e in events if e["event"] == "token" and e["data"]["take"] == "2.1"]
    assert len(pieces) > 2  # the reset, then the text in pieces as it was written


async def test_a_generate_steps_content_streams_as_it_forms(api: Api):
    recipe = {
        "name": "Slow Tomato Dal",
        "servings": 4,
        "instructions": [
            f"Step {n}: stir the lentils and keep them simmering gently." for n in range(8)
        ],
        "ingredients": [{"name": "red lentils", "quantity": 200, "unit": "g"}],
    }
    conversation = await api.conversation()
    model = script(
        understand(),
        plan("Suggest a dal", step("Suggest a dal recipe", "generate", "recipes")),
        complete("Suggested a dal.", artifacts=[{"type": "recipe", "content": recipe}]),
        reply("Here is a slow tomato dal."),
    )
    async with api.worker(model):
        turn = (
            await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "a dal?"})
        ).json()
        await settled(api, turn["id"], "completed")
        events = parse_sse((await api.get(f"/v1/turns/{turn['id']}/events")).text)
    forming = [
        e["data"] for e in events if e["event"] == "token" and e["data"]["kind"] == "generate"
    ]
    assert forming[0] == {"kind": "generate", "step": 0, "take": "1.1", "reset": True}
    assert [f["artifacts"][0]["content"]["name"] for f in forming[1:]][-1] == "Slow Tomato Dal"
    assert all(
        e["data"]["kind"] == "reply"
        for e in events
        if e["event"] == "token" and "text" in e["data"]
    )
