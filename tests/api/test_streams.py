"""The SSE plumbing: an idle stream gets heartbeats, a failing source's error reaches the
reader, the stream ends with its source, and every open stream ends, saying so, when the
server starts to stop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from api.streams import SERVER_CLOSING, with_heartbeats
from tests.api.conftest import Api, sse_blocks
from tests.api.test_agui import proposal


async def slow(items: list[int], pause: float):
    for item in items:
        await asyncio.sleep(pause)
        yield item


async def test_an_idle_stream_gets_a_heartbeat_between_items():
    got = [x async for x in with_heartbeats(slow([1, 2], 0.12), every=0.05)]
    assert [x for x in got if x is not None] == [1, 2]
    assert got.count(None) >= 2 and got[-1] == 2


async def test_a_busy_stream_gets_no_heartbeats():
    assert [x async for x in with_heartbeats(slow([1, 2, 3], 0), every=1)] == [1, 2, 3]


async def test_the_sources_error_reaches_the_reader():
    async def broken():
        yield 1
        raise RuntimeError("stream lost")

    with pytest.raises(RuntimeError, match="stream lost"):
        async for _ in with_heartbeats(broken(), every=1):
            pass


async def test_a_stream_ends_at_once_when_the_server_starts_to_stop():
    async def never_ending():
        yield 1
        await asyncio.Event().wait()  # a paused turn: nothing more for an hour
        yield 2

    closing = asyncio.Event()
    got = []

    async def read():
        async for item in with_heartbeats(never_ending(), every=60, until=closing):
            got.append(item)

    reader = asyncio.create_task(read())
    await asyncio.sleep(0.05)
    closing.set()
    async with asyncio.timeout(1):
        await reader
    assert got == [1]


async def read_to_the_end(
    http, method: str, url: str, *, then: Callable[[], None], when: str, body=None
) -> list[tuple[str, dict]]:
    """An SSE stream's (event, data) pairs until the server ends it; ``then()`` is called
    once an event named ``when`` has come (an AG-UI event's name is its ``type``)."""
    events: list[tuple[str, dict]] = []
    async with http.stream(method, url, json=body) as response:
        assert response.status_code == 200
        async for block in sse_blocks(response):
            if "data" in block:
                data = json.loads(block["data"])
                events.append((block.get("event") or data["type"], data))
                if events[-1][0] == when:
                    then()
    return events


async def test_open_streams_of_a_paused_turn_end_with_server_closing_when_the_server_stops(
    api: Api,
):
    conversation = await api.conversation()
    closing = api.services.closing
    async with api.worker(proposal()), api.served() as http:
        paused = (
            await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true", json={"text": "stock up"}
            )
        ).json()
        assert paused["status"] == "awaiting_input"
        opened = []

        def both_paused() -> None:
            opened.append(1)
            if len(opened) == 2:
                closing.set()  # as `serve` does on Ctrl-C or SIGTERM

        async with asyncio.timeout(20):
            turn, whole = await asyncio.gather(
                read_to_the_end(
                    http,
                    "GET",
                    f"/v1/turns/{paused['id']}/events",
                    then=both_paused,
                    when="awaiting_input",
                ),
                read_to_the_end(
                    http,
                    "GET",
                    f"/v1/conversations/{conversation}/events",
                    then=both_paused,
                    when="awaiting_input",
                ),
            )
    for events in (turn, whole):
        assert [name for name, _ in events[-2:]] == ["awaiting_input", SERVER_CLOSING]
        assert events[-1][1]["retry_after"] == 5


async def test_an_ag_ui_run_ends_with_a_server_closing_error_when_the_server_stops(api: Api):
    thread = await api.conversation()
    user = {"id": "m1", "role": "user", "content": "stock up"}
    body = {"threadId": thread, "runId": "run-1", "messages": [user], "tools": [], "context": []}
    async with api.served() as http:  # no worker: the run waits for its turn to start
        async with asyncio.timeout(20):
            events = await read_to_the_end(
                http,
                "POST",
                "/v1/agui",
                body=body,
                then=api.services.closing.set,
                when="RUN_STARTED",
            )
    assert [name for name, _ in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1][1]["code"] == SERVER_CLOSING
