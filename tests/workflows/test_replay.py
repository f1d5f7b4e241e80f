"""Committed histories of real turns replay against today's workflow code.

A change to the workflow's control flow that would break turns already running in
production fails here; such a change must go behind ``workflow.patched`` or into a new
workflow type. Histories are recorded with ``ALFRED_RECORD_HISTORIES=1`` (see conftest).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer, Worker

from tests.replay import (
    local_activity_markers,
    local_activity_types,
    patches,
    replay_failures,
    split_after,
)
from tests.workflows.conftest import Turns
from tests.workflows.script import quick
from tests.workflows.variants import ReorderedTurnWorkflow, TurnWorkflowAskingLate
from workflows.bypass_turn import BypassTurnWorkflow
from workflows.interface import TurnInput
from workflows.turn import TurnWorkflow
from workflows.versions import AT_START, FOLDED
from workflows.worker import turn_activities

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


async def test_a_reordered_workflow_fails_replay():
    replayer = Replayer(workflows=[ReorderedTurnWorkflow], data_converter=pydantic_data_converter)
    proposal = next(p for p in HISTORIES if p.stem == "proposal_confirmed")
    result = await replayer.replay_workflow(history(proposal), raise_on_replay_failure=False)
    assert isinstance(result.replay_failure, workflow.NondeterminismError)


# --- a busy worker's histories ------------------------------------------------------------
# On a busy worker a local activity's result can be recorded in one workflow task and the
# code after it run in the next (workflows/versions.py). ``split_after`` writes that shape.


QUICK_READ = (
    quick("Show the user's inventory", "inventory"),
    {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "inventory"}}},
)


async def _quick_read_history(turns: Turns, kind) -> WorkflowHistory:
    script = turns.script(*QUICK_READ)
    activities = list(turn_activities(turns.sessions, script).values())
    async with Worker(
        turns.env.client,
        task_queue=turns.task_queue,
        workflows=[kind],
        activities=activities,
    ):
        handle = await turns.env.client.start_workflow(
            kind.run,
            TurnInput(
                conversation_id=turns.conversation_id,
                user_id=turns.user_id,
                turn_number=1,
                message="what's in my pantry?",
            ),
            id=f"turn-{uuid.uuid4().hex}",
            task_queue=turns.task_queue,
        )
        assert (await handle.result()).status == "completed"
        return await handle.fetch_history()


async def test_asking_for_a_patch_after_a_local_activity_breaks_a_busy_workers_history(
    turns: Turns,
):
    history = await _quick_read_history(turns, TurnWorkflowAskingLate)
    begin_turn = local_activity_markers(history)[0]
    replayer = Replayer(workflows=[TurnWorkflowAskingLate], data_converter=pydantic_data_converter)
    as_recorded = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert as_recorded.replay_failure is None
    busy = await replayer.replay_workflow(
        split_after(history, begin_turn), raise_on_replay_failure=False
    )
    assert isinstance(busy.replay_failure, workflow.NondeterminismError)
    assert "patch marker" in str(busy.replay_failure)
    # The guard's one busy variant (a split after every local activity) finds it too.
    failures = await replay_failures(history, workflows=[TurnWorkflowAskingLate])
    assert len(failures) == 1 and "after each local activity" in failures[0]


async def test_every_busy_worker_shape_of_a_turn_replays(turns: Turns):
    history = await _quick_read_history(turns, TurnWorkflow)
    assert len(local_activity_markers(history)) >= 3
    assert await replay_failures(history) == []


async def test_a_new_run_records_one_patch_marker_for_every_change_so_far(turns: Turns):
    history = await _quick_read_history(turns, TurnWorkflow)
    assert patches(history) == [FOLDED]


def test_the_committed_histories_cover_runs_from_before_and_after_patches_at_start():
    """Runs without the AT_START marker ask for the older changes where they first did; runs
    with it, every change in turn; runs with the fold, one marker. All must keep replaying
    (above). Old runs in a busy shape fail as they always would: ``alfred turns end-stuck``
    ends such turns."""
    firsts = [patches(history(p))[:1] for p in HISTORIES]
    assert [AT_START] in firsts
    assert [FOLDED] in firsts
    assert ["turn-context"] in firsts or [] in firsts


def test_the_committed_histories_cover_turns_opened_both_ways():
    """Runs from before ``open-turn`` load with ``begin_turn`` (and prepare apart); newer
    runs open with one ``open_turn``: both must keep replaying (above)."""
    openings = set()
    for path in HISTORIES:
        kinds = local_activity_types(history(path))
        openings.update(k for k in kinds if k in ("open_turn", "begin_turn"))
    assert openings == {"open_turn", "begin_turn"}
