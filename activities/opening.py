"""A turn's opening as one local activity: the turn before has saved, this turn's row is
started and its working copy loaded, and the pre-processing read is done. Each part is
idempotent, so the whole is; the read is also an activity of its own (``prepare_turn``),
which the workflow runs when it failed here after the turn began."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.payloads import OpenTurnRequest, OpenTurnResult, StateRef
from activities.preparation import TurnContextActivities
from activities.turn_state import TurnStateActivities


class TurnOpening:
    def __init__(self, state: TurnStateActivities, context: TurnContextActivities) -> None:
        self.state = state
        self.context = context

    @activity.defn(name="open_turn")
    async def open_turn(self, request: OpenTurnRequest) -> OpenTurnResult:
        begin, attempt = request.begin, activity.info().attempt
        users = {begin.user_id, request.prepare.user_id}
        if request.previous is not None:
            users.add(request.previous.user_id)
        if len(users) != 1:
            raise ApplicationError(
                "open_turn's parts name different users", type="invalid_request", non_retryable=True
            )
        previous = None
        if request.previous is not None:
            previous = await self.state.previous_turn(request.previous)
            if not previous.settled:
                return OpenTurnResult(previous=previous, attempt=attempt)
        begun = await self.state.begin_turn(begin)
        loaded = StateRef(
            user_id=begin.user_id, conversation_id=begin.conversation_id, version=begun.version
        )
        try:
            prepared = await self.context.prepare_turn(
                request.prepare.model_copy(update={"state_ref": loaded})
            )
        except Exception:
            # The turn has begun: the workflow loads it and runs ``prepare_turn`` apart, so a
            # read that fails for good ends a loaded turn (recorded, the next turn woken).
            activity.logger.warning("prepare failed in open_turn: prepared apart", exc_info=True)
            prepared = None
        return OpenTurnResult(previous=previous, begun=begun, prepared=prepared, attempt=attempt)
