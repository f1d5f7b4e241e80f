"""The Act loop (seed 000 "Act"): one LLM decision per iteration, CRUD as its own activity.

``ActLoop`` runs a plan: its groups in order (the turn's Act stage takes them one by one,
pausing when a step asks the user), the steps of one group concurrently. A step's loop
keeps the step current on tool_call, request_schema and the retrieve actions, ends it on
step_complete, and exits on ask_user, blocked and fail. Breakers: at most 3 tool calls
per step, 2 schema requests per step, and the turn's LLM-call budget. A second empty read
of one table completes the step with what it found, nothing (seed 000's duplicate empty
query "forces completion"). Steps of one group run in the turn's one registry: each CRUD call's
delta is applied as it returns, so refs are numbered in the order the calls ran and a ref
a model saw is the ref the row keeps.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from temporalio import workflow
from temporalio.exceptions import ActivityError

from workflows.activity_calls import Calls, LlmCapReached, degraded, failure_problem
from workflows.progress import ProgressLog
from workflows.routing import Route, should_continue_act
from workflows.state import TurnState

with workflow.unsafe.imports_passed_through():
    from activities.model_nodes import NodeActivities
    from activities.payloads import ActRequest, ActResult
    from domain.batch import MAX_EARLY_COMPLETIONS, BatchManifest, start_manifest, track_write
    from domain.conversation import StepExit, StepResult
    from domain.formatters import STEP_BREAKERS, breaker_sentence, format_write_confirmation
    from domain.modes import (
        MAX_SCHEMA_REQUESTS_PER_STEP,
        MAX_TOOL_CALLS_PER_STEP,
        mode_config,
    )
    from domain.nodes import ActDecision, GeneratedArtifact, ThinkStep, ToolCall
    from domain.plan_record import StepProgress
    from domain.registry import SessionIdRegistry
    from domain.step_checks import ALREADY_DONE, completion_flags, scope_error, write_key
    from domain.tool_results import ToolEntry
    from workflows.events import PlanMade, StepCompleted, StepStarted, ThinkComplete, Working

ALLOWED_TOOLS: dict[str, tuple[str, ...]] = {
    "read": ("db_read",),
    "write": ("db_read", "db_create", "db_update", "db_delete"),
    "analyze": (),
    "generate": (),
}


def revisable(registry: SessionIdRegistry, artifact: GeneratedArtifact) -> str | None:
    """The unsaved artifact a generate step revised in place, or None for new content (no
    ref, an unknown or already saved ref, or a ref of another type)."""
    ref = artifact.ref
    if ref is None or ref not in registry.unsaved_refs():
        return None
    return ref if registry.type_of(ref) == artifact.type else None


@dataclass
class StepRun:
    """A step's loop state: kept across an ask_user pause so the step resumes in place."""

    index: int
    tool_results: list[ToolEntry] = field(default_factory=list)
    tool_calls: int = 0
    schema_requests: int = 0
    empty_tables: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    """``write_key`` of each write this step made: the same write again is not run."""
    result: StepResult | None = None
    exit: StepExit | None = None
    """Why the step stopped without completing."""
    batch: BatchManifest | None = None
    """The generated items a write step saves, each one's status (seed 000)."""
    early_completions: int = 0
    """step_complete refused because items were still pending."""


