"""Context builders: the user message each node is shown (seed 001 "Context Builders").

Each builder takes the layers it needs (registry, conversation, reasoning, this turn's
results) and renders Markdown sections. The system prompts in ``prompts/`` say what the
node must do; these say what it knows. Deterministic and pure.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from domain.batch import BatchManifest
from domain.bypass import handoff_section
from domain.clock import Clock, clock_section, local
from domain.conversation import (
    BypassSession,
    ConversationState,
    PendingContext,
    StepExit,
    StepResult,
    summarize_assistant_message,
)
from domain.crud.calls import WRITE_TOOLS
from domain.entity_cards import PARTS
from domain.execution_summary import (
    PlannedStep,
    batch_progress,
    next_step,
    plan_overview,
    primary_step,
    stopped_step,
    warnings,
)
from domain.formatters import format_done, format_read, format_write_confirmation
from domain.kitchen.dated import dates_counted, dates_moved
from domain.kitchen.entities import BY_TABLE, compute_label
from domain.kitchen.scaled import amounts_scaled
from domain.kitchen.stocked import stock_compared
from domain.kitchen.tables import SUBDOMAINS, schema_for_subdomain
from domain.mentions import plain_text
from domain.nodes import ThinkStep, UnderstandOutput
from domain.registry import SessionIdRegistry
from domain.relative_days import moved_lines, moves_said, named_days
from domain.tokens import Fitted, Section, fit
from domain.tool_results import ToolEntry
from domain.turn_context import PROFILE_FIELDS, KitchenDashboard, TurnContext

FULL_DETAIL_STEPS = 3
MAX_REGISTRY_ROWS = 40
REGISTRY_TURNS = 5
"""Understand's registry table shows refs referenced in this many recent turns."""
CONDENSED_BUDGET = 8_000
"""Understand, Think and Reply (seed 000 ROUTER_CONTEXT_THRESHOLD)."""
ACT_BUDGET = 25_000
"""Act (seed 000 ACT_CONTEXT_THRESHOLD)."""


def _json(value: Any, limit: int = 6000) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + " …(truncated)"


def _join(*sections: Section) -> str:
    """Sections without a budget (small contexts): the non-empty ones, in order."""
    return "\n".join(text for text in (s.render() for s in sections) if text)


def _said(response: str) -> str:
    """What Alfred actually said (never Summarize's retelling of it), long replies
    shortened as seed 001 shortens them (``summarize_assistant_message``)."""
    return summarize_assistant_message(response)


def conversation_section(state: ConversationState, depth: int = 3, *, replies: bool = True) -> str:
    """The session so far and the last ``depth`` turns; without Alfred's ``replies`` for a
    node that writes this turn's reply: it writes from what happened now, and the 1.5B
    local model gave an earlier reply, word for word, as its answer in three of its turns."""
    lines: list[str] = []
    if state.engagement_summary:
        lines.append(f"Session: {state.engagement_summary}")
    if state.history_summary:
        lines.append(f"Earlier: {state.history_summary}")
    for record in state.recent_turns[-depth:]:
        lines.append(f"Turn {record.turn} — user: {record.user_message}")
        if replies:
            lines.append(f"Turn {record.turn} — assistant: {_said(record.assistant_response)}")
        if record.entities:
            lines.append(f"Turn {record.turn} — entities: {', '.join(record.entities[:12])}")
    lines.extend(state.notes[-3:])
    return "\n".join(lines)


def annotated_conversation(
    state: ConversationState, registry: SessionIdRegistry, depth: int = 5
) -> str:
    """Understand's view of recent turns: each with the entities it touched, by label and
    what happened to them ("recipe_1: Butter Chicken (read)"), from the registry."""
    lines: list[str] = []
    if state.engagement_summary:
        lines.append(f"Session: {state.engagement_summary}")
    if state.history_summary:
        lines.append(f"Earlier: {state.history_summary}")
    known = set(registry.known_refs())
    for record in state.recent_turns[-depth:]:
        lines.append(f"Turn {record.turn} — user: {record.user_message}")
        lines.append(f"Turn {record.turn} — assistant: {_said(record.assistant_response)}")
        notes = [
            f"{ref}: {registry.label(ref)} ({_turn_action(registry, ref, record.turn)})"
            for ref in record.entities[:12]
            if ref in known
        ]
        if notes:
            lines.append(f"Turn {record.turn} — entities: {'; '.join(notes)}")
    lines.extend(state.notes[-3:])
    return "\n".join(lines)


