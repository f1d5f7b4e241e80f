"""Committed histories of real turns replay against today's workflow code.

A change to the workflow's control flow that would break turns already running fails
here; such a change ships behind ``state.versions.has`` (``workflows.versions``;
docs/HOWTO.md "Change the turn's control flow"). Histories are recorded with
``ALFRED_RECORD_HISTORIES=1`` (see conftest).
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
    VARIANT,
    local_activity_markers,
    local_activity_types,
    patches,
    replay_failures,
    replayer,
    split_after,
)
from tests.workflows.conftest import Turns
from tests.workflows.script import quick
from tests.workflows.variants import (
    MARK_FIRST,
    ReorderedTurnWorkflow,
    TurnWorkflowAskingLate,
    TurnWorkflowChangeDeprecated,
    TurnWorkflowChangeRemoved,
    TurnWorkflowWithAChange,
)
from workflows.bypass_turn import BypassTurnWorkflow
from workflows.interface import TurnInput
from workflows.state import TurnState
from workflows.turn import TurnWorkflow
from workflows.versions import CHANGES
from workflows.worker import WORKFLOW_RUNNER, turn_activities

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
        "think_invalid_output",
        "llm_call_cap",
        "cook_session",
    } <= names


def test_the_committed_histories_are_of_the_changes_in_force():
    """Every committed run opens with ``open_turn`` and recorded markers of ``CHANGES`` only
    (none at 1.0): histories of retired paths are deleted with them."""
    in_force = {change.id for change in CHANGES}
    for path in HISTORIES:
        recorded = history(path)
        assert set(patches(recorded)) <= in_force, path.stem
        assert local_activity_types(recorded)[0] == "open_turn", path.stem


@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
async def test_committed_history_replays(path: Path):
    replayer = Replayer(
        workflows=[TurnWorkflow, BypassTurnWorkflow], data_converter=pydantic_data_converter
    )
    result = await replayer.replay_workflow(history(path), raise_on_replay_failure=False)
    assert result.replay_failure is None, result.replay_failure


async def test_the_worker_shares_the_workflow_modules_and_replays_import_them_afresh(
    monkeypatch,
):
    """The worker runs our workflow modules as the process loaded them
    (``workflows.worker.WORKFLOW_RUNNER``: no import per turn); a replay with the default
    sandbox imports them afresh, so the sandbox checks their calls there (every history a
    test run writes is replayed so)."""

    def changed_in_the_process(self):
        raise RuntimeError("the process's own copy of workflows.state ran")

    monkeypatch.setattr(TurnState, "clock", changed_in_the_process)
    quick_read = history(next(p for p in HISTORIES if p.stem == "quick_read"))
    afresh = await replayer().replay_workflow(quick_read, raise_on_replay_failure=False)
    assert afresh.replay_failure is None, afresh.replay_failure
    shared = Replayer(
        workflows=[TurnWorkflow, BypassTurnWorkflow],
        data_converter=pydantic_data_converter,
        workflow_runner=WORKFLOW_RUNNER,
    )
    result = await shared.replay_workflow(quick_read, raise_on_replay_failure=False)
    assert "the process's own copy" in str(result.replay_failure)


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
            id=("turn-" if kind is TurnWorkflow else VARIANT) + uuid.uuid4().hex,
            task_queue=turns.task_queue,
        )
        assert (await handle.result()).status == "completed"
        return await handle.fetch_history()


async def test_asking_for_a_patch_after_a_local_activity_breaks_a_busy_workers_history(
    turns: Turns,
):
    history = await _quick_read_history(turns, TurnWorkflowAskingLate)
    open_turn = local_activity_markers(history)[0]
    replayer = Replayer(workflows=[TurnWorkflowAskingLate], data_converter=pydantic_data_converter)
    as_recorded = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert as_recorded.replay_failure is None
    busy = await replayer.replay_workflow(
        split_after(history, open_turn), raise_on_replay_failure=False
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


# --- a change of control flow, from release to removal (workflows/versions.py) ------------


async def replays(history: WorkflowHistory, kind: type) -> bool:
    replayer = Replayer(workflows=[kind], data_converter=pydantic_data_converter)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    return result.replay_failure is None


async def test_a_change_is_asked_at_start_and_runs_from_before_it_keep_the_old_path(
    turns: Turns,
):
    before = await _quick_read_history(turns, TurnWorkflow)
    in_force = [change.id for change in CHANGES]
    assert patches(before) == in_force  # a run of the release before
    after = await _quick_read_history(turns, TurnWorkflowWithAChange)
    assert patches(after) == [*in_force, MARK_FIRST.id]
    # asked in the first workflow task, before any local activity's result
    marker = next(
        i for i, e in enumerate(after.events) if e.HasField("marker_recorded_event_attributes")
    )
    assert marker < local_activity_markers(after)[0]
    # the new path: has() answered True (one mark_turn more)
    assert local_activity_types(after).count("mark_turn") == (
        local_activity_types(before).count("mark_turn") + 1
    )
    assert await replays(before, TurnWorkflowWithAChange)  # has() answers False: old path
    assert await replays(after, TurnWorkflowWithAChange)
    assert not await replays(after, TurnWorkflow)  # the change cannot leave while it runs
    assert await replay_failures(after, workflows=[TurnWorkflowWithAChange]) == []


async def test_a_deprecated_change_replays_the_runs_that_recorded_it_then_leaves(
    turns: Turns,
):
    released = await _quick_read_history(turns, TurnWorkflowWithAChange)
    assert await replays(released, TurnWorkflowChangeDeprecated)  # release N+1
    deprecated = await _quick_read_history(turns, TurnWorkflowChangeDeprecated)
    assert patches(deprecated) == [*(change.id for change in CHANGES), MARK_FIRST.id]
    assert await replays(deprecated, TurnWorkflowChangeDeprecated)
    # release N+2: a deprecated marker is skipped, a release N marker is not
    assert await replays(deprecated, TurnWorkflowChangeRemoved)
    assert not await replays(released, TurnWorkflowChangeRemoved)
