"""A worker's activities take their limits from the settings it is built with."""

from __future__ import annotations

from activities.llm.script_provider import ScriptProvider
from domain.settings import Settings
from workflows.worker import activity_settings, turn_activities


def test_the_models_window_and_the_budgets_reach_the_node_activities(sessions):
    settings = Settings(
        _env_file=None, llm_context_tokens=8_192, act_budget_tokens=9_000, context_budget_tokens=7
    )
    built = turn_activities(
        sessions, ScriptProvider.from_responses([]), **activity_settings(settings)
    )
    nodes = built["act"].__self__
    assert (nodes.window, nodes.act_budget, nodes.context_budget) == (8_192, 9_000, 7)
    unset = turn_activities(
        sessions, ScriptProvider.from_responses([]), **activity_settings(Settings(_env_file=None))
    )
    assert unset["act"].__self__.window is None
