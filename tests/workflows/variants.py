"""Variants of TurnWorkflow that tests run or replay to show what breaks a history.

Kept apart from the test modules: the workflow sandbox re-imports the module that defines a
workflow class, and these import nothing but workflow code."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.interface import TurnInput, TurnOutput
    from workflows.turn import TurnWorkflow
    from workflows.versions import AT_START, CHANGES, OPEN_TURN, SHARED_REGISTRY, Versions


@workflow.defn(name="TurnWorkflow")
class ReorderedTurnWorkflow(TurnWorkflow):
    """The same workflow with one change in control flow: it marks the turn before loading."""

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        return await super().run(turn)

    async def _begin(self) -> None:
        await self.rt.mark_turn("running")
        await super()._begin()


class _AsksAfterLocalActivities(Versions):
    """The patch placement before ``workflows.versions``: every change asked where used."""

    def decide(self) -> None:
        self._at_start = False
        self._changes = dict.fromkeys(CHANGES, False)


@workflow.defn(name="TurnWorkflowAskingLate")
class TurnWorkflowAskingLate(TurnWorkflow):
    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        self.rt.versions = _AsksAfterLocalActivities()
        return await super().run(turn)


class _Before(Versions):
    """A run started before ``change``: neither it nor any later change is asked (no
    marker is recorded), every earlier one is."""

    def __init__(self, change: str) -> None:
        super().__init__()
        self.left_out = CHANGES[CHANGES.index(change) :]

    def decide(self) -> None:
        self._at_start = workflow.patched(AT_START)
        for change in CHANGES:
            asked = change not in self.left_out and self._at_start
            self._changes[change] = asked and workflow.patched(change)


@workflow.defn(name="TurnWorkflow")
class TurnWorkflowBeforeSharedRegistry(TurnWorkflow):
    """A run as started before ``SHARED_REGISTRY``: its histories replay on TurnWorkflow."""

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        self.rt.versions = _Before(SHARED_REGISTRY)
        return await super().run(turn)


@workflow.defn(name="TurnWorkflow")
class TurnWorkflowBeforeOpenTurn(TurnWorkflow):
    """A run as started before ``OPEN_TURN`` (three local activities open the turn): its
    histories replay on TurnWorkflow."""

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        self.rt.versions = _Before(OPEN_TURN)
        return await super().run(turn)
