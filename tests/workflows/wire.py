"""The workflow suite's model calls, sent over the wire: each scripted output is served by
the fake OpenAI server and fetched by the real ``openai`` provider, so every request a real
model would receive is recorded and checked once the session ends (``WireLog.problems``).

A scripted test only proves what it scripts; the requests prove what a model is shown.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from dataclasses import dataclass, field

from activities.llm.openai_provider import OpenAIProvider
from activities.llm.provider import LlmReply, LlmRequest
from activities.llm.schema import strict_problems
from activities.llm.script_provider import ScriptProvider
from tests.activities.llm.fake_openai import FakeOpenAI, ReceivedRequest

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
TODAY = re.compile(
    r"## Today\nNow: [A-Z][a-z]+day \d{4}-\d\d-\d\d, [a-z]+ \([^)]+\)\n"
    r"This week: Mon .*\(today\).*\nNext week: Mon "
)
DATED = frozenset({"understand", "think", "act", "act_quick", "reply", "cook", "brainstorm"})
"""The nodes that plan, write or answer: each is told the date, weekday, time and calendar."""


@dataclass
class WireLog:
    """One fake server and one provider for the session; requests are taken one at a time
    (the server answers in the order outputs were queued)."""

    fake: FakeOpenAI
    provider: OpenAIProvider
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    nodes: list[str] = field(default_factory=list)
    """The node of each recorded request, in order."""

    def script(self, script: ScriptProvider) -> WireScript:
        return WireScript(script, self)

    def problems(self) -> list[str]:
        """What no request may contain: a UUID (seed 004: models see refs, never UUIDs);
        what a dated node's request must: today's date, weekday, time and calendar; and
        what every request must: a strict schema (``strict: true``, in the strict subset)."""
        found = []
        for node, request in zip(self.nodes, self.fake.requests, strict=True):
            schema = request.body.get("response_format", {}).get("json_schema", {})
            if schema.get("strict") is not True:
                found.append(f"{node}: the schema was not sent strict")
            found.extend(f"{node}: {p}" for p in strict_problems(schema.get("schema", {})))
            user = request.body["messages"][1]["content"]
            if node in DATED and not TODAY.search(user):
                found.append(f"{node}: no date and calendar in: {user[:300]}")
            text = json.dumps(request.body["messages"], ensure_ascii=False)
            for match in UUID.finditer(text):
                start = max(0, match.start() - 80)
                found.append(f"{node}: a UUID reached the model: …{text[start : match.end()]}")
        return found

    def requests_of(self, node: str) -> list[ReceivedRequest]:
        return [r for n, r in zip(self.nodes, self.fake.requests, strict=True) if n == node]


HTTP_ERROR = "__http_error__"
"""A scripted output ``{"__http_error__": 503}`` is served as that HTTP error instead."""


def http_error(
    node: str, status: int, *, retry_after: float | None = None, repeat: bool = True
) -> dict:
    """A script entry: every call of ``node`` from here on fails with ``status`` (only the
    next one: ``repeat=False``), saying ``Retry-After: retry_after`` seconds when given."""
    headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
    return {"node": node, "output": {HTTP_ERROR: status, "headers": headers}, "repeat": repeat}


class WireScript:
    """A ``ScriptProvider`` whose outputs travel through the fake server and the provider."""

    name = "script"

    def __init__(self, script: ScriptProvider, log: WireLog) -> None:
        self.inner = script
        self.log = log

    @property
    def calls(self) -> list[LlmRequest]:
        return self.inner.calls

    def unused(self):
        return self.inner.unused()

    async def complete(self, request: LlmRequest) -> LlmReply:
        async with self.log.lock:
            # The script only decides the answer; the provider streams it, over the wire.
            scripted = await self.inner.complete(dataclasses.replace(request, stream=None))
            content = scripted.content
            if isinstance(content, dict) and HTTP_ERROR in content:
                status, headers = int(content[HTTP_ERROR]), content.get("headers")
                self.log.fake.fail(status, "scripted failure", headers=headers)
            else:
                self.log.fake.reply(  # the model answering is the fake's: a dated name
                    content if isinstance(content, str) else json.dumps(content),
                    prompt_tokens=scripted.usage.prompt_tokens,
                    completion_tokens=scripted.usage.completion_tokens,
                )
            self.log.nodes.append(request.node)
            return await self.log.provider.complete(request)
