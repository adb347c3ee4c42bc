"""Every page of the table service in Thai and in Chinese, on a log with a flag of every code and
games dealt by two dealers: the pictures' words, the flags' details and the proposed
corrections are translated (the log keeps them in English), and no English word is left on a
page but the ones a house writes as they are (card codes, ids, names: `ALLOWED`).

Real parts: the table's SQLite log, real accounts logging in through the login form, the
regulator's pages on the same log read-only."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dealer_assist import i18n
from dealer_assist.accounts.auth import require
from dealer_assist.accounts.login import Accounts
from dealer_assist.charts import svg
from dealer_assist.config import languages, load_paytables
from dealer_assist.domain.flags import FLAGS
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.records import TableRecords
from dealer_assist.store.log_range import SqliteLogSource
from dealer_assist.store.sqlite_log import SqliteEventLog
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from dealer_assist.web.regulator import REGULATOR_ROLES, regulator_router
from tests.i18n.scenarios import every_flag_trace, shoe_of
from tests.web.conftest import CHEAP, PASSWORD, csrf_of, login

PAYTABLES = load_paytables()
LANGS = ("th", "zh_Hant", "zh_Hans")
DAY, MONTH = "2026-11-29", "2026-11"
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"


def variant_shoes() -> list[dict]:
    """The golden Super 6 and 7 Up shoes (tests/fixtures/golden), dealt an hour after the
    trace with every flag, with no decision of their own (a decision's reason is the
    supervisor's own words, in whatever language they wrote it)."""
    events = []
    for hour, name in ((11, "super6"), (12, "7up")):
        lines = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        for event in (json.loads(line) for line in lines if line.strip()):
            assert event["ts"].startswith("2026-11-29T10:")
            if event["type"] != "decision":
                events.append({**event, "ts": event["ts"].replace("T10:", f"T{hour}:")})
    return events


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "T1.events.db"


@pytest.fixture
def client(tmp_path: Path, db: Path) -> Iterator[TestClient]:
    """The table after a trace with every flag code, its first half dealt by D-12, then a
    Super 6 and a 7 Up shoe."""
    users = UserStore(tmp_path / "users.db", hasher=CHEAP)
    for lang in languages.LANGUAGES:
        users.add(f"sup-{lang}", "supervisor", PASSWORD, language=lang)
        users.add(f"reg-{lang}", "regulator", PASSWORD, language=lang)
        users.add(f"dea-{lang}", "dealer", PASSWORD, language=lang)
    users.add("D-12", "dealer", PASSWORD, language="th")
    log = SqliteEventLog(db, checkpoint_every=500, checkpoint_interval=None)
    table = LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES)
    events = every_flag_trace().events
    table.sign_in("D-12")
    for n, event in enumerate(events):
        if n == len(events) // 2:
            table.sign_out(None)
        table.observe(event)
    for event in variant_shoes():
        table.observe(event)
    table.link_problem("shoe", "checksum")
    records = TableRecords({"T1": SqliteLogSource(db)}, PAYTABLES)
    app = create_app(table, Accounts(TableUsers(users)), routers=[regulator_router(
        records, require(*REGULATOR_ROLES, page=True))])
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as c:
        yield c
    log.close()
    users.close()


def as_user(client: TestClient, name: str) -> None:
    client.cookies.clear()
    assert login(client, name).status_code == 303


def pictures(html: str) -> dict[str, ET.Element]:
    """The page's SVG pictures by their kind (`class="chart by-hour"` -> `by-hour`)."""
    found = {}
    for text in SVG.findall(html):
        root = ET.fromstring(text)
        found[root.get("class", "").split()[-1]] = root
    return found


def texts(root: ET.Element, cls: str) -> list[str]:
    return ["".join(e.itertext()) for e in root.iter() if cls in (e.get("class") or "").split()]


def heading(root: ET.Element) -> str:
    return texts(root, "heading")[0]


