"""Which changes of the workflows' control flow a run follows, decided once, as it starts.

``workflow.patched(id)`` answers from the patch markers of the workflow task in which the
code asks. Right after a local activity that workflow task is not certain: on a busy
worker the activity's result can be recorded (its marker) in one workflow task while the
code that follows it runs, and records the patch marker, in the next. Replay resolves the
activity in the first of the two, asks there, finds no marker and answers "not patched"
where the run had answered "patched": ``[TMPRL1100] Non-deprecated patch marker
encountered``, and the run is stuck for good. The first activation of a run has no such
race (everything it does is in the first workflow task), so every run asks there, once.

Runs started before this rule (no ``AT_START`` marker) still ask for the two older changes
where they first did, so their histories replay as recorded. A new change is appended to
``CHANGES`` (never reordered or removed while runs that asked may exist) and read with
``has``; nothing else in ``workflows/`` calls ``workflow.patched``. New runs record one
marker (``FOLDED``) for every change up to ``FOLDED_THROUGH``, not one each.
"""

from __future__ import annotations

from temporalio import workflow

AT_START = "patches-at-start"
"""Recorded in the first workflow task of every run that decides its changes there."""

LEGACY = ("turn-status-search-attribute", "turn-context")
"""Changes that runs without ``AT_START`` asked for at the point of use (all are in force
for runs with it)."""

DEGRADE = "degrade-model-failures"
"""A model call that fails for good degrades the turn (an Act step blocked, an honest
reply, Act Quick falling back to a plan, deterministic reply and summary) instead of
failing it; Act Quick retries a failed read once with the error shown."""

WRITE_CHECKS = "act-write-checks"
"""An Act write outside its step's subdomain, or identical to one the step already made,
is answered with an error instead of being run."""

FOLLOW_UPS = "queued-follow-ups"
"""A turn started while the one before it was still saving its state (``queued``) waits,
durably, until that state is saved, then loads it."""

MODE_RULES = "mode-rules"
"""Think's decision is held to the mode (``domain.modes.apply_mode``): quick runs a
proposal directly, plan proposes a plan that writes more than once."""

CHOICES = "disambiguation-choices"
"""Understand's ``needs_disambiguation`` is asked as a numbered choice between registry
entities, and the answer is resolved to the chosen ref before Understand runs again."""

BATCHES = "batch-manifest"
"""A write step that saves generated items keeps a manifest (``domain.batch``) and may not
complete while an item is pending (twice refused, then completed with the rest flagged)."""

WHICH_DELETE = "which-delete"
"""A delete request naming an item in several tables and no place ("delete the eggs") is
asked as a choice between them, unless the last two turns pointed at one."""

OLD_REFS = "old-refs-kept"
"""A ref from before the working copy's turns that a model names (Understand, an Act
completion) joins the copy with its saved entry instead of counting as unknown, and a
parallel step that met one keeps its name when the steps are folded back."""

ARCHIVE_KEYS = "archive-by-keys"
"""The working copy holds the saved content archive's keys only (the turn's new content
whole): a ``retrieve_archive`` gets the saved content from Act's activity, and the ending's
keys without content keep what was saved."""

SHARED_REGISTRY = "shared-registry"
"""Steps of one group work in the turn's one registry: each CRUD call's delta is applied
as it returns, the calls taking turns (``TurnRuntime.crud``), so a ref the model sees is
the ref the row keeps. Before it each step worked on a copy, folded back in step order
(``SessionIdRegistry.absorb``) with the refs it had shown renamed."""

OPEN_TURN = "open-turn"
"""A turn opens with one local activity (``open_turn``: the turn before has saved, the
state is loaded, the pre-processing read is done) instead of three, two activations fewer
per turn (issue 16). ``TurnWorkflow`` only: ``BypassTurnWorkflow`` still opens with
``begin_turn``; moving it needs a change of its own (its runs with ``FOLDED`` already
answer True here)."""

CHANGES: tuple[str, ...] = (
    DEGRADE,
    WRITE_CHECKS,
    FOLLOW_UPS,
    MODE_RULES,
    CHOICES,
    BATCHES,
    WHICH_DELETE,
    OLD_REFS,
    ARCHIVE_KEYS,
    SHARED_REGISTRY,
    OPEN_TURN,
)
"""Changes made after ``AT_START``: asked in the first activation, in this order."""

FOLDED = "changes-through-open-turn"
"""One marker standing for ``AT_START`` and every change of ``CHANGES`` through
``FOLDED_THROUGH``: a run that records it asks none of them. Each ``patched`` call that
records a marker also upserts the ``TemporalChangeVersion`` search attribute, so twelve
changes asked one by one were ~23 of a plan turn's 82 history events and 11 visibility
writes; folded, a plan turn writes 60. ``TemporalChangeVersion`` of a new run says
``changes-through-open-turn``. A change appended later is asked after it, on its own; a
later fold is asked before this one, which runs recorded before it keep answering."""

FOLDED_THROUGH = OPEN_TURN


class Versions:
    def __init__(self) -> None:
        self._at_start: bool | None = None
        self._changes: dict[str, bool] = {}

    def decide(self) -> None:
        """Ask for every change; call first in ``@workflow.run``, before any ``await``."""
        if workflow.patched(FOLDED):
            self._at_start = True
            folded = CHANGES.index(FOLDED_THROUGH) + 1
            self._changes = dict.fromkeys(CHANGES[:folded], True)
            for change in CHANGES[folded:]:
                self._changes[change] = workflow.patched(change)
            return
        # A run recorded before the fold: its markers, one by one.
        self._at_start = workflow.patched(AT_START)
        for change in CHANGES:
            self._changes[change] = self._at_start and workflow.patched(change)

    def has(self, change: str) -> bool:
        """Whether this run follows ``change``."""
        if self._at_start is None:
            raise RuntimeError("Versions.has() before Versions.decide()")
        if change in LEGACY:
            # A run from before AT_START asks where it always did: its history has the
            # marker (or not) right there.
            return True if self._at_start else workflow.patched(change)
        return self._changes[change]