def _turn_action(registry: SessionIdRegistry, ref: str, turn: int) -> str:
    if registry.entry(ref).created == turn:
        return "new" if registry.action(ref) in ("read", "") else registry.action(ref)
    return registry.action(ref) or "seen"


def decision_history(state: ConversationState) -> str:
    """Understand's earlier curation decisions, so it keeps (or revises) them knowingly."""
    rows = []
    for summary in state.turn_summaries:
        curation = summary.entity_curation
        rows += [
            f"| T{summary.turn_num} | {d.ref} | retain | {d.reason} |" for d in curation.retained
        ]
        rows += [f"| T{summary.turn_num} | {ref} | demote | |" for ref in curation.demoted]
        rows += [f"| T{summary.turn_num} | {ref} | drop | |" for ref in curation.dropped]
        if curation.cleared_all:
            rows.append(f"| T{summary.turn_num} | * | clear all | |")
    if not rows:
        return ""
    return "\n".join(["| Turn | Entity | Decision | Reason |", "|---|---|---|---|", *rows])


def profile_section(profile: dict[str, Any] | None) -> str:
    if not profile:
        return "(no preferences saved yet)"
    lines = []
    for name in PROFILE_FIELDS:
        value = profile.get(name)
        if value in (None, "", [], {}):
            continue
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        elif isinstance(value, dict):
            value = _json(value, 400)
        lines.append(f"- {name.replace('_', ' ')}: {value}")
    return "\n".join(lines) or "(no preferences saved yet)"


EXPIRY_SUBDOMAINS = ("inventory", "recipes", "meal_plans")
"""Act's analyze and generate steps here are shown how many items are near their expiry
date: choosing what to cook or use from stock is where that fact matters. Think is never
shown it: a planner shown the count on every request planned "read what is expiring" into
unrelated requests (16 of a small model's 28 plans), and a request about expiry names it
anyway. Write steps store what was decided; Reply is shown what the steps found."""


def dashboard_section(dashboard: KitchenDashboard, *, expiry: bool = False) -> str:
    """Counts of the user's kitchen, naming the rows the request names; with ``expiry``,
    how many inventory items are at or within 3 days of their expiry date, stated as a
    fact. The meal plan's span is said without its number of days: shown "next 7 days",
    the 1.5B local model planned "the next 7 days" for "next weeks meal plan", and
    answered "7 days left" for a task due in 3 days. A cuisine's count comes before it
    ("2 (1 indian, 1 mexican)"): shown "indian 1, mexican 1", the 1.5B planned meals of
    recipes named "Mexican 1" and "Indian 1"."""
    d = dashboard
    where = ", ".join(f"{n} {place}" for place, n in d.inventory_by_location.items()) or "empty"
    if expiry and d.inventory_expiring_soon:
        where += (
            f" ({d.inventory_expiring_soon} of them past or within 3 days of their expiry date)"
        )
    cuisines = ", ".join(f"{n} {c}" for c, n in d.recipes_by_cuisine.items())

    def named(table: str) -> str:
        names = d.named.get(table)
        return f"; among them {', '.join(names)}, named in the request" if names else ""

    lines = [
        f"- inventory: {where}{named('inventory')}",
        f"- recipes: {d.recipe_count}" + (f" ({cuisines})" if cuisines else "") + named("recipes"),
        f"- meal plan from today, a week ahead: {len(d.meal_plan_next_7_days)} slots planned",
        *[f"  - {slot}" for slot in d.meal_plan_next_7_days],
        f"- shopping list: {d.shopping_open} to buy{named('shopping_list')}",
        f"- tasks: {d.tasks_open} open, {d.tasks_overdue} overdue{named('tasks')}"
        + (("; due first:" if d.named.get("tasks") else ", due first:") if d.tasks_next else ""),
        *[f"  - {task}" for task in d.tasks_next],
    ]
    return "\n".join(lines)


