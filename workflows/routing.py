"""The seeds' routing functions as plain code (seed 000 "Routing Logic").

``route_after_understand``, ``route_after_think`` and ``should_continue_act`` decide the
turn's path, and ``route_after_answer`` where an answer to a pause takes it; the workflow
calls them and acts on the ``Route`` they return (``TurnWorkflow._converse``, the Act
loop). No I/O, no Temporal.

One deliberate difference from the seed: where the seed routes a clarification or a
proposal to Reply (which formats the question), here asking is its own route,
``Route.ASK``: the turn pauses durably for the user's answer, and Reply is only ever the
end of the turn.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the sandbox imports nothing more for routing
    from domain.nodes import ActDecision, ThinkOutput, UnderstandOutput


class Route(StrEnum):
    """Where the turn goes next."""

    UNDERSTAND = "understand"
    """The user answered a pause: Understand reads the request with the answer."""
    ASK = "ask"
    """Pause for the user: a clarification, a choice, a proposal or Act's question."""
    ACT_QUICK = "act_quick"
    THINK = "think"
    ACT = "act"
    CONTINUE = "continue"
    """The Act loop goes on (the same step, or the next one)."""
    REPLY = "reply"
    """The turn's work is done (or stopped): Reply answers."""
    FAIL = "fail"
    """Act failed the turn with its own message to the user."""
    DONE = "done"
    """The turn has its answer (Reply's, or one a stage gave itself): it wraps up."""


def route_after_understand(understand: UnderstandOutput) -> Route:
    if understand.needs_clarification or understand.needs_disambiguation:
        return Route.ASK
    if understand.quick_mode:
        return Route.ACT_QUICK
    return Route.THINK


def route_after_think(think: ThinkOutput) -> Route:
    if think.decision in ("propose", "clarify"):
        return Route.ASK
    return Route.ACT


def route_after_answer(kind: str, action: str, *, planned: bool) -> Route:
    """Where the answer to a pause of Understand or Think goes: a confirmed proposal runs
    its steps (``planned``) or, without steps, goes back to Think; any other answer goes
    back through Understand (seed 003 §5), with the pause in its context."""
    if kind == "proposal" and action == "confirm":
        return Route.ACT if planned else Route.THINK
    return Route.UNDERSTAND


def should_continue_act(
    decision: ActDecision | None, *, step_index: int, total_steps: int
) -> Route:
    """Where the Act loop goes after ``decision`` on step ``step_index`` of ``total_steps``.

    ``None`` means no decision is pending (all steps done). tool_call, request_schema and
    the retrieve actions keep the same step; step_complete advances or, after the last
    step, ends in Reply.
    """
    if decision is None:
        return Route.REPLY
    action = decision.action
    if action in ("tool_call", "request_schema", "retrieve_step", "retrieve_archive"):
        return Route.CONTINUE
    if action == "step_complete":
        return Route.CONTINUE if step_index + 1 < total_steps else Route.REPLY
    if action == "ask_user":
        return Route.ASK
    if action == "fail":
        return Route.FAIL
    return Route.REPLY  # blocked
