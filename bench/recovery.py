"""How long does a dead worker cost a turn? Two ``alfred worker`` processes share a task
queue on a local dev server; each turn (the script provider: Understand, Think plans an
analyze step, Act, Reply, Summarize) has a slow reply (4 s), and the worker running it is
killed with SIGKILL one second into the call; a fresh worker replaces it. Reported: the
time from the kill to the turn's completion on the other worker, and what ran twice.

    .venv/bin/python -m bench.recovery --turns 5

Before issue 16, model activities did not heartbeat: the retry waited out the call's
start-to-close timeout (~124 s measured). Writes into docs/BENCHMARKS.md between this
benchmark's markers.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

from temporalio.api.enums.v1 import EventType, PendingActivityState
from temporalio.client import Client, WorkflowHandle

from api.temporal import connect
from bench.harness import markers, run_bench
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings
from domain.turn_store import create_conversation
from domain.users import create_user
from workflows.interface import TurnInput
from workflows.turn import TurnWorkflow

START, END = markers("recovery")
ROOT = Path(__file__).resolve().parents[1]
ALFRED = Path(sys.executable).parent / "alfred"
REPLY_SECONDS = 4.0


def start_worker(
    address: str, database_url: str, queue: str, script: Path | None = None, *, openai: str = ""
) -> subprocess.Popen:
    """``alfred worker`` on ``queue``, its model the script provider (``script``, a JSON
    file) or the OpenAI-compatible endpoint at ``openai`` (a base URL)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ALFRED_", "OPENAI_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        ALFRED_TEMPORAL_ADDRESS=address,
        ALFRED_DATABASE_URL=database_url,
        ALFRED_TASK_QUEUE=queue,
    )
    if openai:
        env.update(
            ALFRED_LLM_PROVIDER="openai", ALFRED_OPENAI_BASE_URL=openai, ALFRED_OPENAI_API_KEY="-"
        )
    else:
        env.update(ALFRED_LLM_PROVIDER="script", ALFRED_LLM_SCRIPT=str(script))
    return subprocess.Popen(
        [str(ALFRED), "worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def stop(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
    for worker in workers:
        worker.wait(timeout=60)


async def running(client: Client, workflow_id: str, activity: str) -> int:
    """The pid of the worker running ``activity`` of the workflow (identity ``pid@host``)."""
    handle = client.get_workflow_handle(workflow_id)
    async with asyncio.timeout(60):
        while True:
            described = await handle.describe()
            for pending in described.raw_description.pending_activities:
                started = pending.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
                if pending.activity_type.name == activity and started:
                    return int(pending.last_worker_identity.split("@")[0])
            await asyncio.sleep(0.1)


def slow_reply_script(directory: Path) -> Path:
    """Every turn: Understand, Think plans one analyze step, Act completes it, a slow Reply,
    Summarize. One answer per node (each repeats), so any worker can take any call."""
    from tests.workflows.conftest import COMPRESS, SUMMARIZE
    from tests.workflows.script import complete, plan, reply, step, understand

    responses = [
        understand(),
        plan("Compare two dinners", step("Compare the two dinners", "analyze", "recipes")),
        complete("The curry is quicker."),
        {**reply("The curry is quicker."), "delay_seconds": REPLY_SECONDS},
    ]
    path = directory / "script.json"
    entries = [{**r, "repeat": True} for r in responses] + [SUMMARIZE, COMPRESS]
    path.write_text(json.dumps({"responses": entries}))
    return path


def ran(history) -> Counter[str]:
    """How many times each activity type was scheduled in ``history``."""
    return Counter(
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    )


async def one_turn(client: Client, sessions, queue: str) -> WorkflowHandle:
    user, _ = await create_user(sessions, "recovery")
    conversation = await create_conversation(sessions, user, "recovery")
    turn = TurnInput(conversation_id=conversation, user_id=str(user), turn_number=1, message="milk")
    return await client.start_workflow(
        TurnWorkflow.run, turn, id=f"turn-{conversation}-1", task_queue=queue
    )  # "milk": the scripted model answers the same whatever is said


async def measure(address: str, app_url: str, turns: int) -> list[dict]:
    client = await connect(Settings(_env_file=None, temporal_address=address))
    engine = create_engine(app_url)
    sessions = session_factory(engine)
    queue = f"recovery-{uuid.uuid4().hex[:8]}"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = slow_reply_script(Path(tmp))
        workers = [start_worker(address, app_url, queue, script) for _ in range(2)]
        try:
            for _ in range(turns):
                handle = await one_turn(client, sessions, queue)
                victim = await running(client, handle.id, "reply")
                await asyncio.sleep(1.0)
                killed_at = time.time()
                os.kill(victim, signal.SIGKILL)
                workers = [w for w in workers if w.pid != victim]
                workers.append(start_worker(address, app_url, queue, script))
                result = await handle.result()
                history = await handle.fetch_history()
                end = history.events[-1].event_time.ToDatetime().timestamp()
                rows.append(
                    {
                        "status": result.status,
                        "seconds": end - killed_at,
                        "scheduled": dict(ran(history)),
                    }
                )
                print(rows[-1], flush=True)
        finally:
            stop(workers)
    await engine.dispose()
    return rows


def report(turns: int, rows: list[dict]) -> str:
    seconds = [r["seconds"] for r in rows]
    done = sum(r["status"] == "completed" for r in rows)
    twice = Counter(k for r in rows for k, n in r["scheduled"].items() if n > 1)
    return "\n".join(
        [
            START,
            "## recovery",
            "",
            f"{turns} plan turns on two `alfred worker` processes sharing a task queue on a "
            "local `temporal server start-dev` and PostgreSQL; the scripted reply takes "
            f"{REPLY_SECONDS:.0f} s, and the worker running it is killed (SIGKILL) 1 s into "
            "the call; a fresh worker replaces it.",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}; measured {time.strftime('%Y-%m-%d')}.",
            "",
            f"- completed: {done}/{len(rows)}",
            f"- kill to completed: median {statistics.median(seconds):.1f} s, max "
            f"{max(seconds):.1f} s (each: {', '.join(f'{s:.1f}' for s in seconds)})",
            "- scheduled more than once: "
            + (", ".join(f"{k} {n}×" for k, n in twice.items()) or "nothing"),
            END,
        ]
    )


def main() -> None:
    run_bench("recovery", __doc__, measure, report, default_turns=5)


if __name__ == "__main__":
    main()
