"""Which changes of the turn's control flow a run follows, decided once, as it starts.

A change ships behind ``state.versions.has(X)`` (``TurnState.versions``) beside the old
path, leaves the old path once no running turn needs it (``deprecated``), and leaves for
good once no running turn recorded its marker (docs/ARCHITECTURE.md "Versioning",
docs/HOWTO.md "Change the turn's control flow"; ``alfred turns versions`` says which
running turns hold on to one).

Why at start: ``workflow.patched(X)`` answers from the markers of the workflow task in
which the code asks. Right after a local activity that task is not certain: on a busy
worker the activity's result can be recorded in one workflow task and the code after it
run in the next; replay then asks in the first, finds no marker and answers "not
patched" where the run had answered "patched" (``TMPRL1100``), and the run is stuck for
good. The first activation of a run has no such race, so ``decide`` asks there, once.
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import workflow


@dataclass(frozen=True)
class Change:
    id: str
    """The patch id: never reused."""
    release: str
    """The release it came in (``1.1.0``)."""
    what: str
    """What a run that has it does differently."""
    deprecated: bool = False
    """The old path is gone (every run takes the new one): asked with ``deprecate_patch``
    so that runs which recorded the marker still replay; removed a release later."""


MODE_RULES_IN_THINK = "mode-rules-in-think"
ASK_WHICH_WAS_POINTED_AT = "ask-which-was-pointed-at"
FORGET_ENDS_THE_TURN = "forget-ends-the-turn"

CHANGES: tuple[Change, ...] = (
    Change(
        id=MODE_RULES_IN_THINK,
        release="1.1.0",
        what=(
            "Think's activity holds the plan to the mode's rules "
            "(domain.enforced.plan_rules.hold_plan: plan mode proposes a plan that saves what "
            "it generates); the workflow no longer proposes a plan-mode plan because it writes "
            "in two or more steps"
        ),
    ),
    Change(
        id=ASK_WHICH_WAS_POINTED_AT,
        release="1.1.0",
        what=(
            'a delete that points instead of naming ("delete that one") right after a '
            "turn that showed several rows asks which of them (domain.choices."
            "which_was_pointed_at), whatever Understand said"
        ),
    ),
    Change(
        id=FORGET_ENDS_THE_TURN,
        release="1.1.0",
        what=(
            'a message that only asks to forget what was suggested ("forget that recipe") '
            "ends the turn once the unsaved content is forgotten (domain.curation."
            "forget_what_was_shown), with no Think, Act or Reply"
        ),
    ),
)
"""The changes in force, in the order they are asked (append; never reorder)."""


class Versions:
    def __init__(self, changes: tuple[Change, ...] | None = None) -> None:
        self.changes = CHANGES if changes is None else changes
        self._has: dict[str, bool] | None = None

    def decide(self) -> None:
        """Ask for every change; call first in ``@workflow.run``, before any ``await``."""
        self._has = {}
        for change in self.changes:
            if change.deprecated:
                workflow.deprecate_patch(change.id)
                self._has[change.id] = True
            else:
                self._has[change.id] = workflow.patched(change.id)

    def has(self, change: str) -> bool:
        """Whether this run takes ``change``'s new path."""
        if self._has is None:
            raise RuntimeError("Versions.has() before Versions.decide()")
        return self._has[change]
