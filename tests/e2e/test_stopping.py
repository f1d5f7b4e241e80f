"""`alfred run` is ready when the README's next line can run, and stops when asked: with
event streams open on a paused turn, on Ctrl-C or SIGTERM, within the drain time; at once
on a second Ctrl-C, leaving nothing running."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import httpx
import pytest

from tests.api.test_streams import read_to_the_end
from tests.e2e.live_stack import Stack
from tests.e2e.test_stack import WRITE_MILK, plan_milk, reply_running
from tests.workflows.script import reply, understand

DRAIN = 10.0
"""``ALFRED_WORKER_DRAIN_SECONDS``'s default."""


async def ready(alfred: Stack) -> None:
    """Until /readyz is 200; the dev token is there at that moment (the README's curl
    session reads it next)."""
    async with httpx.AsyncClient(base_url=alfred.url) as http, asyncio.timeout(120):
        while True:
            if alfred.process.poll() is not None:
                raise AssertionError(f"alfred run exited:\n{alfred.process.stdout.read()}")
            try:
                if (await http.get("/readyz")).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.02)
    assert (alfred.workdir / ".alfred" / "dev-token").read_text().strip()


async def exited(alfred: Stack, within: float) -> tuple[int, float]:
    """Its exit code and how long after this call it exited."""
    began = time.monotonic()
    code = await asyncio.to_thread(alfred.process.wait, within)
    rest = alfred.process.stdout.read()
    alfred.output.append(rest)
    return code, time.monotonic() - began


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
async def test_a_stop_ends_the_open_streams_of_a_paused_turn_and_everything_stops(tmp_path, how):
    """Ctrl-C reaches the terminal's whole process group; SIGTERM only `alfred run`."""
    alfred = Stack(tmp_path)  # the offline demo model: "plan my dinners ..." is a proposal
    alfred.launch()
    try:
        await ready(alfred)
        async with alfred.client() as http:
            conversation = (await http.post("/v1/conversations", json={})).json()["id"]
            paused = (
                await http.post(
                    f"/v1/conversations/{conversation}/messages?wait=true",
                    json={"text": "plan my dinners for next week"},
                )
            ).json()
            assert paused["status"] == "awaiting_input", paused
            opened, asked = [], []

            def stop_once_both_are_open() -> None:
                opened.append(1)
                if len(opened) == 2:
                    asked.append(time.monotonic())
                    if how == "ctrl-c":
                        os.killpg(alfred.process.pid, signal.SIGINT)
                    else:
                        alfred.process.send_signal(signal.SIGTERM)

            async with asyncio.timeout(60):
                streams = await asyncio.gather(
                    *(
                        read_to_the_end(
                            http, "GET", url, when="awaiting_input", then=stop_once_both_are_open
                        )
                        for url in (
                            f"/v1/turns/{paused['id']}/events",
                            f"/v1/conversations/{conversation}/events",
                        )
                    )
                )
        code, _ = await exited(alfred, within=DRAIN + 60)
        took = time.monotonic() - asked[0]
        print(f"{how}: stopped {took:.1f} s after the signal")
        for events in streams:
            assert [name for name, _ in events[-2:]] == ["awaiting_input", "server_closing"]
        said = "".join(alfred.output)
        assert code == 0, said[-3000:]
        assert "alfred: stopped" in said and "Traceback" not in said, said[-3000:]
        assert took < DRAIN + 10  # nothing to drain: it stops in seconds (a generous bound)
        assert alfred.children() == []
    finally:
        alfred.kill()


async def test_a_second_ctrl_c_stops_everything_at_once_without_waiting_for_the_drain(tmp_path):
    """A model call in flight that the worker would wait a minute for; a second worker
    process too. The second Ctrl-C stops every part at once: nothing is left running."""
    slow_reply = {**reply("Added milk."), "delay_seconds": 60}
    alfred = Stack(
        tmp_path,
        [understand(), plan_milk(), *WRITE_MILK, slow_reply],
        args=("--workers", "2"),
        settings={"ALFRED_WORKER_DRAIN_SECONDS": "60"},
    )
    alfred.start()
    try:
        async with alfred.client() as http:
            conversation = (await http.post("/v1/conversations", json={})).json()["id"]
            await http.post(f"/v1/conversations/{conversation}/messages", json={"text": "milk"})
        await reply_running(alfred)
        os.killpg(alfred.process.pid, signal.SIGINT)
        await asyncio.sleep(1)
        assert alfred.process.poll() is None  # the first: draining the model call
        os.killpg(alfred.process.pid, signal.SIGINT)
        code, took = await exited(alfred, within=30)
        print(f"second Ctrl-C: stopped {took:.1f} s after it")
        said = "".join(alfred.output)
        assert code == 130, said[-3000:]
        assert "alfred: stopping at once" in said and "alfred: stopped" in said
        assert alfred.children() == []  # the dev server, PostgreSQL, the worker process
        assert not (tmp_path / ".alfred" / "pg" / "postmaster.pid").exists()
    finally:
        alfred.kill()
