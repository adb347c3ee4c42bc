"""The pit board in a real browser (Playwright driving Debian's chromium): it updates itself
when a table's batch is stored and when an integrity alarm is raised, with no reload and no
script blocked by the Content-Security-Policy. Screenshots go to artifacts/floor/."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from dealer_assist.bootstrap import ServerThread
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.floor.web.app import create_floor_app
from dealer_assist.shipping.ingest import Ingest, IntegrityAlarm
from tests.floor.conftest import FLOOR_PASSWORD
from tests.pg import ship

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "floor"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM}: "
                    "apt-get install chromium (.ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()



def sign_in_on_the_pit(page: Any, server: ServerThread, name: str) -> None:
    """Wait until the floor service listens to the store, then sign `name` in on /pit."""
    deadline = time.monotonic() + 15
    while not server.app.state.listener.listening.is_set():
        assert time.monotonic() < deadline, "the floor service never listened to the store"
        time.sleep(0.05)
    page.goto(server.url + "pit")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", FLOOR_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/pit")

def test_the_pit_board_follows_the_tables_by_itself(browser, floor, service, sample,
                                                    table_log) -> None:
    tables = [floor.add_table() for _ in range(3)]
    logs = []
    for n, (table, dsn) in enumerate(tables):
        logs.append(table_log(sample[:100 + 40 * n], name=table))
        ship(dsn, table, logs[-1])
    # a fourth table: a whole shoe dealt with the dealer's REVEAL and no mistake (its last
    # game's LAST_GAME needs no decision: nothing of it in the queue)
    revealed, dsn = floor.add_table()
    ship(dsn, revealed, table_log(deal_shoe(random.Random(1), shoe_id="RV-1", reveal=True),
                                  name=revealed))
    server = ServerThread(create_floor_app(service)).start()
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security" in m.text else None)
    try:
        sign_in_on_the_pit(page, server, "sup")
        first, dsn = tables[0]
        row = page.locator(f'tr[data-table="{first}"]')
        assert "seq 100)" in row.inner_text()
        page.wait_for_timeout(500)  # the stream is open
        logs[0].append_many(sample[100:200])
        ship(dsn, first, logs[0])
        page.wait_for_function(
            "t => document.querySelector(`tr[data-table=\"${t}\"]`).innerText.includes('seq 200)')",
            arg=first, timeout=10_000)
        with pytest.raises(IntegrityAlarm), psycopg.connect(dsn) as conn:
            Ingest(conn, first).ship(list(table_log(sample[:260], name="x").raw_records())[250:])
        page.wait_for_selector(".alarm-banner", timeout=10_000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "pit.png"), full_page=True)
        page.goto(server.url + "pit/queue")
        assert page.locator("table.pit-queue tbody tr").count() == 6  # 2 flagged games x 3
        page.screenshot(path=str(ARTIFACTS / "pit_queue.png"), full_page=True)
        page.click("table.pit-queue tbody tr:first-child a")
        page.wait_for_selector("form.decide")
        page.fill("textarea[name=reason]", "seen on the overhead camera")
        page.screenshot(path=str(ARTIFACTS / "pit_review.png"), full_page=True)
        page.click("form.decide button[type=submit]")
        page.wait_for_url("**/pit/queue?asked=*")
        assert "waiting for the table" in page.locator("#queue").inner_text()
        # a finished game shows its cards as the dealer revealed them
        page.goto(server.url + f"pit/review?table={revealed}&shoe=RV-1&game=3")
        assert page.locator("table.hand td[data-pos] .card[title]").count() >= 4
        assert "not yet opened" not in page.locator("table.hand").inner_text()
        page.screenshot(path=str(ARTIFACTS / "pit_review_revealed.png"), full_page=True)
        assert blocked == []
    finally:
        page.close()
        server.stop()
