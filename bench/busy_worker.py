"""Do turns that pause on a starved worker write histories their own code can replay?

    .venv/bin/python -m bench.busy_worker --turns 60

Issue 10: with the worker's CPU busy, turns that asked for a patch right after a local
activity wrote histories that did not replay (TMPRL1100), and were stuck after a restart.
This runs N turns of TurnWorkflow with a change asked at start, as ``workflows.versions``
asks it (tests/workflows/variants.py ``TurnWorkflowWithAChange``), and, for contrast, N of
the old patch placement (``TurnWorkflowAskingLate``: the same change asked right after
``open_turn``) on one worker whose local
activities are slow and whose process is starved by CPU-bound threads, with a 2 s workflow
task timeout (workflow-task heartbeats every ~1.6 s), a few turns at a time. Each turn
pauses on a proposal; the worker shuts down; a fresh, idle worker confirms every turn
through the ``answer`` update and runs it to the end. Reports, per kind: turns completed,
histories that do not replay as recorded and in busy-worker shapes (tests/replay.py),
workflow tasks and heartbeats per turn, confirm-to-completion times. Writes the results
into docs/BENCHMARKS.md between this benchmark's markers. Every wait has a time limit.

How starved: BUSY_HOGS, BUSY_SWITCH, BUSY_BURN, BUSY_IN_FLIGHT, BUSY_TASK_TIMEOUT (see the
constants below). ALFRED_BENCH_HISTORIES=<dir> saves every history there.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import random
import statistics
import sys
import threading
import time
import typing
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowHistory
from temporalio.worker import Worker

from activities.llm.provider import LlmReply, LlmRequest
from activities.llm.script_provider import ScriptProvider
from api.temporal import connect
from bench.harness import markers, run_bench
from bench.turn_overhead import percentile
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings
from domain.turn_store import create_conversation
from domain.users import create_user
from tests.replay import LOCAL_ACTIVITY_MARKER, replay_failures
from tests.workflows.script import complete, propose, reply, step, tool, understand
from tests.workflows.variants import MARK_FIRST, TurnWorkflowAskingLate, TurnWorkflowWithAChange
from workflows.interface import (
    InputReceipt,
    ProgressQuery,
    TurnInput,
    TurnLimits,
    TurnProgress,
    UserInput,
)
from workflows.worker import build_worker, turn_activities

START, END = markers("busy_worker")

TASK_TIMEOUT = timedelta(seconds=float(os.environ.get("BUSY_TASK_TIMEOUT", 2)))
"""Short, so a workflow task that waits on a slow local activity heartbeats (at ~80%)."""
SLOW_ACTIVITIES = (
    "open_turn",
    "prepare_turn",
    "mark_turn",
    "crud",
    "fetch_schema",
    "finish_turn",
)
SLOW_SECONDS = (0.4, 1.6)
"""Each slowed local activity waits a random time in this range, then burns ``BURN``."""
BURN = float(os.environ.get("BUSY_BURN", 0.1))
"""Seconds of pure-Python work per slowed local activity (in a thread: it takes the GIL)."""
HOGS = int(os.environ.get("BUSY_HOGS", 2))
"""CPU-bound threads in the worker's process while the turns run up to their pause."""
IN_FLIGHT = int(os.environ.get("BUSY_IN_FLIGHT", 4))
"""Turns running to their pause at once (more, and the starved worker's tasks time out)."""
SWITCH_INTERVAL = float(os.environ.get("BUSY_SWITCH", 0.01))
"""sys.setswitchinterval while starved (default 0.005): each hog keeps the GIL longer."""

# Wait limits (seconds); every wait in the bench has one.
PAUSE_WAIT = 180.0  # one turn reaches its pause
STUCK_CHECK = 20.0  # a turn not paused yet: replay its history so far, this often
PHASE_WAIT = lambda n: 60 + 20 * n  # noqa: E731 - all 2n turns have started (and paused)
CONFIRM_WAIT = 60.0  # one update accepted
RESULT_WAIT = 90.0  # one turn finished after its confirm
SHUTDOWN_WAIT = 60.0  # the starved worker's graceful shutdown

