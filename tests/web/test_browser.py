"""The display and the console in a real browser (Playwright driving Debian's chromium).

The whole service runs as `dealer-assist run` builds it (bootstrap.open_table: SQLite log,
users file, shoe link on a pseudo-terminal), with the web server on a thread. The shoe is the
built-in emulator dealing flat out, or a pty the test writes frames to, card by card.
Screenshots go to artifacts/web/ (docs/display.png and docs/console.png are copies of them).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.bootstrap import ServerThread, Table, open_table
from dealer_assist.config import DEFAULT_PAYTABLES, ShoeConfig, SurveillanceConfig, TableConfig
from dealer_assist.services.audit import audit_lines
from dealer_assist.store.users import UserStore
from hardware.shoe.protocol import Button, Card, Heartbeat, Message, encode
from hardware.shoe.transport import PtyTransport
from tests.web.conftest import CHEAP, PASSWORD, ROLES

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
TV = {"width": 1920, "height": 1080}


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


def config_for(tmp_path: Path, url: str, mistakes: tuple[str, ...] = ()) -> TableConfig:
    users = UserStore(tmp_path / "users.db", hasher=CHEAP)
    for name, role in ROLES.items():
        users.add(name, role, PASSWORD)
    users.close()
    return TableConfig(path=tmp_path / "table.toml", table_id="T9",
                       database=tmp_path / "events.db", users=tmp_path / "users.db",
                       paytables=DEFAULT_PAYTABLES,
                       shoe=ShoeConfig(url=url, emulator_mistakes=mistakes),
                       surveillance=SurveillanceConfig(side_bets=False))


class TestShoe:
    """A shoe the test plays by hand: frames to a pty, a heartbeat every second."""

    __test__ = False

    def __init__(self) -> None:
        self.transport = PtyTransport()
        self.path = self.transport.open()
        self.seq = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        threading.Thread(target=self._beat, daemon=True).start()

    def send(self, *messages: Message) -> None:
        with self._lock:
            for message in messages:
                self.transport.send(encode(message._replace(seq=self.seq)))
                self.seq = (self.seq + 1) % 10_000

    def cards(self, *codes: str) -> None:
        self.send(*(Card(0, code) for code in codes))

    def button(self, name: str) -> None:
        self.send(Button(0, name))

    def _beat(self) -> None:
        while not self._stop.wait(1.0):
            self.send(Heartbeat(0))

    def close(self) -> None:
        self._stop.set()
        self.transport.close()


@pytest.fixture
def hand_table(tmp_path: Path) -> Iterator[tuple[Table, ServerThread, TestShoe]]:
    shoe = TestShoe()
    table = open_table(config_for(tmp_path, shoe.path))
    server = ServerThread(table.app).start()
    yield table, server, shoe
    server.stop()
    table.close()
    shoe.close()


def wait_until(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def new_page(browser: Any, viewport: dict[str, int] | None = None) -> Any:
    """A page in its own context; the test's own probes need eval, which the CSP forbids."""
    return browser.new_context(bypass_csp=True, viewport=viewport or TV).new_page()


def open_display(browser: Any, url: str) -> Any:
    page = new_page(browser)
    page.goto(url)
    page.wait_for_function("document.body.dataset.stream === 'open'")
    return page


def slots(page: Any) -> dict[str, dict[str, str | None]]:
    return page.evaluate("""() => Object.fromEntries(Array.from(
        document.querySelectorAll('.slot')).map(s => [s.dataset.pos,
        {state: s.dataset.state || null, card: s.dataset.card || null, text: s.textContent}]))""")


def test_the_display_updates_live_while_the_emulator_deals(browser: Any, tmp_path: Path) -> None:
    table = open_table(config_for(tmp_path, "emulator", ("unneeded_draw",)), shoe_speed=None,
                       shoes=1, start_shoe=False)
    server = ServerThread(table.app).start()
    try:
        page = open_display(browser, server.url)
        page.evaluate("""() => {
            window.__marker = 'same page'; window.__seqs = []; window.__games = new Set();
            new MutationObserver(() => {
                window.__seqs.push(Number(document.body.dataset.seq));
                window.__games.add(document.body.dataset.game);
            }).observe(document.body, {attributes: true, attributeFilter: ['data-seq']});
        }""")
        assert table.shoe is not None
        table.shoe.start()
        page.wait_for_function(
            "document.getElementById('shoe-state').textContent === 'shoe finished'",
            timeout=90_000)
        seqs = page.evaluate("window.__seqs")
        games = page.evaluate("Array.from(window.__games).filter(g => g).map(Number)")
        assert page.evaluate("window.__marker") == "same page"  # pushed, never reloaded
        assert len(seqs) > 200 and seqs == sorted(seqs)
        report = audit_lines(json.dumps(e) for _, e in table.log.read())
        (shoe,) = report["shoes"]
        played = [g for g in shoe["games"] if g["status"] == "complete"]
        # Flat out, a screen that falls behind skips to the newest view: most games, not all.
        assert set(games) <= set(range(1, len(shoe["games"]) + 1))
        assert len(games) > len(shoe["games"]) // 2 and len(shoe["games"]) in games
        counts = {w: sum(g["winner"] == w for g in played) for w in ("banker", "player", "tie")}
        assert page.text_content("#counts") == \
            f"B {counts['banker']} · P {counts['player']} · T {counts['tie']}"
        assert page.get_attribute("#link-shoe", "data-status") == "up"
        pending = [g["game"] for g in shoe["games"] if g["review"] == "pending"]
        assert pending and all(f"Game {n}:" in page.text_content("#alert") for n in pending)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "display-shoe.png"))
    finally:
        server.stop()
        table.close()


