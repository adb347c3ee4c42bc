"""The board in the house's languages in a real browser (Playwright driving Debian's chromium):
a Thai board and a Chinese bilingual board checked by DOM and screenshot, the fonts chromium
really drew them with (DevTools' platform fonts of a node), the big road's cells at least 28 px
on a 1920x1080 TV, and the portrait layout on a vertical monitor. Screenshots: tmp_path."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.accounts.login import Accounts
from dealer_assist.bootstrap import ServerThread
from dealer_assist.config import load_paytables
from dealer_assist.config.display import DisplayConfig
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.log import MemoryEventLog
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from tests.tracebuild import BURN3, Trace
from tests.web.browser_fonts import CJK_FONTS, THAI_FONTS, fonts_of
from tests.web.conftest import CHEAP, PASSWORD
from tests.web.test_browser import TV, browser, new_page  # noqa: F401  (browser: a fixture)

pytestmark = pytest.mark.browser

PORTRAIT = {"width": 1080, "height": 1920}
#: Results of the shoe the board shows: B banker natural, P player natural, T a tie of eights.
RESULTS = "BBBPPBPTBBBBPPPBPBTPPBBBPBPPPPBBTBPBBPBB"
NATURALS = [("9", "T"), ("4", "5"), ("3", "6"), ("2", "7"), ("8", "A"), ("9", "K"), ("9", "Q"),
            ("9", "J"), ("6", "3"), ("7", "2")]
EIGHTS = [("8", "T"), ("4", "4"), ("5", "3"), ("6", "2"), ("7", "A"), ("8", "K")]
LOSERS = [("2", "3"), ("A", "4"), ("T", "5"), ("3", "3"), ("K", "6"), ("Q", "7"), ("2", "4"),
          ("J", "6"), ("A", "5"), ("3", "4"), ("2", "5"), ("A", "6")]


def shoe_trace() -> Trace:
    """A shoe of naturals in the order RESULTS gives, each game opened on the table; after the
    last, a card drawn when none was needed (the alert banner)."""
    trace = Trace().new_shoe().burn(*BURN3)
    used: Counter[str] = Counter()

    def card(rank: str) -> str:
        used[rank] += 1
        return rank + "SHDC"[used[rank] % 4]

    for n, result in enumerate(RESULTS):
        # A natural against a hand of at most 7 (or two eights): nobody draws.
        if result == "T":
            player, banker = EIGHTS[n % len(EIGHTS)], EIGHTS[(n + 1) % len(EIGHTS)]
        else:
            win, lose = NATURALS[n % len(NATURALS)], LOSERS[n % len(LOSERS)]
            player, banker = (win, lose) if result == "P" else (lose, win)
        trace.game(card(player[0]), card(banker[0]), card(player[1]), card(banker[1]))
        trace.ev("dealer", "reveal")
    assert max(used.values()) <= 32  # eight decks
    return trace.cards("5D")  # a card drawn after the last game: flagged, a supervisor called


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    live = LiveTable(MemoryEventLog(), table_id="T1", house=HouseRules(),
                     paytables=load_paytables())
    for event in shoe_trace().events:
        live.observe(event)
    users = UserStore(tmp_path / "users.db", hasher=CHEAP)
    users.add("sup-th", "supervisor", PASSWORD, language="th")
    users.add("sup-zh", "supervisor", PASSWORD, language="zh_Hant")
    app = create_app(live, Accounts(TableUsers(users)))
    server = ServerThread(app).start()
    yield app, server.url
    server.stop()
    users.close()


def open_board(browser: Any, url: str, viewport: dict[str, int]) -> Any:  # noqa: F811
    page = new_page(browser, viewport)
    page.goto(url)
    page.wait_for_function("document.body.dataset.stream === 'open' && "
                           "document.querySelectorAll('#big-road .ring').length > 0")
    return page


def geometry(page: Any, selector: str) -> dict[str, float]:
    return page.evaluate("""(s) => { const r = document.querySelector(s).getBoundingClientRect();
        return {left: r.left, top: r.top, width: r.width, height: r.height, bottom: r.bottom,
                right: r.right, font: parseFloat(getComputedStyle(document.querySelector(s)).fontSize)}; }""",
                         selector)


def big_road_cells(page: Any) -> list[dict[str, float]]:
    return page.evaluate("""() => Array.from(document.querySelectorAll('#big-road > div'))
        .map(d => { const r = d.getBoundingClientRect(); return {w: r.width, h: r.height,
                    right: r.right, bottom: r.bottom}; })""")


def test_a_thai_board_on_a_tv(browser: Any, served: tuple[Any, str],  # noqa: F811
                              tmp_path: Path) -> None:
    app, url = served
    app.state.display = DisplayConfig(("th",))
    page = open_board(browser, url, TV)
    assert page.get_attribute("html", "lang") == "th"
    assert page.text_content(".side.banker h2 .name") == "เจ้ามือ"
    assert page.text_content(".side.player h2 .name") == "ผู้เล่น"
    counts = Counter(RESULTS)
    assert page.text_content("#counts") == \
        f"จ {counts['B']} · ผ {counts['P']} · ส {counts['T']}"
    assert page.text_content("#result-text") == "เจ้ามือชนะ"  # the last game: Banker
    assert page.text_content("#big-road h3, .road-box.big h3") == "เค้าไพ่ใหญ่"
    assert fonts_of(page, ".side.banker h2 .name .tr") & THAI_FONTS
    # Readable at three metres: big road cells >= 28 px, the call and result large, all on screen.
    cells = big_road_cells(page)
    assert len(cells) >= 6 * 10 and min(min(c["w"], c["h"]) for c in cells) >= 28
    assert max(c["bottom"] for c in cells) <= TV["height"] and max(c["right"] for c in cells) <= TV["width"]
    assert geometry(page, "#headline")["font"] >= 60
    assert geometry(page, "#result")["font"] >= 40
    small = geometry(page, ".road-box.derived .grid.small > div")
    assert small["width"] >= 19 and small["bottom"] <= TV["height"]
    assert geometry(page, ".roads")["bottom"] <= TV["height"]
    shot = tmp_path / "board-th.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 20_000


def test_a_chinese_bilingual_board(browser: Any, served: tuple[Any, str],  # noqa: F811
                                   tmp_path: Path) -> None:
    app, url = served
    app.state.display = DisplayConfig(("zh_Hant", "en"))
    page = open_board(browser, url, TV)
    assert page.get_attribute("html", "lang") == "zh-Hant"
    spans = page.evaluate("""() => Array.from(document.querySelectorAll('.side.banker h2 .tr'))
        .map(s => [s.lang, s.textContent])""")
    assert spans == [["zh-Hant", "莊"], ["en", "BANKER"]]
    result = page.evaluate("""() => Array.from(document.querySelectorAll('#result-text .tr'))
        .map(s => s.textContent)""")
    assert result == ["莊贏", "BANKER WINS"]
    alert = page.evaluate("""() => Array.from(document.querySelectorAll('#alert-text .tr'))
        .map(s => s.textContent)""")
    assert alert == ["第 40 局：多發了不需要的牌", "Game 40: card drawn when none was needed"]
    headline = page.evaluate("""() => Array.from(document.querySelectorAll('#headline .tr'))
        .map(s => s.textContent)""")
    assert len(headline) == 2 and headline[0] != headline[1]
    # The first language is the larger; the second beside it, smaller.
    zh, en = (geometry(page, f".side.banker h2 .tr:nth-child({i})") for i in (1, 2))
    assert zh["font"] > en["font"] >= 24
    assert fonts_of(page, ".side.banker h2 .name .tr") & CJK_FONTS
    cells = big_road_cells(page)
    assert min(min(c["w"], c["h"]) for c in cells) >= 28
    shot = tmp_path / "board-zh-en.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 20_000


@pytest.mark.parametrize("layout", ["portrait", "landscape"])
def test_the_portrait_layout_on_a_vertical_monitor(browser: Any,  # noqa: F811
                                                   served: tuple[Any, str],
                                                   tmp_path: Path, layout: str) -> None:
    """Asked for by the table's config, or taken on a screen taller than wide."""
    app, url = served
    app.state.display = DisplayConfig(("zh_Hans", "en"), layout)
    page = open_board(browser, url, PORTRAIT)
    assert "layout-portrait" in (page.get_attribute("body", "class") or "")
    player, banker = geometry(page, ".side.player"), geometry(page, ".side.banker")
    assert banker["left"] >= player["right"] and banker["right"] <= PORTRAIT["width"]
    big, bead = geometry(page, ".road-box.big"), geometry(page, ".road-box.bead")
    assert big["width"] >= PORTRAIT["width"] * 0.85 and bead["width"] >= PORTRAIT["width"] * 0.85
    cells = big_road_cells(page)
    assert min(min(c["w"], c["h"]) for c in cells) >= 28
    assert max(c["bottom"] for c in cells) <= PORTRAIT["height"]
    assert geometry(page, "#headline")["font"] >= 60
    assert page.evaluate("document.querySelector('.side.banker h2 .tr').textContent") == "庄"
    shot = tmp_path / "board-portrait.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 20_000
    for selector in (".hands", ".call", ".roads"):  # nothing overlaps, nothing off the screen
        assert geometry(page, selector)["bottom"] <= PORTRAIT["height"], selector
    assert geometry(page, ".call")["top"] >= geometry(page, ".hands")["bottom"]
    assert geometry(page, ".roads")["top"] >= geometry(page, ".call")["bottom"]


