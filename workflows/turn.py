"""TurnWorkflow: one conversation turn as a script (seed 000).

    run        open the turn (``workflows.lifecycle``), converse, wrap up
               (``workflows.endings``); or end it expired, cancelled or failed
    converse   from Understand, each stage returns where the turn goes next, a ``Route``
               decided by the seeds' routing functions (``workflows.routing``); one
               dispatcher runs that stage, until one has the turn's answer (``DONE``)

    UNDERSTAND ─┬─ ASK ─ (the answer) ─ UNDERSTAND, or THINK / ACT for a confirmed proposal
                ├─ DONE when the message only asked to forget a suggestion
                ├─ ACT_QUICK ─ DONE, REPLY, or THINK when its read could not be made
                └─ THINK ─┬─ ASK
                          └─ ACT (the Act loop, ``workflows.act_loop``) ─ REPLY ─ DONE

Every node is an activity called through ``workflows.activity_calls``; everything the turn knows is
one ``TurnState`` (``workflows.state``), which the ``progress`` query only reads. Pauses
and the ``answer`` update are ``workflows.pauses``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Literal

from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream
from temporalio.exceptions import ActivityError, ApplicationError, is_cancelled_exception

from workflows.act_loop import ActLoop
from workflows.activity_calls import Calls, LlmCapReached, degraded, failure_wait
from workflows.endings import Endings
from workflows.lifecycle import Lifecycle
from workflows.pauses import Answer, PauseExpired, Pauses
from workflows.progress import ProgressLog
from workflows.routing import (
    Route,
    route_after_answer,
    route_after_think,
    route_after_understand,
)
from workflows.state import TurnState
from workflows.versions import (
    ASK_WHICH_WAS_POINTED_AT,
    FORGET_ENDS_THE_TURN,
    MODE_RULES_IN_THINK,
)

with workflow.unsafe.imports_passed_through():
    from activities.model_nodes import NodeActivities
    from activities.payloads import (
        ActQuickRequest,
        ReplyRequest,
        ThinkRequest,
        UnderstandRequest,
    )
    from domain import formatters
    from domain.choices import (
        WHICH_DELETE_QUESTION,
        checked_options,
        format_choice,
        which_to_delete,
        which_was_pointed_at,
    )
    from domain.conversation import PendingContext, StepResult
    from domain.curation import apply_curation, forget_what_was_shown, without_forgotten
    from domain.execution_summary import PlannedStep, unmet_change
    from domain.intent import only_forgets
    from domain.mentions import plain_text
    from domain.modes import BYPASS_MODES, apply_mode_1_0
    from domain.nodes import DisambiguationOption, ToolCall, UnderstandOutput
    from domain.shown import refuses, repeats_the_prompt
    from domain.tool_results import ToolEntry
    from workflows.events import Clarifying, Proposed, Thinking
    from workflows.interface import (
        InputReceipt,
        ProgressQuery,
        Question,
        TurnInput,
        TurnOutput,
        TurnProgress,
        UserInput,
    )

PLANNED = dict.fromkeys(PlannedStep.model_fields, True)
"""The fields of a step's progress that Reply's plan overview reads."""


def clarification(source: Literal["understand", "think"], questions: list[str]) -> Question:
    message = formatters.format_clarification(questions)
    return Question(kind="clarification", source=source, message=message, questions=questions)


@workflow.defn(name="TurnWorkflow")
class TurnWorkflow:
    @workflow.init
    def __init__(self, turn: TurnInput) -> None:
        self.state = TurnState.of(turn)
        self.log = ProgressLog(self.state, WorkflowStream())  # events and text for clients
        self.calls = Calls(self.state, self.log)
        self.lifecycle = Lifecycle(self.state, self.log, self.calls)
        self.pauses = Pauses(self.state, self.log, self.lifecycle)
        self.endings = Endings(self.state, self.log, self.calls, self.lifecycle)

    @workflow.query(name="progress")
    def progress(self, query: ProgressQuery) -> TurnProgress:
        """Status, pending pause, plan and the events after ``query.after_seq``."""
        return self.log.view(query.after_seq)

    @workflow.signal(name="previous_turn_saved")
    def previous_turn_saved(self) -> None:
        """The turn before this one saved its state: a queued turn may go on."""
        self.state.previous_saved = True

    @workflow.update(name="answer")
    def answer(self, user_input: UserInput) -> InputReceipt:
        """Answer the open pause (``Pauses.take``)."""
        return self.pauses.take(user_input)

    @answer.validator
    def validate_answer(self, user_input: UserInput) -> None:
        self.pauses.validate(user_input)

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        self.lifecycle.start()
        try:
            await self.lifecycle.open()
            if self.state.mode in BYPASS_MODES:
                raise ApplicationError(
                    f"mode {self.state.mode!r} runs as BypassTurnWorkflow, not TurnWorkflow",
                    type="unsupported_mode",
                    non_retryable=True,
                )
            self.log.emit("thinking", Thinking(message=turn.message))
            try:
                await self._converse()
            except PauseExpired as expired:  # nobody answered: no reply to build
                await self.endings.expired(expired.pause)
            else:
                await self.endings.wrap_up(self.state.reply)
        except (ActivityError, ApplicationError, asyncio.CancelledError) as error:
            if is_cancelled_exception(error):
                await self.endings.cancelled()
                raise
            await self.endings.failed(error)
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self.log.output()

    async def _converse(self) -> None:
        """Run stages from Understand until one has the turn's answer (``state.reply``)."""
        stages: dict[Route, Callable[[], Awaitable[Route]]] = {
            Route.UNDERSTAND: self._understand,
            Route.ACT_QUICK: self._act_quick,
            Route.THINK: self._think,
            Route.ASK: self._ask,
            Route.ACT: self._act,
            Route.REPLY: self._reply,
        }
        route = Route.UNDERSTAND
        try:
            while route != Route.DONE:
                route = await stages[route]()
        except LlmCapReached:
            self.log.trip("llm_call_cap", "the turn's model-call budget is used up")
            self.state.reply = "I stopped before I could finish this request."

    # --- the stages: each returns the next route ---------------------------------------------

    async def _understand(self) -> Route:
        state = self.state
        unsaved = {ref: state.registry.label(ref) for ref in state.registry.unsaved_refs()}
        try:
            understand = await self._call_understand(state.pending)
        except ActivityError as error:
            return self._gave_up("understand", error)
        route = route_after_understand(understand)
        if route == Route.THINK and self._only_forgot(unsaved):
            return Route.DONE  # nothing more was asked: nothing to plan
        questions, options = understand.clarification_questions, understand.disambiguation_options
        if route == Route.ASK and understand.needs_disambiguation:
            self.state.question = Question(
                kind="clarification",
                source="understand",
                message=format_choice(questions[0] if questions else None, options),
                questions=questions[:1],
                options=options,
            )
        elif route == Route.ASK:
            self.state.question = clarification("understand", questions)
        return route

    async def _think(self) -> Route:
        state = self.state
        try:
            result = await self.calls.llm(
                NodeActivities.think,
                ThinkRequest(
                    message=state.what_the_user_said(),
                    mode=state.mode,
                    understand=state.understand,
                    state_ref=state.state_ref(),
                    pending=state.pending,
                    context=state.context,
                    clock=state.clock(),
                ),
                summary="think",
            )
        except ActivityError as error:
            return self._gave_up("think", error)
        think = result.output
        workflow.logger.info("think: %s, %d steps", think.decision, len(think.steps))
        state.progress.goal = think.goal
        if not state.versions.has(MODE_RULES_IN_THINK):  # a turn started on 1.0
            think = apply_mode_1_0(state.mode, think)
        state.think = think  # held to the mode's rules in the activity
        route = route_after_think(think)
        if route == Route.ASK and think.decision == "propose":
            self.log.emit(
                "propose", Proposed(goal=think.goal, proposal_message=think.proposal_message)
            )
            state.question = Question(
                kind="proposal",
                source="think",
                message=formatters.format_proposal(think.proposal_message or "", think.steps),
                plan=think.steps,
            )
        elif route == Route.ASK:
            questions = think.clarification_questions
            self.log.emit("clarify", Clarifying(goal=think.goal, questions=questions))
            state.question = clarification("think", questions)
        return route

    async def _ask(self) -> Route:
        """Pause with Understand's or Think's question; the answer says where to go."""
        question = self.state.question  # set by the stage that routed here
        answer = await self.pauses.ask(question)
        if isinstance(answer, str):  # rejected, or the pause cap was reached
            self.state.reply = answer
            return Route.DONE
        route = route_after_answer(question.kind, answer.given.action, planned=bool(question.plan))
        if route == Route.UNDERSTAND:  # seed 003 §5: every reply goes back through Understand
            chosen = self._chosen(answer)
            said = f"{chosen.label} ({chosen.ref})" if chosen else answer.text
            self.state.pending = answer.context(answer.text, chosen)
        else:  # a proposal confirmed: its steps run (or, without steps, Think plans again)
            said = plain_text(answer.given.text or "yes, go ahead")
            self.state.pending = answer.context(said)
        self.state.said.append(said)
        return route

    async def _act_quick(self) -> Route:
        """One read, answered from its rows: DONE, or REPLY when the rows need the model;
        THINK when the read could not be made (the model failed, or its read failed twice)."""
        state, calls = self.state, self.calls
        understand = state.understand  # Act Quick follows Understand
        message = state.what_the_user_said()
        subdomain = understand.quick_subdomain or "inventory"
        previous: ToolEntry | None = None
        for attempt in range(2):
            try:
                decision = await calls.llm(
                    NodeActivities.act_quick,
                    ActQuickRequest(
                        message=message,
                        intent=understand.quick_intent or message,
                        subdomain=subdomain,
                        state_ref=state.state_ref(),
                        clock=state.clock(),
                        previous=previous,
                    ),
                    summary=f"act quick: read {subdomain}",
                )
            except ActivityError as error:
                self.log.fallback("act quick", degraded(error))
                return Route.THINK
            call = ToolCall(tool="db_read", params=decision.output.params)
            key = f"{workflow.info().workflow_id}/quick" + (f"-{attempt + 1}" if attempt else "")
            result = await calls.crud(call, key=key, step=0)
            if result.result is not None:
                break
            previous = ToolEntry(params=call.params, error=result.error)
        if result.result is None:
            self.log.fallback("act quick", "read_failed")
            return Route.THINK
        found = result.result  # Reply is shown the rows, not the executor's notes
        state.quick = ToolEntry(
            tool="db_read",
            params=call.params,
            table=found.table,
            count=found.count,
            rows=found.rows,
        )
        state.step_results[0] = StepResult(
            step_index=0,
            description=understand.quick_intent or message,
            step_type="read",
            subdomain=subdomain,
            outcome="completed",
            tool_results=[state.quick],
        )
        text = formatters.format_quick_result(
            subdomain,
            str(call.params.get("table", "")),
            found.rows,
            filtered=bool(call.params.get("filters")),
        )
        if text is None:
            return Route.REPLY  # Reply is warned of a mismatch itself
        state.reply = text
        return Route.DONE

    async def _act(self) -> Route:
        """Think's plan, group by group; a step's question pauses the turn, and the step
        resumes with the answer (which Understand reads first)."""
        think = self.state.think  # only Think, or its proposal confirmed, routes here
        loop = ActLoop(self.state, self.log, self.calls, think.goal, think.steps)
        for group in loop.groups():
            runs = await loop.run_group(group)
            while (asking := loop.asking(runs)) is not None:
                question = formatters.format_question(asking.exit.question or "")
                answer = await self.pauses.ask(
                    Question(
                        kind="question", source="act", message=question, step_index=asking.index
                    )
                )
                if isinstance(answer, str):
                    self.state.reply = answer
                    return Route.DONE
                self.state.said.append(answer.text)
                await self._call_understand(answer.context(answer.text))
                await loop.resume(asking, answer.text)
            if loop.stopped(runs):  # blocked, failed, a breaker: the later groups are skipped
                break
        return Route.REPLY

    async def _reply(self) -> Route:
        """Seed 000's Reply: deterministic where it can be (Act failed the turn with its
        own words, or nothing ran), the model otherwise."""
        state = self.state
        exit_ = state.exit
        if exit_ is not None and exit_.kind == "fail":
            state.reply = formatters.format_failure(exit_.user_message or "")
        elif not state.step_results and exit_ is None:
            state.reply = formatters.format_empty_execution(state.progress.goal or "")
        else:
            state.reply = await self._reply_by_model()
        return Route.DONE

    # --- the nodes and their fallbacks ------------------------------------------------------

    async def _call_understand(self, pending: PendingContext | None) -> UnderstandOutput:
        """Understand, its choices held to the registry, and its curation applied."""
        state = self.state
        result = await self.calls.llm(
            NodeActivities.understand,
            UnderstandRequest(
                message=state.what_the_user_said(),
                mode=state.mode,
                state_ref=state.state_ref(),
                pending=pending,
                context=state.context,
                clock=state.clock(),
            ),
            summary="understand",
        )
        output = result.output
        if output.needs_disambiguation:
            # Only registry entities can be chosen; fewer than two left is no choice.
            options = checked_options(state.registry, output.disambiguation_options)
            if len(options) < 2:
                options = []
            output = output.model_copy(
                update={"needs_disambiguation": bool(options), "disambiguation_options": options}
            )
        if not output.needs_disambiguation and not state.asked_which:
            options = which_to_delete(state.context.delete_candidates, state.familiar)
            if not options and state.versions.has(ASK_WHICH_WAS_POINTED_AT):
                options = which_was_pointed_at(state.what_the_user_said(), state.registry)
            if options:
                state.asked_which = True  # once: the answer is not asked about again
                output = output.model_copy(
                    update={
                        "needs_disambiguation": True,
                        "disambiguation_options": options,
                        "needs_clarification": False,
                        "clarification_questions": [WHICH_DELETE_QUESTION],
                        "quick_mode": False,
                    }
                )
        state.understand = output
        state.curation, ignored = apply_curation(state.registry, output)
        conversation = state.conversation  # what was forgotten is not offered to Act again
        conversation.content_archive = without_forgotten(
            conversation.content_archive, state.curation
        )
        if ignored:
            workflow.logger.info("understand named unknown refs: %s", ignored)
        return output

    async def _reply_by_model(self) -> str:
        state = self.state
        blocked = state.exit if state.exit and state.exit.kind != "fail" else None
        try:
            result = await self.calls.llm(
                NodeActivities.reply,
                ReplyRequest(
                    message=state.what_the_user_said(),
                    mode=state.mode,
                    goal=state.think.goal if state.think else None,
                    plan=[
                        PlannedStep.model_validate(s.model_dump(include=PLANNED))
                        for s in state.progress.steps
                    ],
                    step_results=state.results(),
                    quick_result=state.quick,
                    blocked=blocked,
                    breakers=state.progress.breakers,
                    state_ref=state.state_ref(),
                    clock=state.clock(),
                    written=list(state.written),
                ),
                summary="reply",
            )
        except LlmCapReached:
            self.log.trip("llm_call_cap", "no model call left for the reply")
            return self._reply_without_model()
        except ActivityError as error:
            self.log.fallback("reply", degraded(error))
            return self._reply_without_model()
        if repeats_the_prompt(result.output.response):  # no answer: the outcome instead
            self.log.fallback("reply", "repeated_the_prompt")
            return self._reply_without_model()
        if refuses(result.output.response):
            if self._did_what_was_planned():
                self.log.fallback("reply", "refused_what_was_done")
                return self._reply_without_model()
            if state.exit is not None and state.exit.kind == "blocked":
                self.log.fallback("reply", "refused_what_was_blocked")  # the reason says more
                return self._reply_without_model()
            if state.written:  # a step was stopped, and the turn wrote: say what it did
                self.log.fallback("reply", "refused_what_was_written")
                return self._reply_without_model()
        return result.output.response

    def _did_what_was_planned(self) -> bool:
        """Whether nothing stopped the turn's work: its lookup answered, or every planned
        step completed."""
        state = self.state
        if state.exit is not None:
            return False
        if state.quick is not None:
            return not state.quick.failed
        steps = state.progress.steps
        return bool(steps) and all(s.status == "completed" for s in steps)

    def _reply_without_model(self) -> str:
        """The outcome from the steps' own summaries (the wrap-up adds what was written),
        without those of completions their outcomes do not support (``StepResult.flags``):
        Reply is told not to present them as done, and neither does this."""
        state = self.state
        steps = state.results()
        found = {  # a read step's rows, as the quick path shows them, for its summary
            r.step_index: shown
            for r in steps
            if r.step_type == "read" and not r.flags
            if (shown := formatters.format_found(r.tool_results))
        }
        summaries = [  # a stopped step's reason is said by the wrap-up (``format_breaker``)
            r.summary
            for r in steps
            if r.summary and not r.flags and r.outcome != "breaker" and r.step_index not in found
        ]
        quick = state.quick
        if quick is not None and quick.count is not None:
            summaries.append(f"I found {quick.count} matching {quick.table} rows")
        text = formatters.format_outcome(summaries) if summaries or not found else ""
        text = "\n\n".join(t for t in (text, *found.values()) if t)
        unmet = unmet_change(state.what_the_user_said(), steps, state.exit)
        if unmet and not state.written:
            text = f"{formatters.format_nothing_changed(unmet)} {text}"
        blocked = state.exit if state.exit and state.exit.kind == "blocked" else None
        if blocked and blocked.reason_code == "nothing_matched":
            text += f" {formatters.format_unmatched(blocked.details or '')}"
        elif blocked and blocked.reason_code == "refused_call" and blocked.details:
            text += f" {formatters.format_refused(blocked.details)}"
        elif blocked and blocked.details:
            text += f" {blocked.details.rstrip('.')}."
        if blocked and blocked.suggested_next:
            text += f" {blocked.suggested_next.rstrip('.')}."
        return text

    def _only_forgot(self, unsaved: dict[str, str]) -> bool:
        """Whether the message only asked to forget a suggestion and one was forgotten
        (``unsaved``: the unsaved refs and labels before Understand); the turn's answer
        then says what was."""
        state = self.state
        curation = state.curation  # Understand's, just applied
        if (
            curation is None
            or not state.versions.has(FORGET_ENDS_THE_TURN)
            or not only_forgets(state.what_the_user_said())
        ):
            return False
        forgotten = forget_what_was_shown(state.registry, unsaved, curation)
        if not forgotten:
            return False
        conversation = state.conversation
        conversation.content_archive = without_forgotten(conversation.content_archive, curation)
        state.reply = formatters.format_forgotten(forgotten)
        return True

    def _gave_up(self, stage: str, error: ActivityError) -> Route:
        """Understand or Think gave no usable answer: an honest reply, nothing done."""
        kind = degraded(error)
        self.log.fallback(stage, kind)
        written, wait = self.state.written, failure_wait(error)
        self.state.reply = formatters.format_not_understood(stage, kind, written, wait)
        return Route.DONE

    def _chosen(self, answer: Answer) -> DisambiguationOption | None:
        """The candidate a choice's answer picks, marked as referenced, so this turn's
        nodes see it as what the user means; unless the registry no longer holds it (the
        same Understand answer that offered it may have dropped it: a model that takes the
        first option everywhere did, and the turn's workflow task failed on the ref)."""
        chosen = answer.chosen()
        if chosen is not None and chosen.ref in self.state.registry.known_refs():
            self.state.registry.touch(chosen.ref)
        return chosen
