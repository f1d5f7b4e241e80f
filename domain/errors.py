"""Domain errors. Activities map them to non-retryable ApplicationErrors (``type`` = code),
the API to 4xx responses. Each message names the bad part so the model can correct itself."""

from __future__ import annotations


class DomainError(Exception):
    code = "domain_error"


class CrudValidationError(DomainError):
    """A CRUD call the whitelist or the data refuses: bad table, column, operator or value."""

    code = "invalid_crud"


class MissingIdempotencyKey(DomainError):
    code = "missing_idempotency_key"