def user_changes_section(context: TurnContext, *, with_data: bool) -> str:
    """What the user changed in a UI or @-mentioned, with the rows as they are now."""
    lines = []
    for entity in context.entities:
        if not entity.ref:
            continue  # the registry refused it: no ref to show, and never the row's UUID
        if with_data and entity.data is not None:
            lines.append(f"- `{entity.ref}` [{entity.action}]: {_json(entity.data, 2000)}")
        else:
            kind = BY_TABLE.get(entity.table)
            label = compute_label(kind.type_name, entity.data) if kind and entity.data else ""
            lines.append(f"- `{entity.ref}` [{entity.action}] {label}".rstrip())
    lines += [
        f"- mentioned but not found in the user's kitchen: {plain_text(m)}"
        for m in context.unresolved_mentions
    ]
    return "\n".join(lines)


def curation_this_turn(understand: UnderstandOutput) -> str:
    c = understand.entity_curation
    lines = [f"- keep `{d.ref}`: {d.reason}" for d in c.retain_active]
    lines += [f"- demoted `{ref}`" for ref in c.demote]
    lines += [f"- dropped `{ref}`" for ref in c.drop]
    if c.clear_all:
        lines.append("- cleared all entities (the user started over)")
    return "\n".join(lines)


def registry_table(registry: SessionIdRegistry) -> str:
    """Understand's registry view: the refs of the last ``REGISTRY_TURNS`` turns (the
    conversation it is shown), long-term memory and unsaved content, in ref order. Older
    refs still resolve; Understand only curates what the conversation still touches."""
    if not registry.entries:
        return "(no entities yet)"
    cutoff = registry.turn - REGISTRY_TURNS + 1
    shown = [
        (ref, e)
        for ref, e in registry.entries.items()
        if e.type not in PARTS
        and (e.last_ref >= cutoff or e.active_reason is not None or ref in registry.artifacts)
    ][-MAX_REGISTRY_ROWS:]
    rows = [
        "| Ref | Type | Label | Last action | Created | Last ref |",
        "|---|---|---|---|---|---|",
    ]
    for ref, e in shown:
        rows.append(f"| {ref} | {e.type} | {e.label} | {e.action} | T{e.created} | T{e.last_ref} |")
    return "\n".join(rows)


def entity_context(registry: SessionIdRegistry, *, with_detail: bool) -> str:
    """Generated (unsaved) content, active entities with tags, long-term memory."""
    lines: list[str] = []
    pending = registry.unsaved_refs()
    if pending:
        lines.append("Generated, NOT saved:")
        lines += [f"- `{ref}`: {registry.label(ref)} [unsaved]" for ref in pending]
    recent, retained = registry.get_active_entities()
    if recent:
        lines.append("Active:")
        for ref in recent:
            e = registry.entries[ref]
            tag = e.action
            if with_detail and e.detail and tag == "read":
                tag = f"read:{e.detail}"
            lines.append(f"- `{ref}`: {e.label} ({e.type}) [{tag}] T{e.last_ref}")
    if retained:
        lines.append("Long-term memory:")
        lines += [
            f"- `{ref}`: {registry.label(ref)} — {registry.entries[ref].active_reason or ''}"
            for ref in retained
        ]
    return "\n".join(lines) or "(none)"


def reasoning_section(state: ConversationState) -> str:
    """The last turns' reasoning as Think reads it (seed 001 "Formatting by Node"): each
    turn's decision and goal, its phase and what the user expressed, its steps' outcomes,
    and Understand's curation (retained with the reason, demoted, dropped)."""
    lines = []
    if state.reasoning_summary:
        lines.append(state.reasoning_summary)
    for summary in state.turn_summaries:
        steps = "; ".join(f"{s.description} → {s.outcome}" for s in summary.steps)
        lines.append(
            f"Turn {summary.turn_num}: {summary.think_decision or 'no plan'} "
            f"({summary.think_goal or ''}) {steps} [{summary.conversation_phase}]"
        )
        if summary.user_expressed:
            lines.append(f"  user expressed: {summary.user_expressed}")
        curation = summary.entity_curation
        kept = [f"{r.ref} ({r.reason})" for r in curation.retained]
        for label, refs in (
            ("kept in context", kept),
            ("demoted", curation.demoted),
            ("dropped", curation.dropped),
        ):
            if refs:
                lines.append(f"  curation — {label}: {', '.join(refs)}")
        if curation.cleared_all:
            lines.append("  curation — cleared everything")
        if summary.written:
            lines.append(f"  {format_done(summary.written)}")
        if summary.blocked_reason:
            lines.append(f"  stopped: {summary.blocked_reason}")
    return "\n".join(lines)


