"""Modes (seed 000 "Mode System"): how much planning and how many steps a turn may take."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModeConfig:
    max_steps: int
    skip_think: bool
    proposal_required: bool
    verbosity: str
    guidance: str


MODES: dict[str, ModeConfig] = {
    "quick": ModeConfig(2, True, False, "terse", "Keep it to one or two steps; no proposals."),
    "plan": ModeConfig(
        8,
        False,
        True,
        "detailed",
        "Propose complex or multi-write plans before running them; run simple ones directly.",
    ),
    "create": ModeConfig(4, False, False, "rich", "Generate content directly; no proposal needed."),
}
DEFAULT_MODE = "plan"
BYPASS_MODES: tuple[str, ...] = ("cook", "brainstorm")
MAX_TOOL_CALLS_PER_STEP = 3
MAX_SCHEMA_REQUESTS_PER_STEP = 2


def mode_config(mode: str | None) -> ModeConfig:
    return MODES[mode or DEFAULT_MODE]
