"""Kitchen resources for UI edits (being written)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["kitchen"])
