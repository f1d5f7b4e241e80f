"""``alfred eval``: the suite on a stack of its own, against a model or a recording.

The stack is the product's: PostgreSQL (embedded under ``<data dir>/eval`` unless
``ALFRED_DATABASE_URL`` is set), an in-memory Temporal dev server (unless
``ALFRED_TEMPORAL_ADDRESS`` is set), the turn worker and the HTTP API in this process. Each
scenario runs as a new user, so runs never see each other's kitchens.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from activities.llm.provider import LlmProvider, LlmReply, LlmRequest
from api.app import create_app
from api.deps import Services
from api.stack import ensure_search_attributes
from api.temporal import TurnClient, connect
from domain.crud.executor import CrudExecutor
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings
from evals.cassette import CASSETTES_DIR, Cassette, Replay, Watch
from evals.nodes import NodeResult, NodeRun, plan_node_run, reference_answer, run_node
from evals.report import Run
from evals.runner import ScenarioResult, Stack, run_scenario, scenario_today
from evals.scenario import Scenario, tokenize, tokens
from workflows.worker import build_worker

REFERENCE_DIR = CASSETTES_DIR / "reference"


@dataclass
class Switch:
    """The worker's model, swapped per scenario (a cassette each, when replaying)."""

    current: LlmProvider

    @property
    def name(self) -> str:
        return self.current.name

    async def complete(self, request: LlmRequest) -> LlmReply:
        return await self.current.complete(request)


async def run_suite(
    settings: Settings,
    app_url: str,
    scenarios: list[Scenario],
    *,
    label: str,
    endpoint: str,
    provider: LlmProvider | None = None,
    replay_dir: Path | None = None,
    record_dir: Path | None = None,
    turn_timeout: float = 600.0,
    prices: dict[str, tuple[float, float]] | None = None,
    progress: Callable[[ScenarioResult], None] | None = None,
) -> Run:
    """Run ``scenarios`` with ``provider`` (or each scenario's cassette in ``replay_dir``)."""
    if (provider is None) == (replay_dir is None):
        raise ValueError("give a provider or a replay directory")
    run = Run(
        label=label,
        endpoint=endpoint,
        started_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        replayed=replay_dir is not None,
        prices=prices or {},
    )
    async with eval_stack(settings, app_url, turn_timeout) as (on, switch):
        switch.current = provider if provider is not None else _Unset()
        for scenario in scenarios:
            replay = None
            if replay_dir is not None:
                try:
                    replay = Replay(Cassette.load(replay_dir, scenario.id))
                except FileNotFoundError as missing:  # the others replay all the same
                    result = ScenarioResult(
                        id=scenario.id,
                        title=scenario.title,
                        covers=scenario.covers,
                        error=f"not recorded: {missing}",
                    )
                    run.scenarios.append(result)
                    if progress is not None:
                        progress(result)
                    continue
                switch.current = replay
            result = await run_scenario(scenario, on, replay)
            if record_dir is not None:
                _record(scenario, result, label, record_dir)
            run.scenarios.append(result)
            if progress is not None:
                progress(result)
    return run


async def run_node_suite(
    settings: Settings,
    app_url: str,
    scenarios: list[Scenario],
    *,
    node: str,
    model_for: Callable[[Scenario], LlmProvider | None],
    label: str,
    turn_timeout: float = 600.0,
    progress: Callable[[NodeResult], None] | None = None,
) -> NodeRun:
    """``node`` alone against the scenario's model on the first turns (``evals.nodes``);
    a scenario without a model (not recorded) is left out."""
    chosen = plan_node_run(scenarios, node, lambda id: Cassette.load(REFERENCE_DIR, id))
    run = NodeRun(label=label, node=node)
    async with eval_stack(settings, app_url, turn_timeout) as (on, switch):
        for case in chosen:
            model = model_for(case.scenario)
            expected = await reference_answer(case, node, on, switch) if model else None
            if model is None or expected is None:
                continue
            result = await run_node(case, node, expected, model, on, switch)
            run.results.append(result)
            if progress is not None:
                progress(result)
    return run


@asynccontextmanager
async def eval_stack(
    settings: Settings, app_url: str, turn_timeout: float
) -> AsyncIterator[tuple[Stack, Switch]]:
    """The worker (its model behind the ``Switch``) and the API, on a task queue of their own."""
    switch = Switch(_Unset())
    watch = Watch(switch)
    queue = f"alfred-eval-{uuid.uuid4().hex[:8]}"
    settings = settings.model_copy(update={"task_queue": queue, "api_wait_seconds": 5})
    engine = create_engine(app_url, pool_size=settings.db_pool_size)
    sessions = session_factory(engine)
    client = await connect(settings)
    await ensure_search_attributes(client, settings)
    services = Services(
        settings=settings, sessions=sessions, turns=TurnClient.from_settings(client, settings)
    )
    try:
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(
                build_worker(
                    client, task_queue=queue, sessions=sessions, provider=watch, settings=settings
                )
            )
            http = await stack.enter_async_context(
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=create_app(services)),
                    base_url="http://alfred-eval",
                    timeout=settings.api_wait_seconds + 30,
                )
            )
            on = Stack(
                http=http,
                sessions=sessions,
                executor=CrudExecutor(sessions, max_rows=settings.crud_max_rows),
                watch=watch,
                turn_timeout=turn_timeout,
                poll=0.5,
            )
            yield on, switch
    finally:
        await engine.dispose()


def _record(scenario: Scenario, result: ScenarioResult, label: str, directory: Path) -> None:
    """The scenario's model answers as a cassette, dates written as tokens so the recording
    means the same on the day it is replayed."""
    dates = tokens(scenario, scenario_today(scenario))
    calls = [c.model_copy(update={"content": tokenize(c.content, dates)}) for c in result.calls]
    Cassette(
        scenario=scenario.id,
        label=label,
        recorded_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        calls=calls,
    ).save(directory)


class _Unset:
    name = "unset"

    async def complete(self, request: LlmRequest) -> LlmReply:
        raise RuntimeError("no model for this scenario")
