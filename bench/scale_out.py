"""How far do more worker processes carry plan turns? 16 conversations at once, each sending
plan turns one after another ("add item N to my shopping list" to the offline demo model:
Understand, Think, a write step, Reply, Summarize), with 1, 2 and 4 worker processes
(``bench.worker_process``) on one local dev server and PostgreSQL; first with a
zero-latency model, then with one that takes 1 s per call.

    .venv/bin/python -m bench.scale_out --turns 3

Reports plan turns per second per configuration and the CPU each part used meanwhile (in
cores: the worker processes, the dev server, PostgreSQL), which says where the curve stops.
Writes the results into docs/BENCHMARKS.md between this benchmark's markers.
"""

from __future__ import annotations

import asyncio
import os
import platform
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from api.temporal import connect
from bench.harness import markers, run_bench
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings
from domain.turn_store import create_conversation
from domain.users import create_user
from workflows.interface import TurnInput
from workflows.turn import TurnWorkflow

START, END = markers("scale_out")
ROOT = Path(__file__).resolve().parents[1]
CONVERSATIONS = 16
WORKERS = (1, 2, 4)
LATENCIES = (0.0, 1.0)
TICK = os.sysconf("SC_CLK_TCK")


def cpu_by_pid(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds of each of ``pids`` so far (``/proc/<pid>/stat``)."""
    found = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12])) / TICK
    return found


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds between two snapshots; a process started in between counts from 0."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def pids_of(needle: str) -> list[int]:
    """Processes whose command line contains ``needle``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if needle in command:
                found.append(int(entry.name))
    return found


def database_pids(app_url: str) -> list[int]:
    """The embedded PostgreSQL's processes: its postmaster (started with ``-k`` the socket
    directory the URL names) and the processes it forked (connections included)."""
    host = parse_qs(urlsplit(app_url).query).get("host", [""])[0]
    postmasters = pids_of(f"-k {host}") if host else []
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if any(f"\nPPid:\t{pid}\n" in status for pid in postmasters):
                children.append(int(entry.name))
    return postmasters + children


def start_workers(n: int, address: str, database: str, queue: str, latency: float):
    command = [sys.executable, "-m", "bench.worker_process", "--address", address]
    command += ["--database", database, "--queue", queue, "--latency", str(latency)]
    workers = [
        subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        for _ in range(n)
    ]
    for worker in workers:
        assert worker.stdout is not None and "ready" in worker.stdout.readline()
    return workers


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    for worker in workers:
        worker.wait(timeout=60)


async def converse(client, sessions, queue: str, turns: int, run: str) -> None:
    user, _ = await create_user(sessions, "bench")
    conversation = await create_conversation(sessions, user, "bench")
    for n in range(1, turns + 1):
        turn = TurnInput(
            conversation_id=conversation,
            user_id=str(user),
            turn_number=n,
            message=f"add item {n} to my shopping list",
        )
        handle = await client.start_workflow(
            TurnWorkflow.run, turn, id=f"scale-{run}-{conversation}-{n}", task_queue=queue
        )
        result = await handle.result()
        assert result.status == "completed", result


async def measure(address: str, app_url: str, turns: int) -> list[dict]:
    client = await connect(Settings(_env_file=None, temporal_address=address))
    engine = create_engine(app_url)
    sessions = session_factory(engine)
    server = f"start-dev --ip 127.0.0.1 --port {address.rsplit(':', 1)[1]}"
    rows = []
    for latency in LATENCIES:
        for n in WORKERS:
            run = uuid.uuid4().hex[:6]
            queue = f"scale-{run}"
            workers = start_workers(n, address, app_url, queue, latency)
            parts = ([w.pid for w in workers], pids_of(server), database_pids(app_url))
            before = [cpu_by_pid(pids) for pids in parts]
            began = time.perf_counter()
            await asyncio.gather(
                *(converse(client, sessions, queue, turns, run) for _ in range(CONVERSATIONS))
            )
            elapsed = time.perf_counter() - began
            parts = (parts[0], parts[1], database_pids(app_url))  # new connections, too
            after = [cpu_by_pid(pids) for pids in parts]
            stop_workers(workers)
            seconds = [cpu_used(b, a) for b, a in zip(before, after, strict=True)]
            used = [s / elapsed for s in seconds]
            rows.append(
                {
                    "latency": latency,
                    "workers": n,
                    "turns": CONVERSATIONS * turns,
                    "seconds": elapsed,
                    "workers_cores": used[0],
                    "server_cores": used[1],
                    "database_cores": used[2],
                    "worker_ms_per_turn": seconds[0] * 1000 / (CONVERSATIONS * turns),
                }
            )
            print(rows[-1], flush=True)
    await engine.dispose()
    return rows


def report(turns: int, rows: list[dict]) -> str:
    lines = [
        START,
        "## scale_out",
        "",
        f"{CONVERSATIONS} conversations at once, {turns} plan turns each, one after another "
        '("add item N to my shopping list" to the offline demo model), with 1, 2 and 4 '
        "worker processes (`bench/worker_process.py`) on one local `temporal server "
        "start-dev` and PostgreSQL; the model answers at once, or after 1 s per call.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; measured {time.strftime('%Y-%m-%d')}.",
        "",
        "| model latency | worker processes | plan turns/s | vs 1 process | worker CPU ms/turn "
        "| cores: workers | dev server | PostgreSQL |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        base = next(
            r for r in rows if r["latency"] == row["latency"] and r["workers"] == WORKERS[0]
        )
        rate = row["turns"] / row["seconds"]
        lines.append(
            f"| {row['latency']:.0f} s | {row['workers']} | {rate:.2f} "
            f"| {rate / (base['turns'] / base['seconds']):.2f}× "
            f"| {row['worker_ms_per_turn']:.0f} | {row['workers_cores']:.2f} "
            f"| {row['server_cores']:.2f} | {row['database_cores']:.2f} |"
        )
    lines.append(END)
    return "\n".join(lines)


def main() -> None:
    run_bench("scale_out", __doc__, measure, report, default_turns=3)


if __name__ == "__main__":
    main()
