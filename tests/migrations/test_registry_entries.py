"""Migration 0005 rewrites the registries stored in conversations' states into one entry per
ref: a conversation saved before it goes on with the same refs, labels, unsaved content and
memory; the downgrade gives the old shape back. Run on a real PostgreSQL, by an owner that
is no superuser (conversations' row-level security is forced for the owner too)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from alembic import command
from psycopg.types.json import Jsonb
from sqlalchemy.engine import make_url

from domain.conversation import ConversationState
from domain.db import bootstrap
from domain.db.urls import libpq_dsn

RECIPE, RI, INV, SAVED = (str(uuid.UUID(int=n)) for n in (1, 2, 3, 4))

# A registry as the code before 0005 saved it: a UUID in capitals, a counter that lags behind
# its refs, a ref with no last-referenced turn, content of a ref it no longer knows.
OLD_REGISTRY = {
    "session_id": "",
    "ref_to_uuid": {
        "recipe_1": RECIPE,
        "ri_1": RI,
        "inv_1": INV.upper(),
        "gen_recipe_1": SAVED,
        "gen_recipe_2": "__pending__",
    },
    "uuid_to_ref": {RECIPE: "recipe_1", RI: "ri_1", INV: "inv_1", SAVED: "gen_recipe_1"},
    "counters": {"recipe": 1, "ri": 1, "inv": 1},
    "gen_counters": {"recipe": 1},
    "pending_artifacts": {
        "gen_recipe_1": {"name": "Dal"},
        "gen_recipe_2": {"name": "Lime Slaw", "servings": 2},
        "gen_recipe_9": {"name": "an orphan"},
    },
    "ref_actions": {
        "recipe_1": "read",
        "ri_1": "read",
        "inv_1": "updated:user",
        "gen_recipe_1": "created",
        "gen_recipe_2": "generated",
    },
    "ref_labels": {
        "recipe_1": "Butter Chicken",
        "ri_1": "chicken",
        "inv_1": "rice",
        "gen_recipe_1": "Dal",
        "gen_recipe_2": "Lime Slaw",
    },
    "ref_types": {
        "recipe_1": "recipe",
        "ri_1": "ri",
        "inv_1": "inv",
        "gen_recipe_1": "recipe",
        "gen_recipe_2": "recipe",
    },
    "ref_detail_tracking": {"recipe_1": {"level": "full", "full_turn": 2}},
    "ref_turn_created": {
        "recipe_1": 2,
        "ri_1": 2,
        "inv_1": 3,
        "gen_recipe_1": 1,
        "gen_recipe_2": 4,
    },
    "ref_turn_last_ref": {"recipe_1": 2, "ri_1": 2, "gen_recipe_1": 4, "gen_recipe_2": 4},
    "ref_source_step": {"recipe_1": 0},
    "ref_turn_promoted": {"gen_recipe_1": 4},
    "ref_active_reason": {"recipe_1": "the weekly plan"},
    "current_turn": 4,
}
OTHERS = {"history_summary": "They cook curries.", "notes": ["turn 2 expired"]}


@pytest.fixture
def database(pg_server_url: str) -> Iterator[tuple[str, str]]:
    """A database at 0004 whose conversations belong to an owner that is no superuser:
    (the superuser's URL, the owner's URL)."""
    name = f"alfred_mig_{uuid.uuid4().hex[:10]}"
    role = f"{name}_owner"
    url = bootstrap.create_database(pg_server_url, name, exist_ok=False)
    owner = make_url(url).set(username=role, password=None).render_as_string(False)
    bootstrap.upgrade(url, "0004")
    with psycopg.connect(libpq_dsn(url), autocommit=True) as c:
        c.execute(f'CREATE ROLE "{role}" LOGIN NOSUPERUSER NOBYPASSRLS')
        c.execute(f'ALTER TABLE conversations OWNER TO "{role}"')
        c.execute(f'GRANT SELECT, UPDATE ON alembic_version TO "{role}"')
    try:
        yield url, owner
    finally:
        bootstrap.drop_database(pg_server_url, name)
        with psycopg.connect(libpq_dsn(pg_server_url), autocommit=True) as c:
            c.execute(f'DROP ROLE IF EXISTS "{role}"')


def saved_state(url: str, state: dict) -> str:
    """A user and a conversation holding ``state`` (written as the superuser); its id."""
    user, conversation = uuid.uuid4(), uuid.uuid4()
    with psycopg.connect(libpq_dsn(url), autocommit=True) as c:
        c.execute("INSERT INTO users (id, name) VALUES (%s, 'ada')", (user,))
        c.execute(
            "INSERT INTO conversations (id, user_id, state, version) VALUES (%s, %s, %s, 4)",
            (conversation, user, Jsonb(state)),
        )
    return str(conversation)


def stored(url: str, conversation: str) -> dict:
    with psycopg.connect(libpq_dsn(url)) as c:
        row = c.execute("SELECT state FROM conversations WHERE id = %s", (conversation,)).fetchone()
    return row[0]


def test_a_conversation_saved_before_0005_goes_on_with_its_refs(database):
    url, owner = database
    conversation = saved_state(url, {"registry": OLD_REGISTRY, **OTHERS})
    empty = saved_state(url, {"registry": {}})
    bootstrap.upgrade(owner, "0005")

    state = ConversationState.model_validate(stored(url, conversation))
    registry = state.registry
    assert (state.history_summary, state.notes) == (OTHERS["history_summary"], OTHERS["notes"])
    assert sorted(registry.known_refs()) == sorted(OLD_REGISTRY["ref_to_uuid"])
    assert registry.resolve("recipe_1") == RECIPE and registry.ref_of(INV) == "inv_1"
    assert registry.label("inv_1") == "rice" and registry.action("inv_1") == "updated:user"
    assert registry.last_referenced("inv_1") == 3  # its creation turn, as before
    assert registry.entries["recipe_1"].detail == "full"
    assert registry.get_active_entities(turns_window=1) == (
        ["gen_recipe_1", "gen_recipe_2"],
        ["recipe_1"],
    )
    assert registry.get_truly_pending_artifacts() == {
        "gen_recipe_2": {"name": "Lime Slaw", "servings": 2}
    }
    assert registry.resolve("gen_recipe_1") == SAVED and registry.promoted() == ["gen_recipe_1"]
    assert registry.turn == 4
    # the lagging counter was raised: the next generated recipe is no live ref again
    assert registry.register_generated("recipe", {"name": "Soup"}) == "gen_recipe_3"
    assert ConversationState.model_validate(stored(url, empty)).registry.known_refs() == []

    command.downgrade(bootstrap.alembic_config(owner), "0004")
    old = stored(url, conversation)["registry"]
    kept = ("session_id", "ref_source_step")  # dropped by 0005: nothing read them
    expected = {k: v for k, v in OLD_REGISTRY.items() if k not in kept}
    expected["ref_to_uuid"] = {**expected["ref_to_uuid"], "inv_1": INV}  # lower-cased
    expected["gen_counters"] = {"recipe": 2}  # raised
    expected["pending_artifacts"] = {  # the orphan went
        r: c for r, c in OLD_REGISTRY["pending_artifacts"].items() if r != "gen_recipe_9"
    }
    expected["ref_detail_tracking"] = {"recipe_1": {"level": "full"}}
    expected["ref_turn_last_ref"] = {**expected["ref_turn_last_ref"], "inv_1": 3}
    assert old == expected
