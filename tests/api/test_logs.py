"""ALFRED_LOG_FORMAT=json: a log line is a JSON object, and lines the SDK's workflow and
activity loggers write during a turn carry its workflow, conversation and turn ids."""

from __future__ import annotations

import json
import logging
import uuid

from activities.llm.script_provider import ScriptProvider
from api.logs import TurnJsonFormatter
from domain.turn_store import create_conversation, turn_workflow_id
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import complete, plan, reply, step, understand
from workflows.interface import TurnInput
from workflows.turn import TurnWorkflow
from workflows.worker import build_worker


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_a_turns_log_lines_name_its_workflow_conversation_and_turn(
    temporal_env, sessions, user
):
    script = ScriptProvider.from_responses(
        [
            understand(),
            plan("Compare", step("Compare the two dinners", "analyze", "recipes")),
            complete("The curry is quicker."),
            reply("The curry is quicker."),
            SUMMARIZE,
            COMPRESS,
        ]
    )
    conversation = await create_conversation(sessions, user, "logs")
    queue = f"logs-{uuid.uuid4().hex[:8]}"
    kept = Kept()
    loggers = [logging.getLogger("temporalio.workflow"), logging.getLogger("temporalio.activity")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(kept)
        lg.setLevel(logging.INFO)
    try:
        async with build_worker(
            temporal_env.client, task_queue=queue, sessions=sessions, provider=script
        ):
            result = await temporal_env.client.execute_workflow(
                TurnWorkflow.run,
                TurnInput(
                    conversation_id=conversation, user_id=str(user), turn_number=4, message="?"
                ),
                id=turn_workflow_id(conversation, 4),
                task_queue=queue,
            )
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(kept)
            lg.setLevel(level)
    assert result.status == "completed"
    formatter = TurnJsonFormatter("%(asctime)s %(message)s")
    lines = [json.loads(formatter.format(r)) for r in kept.records]
    by_logger = {line["logger"] for line in lines}
    assert {"temporalio.workflow", "temporalio.activity"} <= by_logger
    think = next(line for line in lines if line["message"].startswith("think: plan_direct"))
    node = next(line for line in lines if line["message"].startswith("node reply via script"))
    for line in (think, node):
        assert line["workflow_id"] == turn_workflow_id(conversation, 4)
        assert line["conversation_id"] == conversation and line["turn"] == 4
        assert line["level"] == "INFO"
    assert node["temporal_activity"]["activity_type"] == "reply"


def test_a_line_from_outside_a_turn_has_no_turn_fields():
    record = logging.LogRecord("alfred", logging.WARNING, __file__, 1, "plain", None, None)
    line = json.loads(TurnJsonFormatter("%(asctime)s %(message)s").format(record))
    assert line["message"] == "plain" and line["level"] == "WARNING"
    assert "conversation_id" not in line and "workflow_id" not in line
