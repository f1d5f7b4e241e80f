"""A model whose Summarize calls wait for ``release``: the turn has replied and is still
saving its state (the moment a follow-up message is queued)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from activities.llm.provider import LlmProvider, LlmReply, LlmRequest


@dataclass
class HeldSummaries:
    inner: LlmProvider
    release: asyncio.Event = field(default_factory=asyncio.Event)
    name: str = "script"

    async def complete(self, request: LlmRequest) -> LlmReply:
        if request.node == "summarize":
            await self.release.wait()
        return await self.inner.complete(request)