@pytest.mark.parametrize("lang", LANGS)
def test_the_supervisors_pictures_speak_the_accounts_language_and_keep_their_data(
        client: TestClient, lang: str) -> None:
    as_user(client, "sup-en")
    english = pictures(client.get("/supervisor/dealers", params={"hours": "12"}).text)
    as_user(client, f"sup-{lang}")
    page = client.get("/supervisor/dealers", params={"hours": "12"})
    assert page.status_code == 200
    shown = pictures(page.text)
    say = i18n.translations(lang).gettext
    assert set(shown) == set(english) == {"by-hour", "by-dealer", "fit"}
    assert heading(shown["by-hour"]) == say("Flags by hour, last {0} h").replace("{0}", "12")
    assert heading(shown["by-dealer"]) == say("Flags by dealer, last {0} h").replace("{0}", "12")
    shoe = shown["fit"].find("{http://www.w3.org/2000/svg}title")
    assert shoe is not None and shoe.text == svg.title(say, "fit", "7UP-1")  # the latest shoe
    assert texts(shown["fit"], "label") == [say("Banker"), say("Player"), say("Tie")]
    assert texts(shown["fit"], "legend") == [f'{say("observed")} / {say("expected by the odds")}']
    assert say("games") in texts(shown["fit"], "score")[0] or say("too few games for a p-value") \
        in texts(shown["fit"], "score")[0]
    # the data did not change with the words: same bars, same values, same score
    for kind in ("by-hour", "by-dealer"):
        values = [g.get("data-value") for g in shown[kind].iter() if g.get("class") == "bar"]
        assert values == [g.get("data-value") for g in english[kind].iter()
                          if g.get("class") == "bar"]
        assert len(values) == (12 if kind == "by-hour" else 2)
    labels = [g.get("data-label") for g in shown["by-dealer"].iter() if g.get("class") == "bar"]
    assert labels == [say("(none)"), "D-12"]
    score = [e for e in shown["fit"].iter() if e.get("class") == "score"][0]
    assert score.get("data-chi2") == [e for e in english["fit"].iter()
                                      if e.get("class") == "score"][0].get("data-chi2")
    # the console's own pictures as well
    console = pictures(client.get("/supervisor").text)
    assert heading(console["by-hour"]) == say("Flags by hour, last {0} h").replace("{0}", "8")


@pytest.mark.parametrize("lang", LANGS)
def test_the_regulators_pictures_speak_the_accounts_language(client: TestClient,
                                                             lang: str) -> None:
    as_user(client, f"reg-{lang}")
    say = i18n.translations(lang).gettext
    page = client.get(f"/regulator/T1/days/{DAY}/dealers")
    assert page.status_code == 200
    timeline = pictures(page.text)["timeline"]
    assert heading(timeline) == svg.title(say, "day", "T1", DAY)
    counts = texts(timeline, "counts")[0]
    assert say("games") in counts and say("flags") in counts and say("decisions") in counts
    flags = [c for c in timeline.iter() if c.get("class") == "flag"]
    assert {c.get("data-code") for c in flags} == set(FLAGS)  # the data: codes as recorded
    month = pictures(client.get(f"/regulator/months/{MONTH}").text)
    assert heading(month["table-rates"]) == svg.title(say, "table_rates", MONTH)
    assert heading(month["dealer-rates"]) == svg.title(say, "dealer_rates", MONTH)
    dealers = [g.get("data-label") for g in month["dealer-rates"].iter()
               if g.get("class") == "bar"]
    assert dealers == [say("(none)"), "D-12"]


def test_the_flags_details_and_corrections_are_translated_on_the_console(
        client: TestClient) -> None:
    as_user(client, "sup-zh_Hant")
    page = client.get("/supervisor").text
    assert "9H 應在 閒1，卻放在莊家 1 號位" in page  # WRONG_POSITION's detail
    assert "belongs at" not in page and "could not be read" not in page
    assert "判第 1 局無效，並檢查牌靴" in page  # FOREIGN_CARD's proposal: void game 1 and...
    assert "void game" not in page
    assert "牌靴 (校驗和錯誤) 1" in page  # a link's dropped frames, by kind
    as_user(client, "reg-th")
    day = client.get(f"/regulator/T1/days/{DAY}").text
    assert "9H ต้องอยู่ที่ ผู้เล่น 1 แต่วางอยู่ในช่องเจ้ามือ 1" in day
    assert "belongs at" not in day


