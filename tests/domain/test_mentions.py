"""@-mentions in chat: ``@[Label](type:uuid)``, by entity type or table name."""

from __future__ import annotations

from domain.mentions import MAX_MENTIONS, parse_mentions, plain_text, with_refs

ID = "5f0c8a52-2d4b-4a8e-9a39-6a1a3c0c6c11"


def test_a_mention_names_label_table_and_canonical_id():
    parsed = parse_mentions(f"make @[Butter Chicken](recipe:{ID.upper()}) tonight")
    (mention,) = parsed.mentions
    assert (mention.label, mention.table, mention.id) == ("Butter Chicken", "recipes", ID)
    assert parsed.invalid == ()


def test_table_names_work_as_types_and_repeats_count_once():
    parsed = parse_mentions(f"@[milk](inventory:{ID}) and @[Milk](inv:{ID})")
    assert [(m.table, m.id) for m in parsed.mentions] == [("inventory", ID)]


def test_unknown_types_and_malformed_ids_are_reported_not_resolved():
    parsed = parse_mentions(f"@[x](spaceship:{ID}) @[y](recipe:not-a-uuid)")
    assert parsed.mentions == ()
    assert parsed.invalid == (f"@[x](spaceship:{ID})", "@[y](recipe:not-a-uuid)")


def test_at_most_a_fixed_number_of_mentions_are_read():
    message = " ".join(
        f"@[r{n}](recipe:00000000-0000-0000-0000-{n:012d})" for n in range(MAX_MENTIONS + 5)
    )
    assert len(parse_mentions(message).mentions) == MAX_MENTIONS


def test_plain_text_shows_labels_instead_of_markup():
    assert plain_text(f"make @[Tacos](recipe:{ID}) again") == "make Tacos again"
    assert plain_text("no mentions, just an @ sign") == "no mentions, just an @ sign"


def test_a_model_reads_a_mention_as_its_label_and_ref_never_its_id():
    other = "11111111-2222-3333-4444-555555555555"
    message = f"swap @[Tacos](recipe:{ID.upper()}) for @[Paella](recipes:{other})"
    message += " or @[x](spaceship:z)"
    text = with_refs(message, {("recipes", ID): "recipe_3"})
    assert text == "swap Tacos (recipe_3) for Paella or x"
