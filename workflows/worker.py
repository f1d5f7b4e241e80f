"""Wire the turn worker: activities are bound methods of classes built with their
dependencies (database sessions, the CRUD executor, the LLM gateway)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from activities.crud import CrudActivities
from activities.llm.gateway import LlmGateway
from activities.llm.provider import LlmProvider
from activities.model_nodes import NodeActivities
from activities.opening import TurnOpening
from activities.preparation import TurnContextActivities
from activities.saved_state import SavedStates
from activities.turn_state import TurnStateActivities
from domain.crud.executor import CrudExecutor
from domain.ledger import Prices
from domain.plan_examples import DEFAULT_EXAMPLES, ExampleSet
from domain.settings import Settings
from domain.turn_store import Sessions
from workflows.bypass_turn import BypassTurnWorkflow
from workflows.turn import TurnWorkflow

WORKFLOW_RUNNER = UnsandboxedWorkflowRunner()
"""The turn workflows run in the worker's own interpreter, not in the SDK's sandbox.

The sandbox does two things for every run: it imports the workflow's modules afresh (so
runs share no module state), and it checks what they call (``datetime.now``, ``random``,
``os.environ``, ``open``...) so that a nondeterministic call fails the workflow task.

- The fresh import is a cost with nothing to protect here: our modules hold no mutable
  state (constants, frozen tables, caches of pure functions), so passing them through the
  sandbox changes nothing but the time.
- The checks are kept where workflow code is written: every history a test run writes, and
  each committed one, is replayed with the default sandbox (``tests/replay.py``,
  ``Replayer``), which imports the workflow modules afresh and fails on such a call
  (``make test`` fails). For that the workflow modules import each other directly, and
  ``activities``, ``domain`` and the boundary models (``workflows.interface``,
  ``workflows.events``) inside ``workflow.unsafe.imports_passed_through()``. What is given
  up: in production, a nondeterministic call on a path no test takes is not stopped.
- The sandbox's work on every activation and every payload was ~20% of a plan turn's
  process CPU (2.4× its bare round trips with it, 2.0× without; docs/BENCHMARKS.md).
  Passing our modules through it (``SandboxRestrictions.with_passthrough_modules``) saved
  nothing measurable: with their bytecode compiled, importing them is ~2 ms of a turn.
"""


def turn_activities(
    sessions: Sessions,
    provider: LlmProvider,
    *,
    client: Client | None = None,
    max_rows: int = 200,
    context_budget: int = 8_000,
    act_budget: int = 25_000,
    window: int | None = None,
    prices: Prices | None = None,
    think_examples: ExampleSet = DEFAULT_EXAMPLES,
) -> dict[str, Callable[..., Any]]:
    """Every activity of a turn by its registered name (tests replace one by name).
    ``prices`` is the table model calls are charged at (none: every call unpriced);
    ``think_examples`` the plan examples Think is shown (``domain.plan_examples``)."""
    gateway = LlmGateway(provider, prices)
    states = SavedStates(sessions)
    nodes = NodeActivities(
        gateway,
        context_budget=context_budget,
        act_budget=act_budget,
        window=window,
        states=states,
        think_examples=think_examples,
    )
    crud = CrudActivities(CrudExecutor(sessions, max_rows=max_rows), states)
    state = TurnStateActivities(sessions, gateway, client, states)
    prepare = TurnContextActivities(sessions, states)
    opening = TurnOpening(state, prepare)
    return {
        "open_turn": opening.open_turn,
        "prepare_turn": prepare.prepare_turn,
        "mark_turn": state.mark_turn,
        "summarize": state.summarize,
        "finish_turn": state.finish_turn,
        "understand": nodes.understand,
        "think": nodes.think,
        "act": nodes.act,
        "act_quick": nodes.act_quick,
        "reply": nodes.reply,
        "bypass": nodes.bypass,
        "crud": crud.crud,
        "fetch_schema": crud.fetch_schema,
    }


def activity_settings(settings: Settings) -> dict[str, Any]:
    """What ``turn_activities`` takes from the settings: row caps, context budgets and the
    model's window, the price table and Think's examples."""
    return {
        "max_rows": settings.crud_max_rows,
        "context_budget": settings.context_budget_tokens,
        "act_budget": settings.act_budget_tokens,
        "window": settings.llm_context_tokens,
        "prices": settings.eval_prices,
        "think_examples": settings.think_examples,
    }


def build_worker(
    client: Client,
    *,
    task_queue: str,
    sessions: Sessions,
    provider: LlmProvider,
    activities: list | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> Worker:
    """A worker for TurnWorkflow and BypassTurnWorkflow. ``activities`` replaces the
    defaults (tests pass fakes); ``settings`` supply row caps, context budgets and the
    price table; ``options`` go to ``Worker`` (``workflows`` replaces the turn workflows:
    tests run variants of them)."""
    if activities is None:
        limits = activity_settings(settings) if settings is not None else {}
        activities = list(turn_activities(sessions, provider, client=client, **limits).values())
    if settings is not None:
        drain = timedelta(seconds=settings.worker_drain_seconds)
        options.setdefault("graceful_shutdown_timeout", drain)
    options.setdefault("workflow_runner", WORKFLOW_RUNNER)
    return Worker(
        client,
        task_queue=task_queue,
        workflows=options.pop("workflows", None) or [TurnWorkflow, BypassTurnWorkflow],
        activities=activities,
        **options,
    )
