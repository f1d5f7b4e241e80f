"""A step's tool results are typed entries that serialize as the dicts they replace."""

from __future__ import annotations

import json

import pytest

from domain.crud.calls import CrudResult
from domain.tool_results import ToolEntry

SHAPES = [
    {"tool": "db_read", "params": {"table": "inventory"}, "table": "inventory", "count": 1,
     "rows": [{"id": "inv_1", "name": "milk"}], "notes": []},
    {"tool": "db_create", "params": {"table": "recipes"}, "error": "name: required"},
    {"tool": "db_update", "error": "a read step cannot call db_update"},
    {"schema": "inventory", "text": "inventory(name, quantity)"},
    {"retrieved_step": 0, "result": "no such step this turn"},
    {"archive_key": None, "content": "not in the archive"},
    {"user_answer": "the red one"},
]  # fmt: skip


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_reads_and_writes_back_the_same_json(shape):
    entry = ToolEntry.model_validate(shape)
    assert entry.model_extra == {}  # every key is a field of its own
    assert json.dumps(entry.model_dump()) == json.dumps(shape)
    assert entry.model_dump(mode="json") == shape


def test_a_call_is_its_error_or_its_rows():
    rows = CrudResult(tool="db_read", table="inventory", rows=[{"id": "inv_1"}], count=1)
    assert ToolEntry.of_call("db_read", {"table": "x"}, None, "bad").as_dict() == {
        "tool": "db_read",
        "params": {"table": "x"},
        "error": "bad",
    }
    found = ToolEntry.of_call("db_read", {"table": "inventory"}, rows, None)
    assert found.rows == [{"id": "inv_1"}] and found.count == 1 and not found.failed
    assert not found.succeeded_write()


def test_a_key_this_version_does_not_know_is_kept():
    odd = {"tool": "db_read", "params": {}, "cached": True}
    assert ToolEntry.model_validate(odd).model_dump() == odd
