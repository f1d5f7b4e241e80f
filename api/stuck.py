"""``alfred turns end-stuck``: end turns whose history this code cannot replay.

A run whose history its workflow code cannot replay (a nondeterminism error, such as the
one ``workflows.versions`` removed) is stuck for good: every workflow task fails, its row
keeps its conversation busy, answers to it fail. This finds the running turns that do not
replay with today's code, terminates each with the reason, and ends its row as the API's
``api.abandoned`` does, with a note the next turn sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from domain import turn_store
from workflows.bypass_turn import BypassTurnWorkflow
from workflows.search_attributes import USER_ID
from workflows.turn import TurnWorkflow

RUNNING_TURNS = (
    'ExecutionStatus = "Running" AND '
    '(WorkflowType = "TurnWorkflow" OR WorkflowType = "BypassTurnWorkflow")'
)
REASON = "it could not go on with this version of Alfred and was ended by an operator"


@dataclass
class StuckTurn:
    workflow_id: str
    user_id: str
    error: str


async def find_stuck(
    client: Client,
    workflow_ids: Sequence[str] | None = None,
    *,
    workflows: Sequence[type] = (TurnWorkflow, BypassTurnWorkflow),
) -> list[StuckTurn]:
    """The running turns (all, or ``workflow_ids``) whose history ``workflows`` cannot
    replay."""
    if workflow_ids is None:
        workflow_ids = [w.id async for w in client.list_workflows(RUNNING_TURNS)]
    replayer = Replayer(workflows=list(workflows), data_converter=pydantic_data_converter)
    stuck = []
    for workflow_id in workflow_ids:
        handle = client.get_workflow_handle(workflow_id)
        result = await replayer.replay_workflow(
            await handle.fetch_history(), raise_on_replay_failure=False
        )
        if result.replay_failure is not None:
            description = await handle.describe()
            user_id = description.typed_search_attributes.get(USER_ID) or ""
            stuck.append(StuckTurn(workflow_id, user_id, str(result.replay_failure)))
    return stuck


async def end_stuck(client: Client, sessions: turn_store.Sessions, stuck: StuckTurn) -> bool:
    """Terminate the stuck run and end its turn row; False when the row had ended."""
    await client.get_workflow_handle(stuck.workflow_id).terminate(
        f"its history does not replay with this code: {stuck.error[:500]}"
    )
    turn = await turn_store.turn_by_workflow_id(sessions, stuck.user_id, stuck.workflow_id)
    if turn is None:
        return False
    return await turn_store.end_abandoned_turn(
        sessions, stuck.user_id, turn, status="failed", reason=REASON
    )
