"""Model calls seen, recorded and replayed.

``Watch`` wraps the provider the worker uses and notes every call: node, step, the answer
model, whether it answered a repair, the model's answer, tokens and seconds. Those notes
are a scenario's metrics and, with ``--record``, its cassette. ``Replay`` serves a
cassette back, call by call, matched on node, step and repair; a call the cassette cannot
answer, or an answer it holds that no longer fits the contract (the gateway asks for a
repair the recording never had), is a *misfit*: the scenario is an error, never a pass.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from activities.llm.provider import LlmError, LlmProvider, LlmReply, LlmRequest, Usage
from evals.scenario import expand

CASSETTES_DIR = Path(__file__).parent / "cassettes"


class Call(BaseModel):
    node: str
    step: int | None = None
    answer: str = ""
    """The answer model asked for (``ActWriteShopping``): which decisions were allowed."""
    repair: bool = False
    """The call asked the model to repair its previous answer."""
    content: Any = None
    """What the model answered (text as sent; an object from an offline provider)."""
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    error: str | None = None
    """The provider failed (HTTP error, timeout): the call has no answer."""
    retryable: bool = False
    """The failure was one the activity retries (a dropped connection): replayed so, the
    retry is served the recording's next answer, as it was live."""
    repeat: bool = False
    """A written reference answer that serves every such call (Summarize's, say); never
    in a recording."""


class Cassette(BaseModel):
    scenario: str
    label: str
    recorded_at: str = ""
    calls: list[Call] = Field(default_factory=list)

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.scenario}.json"
        path.write_text(json.dumps(self.model_dump(mode="json"), indent=1, ensure_ascii=False))
        return path

    @classmethod
    def load(cls, directory: Path, scenario: str) -> Cassette:
        path = directory / f"{scenario}.json"
        if not path.exists():
            raise FileNotFoundError(f"no cassette for scenario {scenario!r} in {directory}")
        return cls.model_validate_json(path.read_text())


@dataclass
class Watch:
    """The worker's provider, watched: every call noted, in order."""

    inner: LlmProvider
    calls: list[Call] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.inner.name

    def take(self) -> list[Call]:
        """The calls since the last take (one scenario's)."""
        taken, self.calls = self.calls, []
        return taken

    async def complete(self, request: LlmRequest) -> LlmReply:
        started = time.monotonic()
        call = Call(
            node=request.node,
            step=request.step,
            answer=request.answer.__name__,
            repair=request.repair_of is not None,
        )
        try:
            reply = await self.inner.complete(request)
        except LlmError as error:
            call.error = f"{error.kind}: {error}"
            call.retryable = error.retryable
            call.seconds = round(time.monotonic() - started, 3)
            self.calls.append(call)
            raise
        call.content = reply.content
        call.model = reply.model
        call.prompt_tokens = reply.usage.prompt_tokens
        call.completion_tokens = reply.usage.completion_tokens
        call.seconds = round(time.monotonic() - started, 3)
        self.calls.append(call)
        return reply


@dataclass
class Replay:
    """A cassette served back: the first unused recorded call with the same node, step and
    repair flag answers each request, its date tokens expanded from ``today``."""

    cassette: Cassette
    today: dt.date = field(default_factory=lambda: dt.datetime.now(dt.UTC).date())
    used: list[bool] = field(default_factory=list)
    misfits: list[str] = field(default_factory=list)
    name: str = "cassette"
    asked: set[tuple[str, int | None]] = field(default_factory=set)
    """The (node, step) pairs the run asked about."""

    def __post_init__(self) -> None:
        self.used = [False] * len(self.cassette.calls)

    async def complete(self, request: LlmRequest) -> LlmReply:
        self.asked.add((request.node, request.step))
        repair = request.repair_of is not None
        for i, call in enumerate(self.cassette.calls):
            if self.used[i] or call.node != request.node:
                continue
            if call.step != request.step and not call.repeat:
                continue
            if call.repair != repair:
                continue
            self.used[i] = not call.repeat
            if call.error is not None:
                raise LlmError(call.error, kind="recorded_failure", retryable=call.retryable)
            return LlmReply(
                content=expand(call.content, self.today),
                model=call.model,
                usage=Usage(
                    prompt_tokens=call.prompt_tokens, completion_tokens=call.completion_tokens
                ),
            )
        where = f" step {request.step}" if request.step is not None else ""
        if repair:
            problem = (
                f"{request.node}{where}: the recorded answer no longer fits the contract "
                f"({request.repair_error})"
            )
        else:
            problem = f"{request.node}{where}: the recording has no answer for this call"
        self.misfits.append(problem)
        raise LlmError(problem, kind="cassette_misfit", retryable=False)

    def unused(self) -> list[str]:
        """Recorded calls no request asked for: the run went another way than recorded.
        But for a read step the run never asked the model about (every answer recorded
        for it a read or the step's end): the system now runs the reads it adds to a plan
        itself (``domain.enforced.act_rules.system_read``), and a recording made before
        holds the model's answers for them."""
        return [
            f"{c.node}{'' if c.step is None else f' step {c.step}'}"
            for c, used in zip(self.cassette.calls, self.used, strict=True)
            if not used and not c.repeat and not self._read_step_not_asked(c.node, c.step)
        ]

    def _read_step_not_asked(self, node: str, step: int | None) -> bool:
        if node != "act" or (node, step) in self.asked:
            return False
        answers = [c.content for c in self.cassette.calls if c.node == node and c.step == step]
        return all(_reads_or_ends(a) for a in answers)


def _reads_or_ends(content: Any) -> bool:
    """Whether a recorded Act answer (its JSON, as sent or parsed) reads (``db_read``) or
    ends its step."""
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return False
    decision = content.get("decision") if isinstance(content, dict) else None
    if not isinstance(decision, dict):
        return False
    action = decision.get("action")
    return action == "step_complete" or (
        action == "tool_call" and decision.get("tool") == "db_read"
    )
