"""Modes (seed 000 "Mode System"): how much planning and how many steps a turn may take."""

from __future__ import annotations

from dataclasses import dataclass

from domain.nodes import ThinkOutput


@dataclass(frozen=True)
class ModeConfig:
    max_steps: int
    skip_think: bool
    proposal_required: bool
    verbosity: str
    """Reply's ``$verbosity``."""
    guidance: str
    """Think's ``$mode_guidance``: one sentence."""
    examples: str = ""
    """Think's ``$mode_examples``: how the mode decides, as abstract patterns (Markdown list
    items; ``<...>`` stands for what a request names, never a concrete request)."""
    understand_hint: str = ""
    """Understand's ``$mode_hint``: what the mode means for the quick path."""


MODES: dict[str, ModeConfig] = {
    "quick": ModeConfig(
        2,
        True,
        False,
        "terse",
        "Keep it to one or two steps; no proposals.",
        examples=(
            "- A lookup: one `read` (<its subdomain>).\n"
            "- A change: one `write` (<its subdomain>), run directly."
        ),
        understand_hint=(
            "The user chose quick mode: they want a fast answer. Take the quick path whenever "
            "the three conditions below hold. A change or anything needing reasoning is still "
            "not quick; the planner then keeps it to two steps."
        ),
    ),
    "plan": ModeConfig(
        8,
        False,
        True,
        "detailed",
        "Propose a plan that saves content the user has not seen yet; run everything else "
        "directly.",
        examples=(
            "- Writes what the user spelled out, in one step or several: `plan_direct`.\n"
            "- Saves content the user has not seen (meals chosen for several days): `propose`, "
            "with the steps confirming runs.\n"
            "- Writes nothing: `plan_direct`, never `propose`."
        ),
        understand_hint="The user is in plan mode, the default.",
    ),
    "create": ModeConfig(
        4,
        False,
        False,
        "rich",
        "Generate content directly; no proposal needed.",
        examples=(
            "- New content: `plan_direct`, `generate` (<its subdomain>); a `write` only when "
            "the user asks to save it.\n"
            "- New content from the user's stock: `read` (inventory, group 0), `generate` "
            "(<its subdomain>, group 1)."
        ),
        understand_hint=(
            "The user chose create mode: they want new content. A plain lookup can still be quick."
        ),
    ),
}
DEFAULT_MODE = "plan"
BYPASS_MODES: tuple[str, ...] = ("cook", "brainstorm")
MAX_TOOL_CALLS_PER_STEP = 3
MAX_SCHEMA_REQUESTS_PER_STEP = 2


def mode_config(mode: str | None) -> ModeConfig:
    return MODES[mode or DEFAULT_MODE]


WRITES_NEEDING_CONFIRMATION = 2
"""In plan mode, 1.0's workflow proposed a plan that writes in this many steps or more."""


def apply_mode_1_0(mode: str | None, think: ThinkOutput) -> ThinkOutput:
    """The workflow's mode rules for turns that started on 1.0 (without the change
    ``mode-rules-in-think``, ``workflows.versions``); today's rules are held in Think's
    activity (``domain.enforced.plan_rules.hold_plan``). Leaves with the change's old path, in 1.2
    (docs/HOWTO.md "Change the turn's control flow").

    - ``quick`` (``skip_think``): a proposal is run at once.
    - ``plan`` (``proposal_required``): a plan that writes in two or more steps, which Think
      chose to run directly, becomes a proposal.
    """
    config = mode_config(mode)
    if config.skip_think and think.decision == "propose" and think.steps:
        return think.model_copy(update={"decision": "plan_direct", "proposal_message": None})
    writes = sum(1 for s in think.steps if s.step_type == "write")
    if (
        config.proposal_required
        and think.decision == "plan_direct"
        and writes >= WRITES_NEEDING_CONFIRMATION
    ):
        message = (
            f"This changes your kitchen in {writes} steps, so I'd like your go-ahead first: "
            f"{think.goal}."
        )
        return think.model_copy(update={"decision": "propose", "proposal_message": message})
    return think