def pending_section(pending: PendingContext | None) -> str:
    if pending is None:
        return ""
    lines = [f"Alfred asked ({pending.kind} from {pending.source}):", pending.message]
    lines += [f"- {q}" for q in pending.questions]
    if pending.answer is not None:
        lines.append(f"The user's reply to it: {pending.answer}")
    if pending.options:
        if pending.chosen is not None:
            lines.append(f"The user chose: {pending.chosen.label} ({pending.chosen.ref}).")
        else:
            refs = ", ".join(f"{o.label} ({o.ref})" for o in pending.options)
            lines.append(f"The reply picks none of the options ({refs}) by itself.")
    return "\n".join(lines)


def today_section(clock: Clock | None, *words: str | None) -> str:
    """The clock and calendar, then the day phrases of the user's ``words`` (their message,
    their answer to a pause) as dates, and how far the words move a date ("back a week"):
    the system resolves "next Monday", not the model."""
    if clock is None:
        return ""
    text = " \n ".join(w for w in words if w)
    days = named_days(text, local(clock).date()) + moved_lines(text)
    resolved = ["In the user's words:", *(f"- {d}" for d in days)] if days else []
    return "\n".join([clock_section(clock), *resolved])


# --- per node ---------------------------------------------------------------------------------


def understand_context(
    message: str,
    state: ConversationState,
    registry: SessionIdRegistry,
    pending: PendingContext | None = None,
    *,
    context: TurnContext | None = None,
    budget: int = CONDENSED_BUDGET,
    clock: Clock | None = None,
) -> Fitted:
    context = context or TurnContext()
    return fit(
        [
            Section("Current message", message, 100),
            Section("Today", today_section(clock, message, pending and pending.answer), 98),
            Section("Pending question (the message answers it)", pending_section(pending), 90),
            Section(
                "Changed or mentioned by the user",
                user_changes_section(context, with_data=False),
                85,
            ),
            Section("Handoff from a cook / brainstorm session", handoff_section(state), 80),
            Section("Recent conversation", annotated_conversation(state, registry, depth=5), 50),
            Section("Entity registry", registry_table(registry), 60),
            Section("Decision history", decision_history(state), 40),
            Section("Previous turns' plans", reasoning_section(state), 20),
        ],
        budget,
    )


def think_context(
    message: str,
    understand: UnderstandOutput,
    state: ConversationState,
    registry: SessionIdRegistry,
    pending: PendingContext | None = None,
    *,
    context: TurnContext | None = None,
    budget: int = CONDENSED_BUDGET,
    clock: Clock | None = None,
    replan: str | None = None,
) -> Fitted:
    """``replan``: why Think is asked again for this request (``domain.enforced.
    plan_rules.ask_again``), shown right after the request."""
    context = context or TurnContext()
    understood = []
    known = set(registry.known_refs())
    referenced = [r for r in understand.referenced_entities if r in known]  # never invented refs
    if referenced:
        understood.append(f"Referenced: {', '.join(referenced)}")
    if understand.constraint_snapshot:
        understood.append(f"Constraints: {'; '.join(understand.constraint_snapshot)}")
    return fit(
        [
            Section("User request", message, 100),
            Section("Your plan, asked again", replan or "", 99),
            Section("Today", today_section(clock, message, pending and pending.answer), 98),
            Section("Pending question and the user's reply", pending_section(pending), 90),
            Section("Understood", "\n".join(understood), 80),
            Section("Curation this turn", curation_this_turn(understand), 75),
            Section("Handoff from a cook / brainstorm session", handoff_section(state), 74),
            Section(
                "Changed or mentioned by the user",
                user_changes_section(context, with_data=True),
                72,
            ),
            Section("Entities", entity_context(registry, with_detail=True), 70),
            Section("User profile", profile_section(context.profile), 65),
            Section("Kitchen dashboard", dashboard_section(context.dashboard), 45),
            Section("Conversation", conversation_section(state, depth=2), 40),
            Section("Reasoning trace", reasoning_section(state), 30),
        ],
        budget,
    )


