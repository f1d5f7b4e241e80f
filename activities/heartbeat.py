"""Model activities heartbeat while they wait for the model, so the server notices a dead
worker within the heartbeat timeout (``workflows.policies.LLM_HEARTBEAT``, seconds) and
retries the call on another worker, instead of waiting out the call's start-to-close
timeout (minutes: a slow model is waited for as long as it was configured to be).

The heartbeat also carries cancellation: a cancelled turn stops its model call at the
next beat.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from temporalio import activity

BEAT_SECONDS = 2.0
"""How often a waiting activity heartbeats; the SDK sends at most one per 0.8 × the
heartbeat timeout, so this only has to be well under it."""


@contextlib.asynccontextmanager
async def heartbeating(every: float = BEAT_SECONDS) -> AsyncIterator[None]:
    """Heartbeat every ``every`` seconds while the block runs (outside an activity: a no-op)."""
    if not activity.in_activity():
        yield
        return

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(every)

    task = asyncio.create_task(beat(), name="heartbeat")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
