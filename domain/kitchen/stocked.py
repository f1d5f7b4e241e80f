"""Which of a recipe's ingredients the inventory holds, as this turn's reads show them.

A comparison that needs no judgment: the recipes read with their ingredients against the
inventory rows read, matched by catalog ingredient (the same ``ingredient_id`` ref) or,
where a row has none, by the words of its name ("red lentils" is "red lentil"). An
analyze step is shown it beside the reads (``domain.context.act_context``): for "want to
make the dal this week, put what it needs on my groceries" the 1.5B local model read the
dal (red lentils, onion, spinach) and the inventory (milk, eggs, rice), and named milk,
eggs and rice as the dal's missing ingredients, twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.conversation import StepResult
from domain.crud.near import name_words
from domain.tool_results import ToolEntry


def reads_of(results: Sequence[StepResult], table: str) -> list[ToolEntry]:
    """This turn's successful reads of ``table``."""
    return [
        entry
        for result in results
        for entry in result.tool_results
        if entry.tool == "db_read"
        and not entry.failed
        and (entry.params or {}).get("table") == table
    ]


def rows_of(reads: Sequence[ToolEntry]) -> list[dict[str, Any]]:
    """The rows ``reads`` found, each once (by its ref)."""
    rows = enumerate(row for entry in reads for row in entry.rows or [])
    return list({str(row.get("id") or i): row for i, row in rows}.values())


def _holds(stock: Iterable[dict[str, Any]], ingredient: dict[str, Any]) -> bool:
    """Whether a stock row is ``ingredient``: the same catalog ref, else the same words."""
    ref = ingredient.get("ingredient_id")
    words = name_words(str(ingredient.get("name") or ""))
    for row in stock:
        if ref and row.get("ingredient_id") == ref:
            return True
        if words and words <= name_words(str(row.get("name") or "")):
            return True
    return False


def stock_compared(results: Sequence[StepResult]) -> str:
    """One line per recipe read with its ingredients, when the inventory was read too:
    how many of its ingredients are among the inventory rows read, which, and which are
    missing ("- Weeknight Chili: 0 of its 3 ingredients in the inventory read; missing:
    beef mince, ..."). Empty otherwise. Shown "among the inventory rows read: none", the
    1.5B local model's analyze step still named the chili as a recipe it could cook."""
    recipes = [r for r in rows_of(reads_of(results, "recipes")) if r.get("recipe_ingredients")]
    stock_reads = reads_of(results, "inventory")
    if not recipes or not stock_reads:
        return ""
    stock = rows_of(stock_reads)
    lines = []
    for recipe in recipes:
        items = [i for i in recipe["recipe_ingredients"] if isinstance(i, dict) and i.get("name")]
        held = [str(i["name"]) for i in items if _holds(stock, i)]
        missing = [str(i["name"]) for i in items if not _holds(stock, i)]
        name = recipe.get("name") or "A recipe"
        if not missing:
            line = f"every ingredient in the inventory read ({', '.join(held)})"
        else:
            plural = "" if len(items) == 1 else "s"
            count = f"{len(held)} of its {len(items)} ingredient{plural} in the inventory read"
            line = count + (f" ({', '.join(held)})" if held else "")
            line += f"; missing: {', '.join(missing)}"
        lines.append(f"- {name}: {line}")
    return "\n".join(lines)
