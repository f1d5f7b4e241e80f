"""Variants of TurnWorkflow that tests run or replay to show what breaks a history and how a
change of control flow ships (``workflows.versions``).

Kept apart from the test modules: the workflow sandbox re-imports the module that defines a
workflow class, and these import nothing but workflow code."""

from __future__ import annotations

from dataclasses import replace

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.interface import TurnInput, TurnOutput
    from workflows.turn import TurnWorkflow
    from workflows.versions import CHANGES, Change, Versions

MARK_FIRST = Change(
    id="mark-first",
    release="test",
    what="the turn's row is marked running once more before Understand",
)
"""A change for the tests: its new path issues one command more (a ``mark_turn``), asked
after the changes in force."""


@workflow.defn(name="TurnWorkflow")
class ReorderedTurnWorkflow(TurnWorkflow):
    """The same workflow with one change in control flow and no patch: it marks the turn
    before opening it."""

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        opening = self.lifecycle.open

        async def marked_first() -> None:
            await self.lifecycle.mark_turn("running")
            await opening()

        self.lifecycle.open = marked_first  # type: ignore[method-assign]
        return await super().run(turn)


class _WithMarkFirst(TurnWorkflow):
    change = MARK_FIRST

    async def _converse(self) -> None:
        if self.state.versions.has(self.change.id):
            await self.lifecycle.mark_turn("running")
        return await super()._converse()


@workflow.defn(name="TurnWorkflow")
class TurnWorkflowWithAChange(_WithMarkFirst):
    """Release N: ``MARK_FIRST`` ships behind ``has``, asked at start."""

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        self.state.versions = Versions((*CHANGES, self.change))
        return await super().run(turn)


@workflow.defn(name="TurnWorkflow")
class TurnWorkflowChangeDeprecated(_WithMarkFirst):
    """Release N+1: ``MARK_FIRST`` deprecated; every run takes its new path (``has`` of a
    deprecated change is True: the old branch would be deleted)."""

    change = replace(MARK_FIRST, deprecated=True)

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        self.state.versions = Versions((*CHANGES, self.change))
        return await super().run(turn)


@workflow.defn(name="TurnWorkflow")
class TurnWorkflowChangeRemoved(TurnWorkflow):
    """Release N+2: ``MARK_FIRST`` is gone from ``CHANGES``; its new path is the only one."""

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        return await super().run(turn)

    async def _converse(self) -> None:
        await self.lifecycle.mark_turn("running")
        return await super()._converse()


@workflow.defn(name="TurnWorkflowAskingLate")
class TurnWorkflowAskingLate(TurnWorkflow):
    """The placement ``workflows.versions`` forbids: the change asked where it is used, right
    after the turn's first local activity (``open_turn``)."""

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        return await super().run(turn)

    async def _converse(self) -> None:
        if workflow.patched(MARK_FIRST.id):
            await self.lifecycle.mark_turn("running")
        return await super()._converse()


@workflow.defn(name="TurnWorkflow")
class TurnOfARelease:
    """A stand-in for a running turn of some release: it records the patch markers it is
    given (``~id``: with ``deprecate_patch``) in its first activation, then waits."""

    @workflow.run
    async def run(self, markers: list[str]) -> None:
        for marker in markers:
            if marker.startswith("~"):
                workflow.deprecate_patch(marker[1:])
            else:
                workflow.patched(marker)
        await workflow.wait_condition(lambda: False)