def test_a_thai_supervisor_reviews_in_thai(browser: Any, served: tuple[Any, str],  # noqa: F811
                                          tmp_path: Path) -> None:
    app, url = served
    page = new_page(browser)
    page.goto(url + "login?next=/supervisor")
    page.fill("input[name=name]", "sup-th")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/supervisor")
    assert page.get_attribute("html", "lang") == "th"
    assert page.text_content("h1") == "หน้าจอหัวหน้าผู้ดูแลเกม"
    rule = page.text_content("article.review .rule")
    assert rule is not None and rule.startswith("กติกา: ไพ่ที่จั่วหลังเกมจบไม่เปลี่ยนผลของเกม")
    assert fonts_of(page, "h1") & THAI_FONTS
    # the flag's detail and the proposed correction, recorded in English, shown in Thai
    assert "5D ออกมาหลังเกมที่ 40 จบแล้ว จึงแยกไว้" in (page.text_content("article.review") or "")
    assert "came out" not in (page.text_content("main") or "")
    # the pictures' words, drawn by chromium with a Thai font
    assert page.text_content("svg.by-hour .heading") == "การแจ้งเตือนรายชั่วโมง 8 ชั่วโมงล่าสุด"
    assert fonts_of(page, "svg.by-hour .heading") & THAI_FONTS
    assert page.evaluate("""() => Array.from(document.querySelectorAll('svg.fit .label'))
        .map(t => t.textContent)""") == ["เจ้ามือ", "ผู้เล่น", "เสมอ"]
    shot = tmp_path / "console-th.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000


def test_a_chinese_supervisors_pictures_are_drawn_in_chinese(
        browser: Any, served: tuple[Any, str], tmp_path: Path) -> None:  # noqa: F811
    app, url = served
    page = new_page(browser)
    page.goto(url + "login?next=/supervisor/dealers")
    page.fill("input[name=name]", "sup-zh")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/supervisor/dealers")
    assert page.text_content("svg.fit .heading") == "牌靴 S1 與精確賠率對比"
    assert page.evaluate("""() => Array.from(document.querySelectorAll('svg.fit .label'))
        .map(t => t.textContent)""") == ["莊", "閒", "和"]
    assert fonts_of(page, "svg.fit .heading") & CJK_FONTS
    assert fonts_of(page, "svg.by-dealer .heading") & CJK_FONTS
    shot = tmp_path / "dealers-zh-Hant.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
