"""The benchmark's baseline: sequential no-op activities, plain then local."""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel
from temporalio import activity, workflow


class NoopInput(BaseModel):
    plain: int
    """Sequential no-op activities."""
    local: int = 0
    """Then sequential no-op local activities."""


@activity.defn(name="noop")
async def noop(value: int) -> int:
    return value


@workflow.defn(name="NoopWorkflow")
class NoopWorkflow:
    @workflow.run
    async def run(self, request: NoopInput) -> int:
        total = 0
        for i in range(request.plain):
            total += await workflow.execute_activity(
                noop, i, start_to_close_timeout=timedelta(seconds=10)
            )
        for i in range(request.local):
            total += await workflow.execute_local_activity(
                noop, i, start_to_close_timeout=timedelta(seconds=10)
            )
        return total
