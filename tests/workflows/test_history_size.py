"""A plan turn's history stays small: what every activity's input and result carries is
bounded, so a long conversation does not make each turn heavier to record and replay.

Measured with bench/history_growth (docs/BENCHMARKS.md) before registry deltas and
summary parts: 32 KiB at turn 1, ~73 KiB at turn 5, 130 KiB at turn 50 (now 81). The bound
below is for the first five turns, with headroom; a change that sends the whole state or
registry once more per call breaks it.
"""

from __future__ import annotations

from bench.turn_overhead import plan_turn_script
from tests.workflows.conftest import Turns

TURNS = 5
BOUND_KIB = 100


async def test_the_first_plan_turns_histories_stay_under_the_bound(turns: Turns):
    sizes = []
    async with turns.worker(plan_turn_script(TURNS)):
        for n in range(1, TURNS + 1):
            handle = await turns.start(f"add item {n}")
            assert (await handle.result()).status == "completed"
            history = await handle.fetch_history()
            sizes.append(sum(e.ByteSize() for e in history.events) / 1024)
    assert max(sizes) <= BOUND_KIB, [round(s) for s in sizes]
    assert sizes[0] >= 16, "the plan turn ran its steps"  # not a turn that fell back early
