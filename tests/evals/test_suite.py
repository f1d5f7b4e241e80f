"""``make test`` runs the whole eval suite from its reference recordings: every scenario
passes with the answers a correct model gives, so the scenarios, their checks and the
harness are proven without a model."""

from __future__ import annotations

import pytest

from evals.cassette import CASSETTES_DIR, Cassette, Replay
from evals.runner import run_scenario
from evals.scenario import load_all

SCENARIOS = load_all()
REFERENCE = CASSETTES_DIR / "reference"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
async def test_the_scenario_passes_with_its_reference_recording(scenario, eval_stack):
    replay = Replay(Cassette.load(REFERENCE, scenario.id))
    async with eval_stack(replay) as stack:
        result = await run_scenario(scenario, stack, replay)
    failed = [
        f"turn {n}: {c.name}: {c.detail}"
        for n, t in enumerate(result.turns, 1)
        for c in t.checks
        if not c.passed
    ]
    assert result.error is None, result.error
    assert failed == [], failed
    assert set(scenario.covers) <= result.reached, sorted(set(scenario.covers) - result.reached)
