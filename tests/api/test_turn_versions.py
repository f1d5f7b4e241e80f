"""``alfred turns versions`` reads from Temporal which running turns still need an old path of
the turn: per change, the runs without its marker (a live change) or with its ``patched``
marker (a deprecated one), and the runs of a release before 1.0. On a real dev server: its
visibility store keeps ``TemporalChangeVersion``."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from api.temporal import connect
from api.turn_versions import CHANGE_VERSION, Report, lines, report, waiting
from domain.settings import Settings
from tests.api.test_cli import alfred
from tests.workflows.variants import TurnOfARelease
from workflows.versions import CHANGES, Change

LIVE = Change(id="live-change", release="9.1.0", what="a test change, shipped")
OLD = Change(id="old-change", release="9.0.0", what="a test change, deprecated", deprecated=True)


@asynccontextmanager
async def running(client: Client, runs: dict[str, list[str]]) -> AsyncIterator[dict[str, str]]:
    """Turns that recorded ``runs[name]``'s markers and wait, seen by visibility with them;
    their workflow ids by name. Terminated on exit."""
    queue = f"versions-{uuid.uuid4().hex[:8]}"
    handles: list[WorkflowHandle] = []
    async with Worker(client, task_queue=queue, workflows=[TurnOfARelease]):
        try:
            for name, markers in runs.items():
                handles.append(
                    await client.start_workflow(
                        TurnOfARelease.run, markers, id=f"{queue}-{name}", task_queue=queue
                    )
                )
            ids = {name: f"{queue}-{name}" for name in runs}
            expected = {ids[n]: {m.lstrip("~") for m in markers} for n, markers in runs.items()}
            query = f'TaskQueue = "{queue}" AND ExecutionStatus = "Running"'
            await visible(client, query, expected)
            yield ids
        finally:
            for handle in handles:
                await handle.terminate("test over")


async def visible(client: Client, query: str, expected: dict[str, set[str]]) -> None:
    """Wait until visibility lists, for ``query``, exactly ``expected`` (workflow id: the
    patch ids it recorded)."""
    async with asyncio.timeout(30):
        while True:
            seen = {
                run.id: set(run.typed_search_attributes.get(CHANGE_VERSION) or [])
                async for run in client.list_workflows(query)
            }
            if seen == expected:
                return
            await asyncio.sleep(0.2)


async def test_each_change_names_the_running_turns_that_still_need_it(dev_temporal):
    client = await connect(Settings(_env_file=None, temporal_address=dev_temporal))
    runs = {
        "before-live": [OLD.id],
        "with-live": [OLD.id, LIVE.id],
        "deprecated-old": [f"~{OLD.id}", LIVE.id],
        "before-1-0": ["changes-through-open-turn"],
    }
    async with running(client, runs) as ids:
        found = await report(client, (LIVE, OLD))
    live, old = found.holding
    mine = set(ids.values())
    assert set(found.running) >= mine
    # a live change: its old branch is needed by the runs without its marker
    assert set(live.turns) & mine == {ids["before-live"], ids["before-1-0"]}
    # a deprecated one: deprecate_patch is needed by the runs that recorded it with patched
    assert set(old.turns) & mine == {ids["before-live"], ids["with-live"]}
    assert set(found.before_1_0) & mine == {ids["before-1-0"]}
    assert waiting(found)
    said = "\n".join(lines(found))
    assert (
        f"live-change (live, since 9.1.0): {len(live.turns)} running turn(s) need its old path"
        in said
    )
    assert f"old-change (deprecated, since 9.0.0): {len(old.turns)} running" in said
    assert ids["before-1-0"] in said and "alfred turns end-stuck" in said


async def test_the_command_names_turns_of_a_release_before_1_0_until_they_end(
    dev_temporal, tmp_path
):
    client = await connect(Settings(_env_file=None, temporal_address=dev_temporal))
    async with running(client, {"old-turn": ["patches-at-start"]}) as ids:
        held = await asyncio.to_thread(
            alfred, "turns", "versions", cwd=tmp_path, ALFRED_TEMPORAL_ADDRESS=dev_temporal
        )
    assert held.returncode == 1, held.stderr
    for change in CHANGES:  # a turn of before 1.0 recorded none of them
        assert f"{change.id} (live, since {change.release}): " in held.stdout
    assert f"release before 1.0, which this release cannot run: {ids['old-turn']}" in held.stdout
    ended = f'WorkflowId = "{ids["old-turn"]}" AND ExecutionStatus = "Running"'
    await visible(client, ended, {})  # visibility sees the turn end
    free = await asyncio.to_thread(
        alfred, "turns", "versions", cwd=tmp_path, ALFRED_TEMPORAL_ADDRESS=dev_temporal
    )
    assert free.returncode == 0, free.stdout + free.stderr
    assert ids["old-turn"] not in free.stdout


def test_with_no_change_in_flight_the_report_says_so():
    said = lines(Report(running=["turn-1"], holding=[], before_1_0=[]))
    assert said == [
        "1 running turn(s)",
        "no change of the turn's control flow is in flight (CHANGES is empty)",
    ]
