"""Which dynamic-config settings make the embedded dev server faster? One dev server per
set of settings, all running at once; ``turn_overhead``'s plan turn and no-op workflows
sent to each in turn, a few back to back, so that whatever else the machine does falls on
all of them alike.

    .venv/bin/python -m bench.devserver_config --turns 20

Reports each server's mean wall time per plan turn and per no-op workflow, and its ratio
to the CLI's defaults. Writes the results into docs/BENCHMARKS.md between this
benchmark's markers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import tempfile
import time
import uuid
from contextlib import AsyncExitStack, ExitStack
from pathlib import Path

from temporalio.worker import Worker

from api.devserver import DYNAMIC_CONFIG, dev_server
from api.temporal import connect
from bench.harness import markers, write_section
from bench.noop_workflow import NoopInput, NoopWorkflow, noop
from bench.scripted import BenchConversation
from bench.turn_overhead import activity_kinds, plan_turn_script
from domain.db.engine import create_engine, session_factory
from domain.db.server import prepare_database
from domain.settings import Settings
from workflows.worker import build_worker

START, END = markers("devserver_config")
TRANSFER = ("history.transferProcessorMaxPollRPS=1000",)
PARTITIONS = ("matching.numTaskqueueReadPartitions=1", "matching.numTaskqueueWritePartitions=1")
EAGER = ("system.enableActivityEagerExecution=true",)
VARIANTS: dict[str, tuple[str, ...]] = {
    "CLI defaults": (),
    "transfer queue polled at 1000/s": TRANSFER,
    "+ one task-queue partition": TRANSFER + PARTITIONS,
    "+ eager activities": TRANSFER + EAGER,
    "+ both": TRANSFER + PARTITIONS + EAGER,
}
"""Each candidate on top of the transfer-queue setting (issue 16)."""
BLOCK = 5
"""Turns (and no-op workflows of each shape) sent back to back to one server before the
next server's turn: a server's rate limits refill while it is idle, as they would not
under steady use."""


class Side:
    """One dev server: a conversation on it, its workers' task queue, what was measured."""

    def __init__(self, client, talk: BenchConversation) -> None:
        self.client = client
        self.talk = talk
        self.queue = f"bench-{uuid.uuid4().hex[:8]}"
        self.times: dict[str, list[float]] = {}

    async def timed(self, column: str, work) -> object:
        began = time.perf_counter()
        result = await work
        self.times.setdefault(column, []).append(time.perf_counter() - began)
        return result


async def measure(addresses: dict[str, str], app_url: str, turns: int) -> dict:
    engine = create_engine(app_url)
    sessions = session_factory(engine)
    sides: dict[str, Side] = {}
    async with AsyncExitStack() as running:
        for name, address in addresses.items():
            client = await connect(Settings(_env_file=None, temporal_address=address))
            side = sides[name] = Side(client, await BenchConversation.create(client, sessions))
            provider = plan_turn_script(turns)
            for worker in (
                build_worker(client, task_queue=side.queue, sessions=sessions, provider=provider),
                Worker(
                    client,
                    task_queue=f"{side.queue}-noop",
                    workflows=[NoopWorkflow],
                    activities=[noop],
                ),
            ):
                await running.enter_async_context(worker)
        names, shape, done = list(sides), None, 0
        while done < turns:  # rounds: each server gets a block of back-to-back work in turn
            block = range(done + 1, min(turns, done + BLOCK) + 1)
            order = names[done // BLOCK % len(names) :] + names[: done // BLOCK % len(names)]
            for name in order:
                side = sides[name]
                for n in block:
                    handle = await side.talk.start(n, side.queue)
                    result = await side.timed("plan turn", handle.result())
                    assert result.status == "completed", result
                    if shape is None:
                        kinds = activity_kinds(await handle.fetch_history())
                        local = kinds["(local activities)"]
                        shape = (sum(kinds.values()) - local, local)
                for column, request in (
                    ("no-op, turn's shape", NoopInput(plain=shape[0], local=shape[1])),
                    ("no-op, all plain", NoopInput(plain=sum(shape))),
                ):
                    for n in block:
                        run = side.client.execute_workflow(
                            NoopWorkflow.run,
                            request,
                            id=f"noop-{side.queue}-{n}-{column}",
                            task_queue=f"{side.queue}-noop",
                        )
                        await side.timed(column, run)
            done = block[-1]
    await engine.dispose()
    return {"shape": shape, "times": {name: side.times for name, side in sides.items()}}


def report(turns: int, measured: dict) -> str:
    times = measured["times"]
    plain, local = measured["shape"]
    base = times["CLI defaults"]
    columns = list(base)
    lines = [
        START,
        "## devserver_config",
        "",
        f"`turn_overhead`'s plan turn ({plain} plain + {local} local activities, a "
        f"zero-latency scripted model) and no-op workflows of the same activities, {turns} "
        f"of each on each of {len(times)} in-memory `temporal server start-dev`s running at "
        f"once, one per set of dynamic config, sent {BLOCK} back to back to each server in "
        f"turn (the order rotating) from one process; one PostgreSQL. Mean wall time in "
        f"ms, and its ratio to the CLI's defaults.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; measured {time.strftime('%Y-%m-%d')}.",
        "",
        "| dev server | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for name, got in times.items():
        label = f"**{name}** (`dev_server`'s)" if VARIANTS[name] == DYNAMIC_CONFIG else name
        cells = []
        for column in columns:
            ms, ratio = statistics.mean(got[column]), statistics.mean(got[column])
            ratio /= statistics.mean(base[column])
            cells.append(f"{ms * 1000:.0f} ({ratio:.2f}×)")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append(END)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    settings = Settings()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as servers:
        if not settings.database_url:
            settings = settings.model_copy(update={"data_dir": Path(tmp)})
        database = prepare_database(settings)
        servers.callback(database.close)
        addresses = {
            name: servers.enter_context(dev_server(dynamic_config=config))
            for name, config in VARIANTS.items()
        }
        measured = asyncio.run(measure(addresses, database.app_url, args.turns))
    section = report(args.turns, measured)
    print(section)
    if not args.no_write:
        write_section("devserver_config", section)
    os._exit(0)  # temporalio/sdk-python#300: skip interpreter teardown after the report


if __name__ == "__main__":
    main()
