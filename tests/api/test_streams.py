"""The SSE plumbing: an idle stream gets heartbeats, a failing source's error reaches the
reader, and the stream ends with its source."""

from __future__ import annotations

import asyncio

import pytest

from api.streams import with_heartbeats


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
