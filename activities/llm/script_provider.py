"""The ``script`` provider: deterministic node outputs from a JSON file, for tests and demos.

File format (``ALFRED_LLM_SCRIPT``)::

    {"responses": [
        {"node": "understand", "output": {...}},
        {"node": "act", "step": 1, "output": {...}},
        {"node": "summarize", "output": {...}, "repeat": true}
    ]}

A call takes the first unused entry whose ``node`` (and ``step``, when the entry gives one)
matches; a ``repeat`` entry is never used up; ``delay_seconds`` makes the answer slow. The
output is validated by the gateway against the node's contract like any model output. No
matching entry is a non-retryable error that names the node and step. A repair attempt
takes the next matching entry too, so a script can exercise the repair path.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from activities.llm.provider import LlmError, LlmReply, LlmRequest, Usage, stream_whole
from domain.nodes import NODE_OUTPUTS


class ScriptEntry(BaseModel):
    node: str
    step: int | None = None
    output: Any
    repeat: bool = False
    delay_seconds: float = 0
    """How long the "model" takes to answer (a slow model, for recovery tests and benches)."""
    usage: Usage | None = None
    """The tokens the "model" reports for this answer (none by default)."""


class Script(BaseModel):
    responses: list[ScriptEntry] = Field(default_factory=list)


class ScriptProvider:
    name = "script"

    def __init__(self, script: Script) -> None:
        unknown = sorted({e.node for e in script.responses} - set(NODE_OUTPUTS))
        if unknown:
            raise ValueError(f"script names unknown node(s): {', '.join(unknown)}")
        self._entries = list(script.responses)
        self._used = [False] * len(self._entries)
        self._lock = threading.Lock()
        self.calls: list[LlmRequest] = []
        """Every request received, in order (tests assert on what each node was shown)."""

    @classmethod
    def from_file(cls, path: Path) -> ScriptProvider:
        return cls(Script.model_validate(json.loads(Path(path).read_text())))

    @classmethod
    def from_responses(cls, responses: list[dict[str, Any]]) -> ScriptProvider:
        return cls(Script.model_validate({"responses": responses}))

    async def complete(self, request: LlmRequest) -> LlmReply:
        entry = self._take(request)
        if entry is not None:
            if entry.delay_seconds:
                await asyncio.sleep(entry.delay_seconds)
            content = _content(entry.output)
            stream_whole(request, content)
            return LlmReply(content=content, model="script", usage=entry.usage or Usage())
        where = f" step {request.step}" if request.step is not None else ""
        raise LlmError(
            f"script has no unused response for node {request.node!r}{where}",
            kind="script_exhausted",
            retryable=False,
        )

    def _take(self, request: LlmRequest) -> ScriptEntry | None:
        """The first unused entry for the request's node (and step); used up unless it
        repeats."""
        with self._lock:
            self.calls.append(request)
            for i, entry in enumerate(self._entries):
                if self._used[i] or entry.node != request.node:
                    continue
                if entry.step is not None and entry.step != request.step:
                    continue
                if not entry.repeat:
                    self._used[i] = True
                return entry
        return None

    def unused(self) -> list[ScriptEntry]:
        """Entries never taken (repeat entries excluded): a test's script should end empty."""
        return [
            e
            for e, used in zip(self._entries, self._used, strict=True)
            if not used and not e.repeat
        ]


def _content(output: Any) -> str | dict[str, Any]:
    return output if isinstance(output, (dict, str)) else json.dumps(output)
