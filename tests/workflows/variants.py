"""Variants of TurnWorkflow that tests run or replay to show what breaks a history.

Kept apart from the test modules: the workflow sandbox re-imports the module that defines a
workflow class, and these import nothing but workflow code."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.interface import TurnInput, TurnOutput
    from workflows.turn import TurnWorkflow
    from workflows.versions import CHANGES, Versions


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
