"""Dependencies of the routes: the app's services, and the authenticated user."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.problems import ApiError
from api.temporal import TurnClient
from domain.settings import Settings
from domain.turn_store import Sessions
from domain.users import user_for_token


@dataclass
class Services:
    settings: Settings
    sessions: Sessions
    turns: TurnClient
    parts: dict[str, Callable[[], bool]] = field(default_factory=dict)
    """The other parts of this process ``/readyz`` waits for, by name: is each up?
    (``api.stack.serve``: the ``worker``, and ``started``: its start-up is done, e.g.
    ``alfred run``'s dev token written.)"""
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the server starts to stop: open event streams end, saying so."""


def services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(services)]
_bearer = HTTPBearer(auto_error=False, description="`alfred users create NAME` prints one")


async def current_user(
    svc: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> uuid.UUID:
    if credentials is None:
        raise ApiError(401, "unauthenticated", "a bearer token is required")
    user_id = await user_for_token(svc.sessions, credentials.credentials)
    if user_id is None:
        raise ApiError(401, "unauthenticated", "unknown or revoked token")
    return user_id


CurrentUser = Annotated[uuid.UUID, Depends(current_user)]
