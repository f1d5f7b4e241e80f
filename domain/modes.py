"""Modes (seed 000 "Mode System"): how much planning and how many steps a turn may take."""

from __future__ import annotations

from dataclasses import dataclass


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
    """Think's ``$mode_examples``: plans typical of the mode (Markdown list items)."""
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
            "- A check of what is in stock: one read (inventory).\n"
            "- One item to add to a list: one write (shopping), run directly."
        ),
        understand_hint=(
            "The user chose quick mode: they want a fast answer. Take the quick path whenever "
            "the three conditions below hold. A write or anything needing reasoning is still "
            "not quick; the planner then keeps it to two steps."
        ),
    ),
    "plan": ModeConfig(
        8,
        False,
        True,
        "detailed",
        "Propose complex or multi-write plans before running them; run simple ones directly.",
        examples=(
            "- A week of meals with its shopping list: propose — read recipes and inventory "
            "(group 0), generate meals (group 1), write meal_plans (group 2), write shopping "
            "(group 3).\n"
            "- One item to add to a list: plan_direct, one write (shopping)."
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
            "- A new dish to invent: plan_direct, one generate (recipes); save only when the "
            "user asks.\n"
            "- Several dishes from what is in stock: read inventory (group 0), generate "
            "(recipes, group 1)."
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
