"""``alfred chat`` against the real API: it shows progress and handles pauses."""

from __future__ import annotations

from activities.llm.script_provider import ScriptProvider
from api.chat import ChatSession, describe, parse_events
from tests.api.conftest import Api
from tests.workflows.conftest import COMPRESS, SUMMARIZE
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


def script(*responses: dict) -> ScriptProvider:
    return ScriptProvider.from_responses([*responses, SUMMARIZE, COMPRESS])


def session(api: Api, answers: list[str]) -> tuple[ChatSession, list[str]]:
    api.http.headers.update(api.auth)
    said: list[str] = []
    return ChatSession(api.http, ask=lambda _prompt: answers.pop(0), say=said.append), said


LIST = [
    quick("Show the shopping list", "shopping"),
    {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "shopping_list"}}},
]


async def test_chat_shows_progress_and_the_reply(api: Api):
    chat, said = session(api, [])
    await chat.start()
    async with api.worker(script(*LIST)):
        answer = await chat.send("what's on my list?")
    assert "empty" in answer.lower()
    assert said[0] == "… thinking" and said[-1].startswith("alfred> ")


async def test_chat_confirms_a_proposal_when_the_person_says_yes(api: Api):
    chat, said = session(api, ["y"])
    await chat.start()
    provider = script(
        understand(),
        propose("Stock up", "Shall I add milk?", step("Add milk", "write", "shopping")),
        tool("db_create", table="shopping_list", data={"name": "milk"}),
        complete("Added milk"),
        reply("Added milk."),
    )
    async with api.worker(provider):
        answer = await chat.send("stock up")
    assert answer == "Added milk."
    assert any("Shall I add milk?" in line for line in said)
    assert "… step 1/1: Add milk" in said


async def test_chat_passes_the_persons_answer_to_a_question(api: Api):
    chat, said = session(api, ["the shopping list"])
    await chat.start()
    async with api.worker(script(clarify_first("Which list?"), *LIST)):
        answer = await chat.send("show me that one")
    assert "empty" in answer.lower()
    assert "alfred> Which list?" in said


def test_event_stream_parsing_and_progress_lines():
    body = (
        'id: 1\nevent: thinking\ndata: {"seq": 1}\n\nid: 2\nevent: step\ndata: '
        '{"step": 0, "total": 2, "description": "Read"}\n\n'
    )
    events = parse_events(body)
    assert [(i, e) for i, e, _ in events] == [(1, "thinking"), (2, "step")]
    assert describe("step", events[1][2]) == "… step 1/2: Read"
    assert describe("working", {}) is None
