"""With ALFRED_METRICS_ADDRESS, the process serves Prometheus metrics: the Temporal SDK's and
Alfred's own, recorded by the turn's workflow and its model activities."""

from __future__ import annotations

import re
import uuid

import httpx
from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from activities.llm.script_provider import ScriptProvider
from api.devserver import free_port
from api.telemetry import runtime_for, start_tracing, trace_sql
from api.temporal import connect
from domain.db.engine import create_engine, session_factory
from domain.db.urls import app_url
from domain.settings import Settings
from domain.turn_store import create_conversation
from tests.replay import replay_failures
from tests.workflows.conftest import COMPRESS, SUMMARIZE, send, wait_for
from tests.workflows.script import complete, plan, propose, reply, step, tool, understand
from workflows.interface import TurnInput, TurnLimits, UserInput
from workflows.turn import TurnWorkflow
from workflows.worker import build_worker


def value(metrics: str, name: str, **labels: str) -> float:
    """The sample of ``name`` whose labels include ``labels`` (0 when there is none)."""
    for line in metrics.splitlines():
        if not line.startswith(name + "{"):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def start(client, queue, conversation, user, number, message):
    turn = TurnInput(
        conversation_id=conversation,
        user_id=user,
        turn_number=number,
        message=message,
        limits=TurnLimits(),
    )
    return await client.start_workflow(
        TurnWorkflow.run, turn, id=f"turn-{conversation}-{number}", task_queue=queue
    )


def test_no_address_no_endpoint():
    assert runtime_for(Settings(_env_file=None)) is None


async def test_a_turn_shows_in_the_sdks_metrics_and_alfreds(temporal_env, sessions, user):
    address = f"127.0.0.1:{free_port()}"
    target = temporal_env.client.service_client.config.target_host
    client = await connect(
        Settings(_env_file=None, metrics_address=address, temporal_address=target)
    )
    milk = step("Add milk to the shopping list", "write", "shopping")
    script = ScriptProvider.from_responses(
        [
            understand(),
            plan("Add milk", milk),
            tool("db_create", table="shopping_list", data={"name": "milk"}),
            complete("Added milk"),
            reply("Added milk."),
            understand(),
            propose("Add milk", "Shall I add milk?", milk),
            SUMMARIZE,
            COMPRESS,
        ]
    )
    conversation = await create_conversation(sessions, user, "metrics")
    queue = f"metrics-{uuid.uuid4().hex[:8]}"
    async with build_worker(client, task_queue=queue, sessions=sessions, provider=script):
        handle = await start(client, queue, conversation, str(user), 1, "add milk")
        assert (await handle.result()).status == "completed"
        proposed = await start(client, queue, conversation, str(user), 2, "stock up")
        await wait_for(proposed, lambda p: p.status == "awaiting_input")
        await send(proposed, UserInput(input_id="no", action="reject"))
        assert (await proposed.result()).status == "completed"
    async with httpx.AsyncClient() as http:
        metrics = (await http.get(f"http://{address}/metrics")).text
    assert value(metrics, "alfred_turns_total", status="completed", path="plan") == 2
    assert value(metrics, "alfred_pause_wait_count", kind="proposal", outcome="reject") == 1
    assert value(metrics, "alfred_model_calls_total", node="act", model="script") == 2
    assert value(metrics, "alfred_model_calls_total", node="understand", model="script") == 2
    assert "alfred_model_tokens_total{" in metrics
    assert value(metrics, "temporal_workflow_completed_total", task_queue=queue) == 2
    assert value(metrics, "temporal_activity_execution_latency_count", activity_type="reply") == 1
    for turn in (handle, proposed):
        assert await replay_failures(await turn.fetch_history()) == []


async def test_a_turn_is_one_trace_of_its_workflow_activities_model_calls_and_sql(
    temporal_env, owner_url, sessions, user
):
    spans = InMemorySpanExporter()
    target = temporal_env.client.service_client.config.target_host
    settings = Settings(_env_file=None, traces="console", temporal_address=target)
    assert start_tracing(settings, exporter=spans)
    client = await connect(settings)
    engine = create_engine(app_url(owner_url))
    trace_sql(engine, settings)
    script = ScriptProvider.from_responses(
        [
            understand(),
            plan("Add milk", step("Add milk to the shopping list", "write", "shopping")),
            tool("db_create", table="shopping_list", data={"name": "milk"}),
            complete("Added milk"),
            reply("Added milk."),
            SUMMARIZE,
            COMPRESS,
        ]
    )
    conversation = await create_conversation(sessions, user, "traces")
    queue = f"traces-{uuid.uuid4().hex[:8]}"
    try:
        async with build_worker(
            client, task_queue=queue, sessions=session_factory(engine), provider=script
        ):
            handle = await start(client, queue, conversation, str(user), 1, "add milk")
            assert (await handle.result()).status == "completed"
    finally:
        await engine.dispose()
    trace.get_tracer_provider().force_flush()
    turn = trace_of(spans, handle.id)
    mine = [s for s in spans.get_finished_spans() if s.context.trace_id == turn]
    names = {s.name for s in mine}
    assert {"StartWorkflow:TurnWorkflow", "RunWorkflow:TurnWorkflow"} <= names
    assert {"RunActivity:understand", "RunActivity:act", "RunActivity:reply"} <= names
    model = next(s for s in mine if s.name == "model reply")
    assert model.attributes["alfred.model"] == "script"
    assert model.parent is not None  # inside the reply activity's span
    assert any(s.attributes.get("db.system") == "postgresql" for s in mine)  # SQL
    assert await replay_failures(await handle.fetch_history()) == []


def trace_of(spans: InMemorySpanExporter, workflow_id: str) -> int:
    """The trace the workflow ``workflow_id`` was started in."""
    return next(
        s.context.trace_id
        for s in spans.get_finished_spans()
        if s.name == "StartWorkflow:TurnWorkflow"
        and s.attributes.get("temporalWorkflowID") == workflow_id
    )
