"""One node against a model, on the first turn of each scenario: ``alfred eval --node think``.

A full run spends a small local model's minutes on every node of every turn, and one
early slip decides the rest. To compare two prompts of one node, only that node needs
the model. Each scenario's first turn runs through the real stack as in a full run, but:

- the nodes before the node under test answer from the reference recording (held
  correct, so every model is asked the same question);
- the node under test is the model's (its repairs too);
- every call after it gets the minimal null model's answer, so the turn ends at once.

The node's answer is read as the system holds it (``domain.enforced``) and graded against
the reference's answer to the same call: for ``think``, the decision and what the plan
changes or creates (the subdomains it writes and generates; for a plan that does
neither, the subdomains it reads: reading before a write, or analysing, is a plan's own
way there, not a different plan); for ``understand``, the
path it picks (quick and its subdomain, a question, a choice). Scenarios whose reference
does not reach the node in its first turn are not run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, ValidationError

from activities.llm.provider import LlmError, LlmProvider, LlmReply, LlmRequest
from domain.answers import answer_model
from domain.enforced.plan_rules import (
    hold_plan,
    hold_understand,
)
from evals.cassette import Cassette, Replay
from evals.null_models import minimal_model
from evals.runner import ScenarioResult, Stack, run_scenario, scenario_today
from evals.scenario import Scenario

NODES = ("understand", "think")
Verdict = Literal["match", "differs", "invalid", "error", "not reached"]
"""``invalid``: the answer fits no contract; ``error``: the model gave none (a timeout, an
HTTP error); ``not reached``: the turn never asked the node."""


class NodeResult(BaseModel):
    id: str
    verdict: Verdict
    model: str = ""
    """The model's answer, graded (``plan_direct: read inventory, write shopping``)."""
    reference: str = ""
    seconds: float = 0.0
    answer: Any = None
    """What the model answered, as it came (its last answer, after any repairs): the words
    the grade leaves out (a plan's descriptions, its filters) are read here."""


class NodeRun(BaseModel):
    label: str
    node: str
    results: list[NodeResult] = Field(default_factory=list)

    @property
    def matched(self) -> int:
        return sum(1 for r in self.results if r.verdict == "match")

    @property
    def planned(self) -> int:
        """Cases whose reference takes the default path, which a model that knows nothing
        takes too (``understand``: the base rate)."""
        return sum(1 for r in self.results if r.reference == "planned")

    def markdown(self) -> str:
        base = f" ({self.planned} of them planned, as a null model answers)" if self.planned else ""
        lines = [
            f"**{self.label}, {self.node} alone: {self.matched} of {len(self.results)} "
            f"match the reference**{base}",
            "",
            "| scenario | verdict | model | reference | s |",
            "|---|---|---|---|---|",
        ]
        for r in self.results:
            lines.append(f"| {r.id} | {r.verdict} | {r.model} | {r.reference} | {r.seconds:.0f} |")
        return "\n".join(lines) + "\n"


@dataclass
class NodeOnly:
    """The worker's model for one scenario: the reference before ``node``, ``model`` for
    it, the minimal null model after it."""

    node: str
    model: LlmProvider
    reference: Replay
    rest: LlmProvider = field(default_factory=minimal_model)
    answers: list[Any] = field(default_factory=list)
    """What the model answered the node, repairs included (the last one stands)."""
    error: str | None = None
    """Why the model gave no answer, when it failed."""
    name: str = "node-only"
    done: bool = False

    async def complete(self, request: LlmRequest) -> LlmReply:
        if not self.done and request.node == self.node:
            try:
                reply = await self.model.complete(request)
            except LlmError as failure:
                self.error, self.done = f"{failure.kind}: {failure}", True
                raise
            self.answers.append(reply.content)
            return reply
        if self.answers:
            self.done = True
        if self.done:
            return await self.rest.complete(request)
        return await self.reference.complete(request)


def first_turn(scenario: Scenario) -> Scenario:
    return scenario.model_copy(update={"turns": scenario.turns[:1]})


