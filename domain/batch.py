"""The batch manifest (seed 000 "Batch Tracking"): a write step that saves several
generated items tracks each one, and cannot complete while any is still pending.

A write step gets a manifest when it is about saving generated content: the unsaved
``gen_`` artifacts of its subdomain that its description or the user's words name by ref,
or, for a step whose description says "save", by label; a save step naming none saves the
ones generated this turn or the turn before. Each
write the step makes is checked against the registry: an item whose ref now stands for a
saved row is ``completed``, one named in a write that failed is ``failed`` (until a later
write saves it).
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, Field

from domain.kitchen.entities import BY_TABLE
from domain.kitchen.tables import SUBDOMAINS
from domain.registry import SessionIdRegistry, refs_in_text
from domain.tool_results import ToolEntry

SAVE_WORDS = re.compile(r"\b(save|saves|saving|store|keep)\b", re.IGNORECASE)
"""A step that says "save" without naming items saves the recent unsaved ones."""
RECENT_TURNS = 1
"""Unnamed items are the ones generated this turn or the turn before; older ones are
kept for "generate now, save later" and are saved only when named."""
MAX_EARLY_COMPLETIONS = 2
"""How often Act may try to complete with items pending before the step ends with the
unsaved items flagged (the loop must end; Reply then says what was not saved)."""


class BatchItem(BaseModel):
    ref: str
    """The ``gen_`` ref being saved (it keeps its name once saved)."""
    label: str
    status: Literal["pending", "completed", "failed"] = "pending"
    result_ref: str | None = None
    """The ref of the saved row."""
    error: str | None = None


class BatchManifest(BaseModel):
    step_index: int
    items: list[BatchItem] = Field(default_factory=list)

    def pending(self) -> list[BatchItem]:
        return [i for i in self.items if i.status == "pending"]

    def progress(self) -> str:
        """ "2 of 3 saved", with what failed and why, and what is still pending."""
        saved = sum(1 for i in self.items if i.status == "completed")
        parts = [f"{saved} of {len(self.items)} saved"]
        parts += [
            f"{i.label} ({i.ref}) failed: {i.error}"
            for i in self.items
            if i.error and i.status == "failed"
        ]
        pending = self.pending()
        if pending:
            parts.append("not saved yet: " + ", ".join(f"{i.label} ({i.ref})" for i in pending))
        return "; ".join(parts)

    def lines(self) -> list[str]:
        """One line per item, for Act's prompt and the turn view."""
        lines = []
        for item in self.items:
            line = f"- {item.ref} ({item.label}): {item.status}"
            if item.status == "completed" and item.result_ref:
                line += f" as {item.result_ref}"
            if item.status == "failed" and item.error:
                line += f": {item.error}"
            lines.append(line)
        return lines

    def refusal(self) -> str:
        """Why step_complete is not accepted yet."""
        names = ", ".join(f"{i.ref} ({i.label})" for i in self.pending())
        return (
            f"not complete: {len(self.pending())} of {len(self.items)} items of this batch are "
            f"not saved yet: {names}. Save them (pass each gen_ ref as the row's id), or say "
            "`blocked` if they cannot be saved."
        )


def start_manifest(
    registry: SessionIdRegistry, step_index: int, subdomain: str, description: str, words: str
) -> BatchManifest | None:
    """The manifest for a write step of ``subdomain``, or None when it saves nothing generated."""
    types = {BY_TABLE[t].type_name for t in SUBDOMAINS.get(subdomain, ()) if t in BY_TABLE}
    unsaved = [ref for ref in registry.unsaved_refs() if registry.type_of(ref) in types]
    if not unsaved:
        return None
    text = f"{description}\n{words}"
    named = set(refs_in_text(text))
    chosen = [r for r in unsaved if r in named]
    if not chosen and SAVE_WORDS.search(description):  # a save step: by label, else recent
        said = set(re.findall(r"[a-z0-9]+", text.lower()))
        chosen = [r for r in unsaved if _label_words(registry.label(r)) & said]
        if not chosen:
            recent = registry.turn - RECENT_TURNS
            chosen = [r for r in unsaved if registry.entries[r].created >= recent]
    if not chosen:
        return None
    return BatchManifest(
        step_index=step_index,
        items=[BatchItem(ref=r, label=registry.label(r) or r) for r in chosen],
    )


def track_write(manifest: BatchManifest, registry: SessionIdRegistry, entry: ToolEntry) -> None:
    """Update the items after one write: saved ones complete, ones a failed write named fail."""
    error = entry.error
    named = json.dumps(entry.params, default=str) if error else ""
    for item in manifest.items:
        if item.status == "completed":
            continue
        entry = registry.entries.get(item.ref)
        if entry is not None and entry.uuid is not None:
            item.status, item.result_ref, item.error = "completed", item.ref, None
        elif error and re.search(rf"\b{re.escape(item.ref)}\b", named):
            item.status, item.error = "failed", str(error)


_GENERIC = frozenset("the and with for recipe recipes dish meal task new".split())


def _label_words(label: str) -> set[str]:
    """The words that name an item: "Red Lentil Dal" → red, lentil, dal."""
    return {w for w in re.findall(r"[a-z0-9]+", label.lower()) if len(w) >= 3} - _GENERIC
