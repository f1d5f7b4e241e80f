"""The seeds' routing functions as plain code (seed 000 "Routing Logic").

``route_after_understand``, ``route_after_think`` and ``should_continue_act`` decide the
turn's path; the workflow calls them and nothing else decides. No I/O, no Temporal.
"""

from __future__ import annotations

from typing import Literal

from domain.nodes import ActDecision, ThinkOutput, UnderstandOutput

UnderstandRoute = Literal["reply", "act_quick", "think"]
ThinkRoute = Literal["act", "reply"]
ActRoute = Literal["continue", "reply", "ask_user", "fail"]


def route_after_understand(understand: UnderstandOutput) -> UnderstandRoute:
    if understand.needs_clarification or understand.needs_disambiguation:
        return "reply"
    if understand.quick_mode:
        return "act_quick"
    return "think"


def route_after_think(think: ThinkOutput) -> ThinkRoute:
    if think.decision in ("propose", "clarify"):
        return "reply"
    return "act"


def should_continue_act(
    decision: ActDecision | None, *, step_index: int, total_steps: int
) -> ActRoute:
    """Where the Act loop goes after ``decision`` on step ``step_index`` of ``total_steps``.

    ``None`` means no decision is pending (all steps done). tool_call, request_schema and
    the retrieve actions keep the same step; step_complete advances or, after the last
    step, ends in Reply.
    """
    if decision is None:
        return "reply"
    action = decision.action
    if action in ("tool_call", "request_schema", "retrieve_step", "retrieve_archive"):
        return "continue"
    if action == "step_complete":
        return "continue" if step_index + 1 < total_steps else "reply"
    if action == "ask_user":
        return "ask_user"
    if action == "fail":
        return "fail"
    return "reply"  # blocked