def test_a_card_stays_hidden_until_it_is_revealed(browser: Any,
                                                  hand_table: tuple[Table, ServerThread, TestShoe]
                                                  ) -> None:
    table, server, shoe = hand_table
    page = open_display(browser, server.url)
    shoe.button("NEWSHOE")
    shoe.cards("2S", "KS", "KH")  # a 2 turned up burns two more
    shoe.button("CLOSE")
    shoe.cards("2H", "3D", "4C", "KS")  # Player 6 stands, Banker 3 draws
    page.wait_for_function("document.querySelectorAll('.slot.back').length === 4")
    assert {p: s["state"] for p, s in slots(page).items() if s["state"]} == \
        {"P1": "back", "P2": "back", "B1": "back", "B2": "back"}
    html = page.content()
    for value in ("2H", "3D", "4C", '"KS"', "♥", "♦", "♣"):
        assert value not in html
    assert page.text_content("#headline") == "open the cards"
    assert page.text_content("#player-total") == "" and page.text_content("#banker-total") == ""
    shoe.button("REVEAL")
    page.wait_for_function("document.querySelectorAll('.slot.face').length === 4")
    shown = slots(page)
    assert [shown[p]["card"] for p in ("P1", "P2", "B1", "B2")] == ["2H", "4C", "3D", "KS"]
    assert page.text_content("#player-total") == "6" and page.text_content("#banker-total") == "3"
    assert page.text_content("#headline") == "BANKER DRAWS"
    shoe.cards("5C")  # Banker's third card: out of the shoe, not yet opened
    page.wait_for_function("document.querySelector('[data-pos=B3]').dataset.state === 'back'")
    assert "5C" not in page.content() and page.text_content("#banker-total") == ""
    assert page.is_hidden("#result")
    shoe.button("REVEAL")
    page.wait_for_function("document.querySelector('[data-pos=B3]').dataset.card === '5C'")
    assert page.text_content("#banker-total") == "8"
    assert page.text_content("#result-text") == "BANKER WINS"
    shoe_state = table.live.machine.shoe
    assert shoe_state is not None and shoe_state.game(1) is not None
    assert shoe_state.games[0].complete


def test_a_supervisor_resolves_a_flagged_game(browser: Any,
                                              hand_table: tuple[Table, ServerThread, TestShoe]
                                              ) -> None:
    table, server, shoe = hand_table
    display = open_display(browser, server.url)
    shoe.button("NEWSHOE")
    shoe.cards("2S", "KS", "KH")
    shoe.button("CLOSE")
    shoe.cards("9H", "TS", "KD", "2C")  # a natural: Player 9, Banker 2
    shoe.button("REVEAL")
    shoe.cards("5D")  # a card drawn when none was needed: UNNEEDED_DRAW, for review
    display.wait_for_selector("#alert:not([hidden])")
    assert "card drawn when none was needed" in display.text_content("#alert")
    assert display.text_content("#counts") == "B 0 · P 1 · T 0"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    display.screenshot(path=str(ARTIFACTS / "display.png"))

    console = new_page(browser, {"width": 1280, "height": 1000})
    console.goto(server.url + "supervisor")
    assert "/login" in console.url
    console.fill("input[name=name]", "sup")
    console.fill("input[name=password]", PASSWORD)
    console.click("form.login button[type=submit]")
    console.wait_for_url("**/supervisor")
    item = console.locator("article.review[data-game='1']")
    assert "UNNEEDED_DRAW" in item.text_content()
    assert "does not change its result" in item.text_content()  # the rule
    assert "5D is set aside" in item.text_content()  # the proposal
    assert item.locator("td[data-pos=P1] .card").get_attribute("title") == "9H"
    console.screenshot(path=str(ARTIFACTS / "console.png"), full_page=True)
    item.locator("input[name=action][value=void]").check()
    item.locator("textarea[name=reason]").fill("dealer drew a card by mistake; void per rule")
    item.locator("button[type=submit]").click()
    console.wait_for_url("**/supervisor?decided=1")
    assert "Decision recorded for game 1" in console.text_content("main")
    assert console.locator("article.review").count() == 0
    assert console.text_content("#queue-count") == "0"

    display.wait_for_selector("#alert", state="hidden")
    assert display.text_content("#result-text") == "GAME VOID"
    assert display.text_content("#counts") == "B 0 · P 0 · T 0"
    _, decision = list(table.log.read())[-1]
    assert (decision["type"], decision["by"], decision["action"]) == ("decision", "sup", "void")
    history = console.context.new_page()
    history.goto(server.url + "supervisor/history?flag=UNNEEDED_DRAW")
    assert "dealer drew a card by mistake" in history.text_content("table.history")


def test_a_dealer_cannot_reach_the_console(browser: Any,
                                           hand_table: tuple[Table, ServerThread, TestShoe]
                                           ) -> None:
    _, server, _ = hand_table
    page = new_page(browser)
    page.goto(server.url + "login")
    page.fill("input[name=name]", "dea")
    page.fill("input[name=password]", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url("**/dealer")
    response = page.goto(server.url + "supervisor")
    assert response.status == 403
    assert "this page is for supervisors only" in page.text_content("main")
    assert page.locator("article.review").count() == 0
    assert page.goto(server.url + "supervisor/history").status == 403
