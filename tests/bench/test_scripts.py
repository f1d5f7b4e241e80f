"""The benchmarks' scripted models answer as a model must: a bench turn runs its plan with
no node falling back, so what a bench measures is the turn it describes."""

from __future__ import annotations

from activities.llm.script_provider import ScriptProvider
from bench.context_growth import turn_script
from bench.turn_overhead import plan_turn_script
from tests.workflows.conftest import COMPRESS, SUMMARIZE, Turns, progress


async def run_turns(turns: Turns, provider: ScriptProvider, count: int) -> list:
    settled = []
    async with turns.worker(provider):
        for n in range(1, count + 1):
            handle = await turns.start(f"turn {n}")
            result = await handle.result()
            settled.append((result, await progress(handle)))
    return settled


async def test_the_plan_turn_runs_a_read_step_and_a_write_step(turns: Turns):
    for n, (result, seen) in enumerate(await run_turns(turns, plan_turn_script(2), 2), 1):
        assert result.status == "completed" and result.response == f"Added item {n - 1}."
        assert seen.fallbacks == [] and [s.status for s in seen.steps] == ["completed"] * 2


async def test_the_context_growth_turns_run_without_fallbacks(turns: Turns):
    responses = [entry for n in range(1, 6) for entry in turn_script(n)]
    provider = ScriptProvider.from_responses([*responses, SUMMARIZE, COMPRESS])
    for n, (result, seen) in enumerate(await run_turns(turns, provider, 5), 1):
        assert result.status == "completed" and seen.fallbacks == [], (n, seen.fallbacks)
        assert result.response.startswith(f"Done with turn {n}."), result.response