KINDS = {"fixed": TurnWorkflowWithAChange, "old": TurnWorkflowAskingLate}
SUMMARIZE = {
    "node": "summarize",
    "repeat": True,
    "output": {
        "assistant_summary": "Alfred added milk to the list.",
        "engagement_summary": "Shopping.",
        "conversation_phase": "executing",
        "user_expressed": "",
    },
}
COMPRESS = {"node": "compress", "repeat": True, "output": {"summary": "An earlier turn."}}


def turn_script(n: int) -> ScriptProvider:
    """Understand → Think proposes a one-step write plan → (pause; confirm) → Act creates a
    shopping-list row and completes the step → Reply; Summarize / Compress as needed."""
    return ScriptProvider.from_responses(
        [
            understand(),
            propose(
                "Add milk",
                "Shall I add milk to your shopping list?",
                step("Add milk", "write", "shopping"),
            ),
            tool("db_create", table="shopping_list", data={"name": f"milk {n}"}),
            complete("Added milk"),
            reply("Added milk to your shopping list."),
            SUMMARIZE,
            COMPRESS,
        ]
    )


class ScriptPerTurn:
    """One script per workflow (turns run side by side; a shared script would hand one
    turn's Act step to another)."""

    name = "script"

    def __init__(self, script: Callable[[int], ScriptProvider]) -> None:
        self._script = script
        self._scripts: dict[str, ScriptProvider] = {}

    async def complete(self, request: LlmRequest) -> LlmReply:
        workflow_id = activity.info().workflow_id or ""
        if workflow_id not in self._scripts:
            self._scripts[workflow_id] = self._script(len(self._scripts) + 1)
        return await self._scripts[workflow_id].complete(request)


def burn(seconds: float) -> None:
    """Pure-Python work: holds the GIL except at the interpreter's switch interval."""
    deadline = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < deadline:
        for i in range(2000):
            n ^= i


def slowed(activities: dict[str, Callable[..., Any]], rng: random.Random) -> list:
    """The turn's activities, the local (database) ones slow: a wait of SLOW_SECONDS and
    BURN seconds of CPU after their real work (cf. tests/workflows/test_durability.py)."""

    def slow(inner):
        async def wrapper(request):
            result = await inner(request)
            await asyncio.sleep(rng.uniform(*SLOW_SECONDS))
            await asyncio.to_thread(burn, BURN)
            return result

        wrapper.__annotations__ = typing.get_type_hints(inner)
        return activity.defn(name=activity._Definition.must_from_callable(inner).name)(wrapper)

    return [slow(f) if name in SLOW_ACTIVITIES else f for name, f in activities.items()]


@contextmanager
def cpu_hogs(threads: int, switch_interval: float) -> Iterator[None]:
    """``threads`` pure-Python busy loops in this process: the worker's event loop and its
    workflow activations wait for the GIL behind them."""
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            burn(0.05)

    previous = sys.getswitchinterval()
    sys.setswitchinterval(switch_interval)
    hogs = [threading.Thread(target=spin, daemon=True, name=f"hog-{i}") for i in range(threads)]
    for hog in hogs:
        hog.start()
    try:
        yield
    finally:
        stop.set()
        for hog in hogs:
            hog.join(timeout=5)
        sys.setswitchinterval(previous)


def workers(client: Client, queue: str, sessions, provider, activities: list) -> list[Worker]:
    """The turn worker (``build_worker``, the change asked at start) and one for the old
    placement on its own queue."""
    return [
        build_worker(
            client,
            task_queue=queue,
            sessions=sessions,
            provider=provider,
            activities=activities,
            workflows=[TurnWorkflowWithAChange],
        ),
        Worker(
            client,
            task_queue=f"{queue}-old",
            workflows=[TurnWorkflowAskingLate],
            activities=activities,
        ),
    ]


@dataclass
class Turn:
    kind: str
    handle: WorkflowHandle
    paused: bool = False
    confirmed: bool = False
    completed: bool = False
    error: str = ""
    confirm_to_done: float | None = None
    history: WorkflowHistory | None = None
    replay_as_recorded: list[str] = field(default_factory=list)
    replay_busy: list[str] = field(default_factory=list)


