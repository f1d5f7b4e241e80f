"""The settings a reader is told about are the settings there are."""

from __future__ import annotations

import re
from pathlib import Path

from domain.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_alfred_variable_the_readme_names_is_a_setting():
    named = set(re.findall(r"`ALFRED_([A-Z][A-Z_]*)`", README.read_text()))
    assert "LLM_CONTEXT_TOKENS" in named
    assert named <= {field.upper() for field in Settings.model_fields}