def _format_step_result(
    result: StepResult,
    *,
    full: bool,
    data_elsewhere: bool = False,
    for_reply: bool = False,
    today: dt.date | None = None,
) -> str:
    """``data_elsewhere``: another section shows the step's data (Reply's primary output),
    so it is not sent twice. Nothing stands in its place: a weak model copies a pointer
    ("under Primary output") as its answer. ``for_reply``: a write that succeeded is its
    sentence ("Saved 1 recipe: Dal."), not the rows it sent and got back (Reply says what
    changed; the rows are for Act's later steps), a read is ``read_said``, and Act's note
    for its next step is left out: it is Act's word to Act (the 1.5B local model answered
    "anything i need to do this week?" with a read step's note, "You can add meals to your
    plan by creating a new meal plan entry"). A read step is what its reads found (its
    ``read_said``), not what Act made of them: its summary and data are Act's words, and
    the 1.5B answered the same question with a read step's summary of an empty shopping
    list ("… Good luck with your shopping!")."""
    said_by_reads = for_reply and result.step_type == "read" and _ran_reads(result)
    summary = "" if said_by_reads else result.summary
    head = (
        f"Step {result.step_index} ({result.step_type}, {result.subdomain}): "
        f"{result.description} → {result.outcome}. {summary}"
    ).rstrip()
    if result.flags and not said_by_reads:  # the step claimed more than its outcomes show
        head += f"\nNOT CONFIRMED ({'; '.join(result.flags)}): do not present it as done."
    if result.batch is not None:
        head += f"\nBatch: {result.batch.progress()}"
    if not full:
        rows = sum(len(t.rows or []) for t in result.tool_results)
        return f"{head} [{rows} rows; use retrieve_step {result.step_index} for the data]"
    parts = [head]
    if result.data is not None and not data_elsewhere and not said_by_reads:
        parts.append(f"data: {_json(result.data)}")
    for tool in _told_reply(result) if for_reply else result.tool_results:
        if for_reply and tool.tool in WRITE_TOOLS and tool.error is None:
            said = format_write_confirmation(tool.tool, tool.table or "", tool.rows or [])
            parts.append(f"tool result: {said}")
        elif for_reply and tool.tool == "db_read" and tool.error is None:
            parts.append(f"tool result: {read_said(tool, today)}")
        else:
            parts.append(f"tool result: {_json(tool.as_dict())}")
    if result.note and not for_reply:
        parts.append(f"note: {result.note}")
    return "\n".join(parts)


def _told_reply(result: StepResult) -> list[ToolEntry]:
    """The step's tool results Reply is told: not a read that found nothing when a later
    read of the same table in the step found rows (a name missed, then the row read by its
    full name), and not a write step's reads once it wrote (its lookups for the write).
    For "chili tonight" the 1.5B local model answered "I couldn't find a matching saved
    recipe" from the first read of "chili", above the chili planned for tonight."""
    tools = result.tool_results
    wrote = result.step_type == "write" and any(t.succeeded_write() for t in tools)
    return [
        t
        for i, t in enumerate(tools)
        if not (t.tool == "db_read" and t.error is None and (wrote or _found_later(t, tools[i:])))
    ]


def _found_later(read: ToolEntry, after: list[ToolEntry]) -> bool:
    return not read.count and any(
        t.tool == "db_read" and t.error is None and t.count and t.table == read.table
        for t in after[1:]
    )


def _ran_reads(result: StepResult) -> bool:
    return any(t.tool == "db_read" and t.error is None for t in result.tool_results)


def read_said(read: ToolEntry, today: dt.date | None = None) -> str:
    """A read as Reply is shown it: what was asked for, what was found as the user would
    read it (``format_quick_result``: a meal plan's day, meal and recipe, not its refs),
    then the rows themselves and the read's notes. The 1.5B local model, sent the read as
    the executor's JSON (its query's columns, order and limit first, the recipe as
    ``_recipe_id_label`` beside a ref), answered "I don't have any information about
    what's for dinner tomorrow" for a read that found the chili; sent this, it named it."""
    params = read.params or {}
    table = read.table or str(params.get("table") or "")
    rows = read.rows or []

    def joined(filters: Any, by: str) -> str:
        return by.join(
            f"{f.get('field')} {f.get('op')} {_value(f.get('value'))}"
            for f in filters or []
            if isinstance(f, dict)
        )

    every, either = joined(params.get("filters"), " and "), joined(params.get("or_filters"), " or ")
    if every and " or " in either:
        either = f"({either})"
    said = " and ".join(part for part in (every, either) if part)
    found = format_read(read, today)
    count = read.count if read.count is not None else len(rows)
    parts = [f"read {table}{f' where {said}' if said else ''}: {found or f'{count} row(s)'}"]
    if rows:
        parts.append(f"rows: {_json(rows)}")
    parts += [f"note: {note}" for note in read.notes or []]
    return "\n".join(parts)


