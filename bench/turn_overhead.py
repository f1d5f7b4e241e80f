"""What does durability cost per turn? A plan turn with a zero-latency scripted model, N
times on a local Temporal dev server, against bare no-op activity round trips.

    .venv/bin/python -m bench.turn_overhead --turns 20

Reports per-turn wall time, activities per turn, history events and bytes per turn, and
the same number of no-op activities (plain and local) measured in the same run. Writes
the results into docs/BENCHMARKS.md between this benchmark's markers.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
import uuid
from collections import Counter

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.worker import Worker

from activities.llm.script_provider import ScriptProvider
from api.temporal import connect
from bench.harness import markers, run_bench
from bench.noop_workflow import NoopInput, NoopWorkflow, noop
from bench.scripted import BenchConversation, act_answer, plan_answer
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings
from workflows.worker import WORKFLOW_RUNNER, build_worker

START, END = markers("turn_overhead")


def plan_turn_script(turns: int) -> ScriptProvider:
    """Per turn: understand, think (read step, then write step), four act decisions, reply."""
    responses: list[dict] = []
    for n in range(turns):
        responses += [
            {"node": "understand", "output": {}},
            plan_answer(
                "restock",
                {"description": "Read inventory", "step_type": "read", "subdomain": "inventory"},
                {
                    "description": "Add to list",
                    "step_type": "write",
                    "subdomain": "shopping",
                    "group": 1,
                },
            ),
            act_answer(
                0,
                action="tool_call",
                tool_call={"tool": "db_read", "params": {"table": "inventory"}},
            ),
            act_answer(0, action="step_complete", result_summary="read"),
            act_answer(
                1,
                action="tool_call",
                tool_call={
                    "tool": "db_create",
                    "params": {"table": "shopping_list", "data": {"name": f"item {n}"}},
                },
            ),
            act_answer(1, action="step_complete", result_summary="added"),
            {"node": "reply", "output": {"response": f"Added item {n}."}},
        ]
    responses += [
        {
            "node": "summarize",
            "repeat": True,
            "output": {
                "assistant_summary": "Added an item.",
                "engagement_summary": "Restocking.",
                "conversation_phase": "executing",
            },
        },
        {"node": "compress", "repeat": True, "output": {"summary": "Added an item."}},
    ]
    return ScriptProvider.from_responses(responses)


def activity_kinds(history: WorkflowHistory) -> Counter[str]:
    """A turn's plain activities by type, and its local ones as ``(local activities)``."""
    kinds = Counter(
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    )
    kinds["(local activities)"] = sum(
        1
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and e.marker_recorded_event_attributes.marker_name == "core_local_activity"
    )
    return kinds


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def measure(address: str, app_url: str, turns: int) -> dict:
    client = await connect(Settings(_env_file=None, temporal_address=address))
    engine = create_engine(app_url)
    sessions = session_factory(engine)
    talk = await BenchConversation.create(client, sessions)
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    provider = plan_turn_script(turns)
    wall, cpu, activities, events, sizes = [], [], [], [], []
    async with (
        build_worker(client, task_queue=queue, sessions=sessions, provider=provider),
        Worker(  # the turn worker's runner: the floor pays what the turn pays
            client,
            task_queue=f"{queue}-noop",
            workflows=[NoopWorkflow],
            activities=[noop],
            workflow_runner=WORKFLOW_RUNNER,
        ),
    ):
        for n in range(1, turns + 1):
            started, cpu_started = time.perf_counter(), time.process_time()
            handle = await talk.start(n, queue)
            result = await handle.result()
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
            assert result.status == "completed", result
            history = await handle.fetch_history()
            kinds = activity_kinds(history)
            local = kinds["(local activities)"]
            activities.append((sum(kinds.values()) - local, local))
            events.append(len(history.events))
            sizes.append(sum(e.ByteSize() for e in history.events))

        plain_n = round(statistics.mean(a[0] for a in activities))
        local_n = round(statistics.mean(a[1] for a in activities))
        baselines, baseline_cpu = {}, {}
        for name, shape in (
            ("mixed", NoopInput(plain=plain_n, local=local_n)),
            ("plain", NoopInput(plain=plain_n + local_n)),
            ("local", NoopInput(plain=0, local=plain_n + local_n)),
        ):
            times, cpu_times = [], []
            for n in range(turns):
                started, cpu_started = time.perf_counter(), time.process_time()
                await client.execute_workflow(
                    NoopWorkflow.run,
                    shape,
                    id=f"noop-{queue}-{name}-{n}",
                    task_queue=f"{queue}-noop",
                )
                times.append(time.perf_counter() - started)
                cpu_times.append(time.process_time() - cpu_started)
            baselines[name] = times
            baseline_cpu[name] = cpu_times
    await engine.dispose()
    return {
        "wall": wall,
        "cpu": cpu,
        "baseline_cpu": baseline_cpu,
        "activities": activities,
        "events": events,
        "sizes": sizes,
        "plain_n": plain_n,
        "local_n": local_n,
        "baselines": baselines,
        "kinds": dict(kinds),
    }


