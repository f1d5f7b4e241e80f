"""Alfred's kitchen domain: models, CRUD executor, SessionIdRegistry. No Temporal, no HTTP."""