def _value(value: Any) -> str:
    return value if isinstance(value, str) else _json(value)


def _unforgotten(result: StepResult, known: set[str]) -> StepResult:
    """A generate step's result without the content of refs the conversation forgot
    (Understand dropped them at the user's request): it is not offered to be saved."""
    gone = [ref for ref in result.artifacts if ref not in known]
    if not gone or not isinstance(result.data, dict):
        return result
    data = {key: value for key, value in result.data.items() if key not in gone}
    return result.model_copy(update={"data": data or None})


def act_context(
    *,
    message: str = "",
    constraints: Sequence[str] = (),
    batch: BatchManifest | None = None,
    goal: str,
    plan: Sequence[ThinkStep],
    step_index: int,
    prior_results: Sequence[StepResult],
    tool_results: Sequence[ToolEntry],
    registry: SessionIdRegistry,
    state: ConversationState,
    context: TurnContext | None = None,
    budget: int = ACT_BUDGET,
    clock: Clock | None = None,
) -> Fitted:
    context = context or TurnContext()
    step = plan[step_index]
    knows_user = step.step_type in ("analyze", "generate", "write")  # seed 004 V7.2
    expiry = step.step_type in ("analyze", "generate") and step.subdomain in EXPIRY_SUBDOMAINS
    plan_lines = [
        f"{'→' if i == step_index else ' '} {i}. [{s.step_type}/{s.subdomain}, group {s.group}] "
        f"{s.description}"
        for i, s in enumerate(plan)
    ]
    results = []
    for result in prior_results:
        recent = result.step_index >= step_index - FULL_DETAIL_STEPS
        full = recent or (result.step_type == "generate" and step.step_type == "write")
        results.append(_format_step_result(result, full=full))
    earlier_turns = []  # the last 2 turns' results, in full: the data "those recipes" names
    known = set(registry.known_refs())
    for turn, stored in sorted(state.turn_step_results.items(), key=lambda kv: int(kv[0])):
        earlier_turns += [
            f"Turn {turn}: " + _format_step_result(_unforgotten(r, known), full=True)
            for r in stored
        ]
    schema = schema_for_subdomain(step.subdomain) if step.step_type in ("read", "write") else ""
    unsaved = registry.get_truly_pending_artifacts()
    needs_saving = unsaved if step.step_type == "write" else {}
    to_work_on = unsaved if step.step_type in ("generate", "analyze") else {}
    saved_now = registry.get_just_promoted_artifacts()
    current = (
        f"{step_index}. {step.description} (type {step.step_type}, subdomain {step.subdomain})"
    )
    return fit(
        [
            Section("Goal", goal, 100),
            Section("Today", today_section(clock, message), 98),
            Section("The user's words this turn", message, 97),
            Section(
                "Constraints to hold to",
                "\n".join(f"- {c}" for c in constraints) if knows_user else "",
                96,
            ),
            Section("Plan", "\n".join(plan_lines), 95),
            Section("Current step", current, 99),
            Section(
                "Batch to save (every item saved before step_complete)",
                "\n".join(batch.lines()) if batch is not None else "",
                92,
            ),
            Section(f"Schema: {step.subdomain}", schema, 90),
            Section("Previous steps this turn", "\n\n".join(results), 70),
            Section(
                "Recipes against the inventory (compared by the system, from the reads above)",
                stock_compared(prior_results) if step.step_type == "analyze" else "",
                88,
            ),
            Section(
                "Days from today (counted by the system, from the reads above)",
                dates_counted(prior_results, local(clock).date() if clock else None)
                if step.step_type in ("analyze", "generate")
                else "",
                87,
            ),
            Section(
                "Dates moved as the user's words say (counted by the system, from the reads above)",
                "\n".join(
                    dates_moved(prior_results, table, [by for _, by in moves_said(message)])
                    for table in SUBDOMAINS.get(step.subdomain, ())
                ).strip()
                if step.step_type == "write"
                else "",
                87,
            ),
            Section(
                "Amounts as the user's words give them (counted by the system, from the reads "
                "above)",
                amounts_scaled(prior_results, message) if step.step_type == "write" else "",
                87,
            ),
            Section(
                "This step's tool results so far",
                "\n".join(_json(t.as_dict()) for t in tool_results),
                85,
                partial=True,
            ),
            Section(
                "Needs creating (generated, unsaved)",
                "\n".join(f"`{ref}`: {_json(content)}" for ref, content in needs_saving.items()),
                80,
            ),
            Section(
                "Generated content (unsaved; revise it under the same ref)",
                "\n".join(f"`{ref}`: {_json(content)}" for ref, content in to_work_on.items()),
                80,
            ),
            Section(
                "Just saved this turn",
                "\n".join(f"`{ref}`: {registry.label(ref)}" for ref in saved_now),
                60,
            ),
            Section(
                "Changed or mentioned by the user (fresh data)",
                user_changes_section(context, with_data=True),
                75,
            ),
            Section("User profile", profile_section(context.profile) if knows_user else "", 65),
            Section("Entities", entity_context(registry, with_detail=True), 50),
            Section(
                "Kitchen dashboard",
                dashboard_section(context.dashboard, expiry=expiry) if knows_user else "",
                35,
            ),
            Section("Earlier turns' steps (last 2 turns)", "\n\n".join(earlier_turns), 30),
            Section("Archived content keys", ", ".join(sorted(state.content_archive)), 25),
            Section("Conversation", conversation_section(state, depth=2), 20),
        ],
        budget,
    )


