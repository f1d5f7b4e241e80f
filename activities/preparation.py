"""The turn's pre-processing read (seed 000): profile, kitchen dashboard, and fresh rows for
UI changes and @-mentions, in one read-only transaction scoped to the user."""

from __future__ import annotations

from temporalio import activity

from activities.payloads import PrepareTurnRequest, PrepareTurnResult
from domain.db.engine import user_transaction
from domain.kitchen.snapshot import turn_context
from domain.turn_store import Sessions


class TurnContextActivities:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

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
        return PrepareTurnResult(context=context, attempt=activity.info().attempt)
