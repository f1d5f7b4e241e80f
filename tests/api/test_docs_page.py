"""/docs and /redoc work without the internet: every file they load comes from this app."""

from __future__ import annotations

import re

from tests.api.conftest import Api


async def test_the_docs_page_loads_only_files_the_app_serves(api: Api):
    page = await api.http.get("/docs")
    assert page.status_code == 200 and "swagger-ui" in page.text
    urls = re.findall(r"""(?:src|href|url)\s*[:=]\s*['"]([^'"]+)['"]""", page.text)
    assert urls and all(u.startswith("/") for u in urls), urls
    for url in urls:
        assert (await api.http.get(url)).status_code == 200, url
    assert "cdn" not in page.text.lower()


async def test_the_openapi_schema_the_docs_read_is_served(api: Api):
    schema = (await api.http.get("/openapi.json")).json()
    assert "/v1/conversations/{conversation_id}/messages" in schema["paths"]


async def test_redoc_loads_only_files_the_app_serves(api: Api):
    page = await api.http.get("/redoc")
    urls = re.findall(r"""src\s*=\s*['"]([^'"]+)['"]""", page.text)
    assert page.status_code == 200 and urls and all(u.startswith("/") for u in urls), urls
