"""Act's steps and tool results as the rules' specifications write them."""

from __future__ import annotations

from domain.nodes import ThinkStep
from domain.tool_results import ToolEntry


def step(kind: str, group: int = 0, subdomain: str = "recipes") -> ThinkStep:
    return ThinkStep(description=f"{kind} it", step_type=kind, subdomain=subdomain, group=group)


def read_entry(params: dict, **result) -> ToolEntry:
    return ToolEntry(tool="db_read", params=params, **result)
