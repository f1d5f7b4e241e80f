"""A step that read rows, as this turn's results hold it: what the kitchen's comparisons
(``domain.kitchen.stocked``, ``domain.kitchen.dated``, ``domain.kitchen.scaled``) are
given."""

from __future__ import annotations

from domain.conversation import StepResult
from domain.tool_results import ToolEntry


def read(table: str, rows: list[dict], index: int = 0, **params) -> StepResult:
    """Step ``index``, a read of ``table`` (with ``params``) that found ``rows``."""
    entry = ToolEntry(tool="db_read", params={"table": table, **params}, rows=rows, count=len(rows))
    return StepResult(
        step_index=index,
        description="read",
        step_type="read",
        subdomain=table,
        tool_results=[entry],
    )
