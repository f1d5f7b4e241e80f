"""The turn's pre-processing read (seed 000): profile, kitchen dashboard, and fresh rows for
UI changes and @-mentions, in one read-only transaction scoped to the user."""

from __future__ import annotations

from temporalio import activity

from activities.payloads import PrepareTurnRequest, PrepareTurnResult, StateRef
from activities.saved_state import SavedStates
from domain.db.engine import user_transaction
from domain.kitchen.snapshot import turn_context
from domain.registry import RegistryDelta
from domain.turn_context import TurnContext
from domain.turn_store import Sessions


class TurnContextActivities:
    def __init__(self, sessions: Sessions, states: SavedStates | None = None) -> None:
        self.sessions = sessions
        self.states = states or SavedStates(sessions)
        """Saved conversation states, for the refs of the rows a turn names."""

    @activity.defn(name="prepare_turn")
    async def prepare_turn(self, request: PrepareTurnRequest) -> PrepareTurnResult:
        async with user_transaction(self.sessions, request.user_id) as session:
            context = await turn_context(
                session,
                today=request.today,
                now=request.now,
                message=request.message,
                ui_changes=request.ui_changes,
            )
        known = None
        if request.state_ref is not None:
            known = await self._known(request.state_ref, context)
        return PrepareTurnResult(context=context, known=known, attempt=activity.info().attempt)

    async def _known(self, ref: StateRef, context: TurnContext) -> RegistryDelta:
        """The saved registry's entries of the rows the turn names, for a working copy
        that may not hold them (they keep their refs)."""
        registry = await self.states.registry(ref)
        named = [*context.entities, *context.delete_candidates]
        refs = [registry.ref_of(e.id) for e in named]
        return registry.entries_of(r for r in refs if r is not None)
