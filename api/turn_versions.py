"""``alfred turns versions``: which running turns still need an old path of the turn.

A change of the turn's control flow (``workflows.versions.CHANGES``) leaves in two steps,
and Temporal's own data says when each may be taken (docs/ARCHITECTURE.md "Versioning"):

- its old branch may be deleted (the change deprecated) once no running turn lacks its
  patch marker. Each marker a run records is also in the run's ``TemporalChangeVersion``
  search attribute, so one visibility query answers;
- the change may be removed once no running turn recorded its marker with ``patched``
  (a marker recorded by ``deprecate_patch`` replays without it); only the marker in the
  run's history says which, so those runs' histories are read.

Turns of a release before 1.0 carry markers 1.0 no longer asks for: this release cannot
run them (``alfred turns end-stuck`` ends them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.common import SearchAttributeKey

from api.stuck import RUNNING_TURNS
from workflows.versions import CHANGES, Change

CHANGE_VERSION = SearchAttributeKey.for_keyword_list("TemporalChangeVersion")
"""The patch ids a run recorded, upserted by the SDK with each marker."""

BEFORE_1_0 = frozenset(
    {
        "patches-at-start",
        "changes-through-open-turn",
        "turn-context",
        "turn-status-search-attribute",
        "degrade-model-failures",
        "act-write-checks",
        "queued-follow-ups",
        "mode-rules",
        "disambiguation-choices",
        "batch-manifest",
        "which-delete",
        "old-refs-kept",
        "archive-by-keys",
        "shared-registry",
        "open-turn",
    }
)
"""The markers of releases before 1.0 (every pre-1.0 run recorded one). Delete with the
release after 1.1: no turn lives that long."""


@dataclass
class Holding:
    """The running turns that still need what this release keeps for ``change``: its old
    branch (a live change), or its ``deprecate_patch`` call (a deprecated one)."""

    change: Change
    turns: list[str] = field(default_factory=list)


@dataclass
class Report:
    running: list[str]
    holding: list[Holding]
    before_1_0: list[str]


async def report(
    client: Client, changes: Sequence[Change] = CHANGES, query: str = RUNNING_TURNS
) -> Report:
    """Which of the running turns (``query``) need an old path of ``changes``."""
    recorded: dict[str, set[str]] = {}
    async for run in client.list_workflows(query):
        recorded[run.id] = set(run.typed_search_attributes.get(CHANGE_VERSION) or [])
    holding = []
    for change in changes:
        if change.deprecated:
            marked = [w for w, ids in recorded.items() if change.id in ids]
            turns = [w for w in marked if change.id in await _patched(client, w)]
        else:
            turns = [w for w, ids in recorded.items() if change.id not in ids]
        holding.append(Holding(change, turns))
    before = [w for w, ids in recorded.items() if ids & BEFORE_1_0]
    return Report(running=list(recorded), holding=holding, before_1_0=before)


async def _patched(client: Client, workflow_id: str) -> set[str]:
    """The ids of the markers the run recorded with ``patched`` (not deprecated)."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    ids = set()
    for event in history.events:
        marker = event.marker_recorded_event_attributes
        if event.event_type != EventType.EVENT_TYPE_MARKER_RECORDED or "patch-data" not in (
            marker.details
        ):
            continue
        data = json.loads(marker.details["patch-data"].payloads[0].data)
        if not data.get("deprecated"):
            ids.add(data["id"])
    return ids


def lines(found: Report) -> list[str]:
    """The report as ``alfred turns versions`` prints it."""
    out = [f"{len(found.running)} running turn(s)"]
    if not found.holding:
        out.append("no change of the turn's control flow is in flight (CHANGES is empty)")
    for held in found.holding:
        change = held.change
        needs = "its deprecate_patch" if change.deprecated else "its old path"
        stage = "deprecated" if change.deprecated else "live"
        out.append(
            f"{change.id} ({stage}, since {change.release}): {len(held.turns)} running "
            f"turn(s) need {needs}" + (f": {', '.join(held.turns)}" if held.turns else "")
        )
    if found.before_1_0:
        out.append(
            f"{len(found.before_1_0)} running turn(s) of a release before 1.0, which this "
            f"release cannot run: {', '.join(found.before_1_0)}; end them with "
            "`alfred turns end-stuck`"
        )
    return out


def waiting(found: Report) -> bool:
    """Whether a running turn still holds on to something this release keeps for it."""
    return bool(found.before_1_0) or any(h.turns for h in found.holding)
