"""The conversation state a model activity reads, by reference: the version the turn loaded,
read from PostgreSQL, plus what the turn has changed since (``StateRef``). A request stays
the size of the turn's own work, however long the conversation."""

from __future__ import annotations

from collections import OrderedDict

from activities.failures import to_application_error
from activities.payloads import StateRef
from domain import turn_store
from domain.conversation import ConversationState
from domain.errors import DomainError
from domain.registry import SessionIdRegistry


class SavedStates:
    """Reads saved conversation states by version, keeping the last few: a saved version
    never changes (saving makes the next one), so a turn's model calls read it once."""

    def __init__(self, sessions: turn_store.Sessions, keep: int = 32) -> None:
        self.sessions = sessions
        self.keep = keep
        self._states: OrderedDict[tuple[str, str, int], ConversationState] = OrderedDict()

    async def stored(self, ref: StateRef) -> ConversationState:
        key = (ref.user_id, ref.conversation_id, ref.version)
        state = self._states.get(key)
        if state is None:
            try:
                state = await turn_store.load_state_at(
                    self.sessions, ref.user_id, ref.conversation_id, ref.version
                )
            except DomainError as error:
                raise to_application_error(error) from None
        self.remember(ref.user_id, ref.conversation_id, ref.version, state)
        return state

    def remember(
        self, user_id: str, conversation_id: str, version: int, state: ConversationState
    ) -> None:
        """Keep ``state`` as the saved ``version`` (``begin_turn`` has just read it whole:
        the turn's reads by reference need not query it again)."""
        key = (user_id, conversation_id, version)
        self._states[key] = state
        self._states.move_to_end(key)
        while len(self._states) > self.keep:
            self._states.popitem(last=False)

    async def registry(self, ref: StateRef) -> SessionIdRegistry:
        """The saved registry with the turn's changes on top: the turn's whole registry."""
        registry = (await self.stored(ref)).registry.clone()
        registry.apply_delta(ref.registry)
        return registry

    async def read(self, ref: StateRef) -> tuple[ConversationState, SessionIdRegistry]:
        """The state as the turn sees it now, in the prompt copy's shape (registry apart,
        the archive's keys only), and the turn's whole registry."""
        stored = await self.stored(ref)
        registry = await self.registry(ref)
        gone = set(ref.unarchived)
        keys = [k for k in stored.content_archive if k not in gone] + ref.archived
        state = stored.model_copy(
            update={"registry": SessionIdRegistry(), "content_archive": dict.fromkeys(keys)}
        )
        return state, registry
