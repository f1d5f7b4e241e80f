"""The text of an answer, streamed as the model writes it: only the field the user reads,
a reset before every take, pieces that add up to the text."""

from __future__ import annotations

from temporalio.testing import ActivityEnvironment

from activities.streaming import ContentStream, TextStream


def run(pieces: list[list[str]]) -> list[dict]:
    published: list[dict] = []

    def stream() -> None:
        text = TextStream(published.append, kind="reply")
        for take, raw in enumerate(pieces, 1):
            text.begin(take)
            for piece in raw:
                text.raw(piece)

    ActivityEnvironment().run(stream)
    return published


def test_only_the_fields_text_is_published_as_it_grows():
    published = run([['{"resp', 'onse": "Hel', "lo th", 'ere"}']])
    assert published == [
        {"kind": "reply", "take": "1.1", "reset": True, "text": ""},
        {"kind": "reply", "take": "1.1", "text": "Hel"},
        {"kind": "reply", "take": "1.1", "text": "lo th"},
        {"kind": "reply", "take": "1.1", "text": "ere"},
    ]


def test_a_repair_is_a_new_take_that_starts_from_nothing():
    published = run([['{"response": "Bro', "ken"], ['{"response": "Fixed"}']])
    resets = [p["take"] for p in published if p.get("reset")]
    assert resets == ["1.1", "1.2"]
    last = published[max(i for i, p in enumerate(published) if p.get("reset")) :]
    assert "".join(p["text"] for p in last) == "Fixed"


def test_escapes_are_text_and_other_fields_are_not_shown():
    published = run([['{"exit": false, "response": "a \\"b\\"\\nc", "handoff": null}']])
    assert "".join(p["text"] for p in published) == 'a "b"\nc'


def test_a_generate_steps_content_streams_as_partial_artifacts():
    published: list[dict] = []
    answer = (
        '{"decision": {"action": "step_complete", "result_summary": "Made dal.", '
        '"artifacts": [{"type": "recipe", "ref": null, "content": {"name": "Red Lentil Dal", '
        '"instructions": ["Simmer the lentils for 25 minutes.", "Stir in the spinach."]}}]}}'
    )

    def stream() -> None:
        content = ContentStream(published.append, step=2, every=40)
        content.begin(1)
        for start in range(0, len(answer), 16):
            content.raw(answer[start : start + 16])

    ActivityEnvironment().run(stream)
    assert published[0] == {"kind": "generate", "step": 2, "take": "1.1", "reset": True}
    names = [p["artifacts"][0].get("content", {}).get("name") for p in published[1:]]
    assert len(names) >= 2 and names[-1] == "Red Lentil Dal"  # the recipe as it forms
    assert all(p["take"] == "1.1" and p["step"] == 2 for p in published)