async def status(handle: WorkflowHandle) -> str:
    """The turn's status, or why the progress query failed ("query failed: ...")."""
    try:
        progress = await handle.query(
            "progress",
            ProgressQuery(after_seq=1_000_000),
            result_type=TurnProgress,
            rpc_timeout=timedelta(seconds=10),
        )
    except Exception as error:  # noqa: BLE001 - a starved (or stuck) run cannot answer yet
        return f"query failed: {type(error).__name__} {error}"
    return progress.status


async def run_to_pause(turn: Turn, within: float) -> None:
    """Poll the turn's progress until it waits for an answer, or its history so far does
    not replay (the starved worker, having lost the run from its cache after a timed-out
    workflow task, cannot run it any further), or ``within`` runs out."""
    began = time.monotonic()
    checked = began
    while time.monotonic() - began < within:
        if await status(turn.handle) == "awaiting_input":
            turn.paused = True
            return
        if time.monotonic() - checked > STUCK_CHECK:
            checked = time.monotonic()
            history = await turn.handle.fetch_history()
            failures = await replay(turn.kind, history, busy_shapes=False)
            if failures:
                turn.error = f"stuck before its pause: {failures[0]}"
                return
        await asyncio.sleep(1.0)
    turn.error = f"not paused within {within:.0f} s"


async def confirm(turn: Turn) -> None:
    """Answer the proposal through the ``answer`` update (as the API does) and wait for the
    turn's result, each within its limit."""
    answer = UserInput(input_id=uuid.uuid4().hex, action="confirm")
    started = time.perf_counter()
    try:
        await asyncio.wait_for(
            turn.handle.execute_update(
                "answer", answer, id=answer.input_id, result_type=InputReceipt
            ),
            CONFIRM_WAIT,
        )
        turn.confirmed = True
        result = await asyncio.wait_for(turn.handle.result(), RESULT_WAIT)
    except Exception as error:  # noqa: BLE001 - recorded and reported
        turn.error = f"{'result' if turn.confirmed else 'confirm'}: {type(error).__name__} {error}"
        return
    turn.confirm_to_done = time.perf_counter() - started
    turn.completed = result.status == "completed"
    if not turn.completed:
        turn.error = f"status {result.status}"


async def replay(kind: str, history: WorkflowHistory, *, busy_shapes: bool = True) -> list[str]:
    """Why ``history`` (and, with ``busy_shapes``, each busy-worker variant) does not replay
    with today's code of its kind (``tests.replay.replay_failures``)."""
    workflows = [KINDS[kind]]
    return await replay_failures(history, busy_shapes=busy_shapes, workflows=workflows)


def keep_history(name: str, history: WorkflowHistory) -> None:
    """With ALFRED_BENCH_HISTORIES=<dir>, save each history there (to look at one)."""
    if keep := os.environ.get("ALFRED_BENCH_HISTORIES"):
        Path(keep).mkdir(parents=True, exist_ok=True)
        (Path(keep) / f"{name}.json").write_text(history.to_json())


def task_counts(history: WorkflowHistory) -> dict[str, Any]:
    """Workflow tasks of a history: completed, timed out, failed; heartbeats (a completed
    task directly followed by the next one's scheduling) and, of those, the ones whose last
    command is a local activity's result: the code after it ran in the next workflow task,
    the shape ``tests.replay.split_after`` writes, here written by the worker itself."""
    events = history.events
    counts: dict[str, Any] = {"completed": 0, "timed_out": 0, "failed": 0, "heartbeats": 0}
    counts["split"] = Counter()
    for i, event in enumerate(events):
        kind = event.event_type
        if kind == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
            counts["timed_out"] += 1
        elif kind == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
            counts["failed"] += 1
        elif kind == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            counts["completed"] += 1
        elif kind == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED and i > 0:
            j = i - 1
            while j > 0 and _is_command(events[j]):
                j -= 1
            if events[j].event_type != EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
                continue  # scheduled by something that happened (activity, timer, update)
            counts["heartbeats"] += 1
            last = events[i - 1]
            if (
                last.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
                and last.marker_recorded_event_attributes.marker_name == LOCAL_ACTIVITY_MARKER
            ):
                data = last.marker_recorded_event_attributes.details["data"].payloads[0].data
                counts["split"][json.loads(data)["activity_type"]] += 1
    return counts


