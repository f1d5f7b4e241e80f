"""The bypass modes ``cook`` and ``brainstorm`` (seed 000 "Domain Bypass Modes").

A bypass turn skips Understand / Think / Act: one model call answers the message from
the mode's own short history (``BypassSession``). ``cook`` walks the user through one
recipe and never writes; ``brainstorm`` is free-form creative talk with no tools. When the
model decides the user is done it returns a ``Handoff`` (a summary, what to do next, the
recipe content if there is one); the handoff lands in the conversation: a turn record,
a generated artifact to save, and a section the next plan turn's Understand and Think
read. Pure functions: the workflow calls them, tests call them directly.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import JsonValue

from domain.conversation import (
    BypassEnding,
    BypassSession,
    ConversationState,
    Exchange,
    LandedHandoff,
    TurnRecord,
)
from domain.nodes import BypassOutput
from domain.registry import SessionIdRegistry
from domain.turn_context import TurnContext

BypassModeName = Literal["cook", "brainstorm"]
SESSION_EXCHANGES = 8
"""Exchanges a bypass session keeps in full; older ones are let go."""


def open_session(
    state: ConversationState,
    registry: SessionIdRegistry,
    mode: BypassModeName,
    turn: int,
    context: TurnContext,
) -> BypassSession:
    """The session this message continues, or a new one (another mode ends the old one).

    cook's recipe: one the message @-mentions (read fresh), else the newest unsaved
    generated recipe; without either the model asks which recipe to cook.
    """
    current = state.bypass
    if current is not None and current.mode == mode:
        return current.model_copy(deep=True)
    session = BypassSession(mode=mode, started_turn=turn)
    if mode != "cook":
        return session
    mentioned = next(
        (e for e in context.entities if e.table == "recipes" and e.data is not None), None
    )
    if mentioned is not None:
        session.recipe_ref, session.recipe = mentioned.ref or None, mentioned.data
        return session
    pending = [
        (ref, content)
        for ref, content in registry.get_truly_pending_artifacts().items()
        if registry.type_of(ref) == "recipe"
    ]
    if pending:
        session.recipe_ref, session.recipe = pending[-1]
    return session


def after_exchange(
    registry: SessionIdRegistry,
    archive: dict[str, JsonValue],
    session: BypassSession,
    *,
    turn: int,
    message: str,
    output: BypassOutput,
) -> BypassEnding:
    """What one bypass message leaves: the session goes on, or, on exit, the handoff lands
    and the session ends. A save's recipe becomes unsaved generated content: registered
    in ``registry`` and kept in ``archive`` (the turn's own copies, changed in place)."""
    session = session.model_copy(deep=True)
    session.history.append(Exchange(user=message, assistant=output.response))
    session.history = session.history[-SESSION_EXCHANGES:]
    if not output.exit or output.handoff is None:
        return BypassEnding(session=session)
    handoff = output.handoff
    ref = session.recipe_ref if handoff.action == "update" else None
    if handoff.action == "save" and handoff.recipe:
        ref = registry.register_generated("recipe", handoff.recipe)
        archive[ref] = handoff.recipe
    landed = LandedHandoff(
        mode=session.mode,
        turn=turn,
        summary=handoff.summary,
        action=handoff.action,
        recipe_ref=ref,
        recipe=handoff.recipe,
    )
    record = TurnRecord(
        turn=turn,
        user_message=f"({session.mode} mode, {len(session.history)} messages) {message}",
        assistant_response=f"{output.response}\n[{session.mode} handoff] {handoff.summary}",
        entities=[ref] if ref else [],
    )
    return BypassEnding(session=None, handoff=landed, record=record)


def handoff_section(state: ConversationState) -> str:
    """The last handoff, for the plan turn that follows it (empty when there is none)."""
    h = state.handoff
    if h is None:
        return ""
    lines = [f"From {h.mode} mode (turn {h.turn}): {h.summary}", f"Suggested action: {h.action}"]
    if h.action == "save" and h.recipe_ref:
        lines.append(f"The recipe is `{h.recipe_ref}` (generated, not saved): save it on request.")
    if h.action == "update" and h.recipe_ref:
        lines.append(f"Changes to `{h.recipe_ref}` (saved): update it on request.")
    if h.recipe:
        lines.append(f"Recipe content: {json.dumps(h.recipe, ensure_ascii=False, default=str)}")
    return "\n".join(lines)