def report(turns: int, m: dict) -> str:
    ms = [w * 1000 for w in m["wall"]]
    mixed = [w * 1000 for w in m["baselines"]["mixed"]]
    plain = [w * 1000 for w in m["baselines"]["plain"]]
    local = [w * 1000 for w in m["baselines"]["local"]]
    total = m["plain_n"] + m["local_n"]

    def row(name: str, values: list[float]) -> str:
        return (
            f"| {name} | {statistics.mean(values):.0f} | {percentile(values, 0.5):.0f} "
            f"| {percentile(values, 0.95):.0f} |"
        )

    lines = [
        START,
        "## turn_overhead",
        "",
        f"A plan turn (Understand, Think, a read step and a write step, Reply, Summarize) with "
        f"a zero-latency scripted model, {turns} turns in one conversation on a local "
        f"`temporal server start-dev` (in-memory) and PostgreSQL; baseline: the same number of "
        f"no-op activities in one workflow, run as the turn's worker runs workflows, on the "
        f"same server in the same run.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; measured {time.strftime('%Y-%m-%d')}.",
        "",
        "| measure | mean | p50 | p95 |",
        "|---|---|---|---|",
        row("plan turn wall time (ms)", ms),
        row(f"baseline: {m['plain_n']} no-op activities + {m['local_n']} no-op local (ms)", mixed),
        row(f"{total} no-op activities, all plain (ms)", plain),
        row(f"{total} no-op local activities (ms)", local),
        row("plan turn process CPU (ms)", [c * 1000 for c in m["cpu"]]),
        row(
            f"baseline: {m['plain_n']} no-op + {m['local_n']} no-op local, process CPU (ms)",
            [c * 1000 for c in m["baseline_cpu"]["mixed"]],
        ),
        "",
        f"- activities per turn: {m['plain_n']} plain + {m['local_n']} local ("
        + ", ".join(f"{k} {v}" for k, v in sorted(m["kinds"].items()))
        + ")",
        f"- history events per turn: mean {statistics.mean(m['events']):.0f} "
        f"(turn 1: {m['events'][0]}, turn {turns}: {m['events'][-1]})",
        f"- history bytes per turn: mean {statistics.mean(m['sizes']) / 1024:.0f} KiB "
        f"(turn 1: {m['sizes'][0] / 1024:.0f} KiB, turn {turns}: {m['sizes'][-1] / 1024:.0f} KiB)",
        f"- turn overhead over the same activity round trips: "
        f"{statistics.mean(ms) - statistics.mean(mixed):.0f} ms per turn",
        f"- process CPU (worker and waiting client) per turn over the same round trips: "
        f"{(statistics.mean(m['cpu']) - statistics.mean(m['baseline_cpu']['mixed'])) * 1000:.0f}"
        f" ms ({statistics.mean(m['cpu']) / statistics.mean(m['baseline_cpu']['mixed']):.1f}×)",
        END,
    ]
    return "\n".join(lines)


def main() -> None:
    run_bench("turn_overhead", __doc__, measure, report, default_turns=20)


if __name__ == "__main__":
    main()