def _is_command(event) -> bool:
    """Events a workflow task's completion writes (its commands), as opposed to events
    from outside (activity results, timers, signals, updates)."""
    return event.event_type in (
        EventType.EVENT_TYPE_MARKER_RECORDED,
        EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
        EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
        EventType.EVENT_TYPE_TIMER_STARTED,
        EventType.EVENT_TYPE_TIMER_CANCELED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
    )


async def measure(address: str, app_url: str, turns: int) -> dict:
    began = time.perf_counter()
    client = await connect(Settings(_env_file=None, temporal_address=address))
    engine = create_engine(app_url)
    sessions = session_factory(engine)
    queue = f"busy-{uuid.uuid4().hex[:8]}"
    provider = ScriptPerTurn(turn_script)
    rng = random.Random(10)
    started: list[Turn] = []
    phases: dict[str, float] = {}

    # Users and conversations first: setting up is not what is measured.
    plans = []
    for n in range(1, turns + 1):
        for kind in KINDS:
            user_id, _ = await create_user(sessions, f"busy-{kind}-{n}")
            conversation = await create_conversation(sessions, user_id, "busy worker")
            plans.append((kind, n, str(user_id), conversation))

    async def start(kind: str, n: int, user_id: str, conversation: str) -> Turn:
        handle = await client.start_workflow(
            KINDS[kind].run,
            TurnInput(
                conversation_id=conversation,
                user_id=user_id,
                turn_number=1,
                message="add milk to my shopping list",
                limits=TurnLimits(),
            ),
            id=f"busy-{kind}-{n}-{uuid.uuid4().hex[:6]}",
            task_queue=queue if kind == "fixed" else f"{queue}-old",
            task_timeout=TASK_TIMEOUT,
        )
        return Turn(kind, handle)

    # 1. A starved worker runs every turn up to its proposal, then shuts down.
    phase = time.perf_counter()
    slow = slowed(turn_activities(sessions, provider), rng)
    with cpu_hogs(HOGS, SWITCH_INTERVAL):
        async with AsyncExitStack() as stack:
            for worker in workers(client, queue, sessions, provider, slow):
                await stack.enter_async_context(worker)
            window = asyncio.Semaphore(IN_FLIGHT)
            phase_deadline = time.monotonic() + PHASE_WAIT(turns)

            async def one(plan: tuple[str, int, str, str]) -> None:
                async with window:
                    left = phase_deadline - time.monotonic()
                    if left <= 0:
                        return  # never started: counted as not paused
                    turn = await start(*plan)
                    started.append(turn)
                    await run_to_pause(turn, min(PAUSE_WAIT, left))
                    paused = sum(t.paused for t in started)
                    print(f"{time.perf_counter() - phase:.0f} s: {paused}/{len(plans)} paused")

            await asyncio.gather(*(one(p) for p in plans))
            phases["to the pause"] = time.perf_counter() - phase
            phase = time.perf_counter()
            await asyncio.wait_for(stack.aclose(), SHUTDOWN_WAIT)  # graceful shutdown
        phases["shutdown"] = time.perf_counter() - phase

    # 2. A fresh, idle worker (no cache: it replays each history) gets the confirms.
    plain = list(turn_activities(sessions, provider).values())
    async with AsyncExitStack() as stack:
        for worker in workers(client, queue, sessions, provider, plain):
            await stack.enter_async_context(worker)
        phase = time.perf_counter()
        for kind in KINDS:  # one kind at a time: stuck turns do not slow the others' times
            await asyncio.gather(*(confirm(t) for t in started if t.kind == kind and t.paused))
            phases[f"confirm {kind}"] = time.perf_counter() - phase
            phase = time.perf_counter()
        for turn in started:
            if not turn.completed:  # stuck (or never paused): end it, keep its history
                try:
                    await turn.handle.terminate("busy_worker bench: not completed")
                except Exception:  # noqa: BLE001 - already closed
                    pass
        await asyncio.wait_for(stack.aclose(), SHUTDOWN_WAIT)

    # 3. Replay every history with today's code, as recorded and in busy-worker shapes.
    phase = time.perf_counter()
    for turn in started:
        turn.history = await turn.handle.fetch_history()
        keep_history(turn.handle.id, turn.history)
        failures = await replay(turn.kind, turn.history)
        turn.replay_as_recorded = [f for f in failures if " as recorded: " in f]
        turn.replay_busy = [f for f in failures if " as recorded: " not in f]
    phases["replay"] = time.perf_counter() - phase
    await engine.dispose()
    return {"turns": started, "phases": phases, "wall": time.perf_counter() - began}


