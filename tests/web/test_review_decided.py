"""The review page of a game already decided shows the decision (who, what, why, when) instead
of the decision form, which would only be refused now; the shoe may still be voided from it
until a decision voids it. Through the web routes, on a live table."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from dealer_assist.services.live_table import LiveTable
from tests.web.conftest import csrf_of, login

PAGE = "/supervisor/review?shoe=S1&game=2"
RADIO = re.compile(r'<input type="radio" name="action" value="(\w+)"')


def decide(client: TestClient, action: str, reason: str, game: str = "2") -> Any:
    csrf = csrf_of(client.get(f"/supervisor/review?shoe=S1&game={game}").text)
    return client.post("/supervisor/decide", data={"csrf": csrf, "shoe": "S1", "game": game,
                                                   "action": action, "reason": reason})


def decided_section(html: str) -> str:
    match = re.search(r'<section class="decided">.*?</section>', html, re.S)
    assert match, "the page shows the decision"
    return match.group(0)


def test_a_decided_game_shows_its_decision_not_the_form(client: TestClient, table: LiveTable,
                                                        log: Any) -> None:
    login(client, "sup")
    page = client.get(PAGE).text
    assert RADIO.findall(page) == ["accept", "correct", "void", "void_shoe"]
    assert "The rules propose" in page and 'class="decided"' not in page
    assert decide(client, "void", "dealer erred <b>twice</b>").status_code == 303
    seq = log.head().seq

    page = client.get(PAGE)
    assert page.status_code == 200
    shown = decided_section(page.text)
    assert "Already decided" in shown and f'data-seq="{seq}"' in shown
    assert f"seq {seq}, " in shown and "<b class=\"action\">Void the game</b>" in shown
    assert "by sup:" in shown
    assert "dealer erred &lt;b&gt;twice&lt;/b&gt;" in shown  # escaped, as typed
    assert "<b>twice</b>" not in page.text
    stamp = table.history("S1")[0]["ts"][:10]
    assert stamp in shown  # when, on the site's clock (UTC here)
    assert "The rules propose" not in page.text  # proposals for a decision already made
    # Only the shoe's void is left to decide; no card fields for a correction.
    assert RADIO.findall(page.text) == ["void_shoe"]
    assert 'name="P1"' not in page.text

    # A decision posted anyway (an old tab): refused, and the page says what settles it.
    refused = decide(client, "accept", "looks fine")
    assert refused.status_code == 400
    assert "already decided" in refused.text and "by sup:" in decided_section(refused.text)
    assert RADIO.findall(refused.text) == ["void_shoe"]
    assert log.head().seq == seq

    # The shoe voided from this game: nothing more to decide on it.
    assert decide(client, "void_shoe", "shuffle was wrong").status_code == 303
    page = client.get(PAGE).text
    shown = decided_section(page)
    assert "Void the shoe from this game" in shown and "shuffle was wrong" in shown
    assert RADIO.findall(page) == [] and 'action="/supervisor/decide"' not in page


def test_an_undecided_game_keeps_the_whole_form(client: TestClient) -> None:
    login(client, "sup")
    page = client.get("/supervisor/review?shoe=S1&game=1").text  # no flag: at discretion
    assert 'class="decided"' not in page
    assert RADIO.findall(page) == ["accept", "correct", "void", "void_shoe"]
    assert decide(client, "accept", "checked", game="1").status_code == 303
    # A game with no flag needing a decision is not "already decided": the form stays.
    page = client.get("/supervisor/review?shoe=S1&game=1").text
    assert 'class="decided"' not in page and len(RADIO.findall(page)) == 4


def test_the_decision_is_shown_in_the_pages_language(client: TestClient) -> None:
    login(client, "sup")
    assert decide(client, "void", "dealer erred").status_code == 303
    page = client.get(PAGE + "&lang=th").text
    shown = decided_section(page)
    assert "ตัดสินไปแล้ว" in shown and "Already decided" not in shown
    assert "dealer erred" in shown and "sup" in shown  # the record itself, as recorded
    assert "Another decision" not in shown
    page = client.get(PAGE + "&lang=zh-Hant").text
    assert "已裁決" in decided_section(page)
