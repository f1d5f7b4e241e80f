"""What a turn's row keeps of its plan reads back typed, older rows included."""

from __future__ import annotations

from domain.plan_record import PlanRecord


def test_a_step_recorded_as_fail_before_the_fix_reads_as_failed():
    row = {"steps": [{"index": 0, "description": "d", "step_type": "read",
                      "subdomain": "recipes", "group": 0, "status": "fail"}]}  # fmt: skip
    assert [s.status for s in PlanRecord.model_validate(row).steps] == ["failed"]
