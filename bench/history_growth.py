"""What does a plan turn write to its history, and does it grow with the conversation? The
same plan turn (a read step, a write step) 50 times in one conversation, with a
zero-latency scripted model, on a local Temporal dev server and PostgreSQL.

    .venv/bin/python -m bench.history_growth --turns 50

Reports history bytes per turn at turns 1, 20 and 50, payload bytes per activity (inputs of
scheduled activities, their results, local activities' markers) at turn 1 and the last
turn, and the process CPU per turn while the worker runs it (the bench's own client is in
the same process: it only waits). Writes the results into docs/BENCHMARKS.md between this
benchmark's markers.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
import uuid
from collections import Counter

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory

from api.temporal import connect
from bench.harness import markers, run_bench
from bench.scripted import BenchConversation
from bench.turn_overhead import plan_turn_script
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings
from workflows.worker import build_worker

START, END = markers("history_growth")
SCHEDULED = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
COMPLETED = EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
MARKER = EventType.EVENT_TYPE_MARKER_RECORDED


def payload_bytes(history: WorkflowHistory) -> Counter[str]:
    """Bytes of payloads per activity: ``understand in``, ``understand out``, ``crud (local)``."""
    sizes: Counter[str] = Counter()
    names: dict[int, str] = {}
    for event in history.events:
        if event.event_type == SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            names[event.event_id] = attrs.activity_type.name
            sizes[f"{attrs.activity_type.name} in"] += attrs.input.ByteSize()
        elif event.event_type == COMPLETED:
            attrs = event.activity_task_completed_event_attributes
            sizes[f"{names.get(attrs.scheduled_event_id, '?')} out"] += attrs.result.ByteSize()
        elif event.event_type == MARKER:
            attrs = event.marker_recorded_event_attributes
            if attrs.marker_name != "core_local_activity":
                continue
            data = attrs.details["data"].payloads[0].data if "data" in attrs.details else b"{}"
            kind = json.loads(data or b"{}").get("activity_type", "?")
            sizes[f"{kind} (local)"] += attrs.ByteSize()
    return sizes


async def measure(address: str, app_url: str, turns: int) -> dict:
    client = await connect(Settings(_env_file=None, temporal_address=address))
    engine = create_engine(app_url)
    sessions = session_factory(engine)
    talk = await BenchConversation.create(client, sessions)
    queue = f"history-{uuid.uuid4().hex[:8]}"
    provider = plan_turn_script(turns)
    sizes: list[int] = []
    cpu: list[float] = []
    payloads: dict[int, Counter[str]] = {}
    async with build_worker(client, task_queue=queue, sessions=sessions, provider=provider):
        for n in range(1, turns + 1):
            before = time.process_time()
            handle = await talk.start(n, queue)
            result = await handle.result()
            cpu.append(time.process_time() - before)
            assert result.status == "completed", result
            history = await handle.fetch_history()
            sizes.append(sum(e.ByteSize() for e in history.events))
            if n in (1, turns):
                payloads[n] = payload_bytes(history)
    await engine.dispose()
    return {"sizes": sizes, "cpu": cpu, "payloads": payloads}


def report(turns: int, m: dict) -> str:
    sizes, cpu, payloads = m["sizes"], m["cpu"], m["payloads"]
    marks = [n for n in (1, 20, 50) if n <= turns] or [turns]
    first, last = payloads[1], payloads[turns]
    rows = sorted(set(first) | set(last), key=lambda k: -last.get(k, 0))
    lines = [
        START,
        "## history_growth",
        "",
        f"The same plan turn (Understand, Think, a read step and a write step, Reply, "
        f"Summarize), {turns} times in one conversation with a zero-latency scripted model, "
        f"on a local `temporal server start-dev` and PostgreSQL.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; measured {time.strftime('%Y-%m-%d')}.",
        "",
        "- history bytes per turn: "
        + ", ".join(f"turn {n}: {sizes[n - 1] / 1024:.0f} KiB" for n in marks)
        + f" (turn {turns} / turn 1 = {sizes[-1] / sizes[0]:.2f})",
        f"- process CPU per turn (worker and waiting client): mean "
        f"{statistics.mean(cpu) * 1000:.0f} ms, turn 1: {cpu[0] * 1000:.0f} ms, "
        f"turn {turns}: {cpu[-1] * 1000:.0f} ms",
        "",
        f"| payload | turn 1 (KiB) | turn {turns} (KiB) |",
        "|---|---|---|",
        *(f"| {k} | {first.get(k, 0) / 1024:.1f} | {last.get(k, 0) / 1024:.1f} |" for k in rows),
        END,
    ]
    return "\n".join(lines)


def main() -> None:
    run_bench("history_growth", __doc__, measure, report, default_turns=50)


if __name__ == "__main__":
    main()