class _Words(HTMLParser):
    """The words a person reads on a page: text (not scripts, styles or code) and the
    attributes a browser shows (title, placeholder, aria-label, a button's value)."""

    SKIP = ("script", "style", "code")

    def __init__(self) -> None:
        super().__init__()
        self.skipping = 0
        self.words: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        shown = {"title", "placeholder", "aria-label", "alt"}
        if tag == "input" and dict(attrs).get("type") in ("submit", "button", None):
            shown.add("value")
        for name, value in attrs:
            if name in shown and value:
                self.handle_data(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            found = (w.rstrip(".:'") for w in re.findall(r"[A-Za-z0-9][\w'.:/-]*", data, re.A))
            self.words += [w for w in found if re.search("[A-Za-z]", w)]


#: What a Thai or Chinese page writes in Latin letters on purpose: card codes and faces, the
#: table's, shoes' and dealers' ids, flag codes (the trace's), the language menu, the product's
#: name, the site's zone, the formats the regulator types, the chart's X² and p, and the
#: operator's rule sheet a Thai rule is quoted from (its file:line).
ALLOWED = re.compile(
    r"^(?:(?:10|[2-9TJQKA])[SHDC]|[JQKA]|T\d+|S\d+(?:/\d+)?|[A-Z0-9]+-\d+(?:/\d+)?|D-\d+|[A-Z]+(?:_[A-Z0-9]+)+|"
    r"English|dealer-assist|sup-\w+|reg-\w+|dea-\w+|UTC\)?|X|p|YYYY-MM(?:-DD)?|\w+\.txt:\d+|"
    + "|".join(FLAGS) + ")$")  # a code with no underscore too (INTERRUPTED)


def english_words(html: str) -> set[str]:
    parser = _Words()
    parser.feed(html)
    return {w for w in parser.words if not ALLOWED.match(w)}


def pages_of_the_service(client: TestClient, lang: str) -> dict[str, str]:
    """Every page of the table service in `lang`: the login form, the pages its supervisor
    sees (after a decision taken, and one refused), its dealer's, the display, and pages that
    only say why a request was not done."""
    client.cookies.clear()
    shown = {"/login": client.get("/login", params={"lang": lang}).text}
    as_user(client, f"sup-{lang}")
    csrf = csrf_of(client.get("/supervisor").text)
    decide = {"csrf": csrf, "shoe": shoe_of("wrong position"), "game": "1", "action": "accept"}
    refused = client.post("/supervisor/decide", data={**decide, "reason": ""})
    assert refused.status_code == 400
    shown["POST /supervisor/decide (refused)"] = refused.text
    done = client.post("/supervisor/decide", data={**decide, "reason": "ตรวจวิดีโอแล้ว 已核對"})
    assert done.status_code == 303
    reviews = [f"/supervisor/review?shoe={shoe_of(name)}&game={game}" for name, game in (
        ("wrong position", 1), ("burn short", 1), ("unreadable", 1), ("exposed", 2),
        ("yellow after an early deal", 2), ("foreign card", 1))]
    pages = ["/supervisor?decided=1", "/supervisor/queue", *reviews, "/supervisor/history",
             "/supervisor/dealers?hours=12", "/dealer", "/dealer/shift", "/regulator",
             f"/regulator/T1/days/{DAY}", f"/regulator/T1/days/{DAY}/dealers",
             f"/regulator/months/{MONTH}"]
    refusals = ["/supervisor/review?shoe=S99&game=4", "/supervisor/dealers?hours=99",
                "/regulator/T1/days/2026-13-01", "/regulator/T9/days/2026-11-29",
                "/regulator?month=11-2026"]
    for path in pages + refusals:
        answer = client.get(path)
        assert (answer.status_code == 200) == (path in pages), path
        shown[path] = answer.text
    as_user(client, f"dea-{lang}")
    shown |= {f"{path} (dealer)": client.get(path).text for path in ("/dealer", "/dealer/shift")}
    shown[f"/?lang={lang}"] = client.get(f"/?lang={lang}").text
    return shown


@pytest.mark.parametrize("lang", LANGS)
def test_no_english_word_is_left_on_a_page_in_thai_or_chinese(client: TestClient,
                                                              lang: str) -> None:
    left = {path: sorted(english_words(html))
            for path, html in pages_of_the_service(client, lang).items()}
    found = {path: words for path, words in left.items() if words}
    assert not found, "English words left:\n" + "\n".join(f"{p}: {w}" for p, w in found.items())


def test_the_sweep_finds_english_words() -> None:
    """The check can fail: an English sentence on a page is found, codes and ids are not."""
    html = ('<p title="Shoe S01">9H WRONG_POSITION T1 D-12 เกม</p><script>var x = "Game";'
            '</script><p>ยังไม่ได้ decided</p>')
    assert english_words(html) == {"Shoe", "decided"}


def test_a_template_compiled_for_one_language_translates_its_literals_in_another() -> None:
    """`{{ "P1" | tr }}` is translated when a page is rendered, not once when Jinja2 compiles
    the template (it folds the filters of constants it can: the first page's language)."""
    from dealer_assist.accounts import pages as shared
    from dealer_assist.web import pages

    template = pages.templates.env.from_string('{{ "P1" | tr }} / {{ "(none)" | dealer }}')
    said = []
    for lang in ("en", "th", "zh_Hant"):
        token = shared._LANGUAGE.set(lang)
        try:
            said.append(template.render())
        finally:
            shared._LANGUAGE.reset(token)
    assert said == ["P1 / (none)", "ผู้เล่น 1 / (ไม่มี)", "閒1 / （無）"]
