"""The chat page in a real browser (Debian's headless Chromium, driven by Playwright)
against `make run`'s stack: sign in, a proposal confirmed, the reply streamed in pieces,
an edit in the kitchen panel that the next turn sees, an @ mention; and /docs offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import async_playwright, expect

from tests.e2e.live_stack import Stack
from tests.workflows.script import complete, plan, propose, reply, step, tool, understand

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Headless as root, and nothing that reaches for the (closed) network."""

SCRIPT = [
    understand(),
    propose(
        "Stock up", "Shall I add milk to your shopping list?", step("Add milk", "write", "shopping")
    ),
    tool("db_create", table="shopping_list", data={"name": "milk", "quantity": 1, "unit": "l"}),
    complete("Added milk"),
    reply("Added 1 l of milk to your shopping list. Anything else you need for the week?"),
    understand(),
    plan("Say how much milk is on the list", step("Read the user's edit", "analyze", "shopping")),
    complete("3 l of milk, as the user set it"),
    reply("Your list now has 3 l of milk."),
]


@pytest.fixture
def stack(tmp_path):
    assert CHROMIUM.exists(), "Chromium is missing: `make test` installs Debian's chromium"
    running = Stack(tmp_path, SCRIPT)
    running.start()
    yield running
    try:
        running.stop()  # as a person stops it: everything it started stops with it
    finally:
        running.kill()  # whatever a failed stop left


async def test_a_conversation_in_the_browser_confirms_streams_and_sees_a_kitchen_edit(stack):
    token = (stack.workdir / ".alfred" / "dev-token").read_text().strip()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        page = await browser.new_page()
        await page.goto(stack.url)
        await page.fill("#token", token)
        await page.click("#signin-form button")
        await expect(page.locator("#app")).to_be_visible()

        await page.click("#new-conversation")
        await page.fill("#message", "stock up")
        await page.press("#message", "Enter")
        await expect(page.locator("#pause")).to_contain_text("Shall I add milk")
        await page.click("#confirm")

        answer = page.locator(".bubble.alfred[data-done='true']").first
        await expect(answer).to_have_text(
            "Added 1 l of milk to your shopping list. Anything else you need for the week?"
        )
        assert int(await answer.get_attribute("data-pieces") or 0) > 1  # streamed in pieces
        await expect(page.locator(".plan li[data-status='completed']")).to_have_count(1)

        await page.click("#kitchen-tabs [data-table='shopping_list']")
        quantity = page.locator("#kitchen-rows li", has_text="milk").locator("input.qty")
        await quantity.fill("3")
        await quantity.dispatch_event("change")
        await expect(quantity).to_have_attribute("data-saved", "true")

        await page.fill("#message", "how much milk is on my list now?")
        await page.press("#message", "Enter")
        listing = page.locator(".bubble.alfred[data-done='true']").nth(1)
        await expect(listing).to_have_text("Your list now has 3 l of milk.")
        # The turn took the edit as a UI change: the row is in context as the user's edit.
        edited = page.locator("#entities li[data-action='updated:user']")
        await expect(edited).to_contain_text("milk")

        await page.type("#message", "cook with @mi")  # an @-mention of a kitchen row
        await page.click("#mentions li", timeout=5000)
        value = await page.input_value("#message")
        assert value.startswith("cook with @[milk](shop:") and value.endswith(") ")

        # /docs renders from the app's own files (this browser reaches nothing else).
        await page.goto(f"{stack.url}/docs")
        await expect(page.locator(".swagger-ui .info .title")).to_contain_text("Alfred")
        await expect(page.locator(".opblock-summary-path").first).to_be_visible()
        await browser.close()