def act_quick_context(
    intent: str,
    subdomain: str,
    message: str,
    registry: SessionIdRegistry,
    clock: Clock | None = None,
    previous: ToolEntry | None = None,
) -> str:
    retry = ""
    if previous is not None:
        retry = (
            f"You asked for: {_json(previous.params, 2000)}\n"
            f"It failed: {previous.error}\nAsk for a corrected read."
        )
    return _join(
        Section("User message", message),
        Section("Today", today_section(clock, message)),
        Section("Your previous read failed", retry),
        Section("Intent", intent),
        Section(f"Schema: {subdomain}", schema_for_subdomain(subdomain)),
        Section("Entities", entity_context(registry, with_detail=False)),
    )


def reply_context(
    *,
    message: str,
    goal: str | None,
    step_results: Sequence[StepResult],
    quick_result: ToolEntry | None,
    blocked: StepExit | None,
    breakers: Sequence[str],
    registry: SessionIdRegistry,
    state: ConversationState,
    plan: Sequence[PlannedStep] = (),
    budget: int = CONDENSED_BUDGET,
    clock: Clock | None = None,
    written: Sequence[str] = (),
) -> Fitted:
    """``written`` is the turn's record of its writes: the execution summary ends with what
    was changed, in the words the turn's ending uses, a blocked step's writes included."""
    primary = primary_step(step_results)
    lead = primary if primary is not None and primary.data is not None else None
    today = local(clock).date() if clock is not None else None
    outcome = [
        _format_step_result(r, full=True, data_elsewhere=r is lead, for_reply=True, today=today)
        for r in sorted(step_results, key=found_nothing)
    ]
    if blocked is not None:
        stopped = stopped_step(blocked, plan)
        outcome.append(_format_step_result(stopped, full=True, for_reply=True, today=today))
    if quick_result is not None and quick_result.tool == "db_read" and not quick_result.failed:
        outcome.append(f"Quick read result: {read_said(quick_result, today)}")
    elif quick_result is not None:
        outcome.append(f"Quick read result: {_json(quick_result.as_dict())}")
    outcome.append(format_done(written))
    generated = registry.get_truly_pending_artifacts()
    saved = registry.get_just_promoted_artifacts()
    status = []
    if generated:
        status.append(
            "NOT YET SAVED (show in full, offer to save): "
            + ", ".join(f"{registry.label(r)}" for r in generated)
        )
        shown = set(lead.artifacts) if lead is not None else set()
        status += [
            f"{registry.label(r)}: {_json(c)}" for r, c in generated.items() if r not in shown
        ]
    if saved:
        status.append(
            "ALREADY SAVED this turn (don't offer to save): "
            + ", ".join(registry.label(r) for r in saved)
        )
    problems = []
    if blocked:  # what it did before it stopped is in the execution summary
        stop = blocked.model_dump(mode="json", exclude_none=True, exclude={"tool_results"})
        problems.append(f"Blocked: {_json(stop)}")
    problems += [f"Limit reached: {b}" for b in breakers]
    warned = warnings(message, step_results, registry, quick_result=quick_result, stopped=blocked)
    return fit(
        [
            Section("User request", message, 100),
            Section("Today", today_section(clock, message), 98),
            Section("Goal", goal or "", 90),
            Section("Warnings", "\n".join(warned), 99),
            Section("Plan overview", plan_overview(plan), 87),
            Section("Batch progress", batch_progress(step_results), 89),
            Section("Primary output", _primary_output(primary), 86),
            Section("Execution summary", "\n\n".join(outcome) or "(nothing was executed)", 85),
            Section("Saved vs generated", "\n".join(status), 88),
            Section("Problems", "\n".join(problems), 88),
            Section("Suggested next step", next_step(plan, registry, blocked), 84),
            Section("Conversation phase", phase_section(state), 50),
            Section("Conversation", conversation_section(state, depth=2, replies=False), 30),
        ],
        budget,
    )


