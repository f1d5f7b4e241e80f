"""A plan turn's history stays the same size however long the conversation: model
activities read the saved state by reference and get only the turn's changes, the workflow
loads a working copy of the registry, and CRUD and Summarize send back what changed. A
long conversation does not make each turn heavier to record and replay.

Measured with bench/history_growth (docs/BENCHMARKS.md), the same plan turn 50 times:
130 KiB at turn 50 (32 at turn 1) before issue 15, 81 with registry deltas and summary
parts, 43 with the state by reference, 30 (29 at turn 1) with the working copy. A change
that sends the whole state or registry once more per call breaks the ratio below.
"""

from __future__ import annotations

from bench.turn_overhead import plan_turn_script
from tests.workflows.conftest import Turns

TURNS = 8
BOUND_KIB = 40
FLAT = 1.2
"""A later turn's history is at most this many times the first's (issue 15's goal)."""


async def test_plan_turns_histories_stay_flat_and_under_the_bound(turns: Turns):
    sizes = []
    async with turns.worker(plan_turn_script(TURNS)):
        for n in range(1, TURNS + 1):
            handle = await turns.start(f"add item {n}")
            assert (await handle.result()).status == "completed"
            history = await handle.fetch_history()
            sizes.append(sum(e.ByteSize() for e in history.events) / 1024)
    rounded = [round(s, 1) for s in sizes]
    assert sizes[0] >= 16, "the plan turn ran its steps"  # not a turn that fell back early
    assert max(sizes) <= BOUND_KIB, rounded
    assert max(sizes) <= FLAT * sizes[0], rounded