class ActLoop:
    def __init__(
        self, state: TurnState, log: ProgressLog, calls: Calls, goal: str, steps: list[ThinkStep]
    ) -> None:
        """The plan ``steps`` for ``goal``, cut to the mode's ``max_steps`` (a breaker), in
        progress and announced (``think_complete``, ``plan``)."""
        self.state, self.log, self.calls = state, log, calls
        config = mode_config(state.mode)
        if len(steps) > config.max_steps:
            log.trip(
                "max_steps",
                f"{len(steps)} steps planned, {state.mode} mode allows {config.max_steps}",
            )
            steps = steps[: config.max_steps]
        self.goal, self.plan = goal, steps
        progress = state.progress
        progress.goal, progress.plan = goal, steps
        progress.steps = [
            StepProgress(
                index=i,
                description=s.description,
                step_type=s.step_type,
                subdomain=s.subdomain,
                group=s.group,
            )
            for i, s in enumerate(steps)
        ]
        log.emit("think_complete", ThinkComplete(goal=goal, step_count=len(steps)))
        log.emit("plan", PlanMade(goal=goal, total_steps=len(steps), steps=list(steps)))
        understand = state.understand
        self.constraints = understand.constraint_snapshot if understand else []
        """What the user asked to hold to this turn ("no dairy"): steps that write,
        generate or analyze are shown them (seed 000 ``constraint_snapshot``)."""

    def groups(self) -> list[list[int]]:
        """The steps' indices by group, groups in order."""
        groups = sorted(dict.fromkeys(s.group for s in self.plan))
        return [[i for i, s in enumerate(self.plan) if s.group == g] for g in groups]

    async def run_group(self, indices: list[int]) -> list[StepRun]:
        """The group's steps, concurrently, in the turn's one registry (in step order)."""
        runs = list(await asyncio.gather(*(self._run_step(StepRun(i)) for i in indices)))
        self._completed(runs)
        return runs

    async def resume(self, run: StepRun, answer: str) -> None:
        """The step that asked, again where it stopped, with the user's answer."""
        run.exit = None
        run.tool_results.append(ToolEntry(user_answer=answer))
        self._completed([await self._run_step(run)])

    @staticmethod
    def asking(runs: list[StepRun]) -> StepRun | None:
        """The step that asked the user a question (``ask_user``), if one did."""
        return next((r for r in runs if r.exit and r.exit.kind == "ask_user"), None)

    def stopped(self, runs: list[StepRun]) -> bool:
        """Whether a step of the group stopped the turn's work (blocked, failed, a breaker):
        it is the turn's exit, and the later groups are skipped."""
        stopped = next((r for r in runs if r.exit), None)
        if stopped is None:
            return False
        self.state.exit = stopped.exit
        group = self.plan[stopped.index].group
        for later in self.state.progress.steps:
            if later.group > group:
                later.status = "skipped"
        return True

    def _completed(self, runs: list[StepRun]) -> None:
        """Each newly completed step's result, kept and announced (``step_complete``)."""
        for run in runs:
            if run.result is not None and run.index not in self.state.step_results:
                self.state.step_results[run.index] = run.result
                self.log.emit(
                    "step_complete",
                    StepCompleted(
                        step=run.index,
                        total=len(self.plan),
                        summary=run.result.summary,
                        data=run.result.data,
                        tool_calls=run.tool_calls,
                        flags=run.result.flags,
                    ),
                )
        if any(run.result is not None for run in runs):
            self.log.show_context()

    async def _run_step(self, run: StepRun) -> StepRun:
        step = self.plan[run.index]
        progress = self.state.progress.steps[run.index]
        if progress.status == "pending":
            progress.status = "running"
            if step.step_type == "write":
                run.batch = start_manifest(
                    self.state.registry,
                    run.index,
                    step.subdomain,
                    step.description,
                    self.state.what_the_user_said(),
                )
                progress.batch = run.batch
            self.log.emit(
                "step",
                StepStarted(
                    step=run.index,
                    total=len(self.plan),
                    description=step.description,
                    step_type=step.step_type,
                    group=step.group,
                ),
            )
        while run.result is None and run.exit is None:
            try:
                act = await self._decide(run)
            except LlmCapReached:
                self._breaker(run, "llm_call_cap", "the turn's model-call budget is used up")
                break
            except ActivityError as error:
                self._model_failed(run, error)
                break
            await self._apply(run, step, act)
            # Seed 000's routing decides whether this step goes on (one source of truth);
            # ``_apply`` has recorded how it ended when it does not.
            route = should_continue_act(
                act.output, step_index=run.index, total_steps=len(self.plan)
            )
            if act.output.action == "step_complete" and run.result is None:
                continue  # refused: the batch has items pending (the tool results say so)
            if route != Route.CONTINUE or act.output.action == "step_complete":
                break
        progress.tool_calls = run.tool_calls
        return run

    async def _decide(self, run: StepRun) -> ActResult:
        step = self.plan[run.index]
        return await self.calls.llm(
            NodeActivities.act,
            ActRequest(
                message=self.state.what_the_user_said(),
                constraints=self.constraints,
                goal=self.goal,
                plan=self.plan,
                step_index=run.index,
                mode=self.state.mode,
                prior_results=self.state.results(),
                tool_results=run.tool_results,
                batch=run.batch,
                state_ref=self.state.state_ref(),
                context=self.state.context,
                clock=self.state.clock(),
            ),
            summary=f"act step {run.index + 1}/{len(self.plan)}: {step.step_type} {step.subdomain}",
        )

    async def _apply(self, run: StepRun, step: ThinkStep, act: ActResult) -> None:
        d, attempt = act.output, act.attempt
        action = d.action
        if action == "tool_call" and d.tool_call is not None:  # the contract requires it
            await self._tool_call(run, step, d.tool_call)
        elif action == "request_schema":
            run.schema_requests += 1
            if run.schema_requests > MAX_SCHEMA_REQUESTS_PER_STEP:
                self._breaker(run, "schema_requests")
                return
            schema = await self.calls.schema(d.subdomain or step.subdomain)
            run.tool_results.append(
                ToolEntry(schema_name=schema.subdomain, text=schema.schema_text)
            )
        elif action == "retrieve_step":
            found = self.state.step_results.get(d.step_index)
            run.tool_results.append(
                ToolEntry(
                    retrieved_step=d.step_index,
                    result=found.model_dump(mode="json") if found else "no such step this turn",
                )
            )
        elif action == "retrieve_archive":
            content = self.state.conversation.content_archive.get(d.archive_key or "")
            if content is None:
                content = act.archived  # saved content: the copy holds its key only
            run.tool_results.append(
                ToolEntry(
                    archive_key=d.archive_key,
                    content=content if content is not None else "not in the archive",
                )
            )
        elif action == "step_complete":
            self._complete(run, step, d)
        else:
            run.exit = StepExit(
                kind=action,  # type: ignore[arg-type]  # the three actions left
                step=run.index,
                question=d.question,
                reason_code=d.reason_code,
                details=d.details,
                suggested_next=d.suggested_next,
                user_message=d.user_message,
                tool_results=list(run.tool_results),
            )
            # The step's status: what it asked or why it stopped ("fail" failed it).
            self.state.progress.steps[run.index].status = "failed" if action == "fail" else action
        if run.result is None and run.exit is None:
            self.log.emit("working", Working(step=run.index, action=action), attempt=attempt)

    async def _tool_call(self, run: StepRun, step: ThinkStep, call: ToolCall) -> None:
        if run.tool_calls >= MAX_TOOL_CALLS_PER_STEP:
            self._breaker(run, "max_tool_calls")
            return
        run.tool_calls += 1
        if call.tool not in ALLOWED_TOOLS[step.step_type]:
            run.tool_results.append(
                ToolEntry(tool=call.tool, error=f"a {step.step_type} step cannot call {call.tool}")
            )
            return
        refused = self._refused(run, step, call)
        if refused is not None:
            run.tool_results.append(ToolEntry(tool=call.tool, params=call.params, error=refused))
            return
        key = f"{workflow.info().workflow_id}/step-{run.index}/call-{run.tool_calls}"
        result = await self.calls.crud(call, key=key, step=run.index)
        entry = ToolEntry.of_call(call.tool, call.params, result.result, result.error)
        run.tool_results.append(entry)
        if run.batch is not None and call.tool != "db_read":
            track_write(run.batch, self.state.registry, entry)
        table = str(call.params.get("table"))
        if call.tool != "db_read" and result.result is not None:
            run.writes.append(write_key(call.tool, call.params))
        if call.tool != "db_read" and result.result is not None and result.result.rows:
            self.state.written.append(
                format_write_confirmation(call.tool, result.result.table, result.result.rows)
            )
        if call.tool == "db_read" and result.result is not None and result.result.count == 0:
            if table in run.empty_tables:
                self._found_nothing(run, table)
                return
            run.empty_tables.append(table)

    def _refused(self, run: StepRun, step: ThinkStep, call: ToolCall) -> str | None:
        """Why a write is answered without being run: outside the step's subdomain, or
        the same as one this step already made."""
        if call.tool == "db_read":
            return None
        problem = scope_error(step.subdomain, call.tool, str(call.params.get("table")))
        if problem is not None:
            return problem
        if write_key(call.tool, call.params) in run.writes:
            return ALREADY_DONE.format(tool=call.tool)
        return None

    def _complete(self, run: StepRun, step: ThinkStep, d: ActDecision) -> None:
        registry = self.state.registry
        unsaved: list[str] = []
        if run.batch is not None and run.batch.pending():
            if run.early_completions < MAX_EARLY_COMPLETIONS:
                run.early_completions += 1
                run.tool_results.append(ToolEntry(tool="step_complete", error=run.batch.refusal()))
                return
            unsaved = [f"batch not finished: {run.batch.progress()}"]
        artifacts: list[str] = []
        data = d.data
        if step.step_type == "generate" and d.artifacts:
            data = {}
            for artifact in d.artifacts:
                ref = revisable(registry, artifact)
                if ref is not None:
                    registry.update_entity_data(ref, artifact.content)
                else:
                    ref = registry.register_generated(artifact.type, artifact.content)
                self.state.conversation.content_archive[ref] = artifact.content
                artifacts.append(ref)
                data[ref] = artifact.content
        flags = completion_flags(
            step.step_type,
            run.tool_results,
            [d.result_summary, d.data, d.note_for_next_step],
            set(registry.known_refs()),
        )
        run.result = StepResult(
            step_index=run.index,
            description=step.description,
            step_type=step.step_type,
            subdomain=step.subdomain,
            outcome="completed",
            summary=d.result_summary or "",
            data=data,
            # the refused completions were for Act; the batch says how the saving went
            tool_results=[t for t in run.tool_results if t.tool != "step_complete"],
            artifacts=artifacts,
            note=d.note_for_next_step,
            flags=flags + unsaved,
            batch=run.batch,
        )
        progress = self.state.progress.steps[run.index]
        progress.status = "completed"
        progress.summary = d.result_summary or ""

    def _model_failed(self, run: StepRun, error: ActivityError) -> None:
        """The model gave no usable decision for the step (after its repairs and retries):
        the step is blocked, the turn goes on to a reply that says so."""
        kind = degraded(error)
        code = "invalid_model_output" if kind == "invalid_output" else "model_unavailable"
        run.exit = StepExit(
            kind="blocked",
            step=run.index,
            reason_code=code,
            details=f"Step {run.index + 1} stopped: {failure_problem(error)}",
            suggested_next=(
                "Try again, perhaps in other words."
                if kind == "invalid_output"
                else "Try again in a moment."
            ),
            tool_results=list(run.tool_results),
        )
        self.state.progress.steps[run.index].status = "blocked"
        self.log.fallback(f"act step {run.index + 1}", kind)

    def _found_nothing(self, run: StepRun, table: str) -> None:
        """A second empty read of ``table`` in one step completes it (seed 000: the
        duplicate empty query "forces completion"): what the step found is that nothing
        matched, which is an answer, not a stop. Called a breaker, with "I stopped the
        step … because it kept coming back empty" in the reply, it left the 1.5B local
        model's Reply to answer "how much olive oil am i getting" with "I can't help with
        that". Its commands are the breaker's: no other call, the step ends."""
        summary = f"Nothing found: the reads of {table} came back empty twice."
        run.result = self._ended(run, "completed", summary)
        progress = self.state.progress.steps[run.index]
        progress.status, progress.summary = "completed", summary
        workflow.logger.info("step %s: %s", run.index, summary)

    def _breaker(self, run: StepRun, kind: str, detail: str = "") -> None:
        """End the step with what it has; the reply will say a limit was reached. A step
        breaker's detail is the step's description: the user reads it (``format_breaker``);
        the step's number is in progress, where its status is ``breaker``."""
        step = self.plan[run.index]
        detail = detail or step.description
        self.log.trip(kind, detail)
        reason = breaker_sentence(kind, detail) if kind in STEP_BREAKERS else detail
        if kind in ("llm_call_cap", "schema_requests"):
            run.exit = StepExit(
                kind="breaker",
                breaker=kind,
                step=run.index,
                details=reason,
                tool_results=list(run.tool_results),  # what it did before the limit
            )
        else:
            run.result = self._ended(run, "breaker", reason)
        self.state.progress.steps[run.index].status = "breaker"

    def _ended(self, run: StepRun, outcome: str, summary: str) -> StepResult:
        """The step's result when the loop, not Act, ends it: with what it has."""
        step = self.plan[run.index]
        return StepResult(
            step_index=run.index,
            description=step.description,
            step_type=step.step_type,
            subdomain=step.subdomain,
            outcome=outcome,
            summary=summary,
            tool_results=run.tool_results,
        )