def reason(turn: Turn) -> str:
    """Why a turn did not complete, in a few words."""
    if turn.error.startswith("stuck before its pause"):
        return "stuck before its pause (its worker could not replay it)"
    if not turn.paused:
        return "never paused in time"
    if "Workflow Task in failed state" in turn.error:
        return "confirm refused after the restart (workflow task failing)"
    if not turn.confirmed:
        return "confirm not accepted in time"
    return turn.error.split(":")[0] or "not completed"


def summary(turns: list[Turn], n: int) -> dict[str, Any]:
    """Counts over the turns of one kind (``n`` asked for; a turn never started is missing)."""
    tasks = [task_counts(t.history) for t in turns if t.history is not None]
    times = [t.confirm_to_done for t in turns if t.confirm_to_done is not None]

    def spread(key: str) -> str:
        values = sorted(c[key] for c in tasks)
        if not values:
            return "-"
        return f"{values[0]} / {statistics.median(values):g} / {values[-1]}"

    return {
        "n": n,
        "paused": sum(t.paused for t in turns),
        "completed": sum(t.completed for t in turns),
        "as_recorded": sum(bool(t.replay_as_recorded) for t in turns),
        "busy": sum(bool(t.replay_busy) for t in turns),
        "tasks": spread("completed"),
        "heartbeats": spread("heartbeats"),
        "split_turns": sum(bool(c["split"]) for c in tasks),
        "split_kinds": sum((Counter(set(c["split"])) for c in tasks), Counter()),
        "timed_out": sum(c["timed_out"] for c in tasks),
        "failed": sum(c["failed"] for c in tasks),
        "median": statistics.median(times) if times else None,
        "p95": percentile(times, 0.95) if times else None,
        "max": max(times) if times else None,
        "errors": [f"{t.handle.id}: {t.error}" for t in turns if t.error],
        "reasons": Counter(reason(t) for t in turns if not t.completed)
        + Counter({"never started": n - len(turns)} if n > len(turns) else {}),
        "first_failure": next(
            (f for t in turns for f in t.replay_as_recorded),
            next((f for t in turns for f in t.replay_busy), None),
        ),
    }


