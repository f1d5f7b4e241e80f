"""More turn workers on the same task queue, as separate processes (``alfred worker
--processes N``, ``alfred run --workers N``): a worker is one Python process, and its CPU is
what a busy deployment runs out of first (docs/BENCHMARKS.md, ``scale_out``).

Each child is ``alfred worker`` in its own session, so a terminal's Ctrl-C reaches only the
parent, which stops the children itself: SIGTERM, on which each drains the activities it
runs (``worker_drain_seconds``) and exits. A child that dies while the parent runs is
started again (after a second, so a child that cannot start does not spin).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping

from api.devserver import die_with_parent

log = logging.getLogger("alfred.processes")

WORKER = [sys.executable, "-m", "api.cli", "worker"]
RESTART_AFTER = 1.0


def child_env(env: dict[str, str], index: int) -> dict[str, str]:
    """Child ``index``'s environment: a metrics endpoint of its own, on the port after the
    parent's plus ``index`` (two processes cannot serve one port)."""
    address = env.get("ALFRED_METRICS_ADDRESS")
    if not address:
        return env
    host, port = address.rsplit(":", 1)
    return {**env, "ALFRED_METRICS_ADDRESS": f"{host}:{int(port) + 1 + index}"}


class WorkerProcesses:
    def __init__(self, count: int, env: Mapping[str, str] | None = None) -> None:
        if count < 1:
            raise ValueError("at least one worker process")
        self.count = count
        self.env = dict(env) if env is not None else None
        self.children: list[subprocess.Popen] = []
        self._stopping = threading.Event()
        self._watcher: threading.Thread | None = None

    def _spawn(self, index: int) -> subprocess.Popen:
        return subprocess.Popen(
            WORKER,
            env=child_env(self.env if self.env is not None else dict(os.environ), index),
            start_new_session=True,
            preexec_fn=die_with_parent,
        )

    def start(self) -> None:
        self.children = [self._spawn(i) for i in range(self.count)]
        self._watcher = threading.Thread(target=self._watch, name="worker-processes", daemon=True)
        self._watcher.start()

    @property
    def pids(self) -> list[int]:
        return [child.pid for child in self.children]

    def _watch(self) -> None:
        while not self._stopping.wait(RESTART_AFTER):
            for i, child in enumerate(self.children):
                code = child.poll()
                if code is not None and not self._stopping.is_set():
                    log.warning("worker process %s exited (%s): starting another", child.pid, code)
                    self.children[i] = self._spawn(i)

    def stop(self, timeout: float = 60.0) -> None:
        """SIGTERM every child, wait up to ``timeout`` seconds for them to drain, then kill."""
        self._stopping.set()
        if self._watcher is not None:
            self._watcher.join()
        for child in self.children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in self.children:
            try:
                child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
