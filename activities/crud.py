"""CRUD calls and schema look-ups as activities, over the domain's CRUD executor.

A call the whitelist refuses is returned as ``error`` (the model reads it and corrects
its next call), as is a value the database itself refuses (no retry could store it);
database outages raise and are retried by Temporal. Writes carry the idempotency key the
workflow derived, so a retried activity never writes twice.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.failures import to_application_error
from activities.payloads import CrudCallRequest, CrudCallResult, SchemaRequest, SchemaResult
from activities.saved_state import SavedStates
from domain.crud.calls import CrudRequest
from domain.crud.executor import CrudExecutor
from domain.errors import CrudValidationError, MissingIdempotencyKey
from domain.kitchen.tables import schema_for_subdomain
from domain.registry import RegistryDelta, RegistrySnapshot, SessionIdRegistry

_REQUEST = TypeAdapter(CrudRequest)


class CrudActivities:
    def __init__(self, executor: CrudExecutor, states: SavedStates | None = None) -> None:
        self.executor = executor
        self.states = states
        """Saved conversation states: a turn with a working copy of the registry resolves
        and registers refs in the saved one (``CrudCallRequest.state_ref``)."""

    async def _registry(
        self, request: CrudCallRequest
    ) -> tuple[SessionIdRegistry, RegistrySnapshot | dict[str, Any]]:
        """The registry the call works in, and a snapshot of it to tell what changed."""
        if request.state_ref is None:
            if request.registry is None:
                raise ApplicationError(
                    "a crud call needs the turn's registry or a state_ref",
                    type="invalid_request",
                    non_retryable=True,
                )
            return SessionIdRegistry.from_dict(request.registry), request.registry
        if self.states is None:
            raise RuntimeError("this worker reads no saved states: build CrudActivities with one")
        registry = await self.states.registry(request.state_ref)
        return registry, registry.to_dict()

    @staticmethod
    def _delta(
        request: CrudCallRequest,
        registry: SessionIdRegistry,
        before: RegistrySnapshot | dict[str, Any],
    ) -> tuple[RegistryDelta, RegistryDelta | None]:
        """What the call changed, and (by reference) the whole entries of the refs it
        touched, for a copy that lacks them."""
        if request.state_ref is None:
            assert request.registry is not None  # _registry refused the call otherwise
            return registry.delta_since(request.registry), None
        changes = registry.delta_since(before)
        touched = registry.refs_in(changes)
        if request.registry is None:
            named = set(touched)
            in_order = [ref for ref in registry.known_refs() if ref in named]
            return changes, registry.entries_of(in_order)
        # A run recorded before the copy stayed home: the changes to the copy it sent.
        held = list(request.registry.ref_to_uuid)
        return registry.only([*held, *touched]).delta_since(request.registry), None

    @activity.defn(name="crud")
    async def crud(self, request: CrudCallRequest) -> CrudCallResult:
        attempt = activity.info().attempt
        registry, before = await self._registry(request)
        try:
            call = _REQUEST.validate_python({"tool": request.call.tool, **request.call.params})
        except ValidationError as error:
            return CrudCallResult(
                error=f"invalid {request.call.tool} parameters: {error}",
                registry_delta=RegistryDelta(),
                attempt=attempt,
            )
        try:
            result = await self.executor.execute(
                call,
                user_id=request.user_id,
                registry=registry,
                idempotency_key=request.idempotency_key,
                step=request.step,
            )
        except CrudValidationError as error:
            return CrudCallResult(error=str(error), registry_delta=RegistryDelta(), attempt=attempt)
        except MissingIdempotencyKey as error:
            raise to_application_error(error) from None
        delta, known = self._delta(request, registry, before)
        return CrudCallResult(result=result, registry_delta=delta, known=known, attempt=attempt)

    @activity.defn(name="fetch_schema")
    async def fetch_schema(self, request: SchemaRequest) -> SchemaResult:
        try:
            text = schema_for_subdomain(request.subdomain)
        except KeyError as error:
            text = f"no such subdomain: {error}"
        return SchemaResult(
            subdomain=request.subdomain, schema_text=text, attempt=activity.info().attempt
        )
