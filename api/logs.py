"""Log lines for people (the default) or for machines: ``ALFRED_LOG_FORMAT=json`` writes one
JSON object per line (python-json-logger) with what an operator searches by. The Temporal
SDK's workflow and activity loggers attach their ids (``temporal_workflow``,
``temporal_activity``); a turn's workflow id also names its conversation and turn, which
become fields of their own."""

from __future__ import annotations

import logging
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from domain.settings import Settings
from domain.turn_store import turn_of_workflow

TEXT = "%(levelname)s %(name)s %(message)s"


class TurnJsonFormatter(JsonFormatter):
    def add_fields(
        self, log_record: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        super().add_fields(log_record, record, message_dict)
        log_record["level"] = record.levelname
        log_record["logger"] = record.name
        details = getattr(record, "temporal_workflow", None) or getattr(
            record, "temporal_activity", None
        )
        workflow_id = details.get("workflow_id") if isinstance(details, dict) else None
        if workflow_id:
            log_record["workflow_id"] = workflow_id
            turn = turn_of_workflow(workflow_id)
            if turn is not None:
                log_record["conversation_id"], log_record["turn"] = turn


def configure_logging(settings: Settings) -> None:
    """The root logger's one handler, on stderr, in the configured format."""
    handler = logging.StreamHandler(sys.stderr)
    if settings.log_format == "json":
        handler.setFormatter(TurnJsonFormatter("%(asctime)s %(message)s"))
    else:
        handler.setFormatter(logging.Formatter(TEXT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
