"""What the Act loop checks before it runs a write and when a step says it is done.

A model's claims are untrusted: a write must stay in its step's subdomain, must not
repeat one the step already made, must not save a recipe nobody gave or generated, and
must not set an amount the user never gave; a completion must agree with the step's tool
outcomes and name only refs the registry issued. Pure functions over plain data.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container, Iterable, Mapping, Sequence
from typing import Any

from domain.crud.calls import WRITE_TOOLS
from domain.kitchen.tables import SUBDOMAINS
from domain.registry import is_ref, refs_in_text
from domain.tool_results import ToolEntry


def scope_error(subdomain: str, tool: str, table: str) -> str | None:
    """Why a step of ``subdomain`` may not write ``table`` (None when it may)."""
    if tool not in WRITE_TOOLS:
        return None
    tables = SUBDOMAINS.get(subdomain, ())
    if table in tables:
        return None
    return (
        f"a {subdomain} step cannot write {table!r}: it writes only "
        f"{', '.join(repr(t) for t in tables)}. Writing {table!r} needs its own step; "
        "complete or block this one."
    )


def write_key(tool: str, params: Mapping[str, Any]) -> str:
    """The same write, whatever order the model put its keys in."""
    return json.dumps({"tool": tool, "params": params}, sort_keys=True, default=str)


ALREADY_DONE = (
    "already done: this exact {tool} succeeded earlier in this step (its result is above). "
    "It was not run again. Do not repeat it; complete the step."
)


PLACEHOLDER_WORDS = frozenset(
    """recipe recipes dish dishes meal meals example sample test simple easy quick classic
    new my our your the and with a an of in on style homemade best delicious tasty perfect
    ultimate basic healthy favorite favourite untitled generic""".split()
)
"""Words that name no particular recipe: "Example Recipe", "My Simple Dish"."""


def words(text: str) -> set[str]:
    """The words of ``text``, lowercased, without a plural s."""
    return {w.removesuffix("s") for w in re.findall(r"[a-z0-9]+", text.lower())}


def invented_recipe(tool: str, params: Mapping[str, Any], grounds: Iterable[str]) -> str | None:
    """Why a recipe created inline must not be saved (None when it may be):
    its name says nothing that the user's words, the conversation or generated content
    (``grounds``) said. A generated recipe is saved by its gen_ ref; a recipe the user
    dictates shares its name's words with theirs. "Example Recipe", saved for "save it"
    when nothing was unsaved, is neither."""
    if tool != "db_create" or params.get("table") != "recipes":
        return None
    said = set().union(*(words(text) for text in grounds))
    rows = params.get("data")
    for row in rows if isinstance(rows, list) else [rows]:
        if not isinstance(row, Mapping) or any(is_ref(v) for v in row.values()):
            continue
        name = row.get("name")
        if not isinstance(name, str):
            continue
        named = words(name) - {w.removesuffix("s") for w in PLACEHOLDER_WORDS}
        if not named & said:
            return (
                f"There was no recipe to save: {name!r} is in neither the user's words nor "
                "any recipe generated in this conversation, so it was not saved."
            )
        content = _content_words(row)
        if len(content) >= CONTENT_MIN and len(content & said) < len(content) * CONTENT_SAID:
            return (
                f"There was no recipe to save: the steps and ingredients of {name!r} come from "
                "neither the user's words nor a recipe read or generated in this "
                "conversation, so it was not saved."
            )
    return None


CONTENT_MIN = 8
CONTENT_SAID = 0.25
"""A recipe created inline whose steps and ingredient names have ``CONTENT_MIN`` words or
more (of four letters or more) must share at least this share of them with the grounds:
for "make the chili serve 8 from now on" the 1.5B local model saved a new "Chili" with
steps and ingredients of its own (2 of their 20 such words in the grounds); a recipe the
user dictates, even written out with steps of the model's ("rub the butter into the
flour"), keeps a good share of the user's words (5 of 14)."""


def _content_words(row: Mapping[str, Any]) -> set[str]:
    """The words of four letters or more of a recipe row's steps and ingredient names."""
    texts: list[str] = []
    steps = row.get("instructions")
    texts += [str(s) for s in steps] if isinstance(steps, list) else [str(steps or "")]
    for key in ("recipe_ingredients", "ingredients"):
        items = row.get(key)
        for item in items if isinstance(items, list) else []:
            texts.append(str(item.get("name", "")) if isinstance(item, Mapping) else str(item))
    return {w for text in texts for w in words(text) if len(w) >= 4}


NUMBERS = re.compile(
    r"\d|\b(?:an?|another|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"dozen|half|quarter|couple|few|several|double|twice|triple)\b",
    re.IGNORECASE,
)
QUANTITIES = frozenset({"inventory", "shopping_list"})
"""The tables whose rows hold an amount the user gives."""


AMOUNTS = re.compile(r"\b(?:amount|quantit(?:y|ies)|how (?:much|many)|number of)\b", re.I)
"""Words that ask about an amount itself ("change the amount of milk I have")."""


def unsaid_amount(tool: str, params: Mapping[str, Any], message: str) -> str | None:
    """The question to ask when an update sets an amount that the user asked to change
    but never gave (None otherwise): "change the amount of milk I have" holds no number,
    so any quantity set for it was made up. A report is not asked about ("I bought milk":
    one more is a fair reading), nor is none left (0: "we're out of milk")."""
    if tool != "db_update" or params.get("table") not in QUANTITIES:
        return None
    data = params.get("data")
    amount = data.get("quantity") if isinstance(data, Mapping) else None
    if amount in (None, 0, "0", "") or not AMOUNTS.search(message) or NUMBERS.search(message):
        return None
    names = [
        f.get("value")
        for f in params.get("filters") or ()
        if isinstance(f, Mapping) and f.get("field") == "name" and isinstance(f.get("value"), str)
    ]
    what = f"the {names[0].strip('%')}" if names else "it"
    return f"How much should {what} be now? You did not say the new amount."


def _refs_in(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield from refs_in_text(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _refs_in(key)
            yield from _refs_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _refs_in(item)


def refs_claimed(claims: Sequence[Any]) -> list[str]:
    """The refs a ``step_complete`` names (in its summary, data or note), once each."""
    return list(dict.fromkeys(_refs_in(list(claims))))


def completion_flags(
    step_type: str,
    tool_results: Sequence[ToolEntry],
    claims: Sequence[Any],
    known_refs: Container[str],
) -> list[str]:
    """What a ``step_complete`` claims that the step's own outcomes do not support."""
    flags: list[str] = []
    calls = [t for t in tool_results if t.tool is not None]
    reads = [t for t in calls if t.tool == "db_read"]
    if step_type == "read":
        if not reads:
            flags.append("it read nothing from the database")
        elif all(t.failed for t in reads):
            flags.append("every read it made failed, so its result is not from the database")
    if step_type == "write":
        wrote = [t for t in calls if t.succeeded_write() and (t.count or 0) > 0]
        if not wrote:
            flags.append("it wrote nothing: no row was created, changed or removed")
    unknown = sorted(ref for ref in refs_claimed(claims) if ref not in known_refs)
    if unknown:
        flags.append(f"it names refs that do not exist: {', '.join(unknown)}")
    return flags
