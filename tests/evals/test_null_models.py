"""Two models that know nothing score 0 of 30, and 0 of the 167 probes
(``evals.null_models``): one answers every call with the least the schema allows, one
takes the first option everywhere. Their answers fit every contract (no call is a
repair), so each turn runs through the whole stack, as the reference replay does, and is
graded on what it left; a scenario either passes checks too little and must be
strengthened, never this test relaxed."""

from __future__ import annotations

import pytest

from evals.null_models import NULL_MODELS
from evals.runner import run_scenario
from evals.scenario import PROBES_DIR, Expect, load_all

SCENARIOS = load_all()
PROBES = load_all(PROBES_DIR)
HALF = len(PROBES) // 2
SETS = {"scenarios": SCENARIOS, "probes, first half": PROBES[:HALF], "the rest": PROBES[HALF:]}
"""Each model runs each set in a test of its own, each within the suite's time limit."""


@pytest.mark.parametrize("model", list(NULL_MODELS))
@pytest.mark.parametrize("which", list(SETS))
async def test_a_model_that_knows_nothing_passes_no_scenario(model, which, eval_stack):
    passed, errors, repaired, unasked = [], [], [], []
    async with eval_stack(NULL_MODELS[model]()) as stack:
        for scenario in SETS[which]:
            result = await run_scenario(scenario, stack)
            if result.passed:
                passed.append(scenario.id)
            if result.error is not None:
                errors.append(f"{scenario.id}: {result.error}")
            if any(c.repair for c in result.calls):
                repaired.append(scenario.id)
            if not result.calls:
                unasked.append(scenario.id)
    assert errors == []
    assert unasked == []
    assert repaired == []
    assert passed == [], f"the {model} model passes {passed}: their checks grade too little"


async def test_a_scenario_that_checks_too_little_is_passed_by_a_null_model(eval_stack):
    """ui_edit_seen checking only that the turn ends without a pause is passed by the
    minimal model, whose reply is one letter; the scenario's checks fail it. (Until a
    repeated call ended its step, ui_edit_seen's old "the reply says 3" check was passed
    too: the minimal model looped into the step limit, whose message says "3 tool calls".)"""
    weak = next(s for s in SCENARIOS if s.id == "ui_edit_seen").model_copy(deep=True)
    weak.turns[0].expect = Expect()
    async with eval_stack(NULL_MODELS["minimal"]()) as stack:
        result = await run_scenario(weak, stack)
    assert result.passed and result.turns[0].response == "x"
