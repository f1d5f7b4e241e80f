"""Wire the turn worker: activities are bound methods of classes built with their
dependencies (database sessions, the CRUD executor, the LLM gateway)."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.worker import Worker

from activities.crud import CrudActivities
from activities.llm.base import LlmProvider
from activities.llm.gateway import LlmGateway
from activities.nodes import NodeActivities
from activities.turn_state import TurnStateActivities
from domain.crud.executor import CrudExecutor
from domain.turns import Sessions
from workflows.turn import TurnWorkflow


def turn_activities(sessions: Sessions, provider: LlmProvider, *, max_rows: int = 200) -> list:
    gateway = LlmGateway(provider)
    nodes = NodeActivities(gateway)
    crud = CrudActivities(CrudExecutor(sessions, max_rows=max_rows))
    state = TurnStateActivities(sessions, gateway)
    return [
        state.begin_turn,
        state.mark_turn,
        state.summarize,
        state.finish_turn,
        nodes.understand,
        nodes.think,
        nodes.act,
        nodes.act_quick,
        nodes.reply,
        crud.crud,
        crud.fetch_schema,
    ]


def build_worker(
    client: Client,
    *,
    task_queue: str,
    sessions: Sessions,
    provider: LlmProvider,
    activities: list | None = None,
) -> Worker:
    """A worker for TurnWorkflow. ``activities`` replaces the defaults (tests pass fakes)."""
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[TurnWorkflow],
        activities=activities if activities is not None else turn_activities(sessions, provider),
    )
