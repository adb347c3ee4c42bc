"""The floor's pages in the house's languages and the flags per dealer, against the real
PostgreSQL: a Thai and a Chinese floor user see the pit board, queue, review and dealers pages
in their language (read from the DOM), the header's language chooser keeps a choice, `?lang=`
previews one (the board's live fragment too), the floor CLI sets a user's language, and the
per-dealer and per-shift figures of a fixed set of shipped games are counted exactly."""

from __future__ import annotations

import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest
from argon2 import PasswordHasher
from babel.messages.extract import extract_from_dir
from fastapi.testclient import TestClient

from dealer_assist import i18n
from dealer_assist.cli import main
from dealer_assist.config import languages
from dealer_assist.floor.users import add_user
from dealer_assist.floor.web import pages
from dealer_assist.floor.web.app import create_floor_app
from dealer_assist.floor_wire import STATUS_TEXT
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import csrf_of, login
from tests.pg import ship

CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
#: The floor users of these tests and their languages.
SPEAKERS = {"somchai": "th", "mei": "zh_Hant", "lan": "zh_Hans"}


def dealt_by(sample: list[dict[str, Any]], dealer_of: Any) -> list[dict[str, Any]]:
    """The sample shoe with `dealer_of(game)` (or None: no dealer) on each game's bets_closed."""
    events, game = [], 0
    for event in sample:
        if event["type"] == "bets_closed":
            game += 1
            dealer = dealer_of(game)
            event = {**event, "dealer": dealer} if dealer else event
        events.append(event)
    return events


@pytest.fixture
def pit(floor, service, sample, table_log) -> Iterator[tuple[TestClient, str, str]]:
    """Two tables of the sample shoe (flags on games 16, 17 and 80): table A dealt by D-1
    (games 1-30), nobody (31-50), D-2 (51-80); table B by D-2 (1-40), D-3 (41-80). The floor's
    English users and one Thai, one Traditional and one Simplified Chinese supervisor."""
    a, dsn_a = floor.add_table()
    b, dsn_b = floor.add_table()
    ship(dsn_a, a, table_log(dealt_by(sample, lambda g: "D-1" if g <= 30 else
                                      None if g <= 50 else "D-2"), "a"))
    ship(dsn_b, b, table_log(dealt_by(sample, lambda g: "D-2" if g <= 40 else "D-3"), "b"))
    for name, lang in SPEAKERS.items():
        add_user(floor.owner, name, "supervisor", FLOOR_PASSWORD, hasher=CHEAP, language=lang)
    with TestClient(create_floor_app(service)) as client:
        yield client, a, b


