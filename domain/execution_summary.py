"""Reply's execution summary (seed 000 "Execution Summary"): the handoff from Act to Reply.

Built from what the turn did, not from what any model said it did: the plan against what
ran (steps skipped after a blocked group included), each batch's progress, the primary
output (the last analyze or generate step), warnings where the words and the deeds differ
(the user asked for a change and nothing changed; content the user asked to save is still
only generated) and one next step to suggest. A step that stopped the work (blocked, or a
limit) is shown with what it did before it stopped, and what the turn wrote is said in
the same words its ending uses (``formatters.format_done``).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from domain.conversation import StepExit, StepResult
from domain.intent import requested_change
from domain.kitchen.scaled import amounts_unset
from domain.kitchen.tables import SUBDOMAINS
from domain.registry import SessionIdRegistry
from domain.tool_results import ToolEntry


class PlannedStep(BaseModel):
    """One step of Think's plan and how far it got (the turn's step progress)."""

    index: int
    description: str
    step_type: str
    subdomain: str
    status: str


def plan_overview(plan: Sequence[PlannedStep]) -> str:
    """ "3 steps planned: 2 completed, 1 skipped", then one line per step."""
    if not plan:
        return ""
    counts: dict[str, int] = {}
    for step in plan:
        counts[step.status] = counts.get(step.status, 0) + 1
    tally = ", ".join(f"{n} {status}" for status, n in counts.items())
    lines = [f"{len(plan)} steps planned: {tally}."]
    for step in plan:
        line = f"- step {step.index} [{step.step_type}/{step.subdomain}] {step.description}"
        lines.append(f"{line}: {step.status}")
    return "\n".join(lines)


def stopped_step(stopped: StepExit, plan: Sequence[PlannedStep]) -> StepResult:
    """The step that stopped the turn's work, as a result like any other: what it did
    before it stopped (a write it made is saved) belongs in the execution summary."""
    planned = next((p for p in plan if p.index == stopped.step), None)
    return StepResult(
        step_index=stopped.step,
        description=planned.description if planned else "",
        step_type=planned.step_type if planned else "?",
        subdomain=planned.subdomain if planned else "?",
        outcome=stopped.kind,
        summary=stopped.details or "",
        tool_results=stopped.tool_results,
    )


def batch_progress(step_results: Sequence[StepResult]) -> str:
    """Each batch's "2 of 3 saved", with what failed and what is still unsaved."""
    return "\n".join(
        f"Step {r.step_index}: {r.batch.progress()}" for r in step_results if r.batch is not None
    )


def primary_step(step_results: Sequence[StepResult]) -> StepResult | None:
    """The last completed analyze or generate step whose outcomes support it (no
    ``flags``): what the user most likely wants to see. For "how much olive oil am i
    getting" the 1.5B local model's analyze step, after an inventory read that found none,
    said "The inventory shows 1 bottle of olive oil" naming a ref that does not exist; led
    with it, the reply said the same."""
    for result in reversed(step_results):
        if (
            result.step_type in ("analyze", "generate")
            and result.outcome == "completed"
            and not result.flags
        ):
            return result
    return None


def changed_anything(step_results: Sequence[StepResult], stopped: StepExit | None = None) -> bool:
    """Whether a write of this turn succeeded, in a completed step or in the one that
    stopped the turn's work (a step can write, then be blocked or hit a limit)."""
    tools = [t for r in step_results for t in r.tool_results]
    tools += stopped.tool_results if stopped is not None else []
    return any(t.succeeded_write() for t in tools)


def unmet_change(
    message: str, step_results: Sequence[StepResult], stopped: StepExit | None = None
) -> str | None:
    """The change the user asked for (``domain.intent``) when the turn made none: no write
    succeeded and nothing was generated. None when there is no mismatch."""
    asked = requested_change(message)
    if asked is None or changed_anything(step_results, stopped):
        return None
    return None if any(r.artifacts for r in step_results) else asked


def warnings(
    message: str,
    step_results: Sequence[StepResult],
    registry: SessionIdRegistry,
    *,
    quick_result: ToolEntry | None = None,
    stopped: StepExit | None = None,
) -> list[str]:
    """Where the words and the deeds differ: Reply must say so, never imply it was done."""
    found = []
    unmet = unmet_change(message, step_results, stopped)
    if unmet:
        did = "only looked data up" if (quick_result or step_results) else "did nothing"
        found.append(
            f'ACTION MISMATCH: the user asked for a change ("{unmet}"), but this turn {did}: '
            "nothing was created, changed or deleted. Say so plainly; do not imply it was done."
        )
    found += amounts_not_set(message, step_results, stopped)
    unsaved = registry.unsaved_refs()
    if unsaved and requested_change(message) in ("save", "store", "keep", "add", "create"):
        names = ", ".join(registry.label(r) or r for r in unsaved)
        found.append(f"NOT SAVED: the user asked to save, but these are only generated: {names}.")
    return found


def amounts_not_set(
    message: str, step_results: Sequence[StepResult], stopped: StepExit | None = None
) -> list[str]:
    """The amounts the user's words give a value (``domain.kitchen.scaled``) in the tables
    this turn's write steps change, that no write of the turn set. For "dal should be 250g
    lentils not 200" the 1.5B local model set the dal's description, the system's "not
    done" was sent back and the same write came again, and the reply said the recipe now
    used 250 g: the lentils were still 200 g."""
    tables = [
        t for r in step_results if r.step_type == "write" for t in SUBDOMAINS.get(r.subdomain, ())
    ]
    written = [t for r in step_results for t in r.tool_results]
    written += stopped.tool_results if stopped is not None else []
    return [
        f"AMOUNT NOT SET: the user's words give {amount.label} {target.shown()}, and it is "
        f"still {amount.shown()}: no write of this turn set it. Say so plainly; do not say "
        "it was changed."
        for amount, target in amounts_unset(step_results, written, message, tables)
    ]


def next_step(
    plan: Sequence[PlannedStep],
    registry: SessionIdRegistry,
    blocked: StepExit | None,
) -> str:
    """One suggestion: the blocked step's own, else saving what is only generated, else
    running what was skipped."""
    if blocked is not None and blocked.suggested_next:
        return blocked.suggested_next
    unsaved = registry.unsaved_refs()
    if unsaved:
        names = ", ".join(registry.label(r) or r for r in unsaved)
        return f"Offer to save {names}, or to change it first."
    skipped = [s for s in plan if s.status == "skipped"]
    if skipped:
        return f"Offer to try what was not done: {skipped[0].description}."
    return ""
