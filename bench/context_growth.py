"""Does a long conversation keep its prompts bounded? A 50-turn scripted conversation on a
local Temporal dev server and PostgreSQL, measuring what each node is shown.

    .venv/bin/python -m bench.context_growth --turns 50

The turns cycle through five kinds (generate a recipe, revise it, save it, restock the
shopping list from the inventory, review the inventory), so turns 5, 10, 25 and 50 are the
same kind of turn at different depths of the conversation. Prompt tokens are the offline
estimate (``domain.tokens``) of the system prompt plus the user message of every model
call; history bytes are those of the turn's Temporal history. Writes the results into
docs/BENCHMARKS.md between this benchmark's markers.
"""

from __future__ import annotations

import os
import platform
import time
import uuid
from collections import defaultdict

from activities.llm.script_provider import ScriptProvider
from api.temporal import connect
from bench.harness import markers, run_bench
from bench.scripted import act_answer, plan_answer
from domain.crud.calls import DbCreate
from domain.crud.executor import CrudExecutor
from domain.db.engine import create_engine, session_factory
from domain.registry import SessionIdRegistry
from domain.settings import Settings
from domain.tokens import estimate_tokens
from domain.turn_store import create_conversation
from domain.users import create_user
from workflows.interface import TurnInput, TurnLimits
from workflows.turn import TurnWorkflow
from workflows.worker import build_worker

NAME = "context_growth"
REPORTED = (1, 5, 10, 25, 50)
NODES = ("understand", "think", "act", "reply", "summarize")
PANTRY = [
    {"name": name, "quantity": 1, "unit": "piece", "location": place}
    for name, place in (
        ("eggs", "fridge"),
        ("milk", "fridge"),
        ("butter", "fridge"),
        ("rice", "pantry"),
        ("lentils", "pantry"),
        ("onions", "pantry"),
        ("frozen peas", "freezer"),
        ("cod", "freezer"),
    )
]


def _step(description: str, step_type: str, subdomain: str, group: int = 0) -> dict:
    return {
        "description": description,
        "step_type": step_type,
        "subdomain": subdomain,
        "group": group,
    }


_plan = plan_answer
_act = act_answer


def _recipe(cycle: int, *extra: str) -> dict:
    names = ["cod", "lemon", "rice", *extra]
    return {
        "name": f"Dish {cycle}",
        "cuisine": "mediterranean",
        "servings": 2,
        "instructions": ["Prepare the ingredients.", "Cook gently.", "Serve warm."],
        "ingredients": [{"name": n, "quantity": 1, "unit": "piece"} for n in names],
    }


def turn_script(n: int) -> list[dict]:
    """The model's outputs for turn ``n`` (1-based): kind ``(n - 1) % 5`` of the cycle."""
    cycle, kind = (n - 1) // 5 + 1, (n - 1) % 5
    gen = f"gen_recipe_{cycle}"
    reply = {"node": "reply", "output": {"response": f"Done with turn {n}. " * 8}}
    if kind == 0:
        return [
            {"node": "understand", "output": {}},
            _plan("A new fish dish", _step("Write a recipe", "generate", "recipes")),
            _act(
                0,
                action="step_complete",
                result_summary="Wrote it",
                artifacts=[{"type": "recipe", "content": _recipe(cycle)}],
            ),
            reply,
        ]
    if kind == 1:
        return [
            {"node": "understand", "output": {"referenced_entities": [gen]}},
            _plan("Add parsley", _step(f"Revise {gen}", "generate", "recipes")),
            _act(
                0,
                action="step_complete",
                result_summary="Revised it",
                artifacts=[{"type": "recipe", "ref": gen, "content": _recipe(cycle, "parsley")}],
            ),
            reply,
        ]
    if kind == 2:
        return [
            {"node": "understand", "output": {"referenced_entities": [gen]}},
            _plan("Save it", _step(f"Save {gen}", "write", "recipes")),
            _act(
                0,
                action="tool_call",
                tool_call={
                    "tool": "db_create",
                    "params": {"table": "recipes", "data": {"id": gen}},
                },
            ),
            _act(0, action="step_complete", result_summary="Saved"),
            reply,
        ]
    if kind == 3:
        return [
            {"node": "understand", "output": {}},
            _plan(
                "Restock",
                _step("Read the inventory", "read", "inventory"),
                _step("Add what is missing", "write", "shopping", group=1),
            ),
            _act(
                0,
                action="tool_call",
                tool_call={"tool": "db_read", "params": {"table": "inventory"}},
            ),
            _act(0, action="step_complete", result_summary="Read 8 items"),
            _act(
                1,
                action="tool_call",
                tool_call={
                    "tool": "db_create",
                    "params": {"table": "shopping_list", "data": {"name": f"lemons {n}"}},
                },
            ),
            _act(1, action="step_complete", result_summary="Added lemons"),
            reply,
        ]
    return [
        {"node": "understand", "output": {}},
        _plan(
            "Review the fridge",
            _step("Read the fridge", "read", "inventory"),
            _step("Say what to use first", "analyze", "inventory", group=1),
        ),
        _act(
            0,
            action="tool_call",
            tool_call={
                "tool": "db_read",
                "params": {
                    "table": "inventory",
                    "filters": [{"field": "location", "op": "=", "value": "fridge"}],
                },
            },
        ),
        _act(0, action="step_complete", result_summary="Read the fridge"),
        _act(1, action="step_complete", result_summary="Use the milk first"),
        reply,
    ]


