"""CRUD calls and schema look-ups as activities, over the domain's CRUD executor.

A call the whitelist refuses is returned as ``error`` (the model reads it and corrects
its next call), as is a value the database itself refuses (no retry could store it);
database outages raise and are retried by Temporal. Writes carry the idempotency key the
workflow derived, so a retried activity never writes twice.
"""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError
from temporalio import activity

from activities.failures import to_application_error
from activities.payloads import CrudCallRequest, CrudCallResult, SchemaRequest, SchemaResult
from activities.saved_state import SavedStates
from domain.crud.calls import CrudRequest
from domain.crud.executor import CrudExecutor
from domain.errors import CrudValidationError, MissingIdempotencyKey
from domain.kitchen.tables import schema_for_subdomain

_REQUEST = TypeAdapter(CrudRequest)


class CrudActivities:
    def __init__(self, executor: CrudExecutor, states: SavedStates) -> None:
        self.executor = executor
        self.states = states
        """Saved conversation states: a call resolves and registers refs in the saved
        registry with the turn's changes on top (``CrudCallRequest.state_ref``)."""

    @activity.defn(name="crud")
    async def crud(self, request: CrudCallRequest) -> CrudCallResult:
        attempt = activity.info().attempt
        registry = await self.states.registry(request.state_ref)
        before = registry.clone()
        try:
            call = _REQUEST.validate_python({"tool": request.call.tool, **request.call.params})
        except ValidationError as error:
            return CrudCallResult(
                error=f"invalid {request.call.tool} parameters: {error}", attempt=attempt
            )
        try:
            result = await self.executor.execute(
                call,
                user_id=request.user_id,
                registry=registry,
                idempotency_key=request.idempotency_key,
            )
        except CrudValidationError as error:
            return CrudCallResult(error=str(error), attempt=attempt)
        except MissingIdempotencyKey as error:
            raise to_application_error(error) from None
        delta = registry.delta_since(before)
        return CrudCallResult(result=result, registry_delta=delta, attempt=attempt)

    @activity.defn(name="fetch_schema")
    async def fetch_schema(self, request: SchemaRequest) -> SchemaResult:
        try:
            text = schema_for_subdomain(request.subdomain)
        except KeyError as error:
            text = f"no such subdomain: {error}"
        return SchemaResult(
            subdomain=request.subdomain, schema_text=text, attempt=activity.info().attempt
        )
