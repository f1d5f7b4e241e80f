"""The search attributes that make turns findable in the Temporal UI."""

from __future__ import annotations

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import Client
from temporalio.common import SearchAttributeKey

CONVERSATION_ID = SearchAttributeKey.for_keyword("ConversationId")
USER_ID = SearchAttributeKey.for_keyword("UserId")
TURN_STATUS = SearchAttributeKey.for_keyword("TurnStatus")
ALL = (CONVERSATION_ID, USER_ID, TURN_STATUS)


def cli_flags() -> list[str]:
    """``temporal server start-dev`` flags that register them on the dev server."""
    flags: list[str] = []
    for key in ALL:
        flags += ["--search-attribute", f"{key.name}=Keyword"]
    return flags


async def register_search_attributes(client: Client, namespace: str = "default") -> None:
    """Register them on a server that lacks them (the test server; an external cluster)."""
    keyword = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
    await client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=namespace, search_attributes={key.name: keyword for key in ALL}
        )
    )
