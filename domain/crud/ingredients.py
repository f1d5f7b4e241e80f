"""Ingredient catalog look-ups: smart name matching (seed 004 §6.2) and create-time linking."""

from __future__ import annotations

from sqlalchemy import Text, any_, func, literal, or_, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from domain.crud.filters import NameMatch
from domain.db.models import Ingredient

SMART_NAME_TABLES = frozenset({"inventory", "shopping_list"})
SINGLE_MATCH_THRESHOLD = 0.45
SIMILAR_THRESHOLD = 0.3
SIMILAR_CANDIDATES = 5


def _term(name: str) -> str:
    return " ".join(name.lower().split())


async def _exact(session: AsyncSession, term: str) -> list[Ingredient]:
    """Name, alias or family equal to the term ("chicken" finds every chicken cut)."""
    query = (
        select(Ingredient)
        .where(
            or_(
                func.lower(Ingredient.name) == term,
                literal(term, Text) == any_(Ingredient.aliases),
                func.lower(Ingredient.family) == term,
            )
        )
        .order_by(Ingredient.name)
    )
    return list((await session.scalars(query)).all())


async def _nearest(
    session: AsyncSession, term: str, *, threshold: float, limit: int
) -> list[Ingredient]:
    score = func.similarity(Ingredient.name, literal(term, Text))
    query = (
        select(Ingredient)
        .where(score > threshold)
        .order_by(score.desc(), Ingredient.name)
        .limit(limit)
    )
    return list((await session.scalars(query)).all())


async def match_name(session: AsyncSession, name: str, op: str, *, trigram: bool) -> NameMatch:
    """Catalog ingredients a name filter means: exact/alias/family, else trigram neighbours.

    ``=`` takes the exact matches or else the single nearest neighbour; ``similar`` takes
    the exact matches plus the nearest few. No match leaves only the plain name filter.
    """
    term = _term(name)
    found = await _exact(session, term)
    if trigram and (op == "similar" or not found):
        threshold = SIMILAR_THRESHOLD if op == "similar" else SINGLE_MATCH_THRESHOLD
        limit = SIMILAR_CANDIDATES if op == "similar" else 1
        known = {i.id for i in found}
        found += [
            i
            for i in await _nearest(session, term, threshold=threshold, limit=limit)
            if i.id not in known
        ]
    if not found:
        return NameMatch(notes=[f"no catalog ingredient matches {name!r}; matched on name only"])
    names = tuple(i.name for i in found)
    return NameMatch(
        ingredient_ids=tuple(i.id for i in found),
        names=names,
        notes=[f"{name!r} matched catalog ingredient(s): {', '.join(names)}"],
    )


async def link_ingredient(session: AsyncSession, name: str) -> Ingredient | None:
    """The catalog entry a written row's name denotes: exact name or alias only (no guessing)."""
    term = _term(name)
    query = (
        select(Ingredient)
        .where(
            or_(
                func.lower(Ingredient.name) == term, literal(term, Text) == any_(Ingredient.aliases)
            )
        )
        .order_by(Ingredient.name)
        .limit(1)
    )
    return (await session.scalars(query)).first()


async def has_trigram(session: AsyncSession) -> bool:
    """Whether pg_trgm is installed in this database (the migration adds it where it can)."""
    query = text("SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_trgm')")
    return bool(await session.scalar(query))