class Dom(HTMLParser):
    """A page's elements: each with its tag, attributes and whole text (scripts left out)."""

    VOID = {"meta", "link", "input", "br", "img", "hr", "source"}

    def __init__(self, html: str) -> None:
        super().__init__()
        self.elements: list[dict[str, Any]] = []
        self._open: list[dict[str, Any]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(element)
        if tag not in self.VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()["tag"] == tag:
                break

    def handle_data(self, data: str) -> None:
        if any(e["tag"] in ("script", "style") for e in self._open):
            return
        for element in self._open:
            element["text"] += data

    def find(self, tag: str, **attrs: str) -> list[dict[str, Any]]:
        return [e for e in self.elements if e["tag"] == tag
                and all(e["attrs"].get(k.rstrip("_")) == v for k, v in attrs.items())]

    def texts(self, tag: str) -> list[str]:
        return [" ".join(e["text"].split()) for e in self.find(tag)]

    def lang(self) -> str:
        return str(self.find("html")[0]["attrs"]["lang"])

    def body(self) -> str:
        return " ".join(self.find("body")[0]["text"].split())


def bars(html: str, kind: str) -> dict[str, float]:
    """The bars of the page's SVG picture `kind`: label -> value (the data drawn)."""
    svg = re.search(rf'<svg [^>]*class="chart {kind}".*?</svg>', html, re.S)
    assert svg, f"no {kind} picture"
    root = ET.fromstring(svg.group(0))
    return {str(g.get("data-label")): float(str(g.get("data-value"))) for g in root.iter()
            if g.get("class") == "bar"}


def as_user(client: TestClient, name: str) -> None:
    client.cookies.clear()
    assert login(client, name, FLOOR_PASSWORD).status_code == 303


#: The pit's own words, which a page in another language must not show in English.
PIT_WORDS = ("Pit board", "Review queue", "Floor decisions", "Last result", "Shipping lag",
             "Open flags", "Log out", "Severity", "Dealer")


@pytest.mark.parametrize("name", list(SPEAKERS))
def test_a_thai_and_a_chinese_supervisor_see_the_pit_in_their_language(pit, name: str) -> None:
    client, a, b = pit
    lang = SPEAKERS[name]
    say = i18n.translations(lang).gettext
    as_user(client, name)
    board = Dom(client.get("/pit").text)
    assert board.lang() == languages.HTML_LANG[lang]
    assert board.texts("h1") == [say("Pit board")]
    assert board.texts("a")[:4] == [say("Pit board"), say("Review queue"), say("Dealers"),
                                    say("Floor decisions")]
    headers = board.texts("th")
    assert headers[:5] == [say("Table"), say("Variant"), say("Shoe"), say("Game"),
                           say("Last result")]
    rows = {e["attrs"]["data-table"]: e for e in board.find("tr") if "data-table" in e["attrs"]}
    assert set(rows) == {a, b}
    last = [e for e in board.find("td", class_="last-result")]
    # "game 80: banker" as the house says it: the game's words and Baccarat's own word
    assert {" ".join(e["text"].split()) for e in last} == {i18n.say(lang, "game 80: banker")}
    assert say("banker") in last[0]["text"] and say("banker") != "banker"
    assert say("Banker") in {"เจ้ามือ", "莊", "庄"}
    for word in PIT_WORDS:
        assert word not in board.body(), word
    queue = Dom(client.get("/pit/queue").text)
    assert queue.lang() == languages.HTML_LANG[lang] and queue.texts("h1") == [say("Pit review queue")]
    games = queue.find("tr", class_="sev-review")
    assert sorted((g["attrs"]["data-table"], g["attrs"]["data-game"], g["attrs"]["data-dealer"])
                  for g in games) == sorted([(a, "16", "D-1"), (a, "17", "D-1"),
                                             (b, "16", "D-2"), (b, "17", "D-2")])
    assert [g["attrs"]["data-game"] for g in games] == ["16", "16", "17", "17"]  # oldest first
    assert {" ".join(e["text"].split()) for e in queue.find("span")} >= {say("review")}
    assert say("Review") in queue.texts("a")
    for word in PIT_WORDS:
        assert word not in queue.body(), word
    review = Dom(client.get(f"/pit/review?table={a}&shoe=SAMPLE-1&game=16").text)
    assert review.find("article")[0]["attrs"]["data-dealer"] == "D-1"
    assert f'{say("Dealer:")} D-1' in review.texts("p")
    assert say("Send the decision to the table") in review.texts("button")
    assert say("Banker") in review.texts("th") and say("Player") in review.texts("th")


def test_every_floor_text_is_translated_in_every_shipped_language() -> None:
    """The floor templates' ids and the floor's server texts (a message's id, a request's
    status, the pit script's words) are in every catalog, translated."""
    found = extract_from_dir(str(pages.FLOOR_TEMPLATES), method_map=[("**.html", "jinja2")],
                             options_map={"**.html": {"extensions": "jinja2.ext.i18n"}})
    ids = {m for _, _, m, _, _ in found if isinstance(m, str)}
    ids |= set(STATUS_TEXT.values()) | set(pages.SCRIPT_TEXTS)
    ids |= {"Central store unreachable", "Back to the queue", "Not sent: {0}",
            "Request {0} sent to the table.", "game {0}: {1}", "{0}: not a day (YYYY-MM-DD)",
            "table {0}, shoe {1}, game {2}: not a game of the floor", "surveillance",
            "The central store has no game {0} of shoe {1} at table {2}.", "Back to the floor"}
    assert len(ids) > 100
    for lang in ("th", "zh_Hans", "zh_Hant"):
        have = i18n.messages(lang)
        assert sorted(i for i in ids if i not in have) == [], lang


def test_the_language_chooser_keeps_the_choice_for_the_next_login(floor, pit) -> None:
    client, _, _ = pit
    as_user(client, "sup")
    page = client.get("/pit/requests")
    dom = Dom(page.text)
    assert dom.lang() == "en"
    chooser = dom.find("form", action="/account/language")
    assert len(chooser) == 1
    assert [o["attrs"]["value"] for o in dom.find("option")] == list(languages.LANGUAGES)
    csrf = csrf_of(page.text)
    chosen = client.post("/account/language", data={"csrf": csrf, "lang": "zh-Hant",
                                                     "next": "/pit/queue"},
                         follow_redirects=False)
    assert chosen.status_code == 303 and chosen.headers["location"] == "/pit/queue"
    assert Dom(client.get("/pit/queue").text).lang() == "zh-Hant"  # this session at once
    kept = floor.owner.execute("SELECT language FROM floor_users WHERE name = 'sup'").fetchone()
    floor.owner.commit()
    assert kept == ("zh_Hant",)
    as_user(client, "sup")  # and the next login
    assert Dom(client.get("/pit").text).lang() == "zh-Hant"
    # refusals: an unknown language, a huge one, no token
    for lang in ("xx", "x" * 5000, ""):
        refused = client.post("/account/language", data={"csrf": csrf_of(
            client.get("/pit").text), "lang": lang}, follow_redirects=False)
        assert refused.status_code == 400 and "Traceback" not in refused.text
    assert client.post("/account/language", data={"lang": "th"},
                       follow_redirects=False).status_code == 403
    assert Dom(client.get("/pit").text).lang() == "zh-Hant"


def test_the_chooser_on_a_review_page_comes_back_to_the_same_game(pit) -> None:
    client, a, _ = pit
    as_user(client, "sup")
    path = f"/pit/review?table={a}&shoe=SAMPLE-1&game=16"
    page = client.get(path + "&lang=th")
    dom = Dom(page.text)
    assert dom.find("form", action="/account/language")
    back = dom.find("input", name="next")[0]["attrs"]["value"]
    assert back == path  # the preview is not kept: the choice is
    chosen = client.post("/account/language", data={"csrf": csrf_of(page.text), "lang": "th",
                                                     "next": back}, follow_redirects=False)
    assert chosen.headers["location"] == path
    shown = Dom(client.get(path).text)
    assert shown.lang() == "th" and shown.find("article")[0]["attrs"]["data-game"] == "16"


def test_lang_previews_a_page_and_the_fragments_its_script_fetches(pit) -> None:
    client, a, _ = pit
    as_user(client, "sup")
    page = Dom(client.get("/pit?lang=th").text)
    say = i18n.translations("th").gettext
    assert page.lang() == "th" and page.texts("h1") == [say("Pit board")]
    assert page.find("div", id="board")[0]["attrs"]["data-fragment"] == "/pit/board?lang=th"
    fragment = client.get("/pit/board?lang=th").text
    assert say("Last result") in fragment and "Last result" not in fragment
    queue = client.get("/pit/queue?lang=zh-Hans").text
    assert 'data-fragment="/pit/queue/list?lang=zh-Hans"' in queue
    assert "&amp;lang=zh-Hans" in client.get("/pit/queue/list?lang=zh-Hans").text
    # the pit script's words come from the page, in its language
    catalog = re.search(r'<script type="application/json" id="catalog">(.*?)</script>',
                        client.get("/pit?lang=th").text, re.S)
    assert catalog, "no JSON catalog for pit.js"
    assert json.loads(catalog.group(1)) == {t: say(t) for t in pages.SCRIPT_TEXTS}
    assert say("Live") != "Live"
    # an unknown language previews nothing; the account's language stays
    assert Dom(client.get("/pit?lang=xx").text).lang() == "en"
    assert Dom(client.get(f"/pit/review?table={a}&shoe=SAMPLE-1&game=16&lang=zh-Hant")
               .text).lang() == "zh-Hant"


def test_flags_per_dealer_and_per_shift_across_the_pit(pit) -> None:
    client, a, b = pit
    as_user(client, "sur")
    dealers = {d["dealer"]: d for d in client.get("/api/pit/dealers").json()["dealers"]}
    figures = {k: (d["games"], d["flagged"], d["flags"], d["tables"])
               for k, d in dealers.items()}
    assert figures == {"D-1": (30, 2, 2, [a]), "D-2": (70, 3, 3, sorted([a, b])),
                       "D-3": (40, 1, 1, [b]), None: (20, 0, 0, [a])}
    assert dealers["D-1"]["rate"] == pytest.approx(2 / 30)
    # games 16 and 17 wait for a review; game 80's flag asks for none
    assert {k: d["waiting"] for k, d in dealers.items()} == {"D-1": 2, "D-2": 2, "D-3": 0,
                                                             None: 0}
    shifts = client.get("/api/pit/dealers").json()["shifts"]
    assert sorted((s["table"], s["dealer"] or "", s["games"], s["flags"]) for s in shifts) \
        == sorted([(a, "D-1", 30, 2), (a, "", 20, 0), (a, "D-2", 30, 1), (b, "D-2", 40, 2),
                   (b, "D-3", 40, 1)])
    page = Dom(client.get("/pit/dealers").text)
    rows = {r["attrs"]["data-dealer"]: r for r in page.find("tr", class_="dealer")}
    assert {k: (r["attrs"]["data-games"], r["attrs"]["data-flags"]) for k, r in rows.items()} \
        == {"D-1": ("30", "2"), "D-2": ("70", "3"), "D-3": ("40", "1"), "": ("20", "0")}
    assert len(page.find("tr", class_="shift")) == 5
    # the pictures: one bar per dealer, its flags and its flag rate
    html = client.get("/pit/dealers").text
    flags, rates = bars(html, "pit-flags"), bars(html, "pit-rates")
    assert flags == {"D-1": 2.0, "D-2": 3.0, "D-3": 1.0, "(none)": 0.0}
    assert rates == pytest.approx({"D-1": 2 / 30, "D-2": 3 / 70, "D-3": 1 / 40, "(none)": 0.0})
    # a span without those games; the day they were dealt
    assert client.get("/api/pit/dealers?from=2026-11-30").json()["dealers"] == []
    day = client.get("/api/pit/dealers?from=2026-11-29&to=2026-11-29").json()
    assert sum(d["games"] for d in day["dealers"]) == 160
    # in Thai, the games with no dealer read as the house says "(none)"
    as_user(client, "somchai")
    thai = Dom(client.get("/pit/dealers").text)
    say = i18n.translations("th").gettext
    assert thai.texts("h1") == [say("Flags per dealer and per shift")]
    named = [" ".join(r["text"].split()) for r in thai.find("tr", class_="dealer")]
    assert named[-1].startswith(say("(none)"))
    thai_html = client.get("/pit/dealers").text
    assert bars(thai_html, "pit-flags") == {"D-1": 2.0, "D-2": 3.0, "D-3": 1.0, say("(none)"): 0.0}
    heading = re.search(r'class="chart pit-flags".*?class="heading">([^<]*)<', thai_html, re.S)
    assert heading and heading.group(1) == say("Flags per dealer") != "Flags per dealer"


@pytest.mark.parametrize(("path", "status"), [
    ("/pit/dealers?from=2026-13-01", 400),
    ("/pit/dealers?from=yesterday", 400),
    ("/pit/dealers?to=" + "9" * 5000, 400),
    ("/pit/dealers?from=2026-12-02&to=2026-12-01", 400),
    ("/pit/dealers?from=20261201", 400),
    ("/api/pit/dealers?from=0000-01-01", 400),
    ("/api/pit/dealers?to=%00", 400),
    ("/pit/dealers?from=0001-01-01&to=9999-12-31", 200),
    ("/pit/board?lang=" + "x" * 5000, 200),
])
def test_odd_requests_to_the_new_routes_get_4xx_never_500(pit, path: str, status: int) -> None:
    client, _, _ = pit
    as_user(client, "somchai")
    response = client.get(path)
    assert response.status_code == status, response.text[:300]
    assert "Traceback" not in response.text


def test_a_bad_day_is_refused_in_the_users_language(pit) -> None:
    client, _, _ = pit
    as_user(client, "somchai")
    refused = Dom(client.get("/pit/dealers?from=yesterday").text)
    assert refused.lang() == "th"
    expected = i18n.say("th", "'yesterday': not a day (YYYY-MM-DD)")
    assert expected != "'yesterday': not a day (YYYY-MM-DD)"
    assert expected in refused.texts("p")


def test_the_floor_cli_sets_a_users_language(floor, capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long password\n"))
    assert main(["floor", "add-user", "niran", "--role", "surveillance", "--language", "th",
                 "--password-stdin", "--dsn", floor.dsn()]) == 0
    language = "SELECT language FROM floor_users WHERE name = %s"
    assert floor.owner.execute(language, ("niran",)).fetchone() == ("th",)
    floor.owner.commit()
    assert main(["floor", "user-language", "niran", "zh-TW", "--dsn", floor.dsn()]) == 0
    assert "pages in zh_Hant" in capsys.readouterr().out
    assert floor.owner.execute(language, ("niran",)).fetchone() == ("zh_Hant",)
    floor.owner.commit()
    assert main(["floor", "user-language", "nobody", "th", "--dsn", floor.dsn()]) == 2
    assert "no floor user 'nobody'" in capsys.readouterr().err
    assert main(["floor", "user-language", "niran", "klingon", "--dsn", floor.dsn()]) == 2
    assert "unknown language 'klingon'" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long password\n"))
    assert main(["floor", "add-user", "bo", "--role", "supervisor", "--language", "fr",
                 "--password-stdin", "--dsn", floor.dsn()]) == 2
    assert "unknown language 'fr'" in capsys.readouterr().err
    assert floor.owner.execute(language, ("bo",)).fetchone() is None
