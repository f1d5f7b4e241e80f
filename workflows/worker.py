"""Wire the turn worker: activities are bound methods of classes built with their
dependencies (database sessions, the CRUD executor, the LLM gateway)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


def turn_activities(
    sessions: Sessions, provider: LlmProvider, *, max_rows: int = 200
) -> dict[str, Callable[..., Any]]:
    """Every activity of a turn by its registered name (tests replace one by name)."""
    gateway = LlmGateway(provider)
    nodes = NodeActivities(gateway)
    crud = CrudActivities(CrudExecutor(sessions, max_rows=max_rows))
    state = TurnStateActivities(sessions, gateway)
    return {
        "begin_turn": state.begin_turn,
        "mark_turn": state.mark_turn,
        "summarize": state.summarize,
        "finish_turn": state.finish_turn,
        "understand": nodes.understand,
        "think": nodes.think,
        "act": nodes.act,
        "act_quick": nodes.act_quick,
        "reply": nodes.reply,
        "crud": crud.crud,
        "fetch_schema": crud.fetch_schema,
    }


def build_worker(
    client: Client,
    *,
    task_queue: str,
    sessions: Sessions,
    provider: LlmProvider,
    activities: list | None = None,
    **options: Any,
) -> Worker:
    """A worker for TurnWorkflow. ``activities`` replaces the defaults (tests pass fakes);
    ``options`` go to ``Worker`` as they are."""
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[TurnWorkflow],
        **options,
        activities=activities
        if activities is not None
        else list(turn_activities(sessions, provider).values()),
    )