def found_nothing(result: StepResult) -> bool:
    """A read step whose reads found no row: Reply is shown it after the steps that found
    something (the plan's order otherwise). For "anything i need to do this week?" the
    1.5B local model read five tables, the tasks last, and answered from the first empty
    one ("You don't have any saved recipes yet")."""
    reads = [t for t in result.tool_results if t.tool == "db_read"]
    return result.step_type == "read" and bool(reads) and not any(t.rows for t in reads)


def _primary_output(step: StepResult | None) -> str:
    """The step Reply leads with, and its data: the one place Reply is sent it."""
    if step is None:
        return ""
    head = f"Step {step.step_index} ({step.step_type}): {step.description}"
    return f"{head}\n{_json(step.data)}" if step.data is not None else head


def phase_section(state: ConversationState) -> str:
    """Where the conversation stood after the last turn (Summarize's judgement)."""
    if not state.turn_summaries:
        return "exploring (first turn)"
    last = state.turn_summaries[-1]
    said = f"; the user expressed: {last.user_expressed}" if last.user_expressed else ""
    return f"{last.conversation_phase}{said}"


def bypass_context(
    message: str,
    session: BypassSession,
    context: TurnContext,
    *,
    budget: int = CONDENSED_BUDGET,
    clock: Clock | None = None,
) -> Fitted:
    """A cook or brainstorm message: the recipe being cooked, the profile, the session's own
    history (not the conversation's), the message."""
    recipe = _json(session.recipe, 4000) if session.recipe is not None else ""
    if session.mode == "cook" and not recipe:
        recipe = "(no recipe chosen yet: ask which one)"
    label = f" `{session.recipe_ref}`" if session.recipe_ref else ""
    history = "\n".join(f"User: {e.user}\nAlfred: {e.assistant}" for e in session.history)
    return fit(
        [
            Section("Message", message, 100),
            Section("Today", today_section(clock, message), 98),
            Section(f"Recipe{label}", recipe, 95),
            Section("User profile", profile_section(context.profile), 70),
            Section(f"This {session.mode} session so far", history or "(just started)", 60),
        ],
        budget,
    )


def summarize_context(
    message: str,
    response: str,
    state: ConversationState,
    step_results: Sequence[StepResult] = (),
    written: Sequence[str] = (),
) -> str:
    """What the turn said and did: the steps, what was saved and what is only generated
    (from the writes' results and the registry, not from the reply), the conversation.
    ``written`` is the turn's record of its writes (a blocked step's included)."""
    steps = [
        f"- {r.description} → {r.outcome}. {r.summary}".rstrip()
        + (f" (not confirmed: {'; '.join(r.flags)})" if r.flags else "")
        for r in step_results
    ]
    saved = list(written)
    registry = state.registry
    generated = [registry.label(ref) for ref in registry.get_truly_pending_artifacts()]
    return _join(
        Section("User said", message),
        Section("Assistant replied", response),
        Section("Steps executed", "\n".join(steps) or "(none: nothing was executed)"),
        Section("Saved this turn", "\n".join(saved) or "(nothing)"),
        Section("Generated, not saved", ", ".join(generated)),
        Section("Engagement so far", state.engagement_summary or "(new conversation)"),
        Section("Recent conversation", conversation_section(state, depth=2)),
    )


def compress_context(user_message: str, assistant_summary: str) -> str:
    return _join(Section("User", user_message), Section("Assistant", assistant_summary))
