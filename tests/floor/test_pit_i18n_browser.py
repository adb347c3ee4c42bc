"""The pit in Thai and in Chinese in a real browser (Playwright driving Debian's chromium): the
board and queue read in the floor user's language (DOM), chromium draws them with the Thai and
Chinese fonts the project installs (DevTools: the fonts of each node), the pit script's words
come from the page's catalog, and nothing is blocked by the Content-Security-Policy.
Screenshots go to artifacts/floor/."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from dealer_assist import i18n
from dealer_assist.bootstrap import ServerThread
from dealer_assist.floor.users import add_user
from dealer_assist.floor.web.app import create_floor_app
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.test_pit_browser import (  # noqa: F401 (the fixture)
    ARTIFACTS,
    browser,
    sign_in_on_the_pit,
)
from tests.floor.test_pit_i18n import dealt_by
from tests.pg import ship
from tests.web.browser_fonts import CJK_FONTS, THAI_FONTS, fonts_of

pytestmark = pytest.mark.browser


def test_a_thai_and_a_chinese_pit_in_chromium(browser, floor, service, sample,  # noqa: F811
                                              table_log) -> None:
    tables = [floor.add_table() for _ in range(2)]
    for n, (table, dsn) in enumerate(tables):
        ship(dsn, table, table_log(dealt_by(sample, lambda g, n=n: f"D-{n + 1}"), name=table))
    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    add_user(floor.owner, "somchai", "supervisor", FLOOR_PASSWORD, hasher=cheap, language="th")
    add_user(floor.owner, "mei", "surveillance", FLOOR_PASSWORD, hasher=cheap,
             language="zh-Hant")
    server = ServerThread(create_floor_app(service)).start()
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security" in m.text else None)
    th = i18n.translations("th").gettext
    try:
        sign_in_on_the_pit(page, server, "somchai")
        assert page.get_attribute("html", "lang") == "th"
        assert page.text_content("h1") == th("Pit board")
        assert fonts_of(page, "h1") & THAI_FONTS
        first = tables[0][0]
        result = page.text_content(f'tr[data-table="{first}"] td.last-result')
        assert result == i18n.say("th", "game 80: banker") and th("banker") in result
        assert fonts_of(page, f'tr[data-table="{first}"] td.last-result') & THAI_FONTS
        # the script's word for a live stream, from the page's catalog
        page.wait_for_function("w => document.getElementById('live').textContent === w",
                               arg=th("Live"), timeout=10_000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / "pit-th.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 20_000
        page.goto(server.url + "pit/dealers")
        assert page.locator("tr.dealer").count() == 2
        assert page.get_attribute('tr.dealer[data-dealer="D-1"]', "data-flags") == "3"
        page.screenshot(path=str(ARTIFACTS / "pit-dealers-th.png"), full_page=True)
        # a Traditional Chinese surveillance officer's queue
        page.context.clear_cookies()
        page.goto(server.url + "login?next=/pit/queue")
        page.fill("input[name=name]", "mei")
        page.fill("input[name=password]", FLOOR_PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url("**/pit/queue")
        zh = i18n.translations("zh_Hant").gettext
        assert page.get_attribute("html", "lang") == "zh-Hant"
        assert page.text_content("h1") == zh("Pit review queue")
        assert fonts_of(page, "h1") & CJK_FONTS
        assert page.locator("table.pit-queue tbody tr").count() == 4  # 2 flagged games x 2
        assert page.text_content("table.pit-queue tbody tr:first-child .status") == zh("review")
        page.screenshot(path=str(ARTIFACTS / "pit-queue-zh-Hant.png"), full_page=True)
        assert blocked == []
    finally:
        page.close()
        server.stop()