def script(turns: int) -> ScriptProvider:
    responses = [r for n in range(1, turns + 1) for r in turn_script(n)]
    responses += [
        {
            "node": "summarize",
            "repeat": True,
            "output": {
                "assistant_summary": "Alfred did what was asked and said so in a few lines.",
                "engagement_summary": "Cooking fish dishes and keeping the kitchen stocked.",
                "conversation_phase": "executing",
            },
        },
        {
            "node": "compress",
            "repeat": True,
            "output": {"summary": "The user asked for a dish or a restock; Alfred did it."},
        },
    ]
    return ScriptProvider.from_responses(responses)


async def measure(address: str, app_url: str, turns: int) -> list[dict]:
    client = await connect(Settings(_env_file=None, temporal_address=address))
    engine = create_engine(app_url)
    sessions = session_factory(engine)
    user_id, _ = await create_user(sessions, "bench")
    await CrudExecutor(sessions).execute(
        DbCreate(table="inventory", data=PANTRY),
        user_id=user_id,
        registry=SessionIdRegistry(),
        idempotency_key=uuid.uuid4().hex,
    )
    conversation = await create_conversation(sessions, user_id, "bench")
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    provider = script(turns)
    rows: list[dict] = []
    async with build_worker(client, task_queue=queue, sessions=sessions, provider=provider):
        for n in range(1, turns + 1):
            before = len(provider.calls)
            handle = await client.start_workflow(
                TurnWorkflow.run,
                TurnInput(
                    conversation_id=conversation,
                    user_id=str(user_id),
                    turn_number=n,
                    message=f"turn {n}",
                    limits=TurnLimits(),
                ),
                id=f"bench-{conversation}-{n}",
                task_queue=queue,
            )
            result = await handle.result()
            assert result.status == "completed", result
            history = await handle.fetch_history()
            tokens: dict[str, list[int]] = defaultdict(list)
            for call in provider.calls[before:]:
                tokens[call.node].append(estimate_tokens(call.system) + estimate_tokens(call.user))
            rows.append(
                {
                    "turn": n,
                    "tokens": dict(tokens),
                    "bytes": sum(e.ByteSize() for e in history.events),
                }
            )
    if provider.unused():
        raise RuntimeError(f"script not used up: {provider.unused()[:3]}")
    await engine.dispose()
    return rows


def report(turns: int, rows: list[dict]) -> str:
    start, end = markers(NAME)
    shown = [n for n in REPORTED if n <= turns]

    def biggest(row: dict, node: str) -> int:
        return max(row["tokens"].get(node, [0]))

    def total(row: dict) -> int:
        return sum(sum(v) for v in row["tokens"].values())

    lines = [
        start,
        f"## {NAME}",
        "",
        f"A {turns}-turn scripted conversation in one conversation (a cycle of five turns: "
        "generate a recipe, revise it, save it, restock from the inventory, review the "
        "fridge) on a local `temporal server start-dev` and PostgreSQL. Tokens are the "
        "offline estimate of system prompt + user message; per node, the largest call of "
        "the turn (Act makes several).",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; measured {time.strftime('%Y-%m-%d')}.",
        "",
        "| turn | " + " | ".join(NODES) + " | all calls | history KiB |",
        "|---" * (len(NODES) + 3) + "|",
    ]
    by_turn = {row["turn"]: row for row in rows}
    for n in shown:
        row = by_turn[n]
        cells = [str(biggest(row, node)) for node in NODES]
        lines.append(
            f"| {n} | " + " | ".join(cells) + f" | {total(row)} | {row['bytes'] / 1024:.0f} |"
        )
    if 5 in by_turn and turns in by_turn and turns > 5:
        last, fifth = by_turn[turns], by_turn[5]
        ratios = ", ".join(
            f"{node} {biggest(last, node) / biggest(fifth, node):.2f}×"
            for node in NODES
            if biggest(fifth, node)
        )
        lines += [
            "",
            f"- turn {turns} vs turn 5 (target ≤ 1.3×): all calls "
            f"{total(last) / total(fifth):.2f}×; {ratios}",
            f"- history bytes: turn 5 {fifth['bytes'] / 1024:.0f} KiB, turn {turns} "
            f"{last['bytes'] / 1024:.0f} KiB",
        ]
    lines.append(end)
    return "\n".join(lines)


def main() -> None:
    run_bench(NAME, __doc__, measure, report, default_turns=50)


if __name__ == "__main__":
    main()