def graded(node: str, answer: str, content: Any, message: str, mode: str | None = None) -> str:
    """The answer as the system holds it, in the words it is graded by (``ValueError``
    when it does not fit the answer model)."""
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except json.JSONDecodeError as error:
            raise ValueError(f"not JSON: {error}") from None
    if node == "think":
        steps = re.search(r"\d+$", answer)
        model = answer_model("think", max_steps=int(steps.group()) if steps else None)
    else:
        model = answer_model(node)
    try:
        output = model.model_validate(content).to_output()  # type: ignore[attr-defined]
    except ValidationError as error:
        raise ValueError(str(error).splitlines()[0]) from None
    if node == "think":
        plan = hold_plan(output, mode)
        kinds = sorted({f"{s.step_type} {s.subdomain}" for s in plan.steps})
        changes = [k for k in kinds if k.startswith(("write", "generate"))]
        kinds = changes or [k for k in kinds if k.startswith("read")]
        return f"{plan.decision}: {', '.join(kinds)}" if kinds else plan.decision
    held = hold_understand(output, message)
    if held.needs_disambiguation:
        return "choice"
    if held.needs_clarification:
        return "question"
    return f"quick {held.quick_subdomain}" if held.quick_mode else "planned"


def grade(
    case: NodeCase, node: str, expected: tuple[str, Any], routed: NodeOnly, seconds: float = 0.0
) -> NodeResult:
    """The model's last answer to ``node`` against the reference's (``expected``: its
    answer model's name and answer)."""
    answer, content = expected
    message, mode = case.scenario.turns[0].say, case.scenario.turns[0].mode
    result = NodeResult(
        id=case.scenario.id,
        verdict="not reached",
        reference=graded(node, answer, content, message, mode),
        seconds=round(seconds, 1),
    )
    if routed.error is not None:
        result.verdict, result.model = "error", routed.error[:80]
        return result
    if not routed.answers:
        return result
    result.answer = routed.answers[-1]
    try:
        result.model = graded(node, answer, routed.answers[-1], message, mode)
    except ValueError as error:
        result.verdict, result.model = "invalid", str(error)[:80]
        return result
    result.verdict = "match" if result.model == result.reference else "differs"
    return result


@dataclass(frozen=True)
class NodeCase:
    scenario: Scenario
    """Its first turn."""
    reference: Cassette


def plan_node_run(
    scenarios: list[Scenario], node: str, references: Callable[[str], Cassette]
) -> list[NodeCase]:
    """Each scenario's first turn with its reference recording."""
    if node not in NODES:
        raise ValueError(f"--node takes one of {', '.join(NODES)}, not {node!r}")
    return [NodeCase(first_turn(s), references(s.id)) for s in scenarios]


class Switchable(Protocol):
    current: LlmProvider


async def reference_answer(
    case: NodeCase, node: str, stack: Stack, switch: Switchable
) -> tuple[str, Any] | None:
    """The answer model's name and the reference's answer to ``node`` when the case's turn
    is replayed from the reference; None when that turn does not reach ``node`` (a quick
    lookup does not reach Think; a cook turn, neither node)."""
    ran, routed = await _turn(case, node, _replay(case), stack, switch)
    if not routed.answers:
        return None
    return next(c.answer for c in ran.calls if c.node == node), routed.answers[-1]


async def run_node(
    case: NodeCase,
    node: str,
    expected: tuple[str, Any],
    model: LlmProvider,
    stack: Stack,
    switch: Switchable,
) -> NodeResult:
    """The case's first turn with ``node`` answered by ``model``, graded against
    ``expected`` (``reference_answer``)."""
    ran, routed = await _turn(case, node, model, stack, switch)
    seconds = sum(c.seconds for c in ran.calls if c.node == node)
    return grade(case, node, expected, routed, seconds)


async def _turn(
    case: NodeCase, node: str, model: LlmProvider, stack: Stack, switch: Switchable
) -> tuple[ScenarioResult, NodeOnly]:
    routed = NodeOnly(node, model, _replay(case))
    switch.current = routed
    return await run_scenario(case.scenario, stack), routed


def _replay(case: NodeCase) -> Replay:
    replay = Replay(case.reference)
    replay.today = scenario_today(case.scenario)
    return replay
