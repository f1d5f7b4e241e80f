"""Temporal workflows: turn orchestration only, deterministic, no I/O imports.

Empty until the turn-workflow issue lands; see docs/ARCHITECTURE.md.
"""
