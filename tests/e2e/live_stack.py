"""`alfred run` in a subprocess, as `make run` starts it, on free local ports."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from api.devserver import free_ports
from tests.workflows.conftest import COMPRESS, SUMMARIZE

ROOT = Path(__file__).resolve().parents[2]
PORT_TAKEN = re.compile(r"cannot start: .*(already in use|dev server exited with code 2)")


class Stack:
    """`alfred run` in a subprocess, in its own directory, on free ports."""

    def __init__(
        self,
        workdir: Path,
        script: list[dict] | None = None,
        *,
        args: tuple[str, ...] = (),
        settings: dict[str, str] | None = None,
    ) -> None:
        """``script``: the script provider's responses; None keeps the default model;
        ``args``: more arguments of ``alfred run``; ``settings``: more ``ALFRED_`` variables."""
        self.workdir = workdir
        self.script = script
        self.args = args
        self.settings = settings or {}
        if script is not None:
            (workdir / "script.json").write_text(
                json.dumps({"responses": [*script, SUMMARIZE, COMPRESS]})
            )
        self.ports = dict(zip(("api", "temporal", "ui"), free_ports(3), strict=True))
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []
        self.refused: list[str] = []
        """What each start that found a port taken said."""

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ALFRED_", "OPENAI_"))}
        env.update(
            PYTHONPATH=str(ROOT),
            ALFRED_API_PORT=str(self.ports["api"]),
            ALFRED_TEMPORAL_PORT=str(self.ports["temporal"]),
            ALFRED_TEMPORAL_UI_PORT=str(self.ports["ui"]),
        )
        if self.script is not None:
            env.update(
                ALFRED_LLM_PROVIDER="script", ALFRED_LLM_SCRIPT=str(self.workdir / "script.json")
            )
        return {**env, **self.settings}

    def start(self, attempts: int = 3) -> None:
        """Start it and wait for its banner. Ports are picked free but used seconds later,
        by processes ``alfred run`` starts; one taken meanwhile by another test's server is
        said at once ("cannot start: … in use", or the dev server's exit), and the stack is
        started again on fresh ports."""
        for attempt in range(1, attempts + 1):
            self.launch()
            deadline = time.monotonic() + 120
            for line in self.process.stdout:
                self.output.append(line)
                if "press Ctrl-C to stop" in line:
                    return
                if time.monotonic() > deadline:
                    break
            said = "".join(self.output)
            if attempt == attempts or not PORT_TAKEN.search(said):
                raise AssertionError("alfred run did not become ready:\n" + said)
            self.process.wait(timeout=90)
            self.refused.append(said)
            self.output.clear()
            self.ports = dict(zip(self.ports, free_ports(len(self.ports)), strict=True))

    def launch(self) -> None:
        """Start it; its output is read when it stops."""
        self.process = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "run", *self.args],
            cwd=self.workdir,
            env=self.env(),
            stdout=subprocess.PIPE,
            start_new_session=True,  # its own process group: kill() reaches the dev server too
            stderr=subprocess.STDOUT,
            text=True,
        )

    def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)
        rest, _ = self.process.communicate(timeout=90)
        self.output.append(rest)
        return self.process.returncode

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.ports['api']}"

    def client(self) -> httpx.AsyncClient:
        token = (self.workdir / ".alfred" / "dev-token").read_text().strip()
        return httpx.AsyncClient(
            base_url=self.url, timeout=60, headers={"Authorization": f"Bearer {token}"}
        )

    def interrupt(self) -> int:
        """Ctrl-C as a terminal sends it: SIGINT to the whole foreground process group."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGINT)
        rest, _ = self.process.communicate(timeout=90)
        self.output.append(rest)
        return self.process.returncode

    def kill(self) -> None:
        """Kill `alfred run` and everything it started: its process group, and the dev
        server and worker processes, which run in sessions of their own."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        for pid in self.children():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def children(self) -> list[int]:
        """Processes started for this stack in sessions of their own (by their ports, their
        working directory, or the embedded PostgreSQL's data directory)."""
        port = f"--port {self.ports['temporal']} "
        data = f"-D {self.workdir / '.alfred' / 'pg'} "
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            worker = "api.cli worker" in command and cwd == str(self.workdir)
            if port in command or data in command or worker:
                found.append(int(entry.name))
        return found
