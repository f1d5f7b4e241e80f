"""Every model activity is scheduled with timeouts that follow the configured model timeout:
a slow model is waited for as long as it was configured to be, never cut at a fixed limit."""

from __future__ import annotations

from datetime import timedelta

from temporalio.api.enums.v1 import EventType

from tests.workflows.conftest import Turns
from tests.workflows.script import quick
from workflows.interface import TurnLimits
from workflows.policies import llm


def test_one_attempt_covers_the_output_and_two_repairs_at_the_configured_timeout():
    options = llm(900)
    assert options["start_to_close_timeout"] >= timedelta(seconds=3 * 900)
    assert options["schedule_to_close_timeout"] >= 3 * options["start_to_close_timeout"]
    assert llm(1)["schedule_to_close_timeout"] == timedelta(minutes=10)


async def test_model_activities_are_scheduled_with_the_timeout_from_the_turn_limits(
    turns: Turns,
):
    script = turns.script(
        quick("Show the inventory", "inventory"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "inventory"}}},
    )
    async with turns.worker(script):
        handle = await turns.start(
            "what's in my pantry?", limits=TurnLimits(llm_timeout_seconds=900)
        )
        await handle.result()
        history = await handle.fetch_history()
    scheduled = {
        e.activity_task_scheduled_event_attributes.activity_type.name: (
            e.activity_task_scheduled_event_attributes
        )
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }
    assert {"understand", "act_quick", "summarize"} <= set(scheduled)
    expected = llm(900)["start_to_close_timeout"]
    for name in ("understand", "act_quick", "summarize"):
        assert scheduled[name].start_to_close_timeout.ToTimedelta() == expected, name
