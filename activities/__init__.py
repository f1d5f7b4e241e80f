"""Temporal activities: every side effect of a turn (LLM calls, CRUD, conversation state).

Empty until the turn-workflow issue lands; see docs/ARCHITECTURE.md.
"""
