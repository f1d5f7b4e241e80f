"""Committed histories of real turns replay against today's workflow code.

A change to the workflow's control flow that would break turns already running in
production fails here; such a change must go behind ``workflow.patched`` or into a new
workflow type. Histories are recorded with ``ALFRED_RECORD_HISTORIES=1`` (see conftest).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from workflows.bypass import BypassTurnWorkflow
from workflows.contracts import TurnInput, TurnOutput
from workflows.turn import TurnWorkflow

HISTORIES = sorted((Path(__file__).parent / "histories").glob("*.json"))


def history(path: Path) -> WorkflowHistory:
    return WorkflowHistory.from_json(path.stem, path.read_text())


def test_histories_are_committed_for_the_main_paths():
    names = {p.stem for p in HISTORIES}
    assert {
        "quick_read",
        "proposal_confirmed",
        "proposal_expired",
        "ask_user_answered",
        "cancelled",
        "failed_invalid_output",
        "llm_call_cap",
    } <= names


@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
async def test_committed_history_replays(path: Path):
    replayer = Replayer(
        workflows=[TurnWorkflow, BypassTurnWorkflow], data_converter=pydantic_data_converter
    )
    result = await replayer.replay_workflow(history(path), raise_on_replay_failure=False)
    assert result.replay_failure is None, result.replay_failure


@workflow.defn(name="TurnWorkflow")
class ReorderedTurnWorkflow(TurnWorkflow):
    """The same workflow with one change in control flow: it marks the turn before loading."""

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        return await super().run(turn)

    async def _begin(self) -> None:
        await self.rt.mark_turn("running")
        await super()._begin()


async def test_a_reordered_workflow_fails_replay():
    replayer = Replayer(workflows=[ReorderedTurnWorkflow], data_converter=pydantic_data_converter)
    proposal = next(p for p in HISTORIES if p.stem == "proposal_confirmed")
    result = await replayer.replay_workflow(history(proposal), raise_on_replay_failure=False)
    assert isinstance(result.replay_failure, workflow.NondeterminismError)
