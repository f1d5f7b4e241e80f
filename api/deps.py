"""Dependencies of the routes: the app's services, and the authenticated user."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
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
