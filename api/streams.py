"""Server-sent events from the turns' workflow streams (``temporalio.contrib.workflow_streams``).

A turn's workflow publishes its events (seed 000's ``thinking``, ``plan``, ``step``, ...,
``done``, ``context_updated``, and pauses, breakers and endings) on the ``events`` topic,
and the Reply and bypass activities publish the text the model is writing on ``tokens``.
A subscriber long-polls the workflow for items after an offset, so a client resumes
exactly where it left off (``Last-Event-ID``) and nothing is polled for when nothing
happens. A turn run by a worker without streams (older code) is read from the progress
query instead, as before. Idle connections get a comment line every
``HEARTBEAT_SECONDS`` so proxies keep them open. When the server starts to stop, every open
stream ends at once with a last event, ``server_closing`` (``SERVER_CLOSING``): a paused
turn's stream would otherwise hold the server up for ``ALFRED_SSE_MAX_SECONDS``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi.sse import ServerSentEvent
from temporalio.client import Client
from temporalio.contrib.workflow_streams import WorkflowStreamClient

from activities.streaming import TOKENS
from api.problems import RETRY_AFTER_SECONDS
from api.temporal import TurnClient
from workflows.progress import EVENTS

T = TypeVar("T")
FINAL_EVENTS = ("context_updated", "error", "expired", "cancelled")
HEARTBEAT_SECONDS = 15.0
SERVER_CLOSING = "server_closing"
CLOSING_MESSAGE = "the server is stopping: try again in a few seconds"


@dataclass(frozen=True)
class Item:
    """One event of a turn: ``offset`` is its place in the turn's stream (1-based)."""

    offset: int
    event: str
    """The event type, or ``token`` for streamed text."""
    data: dict[str, Any]

    @property
    def final(self) -> bool:
        return self.event in FINAL_EVENTS


def _item(topic: str, offset: int, data: Any) -> Item:
    if topic == TOKENS:
        return Item(offset + 1, "token", dict(data))
    event = dict(data)
    return Item(
        offset + 1,
        str(event["type"]),
        {"seq": event["seq"], "attempt": event["attempt"], **event.get("data", {})},
    )


async def turn_items(
    client: Client, turns: TurnClient, workflow_id: str, after: int, poll_seconds: float
) -> AsyncIterator[Item]:
    """The turn's items after offset ``after``, until its final event (or, for a turn whose
    worker has no stream, the same events from the progress query)."""
    stream = WorkflowStreamClient.create(client, workflow_id)
    got_any = False
    try:
        async for entry in stream.subscribe([EVENTS, TOKENS], from_offset=after):
            got_any = True
            item = _item(entry.topic, entry.offset, entry.data)
            yield item
            if item.final:
                return
    except Exception:  # noqa: BLE001 - a run without stream handlers, or a server error
        if got_any:
            raise
    else:
        return
    async for item in _from_progress(turns, workflow_id, after, poll_seconds):
        yield item


async def _from_progress(
    turns: TurnClient, workflow_id: str, after: int, poll_seconds: float
) -> AsyncIterator[Item]:
    """The events of a turn without a stream, by polling its progress query (ids: seq)."""
    seen = after
    while True:
        progress = await turns.progress(workflow_id, after_seq=seen)
        if progress is not None:
            for event in progress.events:
                seen = event.seq
                item = Item(
                    event.seq,
                    event.type,
                    {
                        "seq": event.seq,
                        "attempt": event.attempt,
                        **event.data.model_dump(mode="json"),
                    },
                )
                yield item
                if item.final:
                    return
            if progress.status in ("completed", "failed", "expired", "cancelled"):
                return
        await asyncio.sleep(poll_seconds)


def server_closing() -> ServerSentEvent:
    """A stream's last event when the server stops: no id (``Last-Event-ID`` stays the last
    real event's), and ``retry`` tells an EventSource when to come back."""
    return ServerSentEvent(
        event=SERVER_CLOSING,
        data={"message": CLOSING_MESSAGE, "retry_after": RETRY_AFTER_SECONDS},
        retry=RETRY_AFTER_SECONDS * 1000,
    )


async def with_heartbeats(
    items: AsyncIterator[T],
    *,
    every: float = HEARTBEAT_SECONDS,
    until: asyncio.Event | None = None,
) -> AsyncIterator[T | None]:
    """``items``, with a None whenever nothing came for ``every`` seconds (send a comment);
    ends as soon as ``until`` is set (the server is stopping), what is not yet read left."""
    queue: asyncio.Queue[Any] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for item in items:
                await queue.put(item)
        except Exception as error:  # noqa: BLE001 - handed to the reader, raised there
            await queue.put(error)
        await queue.put(StopAsyncIteration())

    async def stop() -> None:
        if until is not None:
            await until.wait()
            queue.put_nowait(StopAsyncIteration())

    tasks = [asyncio.create_task(pump()), asyncio.create_task(stop())]
    try:
        while True:
            try:
                got = await asyncio.wait_for(queue.get(), timeout=every)
            except TimeoutError:
                yield None
                continue
            if isinstance(got, StopAsyncIteration) or (until is not None and until.is_set()):
                return
            if isinstance(got, BaseException):
                raise got
            yield got
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
