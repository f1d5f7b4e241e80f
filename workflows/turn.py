"""TurnWorkflow: one conversation turn, Understand → (Think → Act loop | Act Quick) → Reply
→ Summarize (seed 000), with durable pauses for proposals, clarifications and questions.

Every node and every CRUD call is an activity (see ``workflows.turn_runtime``); routing is the
seeds' functions in ``workflows.routing``; the Act loop is ``workflows.act_loop``. The
response is visible (status ``replied``, a ``done`` event) before Summarize runs.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from pydantic import JsonValue
from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream
from temporalio.exceptions import ActivityError, ApplicationError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from activities.model_nodes import NodeActivities
    from activities.payloads import (
        ActQuickRequest,
        ReplyRequest,
        SummarizeRequest,
        SummarizeResult,
        ThinkRequest,
        UnderstandRequest,
    )
    from activities.turn_state import TurnStateActivities
    from domain import formatters
    from domain.choices import (
        WHICH_DELETE_QUESTION,
        checked_options,
        format_choice,
        resolve_choice,
        which_to_delete,
    )
    from domain.conversation import (
        CurationSummary,
        PendingContext,
        StepExecutionSummary,
        StepResult,
        TurnEnding,
        TurnExecutionSummary,
        TurnRecord,
        prune_archive,
    )
    from domain.curation import apply_curation
    from domain.entity_cards import entity_cards
    from domain.execution_summary import PlannedStep, unmet_change
    from domain.intent import requested_change
    from domain.mentions import plain_text
    from domain.modes import BYPASS_MODES, DEFAULT_MODE, apply_mode, mode_config
    from domain.nodes import (
        DisambiguationOption,
        ThinkOutput,
        ThinkStep,
        ToolCall,
        UnderstandOutput,
    )
    from domain.tool_results import ToolEntry
    from workflows.act_loop import ActLoop, StepRun
    from workflows.events import (
        AwaitingInput,
        Clarifying,
        Done,
        Failed,
        PlanMade,
        Proposed,
        StepCompleted,
        ThinkComplete,
        Thinking,
        TurnEnded,
    )
    from workflows.interface import (
        InputReceipt,
        PendingPause,
        ProgressQuery,
        StepProgress,
        TurnInput,
        TurnOutput,
        TurnProgress,
        UserInput,
    )
    from workflows.routing import Route, Stage, route_after_think, route_after_understand
    from workflows.turn_runtime import (
        LlmCapReached,
        TurnRuntime,
        failure_kind,
        failure_problem,
        failure_wait,
    )
    from workflows.turn_workflow_state import TurnState


PLANNED = dict.fromkeys(PlannedStep.model_fields, True)
"""The fields of a step's progress that Reply's plan overview reads."""


class _TurnEnded(Exception):
    """A pause ended the turn without a reply to build (expired)."""


@workflow.defn(name="TurnWorkflow")
class TurnWorkflow:
    @workflow.init
    def __init__(self, turn: TurnInput) -> None:
        # The turn's events and streamed text, for clients (``api.streams``).
        self.rt = TurnRuntime(turn, WorkflowStream())
        self.state = TurnState(mode=turn.mode or DEFAULT_MODE, said=[self.rt.message])
        """What the turn has decided and heard so far."""

    # --- the client's view -----------------------------------------------------------------

    @workflow.query(name="progress")
    def progress(self, query: ProgressQuery) -> TurnProgress:
        """Status, pending pause, plan and the events after ``query.after_seq``."""
        return self.rt.view(query.after_seq)

    @workflow.signal(name="previous_turn_saved")
    def previous_turn_saved(self) -> None:
        """The turn before this one saved its state: a queued turn may go on."""
        self.rt.previous_saved = True

    @workflow.update(name="answer")
    def answer(self, user_input: UserInput) -> InputReceipt:
        """Answer the open pause; the validator has rejected any answer that would not count."""
        if user_input.input_id in self.state.receipts:
            return self.state.receipts[user_input.input_id]
        pending = self.rt.progress.pending
        if pending is None:  # the validator ran in this same workflow task: cannot happen
            raise ApplicationError("no pause is open", type="not_awaiting_input")
        receipt = InputReceipt(
            input_id=user_input.input_id, pause_id=pending.pause_id, action=user_input.action
        )
        self.state.receipts[user_input.input_id] = receipt
        self.state.inputs.append(user_input)
        return receipt

    @answer.validator
    def validate_answer(self, user_input: UserInput) -> None:
        """Rejected before it reaches history: no pause open, another pause named, or the
        open one already answered. The same input id again is accepted (idempotent)."""
        if user_input.input_id in self.state.receipts:
            return
        if any(r.pause_id == user_input.pause_id for r in self.state.receipts.values()):
            raise ApplicationError(
                f"{user_input.pause_id} has already been answered", type="already_answered"
            )
        pending = self.rt.progress.pending
        if pending is None:
            raise ApplicationError(
                f"turn {self.rt.turn.turn_number} is {self.rt.progress.status}: "
                "no question or proposal is waiting for an answer",
                type="not_awaiting_input",
            )
        if user_input.pause_id is not None and user_input.pause_id != pending.pause_id:
            raise ApplicationError(
                f"{user_input.pause_id} is not the open question; {pending.pause_id} is",
                type="not_the_open_pause",
            )
        if self.state.inputs:
            raise ApplicationError(
                f"{pending.pause_id} has already been answered", type="already_answered"
            )

    # --- the turn ----------------------------------------------------------------------------

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        rt = self.rt
        rt.versions.decide()
        rt.mark("started")
        try:
            await rt.open()
            self.state.said[0] = rt.message
            if self.state.mode in BYPASS_MODES:
                raise ApplicationError(
                    f"mode {self.state.mode!r} runs as BypassTurnWorkflow, not TurnWorkflow",
                    type="unsupported_mode",
                    non_retryable=True,
                )
            rt.emit("thinking", Thinking(message=turn.message))
            try:
                response = await self._converse()
            except LlmCapReached:
                rt.trip("llm_call_cap", "the turn's model-call budget is used up")
                response = "I stopped before I could finish this request."
            await self._wrap_up(response)
        except _TurnEnded:
            pass
        except (ActivityError, ApplicationError, asyncio.CancelledError) as error:
            if is_cancelled_exception(error):
                await self._end_cancelled()
                raise
            await self._end_failed(error)
        await workflow.wait_condition(workflow.all_handlers_finished)
        return rt.output()

    async def _converse(self) -> str:
        """Understand and route until the turn has a response (pauses may loop back)."""
        message = self.rt.message
        pending: PendingContext | None = None
        stage = Stage.UNDERSTAND
        while True:
            if stage == Stage.UNDERSTAND:
                try:
                    understand = await self._understand(message, pending)
                except ActivityError as error:
                    return self._gave_up("understand", error)
                route = route_after_understand(understand)
                if route == Route.ACT_QUICK:
                    quick = await self._act_quick(understand, message)
                    if quick is not None:
                        return quick
                    route = Route.THINK  # the quick read failed: plan it instead
                if route == Route.THINK:
                    stage = Stage.THINK
                    continue
                questions = understand.clarification_questions
                if understand.needs_disambiguation:
                    options = understand.disambiguation_options
                    answer = await self._pause(
                        "clarification",
                        "understand",
                        format_choice(questions[0] if questions else None, options),
                        questions=questions[:1],
                        options=options,
                    )
                else:
                    answer = await self._pause(
                        "clarification",
                        "understand",
                        formatters.format_clarification(questions),
                        questions=questions,
                    )
            else:
                try:
                    think = await self._think(message, pending)
                except ActivityError as error:
                    return self._gave_up("think", error)
                think = self.state.think = apply_mode(self.state.mode, think)
                if route_after_think(think) == Route.ACT:
                    return await self._execute(think.goal, think.steps)
                if think.decision == "propose":
                    self.rt.emit(
                        "propose",
                        Proposed(goal=think.goal, proposal_message=think.proposal_message),
                    )
                    answer = await self._pause(
                        "proposal",
                        "think",
                        formatters.format_proposal(think.proposal_message or "", think.steps),
                        plan=think.steps,
                    )
                    if isinstance(answer, UserInput) and answer.action == "confirm":
                        confirmed = plain_text(answer.text or "yes, go ahead")
                        self.state.said.append(confirmed)
                        if think.steps:  # confirming runs the plan without another Think
                            return await self._execute(think.goal, think.steps)
                        pending = self._pending_context(confirmed)
                        message = self._what_the_user_said()
                        stage = Stage.THINK
                        continue
                else:
                    questions = think.clarification_questions
                    self.rt.emit("clarify", Clarifying(goal=think.goal, questions=questions))
                    answer = await self._pause(
                        "clarification",
                        "think",
                        formatters.format_clarification(questions),
                        questions=questions,
                    )
            if isinstance(answer, str):
                return answer  # rejected, or the pause cap was reached
            text = plain_text(answer.text or answer.action)
            chosen = self._chosen(text)
            self.state.said.append(f"{chosen.label} ({chosen.ref})" if chosen else text)
            pending = self._pending_context(text, chosen)
            message = self._what_the_user_said()  # the request stays; the answer is added
            stage = Stage.UNDERSTAND  # seed 003 §5: every reply goes back through Understand

    # --- nodes --------------------------------------------------------------------------------

    async def _understand(self, message: str, pending: PendingContext | None) -> UnderstandOutput:
        rt = self.rt
        result = await rt.llm(
            NodeActivities.understand,
            UnderstandRequest(
                message=message,
                mode=self.state.mode,
                state_ref=rt.state_ref(),
                pending=pending,
                context=rt.context,
                clock=rt.clock(),
            ),
            summary="understand",
        )
        if result.known is not None:
            rt.registry.adopt(result.known)  # saved refs it names, older than the copy
        output = result.output
        if output.needs_disambiguation:
            # Only registry entities can be chosen; fewer than two left is no choice.
            options = checked_options(rt.registry, output.disambiguation_options)
            if len(options) < 2:
                options = []
            output = output.model_copy(
                update={"needs_disambiguation": bool(options), "disambiguation_options": options}
            )
        if not output.needs_disambiguation and not self.state.asked_which:
            options = which_to_delete(rt.context.delete_candidates, rt.familiar)
            if options:
                self.state.asked_which = True  # once: the answer is not asked about again
                output = output.model_copy(
                    update={
                        "needs_disambiguation": True,
                        "disambiguation_options": options,
                        "needs_clarification": False,
                        "clarification_questions": [WHICH_DELETE_QUESTION],
                        "quick_mode": False,
                    }
                )
        self.state.understand = output
        self.state.curation_summary, ignored = apply_curation(rt.registry, output)
        if ignored:
            workflow.logger.info("understand named unknown refs: %s", ignored)
        return output

    async def _think(self, message: str, pending: PendingContext | None) -> ThinkOutput:
        rt = self.rt
        result = await rt.llm(
            NodeActivities.think,
            ThinkRequest(
                message=message,
                mode=self.state.mode,
                understand=self.state.understand,
                state_ref=rt.state_ref(),
                pending=pending,
                context=rt.context,
                clock=rt.clock(),
            ),
            summary="think",
        )
        self.state.think = result.output
        rt.progress.goal = result.output.goal
        workflow.logger.info(
            "think: %s, %d steps", result.output.decision, len(result.output.steps)
        )
        return result.output

    async def _act_quick(self, understand: UnderstandOutput, message: str) -> str | None:
        """One read and its answer; None when the read could not be made (the model failed,
        or its read failed twice) and the turn should plan the request instead."""
        rt = self.rt
        subdomain = understand.quick_subdomain or "inventory"
        previous: ToolEntry | None = None
        for attempt in range(2):
            try:
                decision = await rt.llm(
                    NodeActivities.act_quick,
                    ActQuickRequest(
                        message=message,
                        intent=understand.quick_intent or message,
                        subdomain=subdomain,
                        state_ref=rt.state_ref(),
                        clock=rt.clock(),
                        previous=previous,
                    ),
                    summary=f"act quick: read {subdomain}",
                )
            except ActivityError as error:
                rt.fallback("act quick", rt.degraded(error))
                return None
            call = ToolCall(tool="db_read", params=decision.output.params)
            key = f"{rt.workflow_id}/quick" + (f"-{attempt + 1}" if attempt else "")
            result = await rt.crud(call, key=key, step=0)
            if result.result is not None:
                break
            previous = ToolEntry(params=call.params, error=result.error)
        if result.result is None:
            rt.fallback("act quick", "read_failed")
            return None
        table = str(call.params.get("table", ""))
        found = result.result  # Reply is shown the rows, not the executor's notes
        entry = ToolEntry(
            tool="db_read",
            params=call.params,
            table=found.table,
            count=found.count,
            rows=found.rows,
        )
        self.state.quick = entry
        rt.step_results[0] = StepResult(
            step_index=0,
            description=understand.quick_intent or message,
            step_type="read",
            subdomain=subdomain,
            outcome="completed",
            tool_results=[entry],
        )
        text = formatters.format_quick_result(
            subdomain, table, found.rows, filtered=bool(call.params.get("filters"))
        )
        if text is None:
            return await self._llm_reply()  # Reply is warned of a mismatch itself
        asked = requested_change(rt.message)
        if asked:  # a write request answered with a list: say that nothing changed
            return f"{formatters.format_nothing_changed(asked)}\n\n{text}"
        return text

    async def _execute(self, goal: str, steps: list[ThinkStep]) -> str:
        rt = self.rt
        config = mode_config(self.state.mode)
        if len(steps) > config.max_steps:
            rt.trip(
                "max_steps",
                f"{len(steps)} steps planned, {self.state.mode} mode allows {config.max_steps}",
            )
            steps = steps[: config.max_steps]
        rt.progress.goal, rt.progress.plan = goal, steps
        rt.progress.steps = [
            StepProgress(
                index=i,
                description=s.description,
                step_type=s.step_type,
                subdomain=s.subdomain,
                group=s.group,
            )
            for i, s in enumerate(steps)
        ]
        rt.emit("think_complete", ThinkComplete(goal=goal, step_count=len(steps)))
        rt.emit("plan", PlanMade(goal=goal, total_steps=len(steps), steps=list(steps)))
        constraints = self.state.understand.constraint_snapshot if self.state.understand else []
        loop = ActLoop(
            rt, self.state.mode, goal, steps, said=self._what_the_user_said, constraints=constraints
        )
        groups = sorted(dict.fromkeys(s.group for s in steps))
        for group in groups:
            runs = await loop.run_group([i for i, s in enumerate(steps) if s.group == group])
            self._record_completed(runs, len(steps))
            asking = self._asking(runs)
            while asking is not None:
                question = formatters.format_question(asking.exit.question or "")
                answer = await self._pause("question", "act", question, step_index=asking.index)
                if isinstance(answer, str):
                    return answer
                text = plain_text(answer.text or answer.action)
                self.state.said.append(text)
                await self._understand(self._what_the_user_said(), self._pending_context(text))
                asking.exit = None  # resume the same step, with the answer in its context
                asking.tool_results.append(ToolEntry(user_answer=text))
                self._record_completed([await loop.run_step(asking)], len(steps))
                asking = self._asking(runs)
            stopped = next((r for r in runs if r.exit), None)
            if stopped is not None:
                self.state.exit = stopped.exit
                for later in rt.progress.steps:
                    if later.group > group:
                        later.status = "skipped"
                break
        return await self._reply_after_act(goal)

    def _record_completed(self, runs: list, total: int) -> None:
        for run in runs:
            if run.result is not None and run.index not in self.rt.step_results:
                self.rt.step_results[run.index] = run.result
                self.rt.emit(
                    "step_complete",
                    StepCompleted(
                        step=run.index,
                        total=total,
                        summary=run.result.summary,
                        data=run.result.data,
                        tool_calls=run.tool_calls,
                        flags=run.result.flags,
                    ),
                )
        if any(run.result is not None for run in runs):
            self.rt.show_context()

    @staticmethod
    def _asking(runs: list[StepRun]) -> StepRun | None:
        return next((r for r in runs if r.exit and r.exit.kind == "ask_user"), None)

    async def _reply_after_act(self, goal: str) -> str:
        """Seed 000's Reply cascade after Act: deterministic where it can be."""
        exit_ = self.state.exit
        if exit_ is not None and exit_.kind == "fail":
            return formatters.format_failure(exit_.user_message or "")
        if not self.rt.step_results and exit_ is None:
            return formatters.format_empty_execution(goal)
        return await self._llm_reply()

    async def _llm_reply(self) -> str:
        rt = self.rt
        blocked = self.state.exit if self.state.exit and self.state.exit.kind != "fail" else None
        try:
            result = await rt.llm(
                NodeActivities.reply,
                ReplyRequest(
                    message=self._what_the_user_said(),
                    mode=self.state.mode,
                    goal=self.state.think.goal if self.state.think else None,
                    plan=[
                        PlannedStep.model_validate(s.model_dump(include=PLANNED))
                        for s in rt.progress.steps
                    ],
                    step_results=[rt.step_results[i] for i in sorted(rt.step_results)],
                    quick_result=self.state.quick,
                    blocked=blocked,
                    breakers=rt.progress.breakers,
                    state_ref=rt.state_ref(),
                    clock=rt.clock(),
                    written=list(rt.written),
                ),
                summary="reply",
            )
        except LlmCapReached:
            rt.trip("llm_call_cap", "no model call left for the reply")
            return self._reply_without_model()
        except ActivityError as error:
            rt.fallback("reply", rt.degraded(error))
            return self._reply_without_model()
        return result.output.response

    def _reply_without_model(self) -> str:
        """The outcome from the steps' own summaries (``_wrap_up`` adds what was written)."""
        rt = self.rt
        summaries = [r.summary for _, r in sorted(rt.step_results.items()) if r.summary]
        quick = self.state.quick
        if quick is not None and quick.count is not None:
            summaries.append(f"I found {quick.count} matching {quick.table} rows")
        text = formatters.format_outcome(summaries)
        steps = [r for _, r in sorted(rt.step_results.items())]
        unmet = unmet_change(self._what_the_user_said(), steps, self.state.exit)
        if unmet and not rt.written:
            text = f"{formatters.format_nothing_changed(unmet)} {text}"
        blocked = self.state.exit if self.state.exit and self.state.exit.kind == "blocked" else None
        if blocked and blocked.details:
            text += f" {blocked.details.rstrip('.')}."
        return text

    def _gave_up(self, stage: str, error: ActivityError) -> str:
        """Understand or Think gave no usable answer: an honest reply, nothing done."""
        kind = self.rt.degraded(error)
        self.rt.fallback(stage, kind)
        return formatters.format_not_understood(stage, kind, self.rt.written, failure_wait(error))

    # --- pauses -------------------------------------------------------------------------------

    def _what_the_user_said(self) -> str:
        """The message, with the answers given to this turn's questions (Reply and the
        conversation record must know "the chicken one", not only "that one")."""
        if len(self.state.said) == 1:
            return self.state.said[0]
        answers = "; ".join(self.state.said[1:])
        return f"{self.state.said[0]} (then answered: {answers})"

    def _chosen(self, answer: str) -> DisambiguationOption | None:
        """The candidate the answer picks, when the pause was a choice; the ref is marked
        as referenced, so this turn's nodes see it as what the user means."""
        pause = self.state.last_pause
        if pause is None or not pause.options:
            return None
        chosen = resolve_choice(answer, pause.options)
        if chosen is not None:
            self.rt.registry.touch(chosen.ref)
        return chosen

    def _pending_context(
        self, answer: str, chosen: DisambiguationOption | None = None
    ) -> PendingContext:
        """What Understand and Think are shown about the pause the user just answered."""
        pause = self.state.last_pause
        if pause is None:
            return PendingContext(answer=answer)
        return PendingContext(
            kind=pause.kind,
            source=pause.source,
            message=pause.message,
            questions=pause.questions,
            answer=answer,
            options=pause.options,
            chosen=chosen if pause.options else None,
        )

    async def _pause(
        self,
        kind: str,
        source: str,
        message: str,
        *,
        questions: list[str] | None = None,
        plan: list[ThinkStep] | None = None,
        step_index: int | None = None,
        options: list[DisambiguationOption] | None = None,
    ) -> UserInput | str:
        """Wait for the user's input; a reply text ends the turn instead (reject, cap)."""
        rt = self.rt
        limits = rt.turn.limits
        if self.state.pauses >= limits.max_pauses:
            rt.trip("pause_cap", f"{limits.max_pauses} questions already asked this turn")
            return message
        self.state.pauses += 1
        timeout = timedelta(seconds=limits.pause_timeout_seconds)
        pause = PendingPause(
            pause_id=f"{rt.workflow_id}/pause-{self.state.pauses}",
            kind=kind,
            source=source,
            message=message,
            questions=questions or [],
            options=options or [],
            plan=plan,
            step_index=step_index,
            expires_at=workflow.now() + timeout,
        )
        self.state.last_pause = pause
        rt.progress.pending, rt.progress.response = pause, message
        rt.set_status("awaiting_input")
        rt.emit(
            "awaiting_input",
            AwaitingInput(
                pause_id=pause.pause_id,
                kind=kind,
                message=message,
                expires_at=pause.expires_at.isoformat(),
            ),
        )
        await rt.mark_turn("awaiting_input", message)
        asked = workflow.now()
        try:
            await workflow.wait_condition(lambda: bool(self.state.inputs), timeout=timeout)
        except TimeoutError:
            rt.record_wait(kind, "expired", (workflow.now() - asked).total_seconds())
            await self._end_expired(pause)
            raise _TurnEnded() from None
        answer = self.state.inputs.pop(0)
        rt.record_wait(kind, answer.action, (workflow.now() - asked).total_seconds())
        rt.progress.pending = None
        rt.set_status("running")
        if answer.action == "reject":
            return formatters.format_rejection(rt.written)
        return answer

    # --- endings ------------------------------------------------------------------------------

    def _owes_the_writes(self) -> bool:
        """Whether the ending must say what the turn wrote, whatever a model said: its work
        or its reply stopped short (a step blocked or failed, a limit, Reply without the
        model) in a turn that wrote, or planned to."""
        rt = self.rt
        stopped = (
            self.state.exit is not None
            or rt.progress.breakers
            or any(f.startswith("reply:") for f in rt.progress.fallbacks)
        )
        planned = any(s.step_type == "write" for s in rt.progress.steps)
        return bool(stopped and (rt.written or planned))

    async def _wrap_up(self, response: str) -> None:
        rt = self.rt
        for breaker in rt.progress.breakers:
            kind, _, detail = breaker.partition(": ")
            response = f"{response}\n\n{formatters.format_breaker(kind, detail)}"
        if self._owes_the_writes():  # from the writes' own results (``TurnRuntime.written``)
            response = f"{response}\n\n{formatters.format_done(rt.written)}"
        rt.progress.response = response
        rt.set_status("replied")
        rt.mark("replied")
        rt.emit("done", Done(response=response, active_context=entity_cards(rt.registry)))
        await rt.mark_turn("replied", response)

        record, summary = self._turn_record(response)
        rt.registry.clear_turn_promoted_artifacts()
        archive = prune_archive(rt.state.content_archive, rt.registry.promoted())
        # Turns that executed nothing (a rejected proposal, a capped turn) get deterministic
        # summaries (seed 002: no LLM summarization for proposals and clarifications).
        use_llm = rt.llm_budget_left >= 2 and bool(rt.step_results)
        try:
            summarized = await self._summarize(archive, record, summary, use_llm=use_llm)
        except ActivityError as error:
            if not use_llm:
                raise
            rt.fallback("summarize", rt.degraded(error))
            summarized = await self._summarize(archive, record, summary, use_llm=False)
        final = rt.ending(  # applied to the saved state by finish_turn
            content_archive=archive,
            record=record,
            summary=summary,
            step_results=[rt.step_results[i] for i in sorted(rt.step_results)],
            parts=summarized.parts,
        )
        await self._finish(final, "completed", response)
        rt.emit("context_updated", TurnEnded(turn=rt.turn.turn_number), attempt=summarized.attempt)

    async def _summarize(
        self,
        archive: dict[str, JsonValue],
        record: TurnRecord,
        summary: TurnExecutionSummary,
        *,
        use_llm: bool,
    ) -> SummarizeResult:
        rt = self.rt
        # Summarize decides its own model calls (up to 3, none without the model): the
        # budget is checked before (``use_llm``) and the calls it made are counted after.
        return await rt.llm(
            TurnStateActivities.summarize,
            SummarizeRequest(
                # the saved state by reference, with what this turn changed (what the
                # prompt reads: the unsaved content's labels, not the whole registry)
                state_ref=rt.state_ref(archive=archive),
                record=record,
                summary=summary,
                step_results=[rt.step_results[i] for i in sorted(rt.step_results)],
                use_llm=use_llm,
            ),
            summary="summarize" if use_llm else "summarize (without the model)",
            budgeted=False,
        )

    def _turn_record(self, response: str) -> tuple[TurnRecord, TurnExecutionSummary]:
        rt = self.rt
        turn = rt.turn.turn_number
        touched = [r for r in rt.registry.known_refs() if rt.registry.last_referenced(r) == turn]
        record = TurnRecord(
            turn=turn,
            user_message=self._what_the_user_said(),
            assistant_response=response,
            entities=touched,
        )
        steps = [
            StepExecutionSummary(
                step_index=p.index,
                description=p.description,
                step_type=p.step_type,
                subdomain=p.subdomain,
                outcome=p.status,
                summary=p.summary,
                entities=rt.step_results[p.index].artifacts if p.index in rt.step_results else [],
            )
            for p in rt.progress.steps
        ]
        think = self.state.think
        summary = TurnExecutionSummary(
            turn_num=turn,
            think_decision=think.decision if think else ("quick" if self.state.quick else None),
            think_goal=think.goal if think else None,
            steps=steps,
            entity_curation=self.state.curation_summary or CurationSummary(),
            blocked_reason=self.state.exit.details if self.state.exit else None,
            breakers=list(rt.progress.breakers),
            written=list(rt.written),
        )
        return record, summary

    async def _finish(self, ending: TurnEnding | None, status: str, response: str | None) -> None:
        so_far = self.state
        paths = (("plan", so_far.think), ("quick", so_far.quick), ("ask", so_far.pauses))
        self.rt.path = next((name for name, took in paths if took), "none")
        await self.rt.finish(ending, status, response)

    def _ending_with_note(self, note: str, response: str | None = None) -> TurnEnding | None:
        """What an ended turn (expired, cancelled, failed) leaves: like any turn, a record
        of what was said and a summary of what was decided and done (so the next turn's
        Understand and Think know what happened), and the note; ``finish_turn`` applies it
        to the saved state. None before the state was loaded (nothing to save)."""
        rt = self.rt
        if not rt.loaded:
            return None
        rt.registry.clear_turn_promoted_artifacts()
        record, summary = self._turn_record(response or note)
        summary.blocked_reason = summary.blocked_reason or note
        return rt.ending(
            content_archive=rt.state.content_archive,
            record=record,
            summary=summary,
            step_results=[rt.step_results[i] for i in sorted(rt.step_results)],
            note=note,
        )

    async def _end_expired(self, pause: PendingPause) -> None:
        rt = self.rt
        rt.progress.pending = None
        note = (
            f"Turn {rt.turn.turn_number} expired waiting for an answer to a {pause.kind}. "
            f"{formatters.format_done(rt.written)}"
        )
        await self._finish(self._ending_with_note(note, pause.message), "expired", pause.message)

    async def _end_cancelled(self) -> None:
        rt = self.rt
        rt.progress.pending = None
        note = f"Turn {rt.turn.turn_number} was cancelled. {formatters.format_done(rt.written)}"
        ending = self._ending_with_note(note, rt.progress.response)
        await self._finish(ending, "cancelled", rt.progress.response)

    async def _end_failed(self, error: Exception) -> None:
        """The turn cannot go on: the reason in plain words and what was saved, never the
        exception's text (operators find it in ``error`` and the workflow history); a
        reply the user has already been shown stays."""
        rt = self.rt
        cause = error.cause if isinstance(error, ActivityError) and error.cause else error
        rt.progress.error = str(cause)
        rt.progress.pending = None
        problem = failure_problem(error)
        if rt.progress.status == "replied" and rt.progress.response:
            response = rt.progress.response
        else:
            response = formatters.format_stopped(problem, rt.written)
        rt.emit("error", Failed(message=response, kind=failure_kind(error) or "error"))
        rt.progress.response = response
        note = (
            f"Turn {rt.turn.turn_number} failed ({problem}). {formatters.format_done(rt.written)}"
        )
        try:
            await self._finish(self._ending_with_note(note, response), "failed", response)
        except ActivityError:
            workflow.logger.exception("could not record the failed turn")
        rt.set_status("failed")