def report(turns: int, m: dict) -> str:
    fixed = summary([t for t in m["turns"] if t.kind == "fixed"], turns)
    old = summary([t for t in m["turns"] if t.kind == "old"], turns)

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    def row(name: str, cell: Callable[[dict], str]) -> str:
        return f"| {name} | {cell(fixed)} | {cell(old)} |"

    def share(key: str) -> Callable[[dict], str]:
        return lambda s: f"{s[key]}/{s['n']}"

    def splits(s: dict) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in s["split_kinds"].most_common())
        return f"{s['split_turns']}/{s['n']}" + (f" ({kinds})" if kinds else "")

    def times(s: dict) -> str:
        return f"{seconds(s['median'])} / {seconds(s['p95'])} / {seconds(s['max'])}"

    phases = ", ".join(f"{k} {v:.0f} s" for k, v in m["phases"].items())
    old_open = old["split_kinds"].get("open_turn", 0)
    fixed_open = fixed["split_kinds"].get("open_turn", 0)
    lines = [
        START,
        "## busy_worker",
        "",
        f"{turns} turns of `TurnWorkflow` with a change (`{MARK_FIRST.id}`) asked in the "
        f"first activation, as `workflows.versions` asks every change "
        f"(`TurnWorkflowWithAChange` in tests/workflows/variants.py) and, for contrast, "
        f"{turns} of the old placement (`TurnWorkflowAskingLate`: the same change asked right "
        f"after the first local activity, `open_turn`), each with its own user and "
        f"conversation, on one worker "
        f"({IN_FLIGHT} turns at a time running to their pause), on a local "
        f"`temporal server start-dev` and PostgreSQL. Each turn: "
        f"Understand, Think proposes a one-step write plan, pause; after the confirm: Act "
        f"creates a shopping-list row, Reply, Summarize (scripted model). Until every turn "
        f"had paused, the worker was starved: workflow task timeout "
        f"{TASK_TIMEOUT.total_seconds():g} s (a workflow-task heartbeat every "
        f"~{0.8 * TASK_TIMEOUT.total_seconds():g} s while a local activity runs), each "
        f"local activity {SLOW_SECONDS[0]:g}-{SLOW_SECONDS[1]:g} s slower plus "
        f"{BURN * 1000:.0f} ms of Python CPU, and {HOGS} CPU-bound threads in the worker's "
        f"process (GIL switch interval {SWITCH_INTERVAL * 1000:g} ms). Then that worker shut "
        f"down, and a fresh, idle one (no cache: it replays each history first) confirmed "
        f"every paused turn through the `answer` update, one kind after the other. Last, "
        f"every history was replayed with today's code as recorded, and with an extra "
        f"workflow task after each local activity's result (the busy shapes of "
        f"tests/replay.py).",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work), "
        f"Python {platform.python_version()}; measured {time.strftime('%Y-%m-%d')}; "
        f"wall time {m['wall']:.0f} s ({phases}).",
        "",
        "| per kind | asked at start | old placement |",
        "|---|---|---|",
        row("paused on the proposal while starved", share("paused")),
        row("completed after the restart and the confirm", share("completed")),
        row("**history does not replay as recorded**", share("as_recorded")),
        row("does not replay in a busy shape", share("busy")),
        row("workflow tasks completed per turn (min / median / max)", lambda s: s["tasks"]),
        row("workflow-task heartbeats per turn (min / median / max)", lambda s: s["heartbeats"]),
        row("turns with a heartbeat that ends on a local activity's result", splits),
        row(
            "workflow tasks timed out / failed (all turns)",
            lambda s: f"{s['timed_out']} / {s['failed']}",
        ),
        row("confirm to completed, median / p95 / max (s)", times),
        "",
        f"**Fixed: {fixed['as_recorded']}/{turns} histories fail to replay as recorded, "
        f"{fixed['busy']}/{turns} in a busy shape; old placement: {old['as_recorded']}/{turns} "
        f"as recorded, {old['busy']}/{turns} in a busy shape.**",
        "",
        f"Reading: a workflow-task heartbeat that ends on a local activity's result is the "
        f"shape of issue 10 (and of `split_after` in tests/replay.py), here written by the "
        f"worker itself: the result went into one workflow task, the code after it ran in "
        f"the next. When the activity is `open_turn` in an old-placement turn "
        f"({old_open}/{turns} here), the `{MARK_FIRST.id}` patch marker lands in that next "
        f"task; replay asks `workflow.patched` where `open_turn` resolves, finds no marker "
        f"there, and fails (TMPRL1100): the fresh worker cannot run the turn, the confirm is "
        f"refused, the turn is stuck (a run the starved worker itself had to replay, after "
        f"a timed-out task, is stuck before its pause). Runs that ask at start have the same "
        f"shape after `open_turn` ({fixed_open}/{turns}), but their "
        f"patch marker is recorded in the first workflow task, before any local activity, "
        f"so they replay. The "
        f"busy-shape row replays each history with such a task inserted after every "
        f"local-activity result: the old placement fails it by construction (after "
        f"`open_turn`). How many old-placement turns break depends on how starved the "
        f"worker is (the share of `open_turn` results that meet a heartbeat); issue 10 saw "
        f"32/60. Confirm-to-completed includes the fresh worker's replay of the history; a "
        f"stuck turn has no time.",
    ]
    for name, s in (("fixed", fixed), ("old placement", old)):
        if s["first_failure"]:
            lines.append("")
            lines.append(f"First replay failure, {name}: `{s['first_failure'][:260]}…`")
        if s["reasons"]:
            lines.append("")
            lines.append(
                f"Not completed, {name}: "
                + "; ".join(f"{k}: {v}" for k, v in s["reasons"].most_common())
                + (f" (first: `{s['errors'][0][:200]}`)." if s["errors"] else ".")
            )
    lines.append(END)
    return "\n".join(lines)


def main() -> None:
    run_bench("busy_worker", __doc__, measure, report, default_turns=20)


if __name__ == "__main__":
    main()
