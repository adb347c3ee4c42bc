"""The house's languages through the web routes: the board in the table's languages (one or
two), the console in the account's language, `?lang=` previews, accounts' languages in the users
file and on the command line, and the `[display]` settings."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.users import UserError
from dealer_assist.cli import main
from dealer_assist.config.display import DisplayConfig, display_config
from dealer_assist.config.files import ConfigError
from dealer_assist.store.users import UserStore
from tests.web.conftest import CHEAP, PASSWORD, csrf_of, login

CATALOG = re.compile(r'<script type="application/json" id="catalog">(.*?)</script>', re.S)


def board(client: TestClient, query: str = "") -> tuple[str, dict]:
    page = client.get("/" + query)
    assert page.status_code == 200
    match = CATALOG.search(page.text)
    assert match, "the page embeds its catalog"
    return page.text, json.loads(match.group(1))


def test_the_board_speaks_english_by_default(client: TestClient) -> None:
    html, catalog = board(client)
    assert '<html lang="en">' in html and ">BANKER<" in html
    assert catalog["languages"] == ["en"]
    assert catalog["messages"][0]["PLAYER DRAWS"] == "PLAYER DRAWS"


def test_a_bilingual_board_writes_both_languages_first_the_tables(client: TestClient) -> None:
    client.app.state.display = DisplayConfig(("zh_Hant", "en"), "portrait")  # type: ignore[attr-defined]
    html, catalog = board(client)
    assert '<html lang="zh-Hant">' in html and 'class="layout-portrait bilingual"' in html
    assert ('<span class="tr" lang="zh-Hant">莊</span><span class="tr" lang="en">BANKER</span>'
            in html)
    assert catalog["languages"] == ["zh-Hant", "en"]
    assert catalog["messages"][0]["Banker wins {0} to {1}"] == "莊贏 {0} 比 {1}"
    assert catalog["messages"][1]["Banker wins {0} to {1}"] == "Banker wins {0} to {1}"


def test_lang_previews_other_languages_and_an_unknown_one_is_ignored(client: TestClient) -> None:
    html, catalog = board(client, "?lang=th")
    assert '<html lang="th">' in html and "เจ้ามือ" in html
    html, catalog = board(client, "?lang=zh-Hans,en&layout=portrait")
    assert catalog["languages"] == ["zh-Hans", "en"] and "庄" in html and "layout-portrait" in html
    html, catalog = board(client, "?lang=klingon&layout=sideways")
    assert catalog["languages"] == ["en"] and "layout-landscape" in html


def test_the_board_never_shows_what_is_left_in_the_shoe(client: TestClient) -> None:
    html, catalog = board(client, "?lang=zh-Hant,en")
    for words in ("Cards left", "remaining", "剩餘"):
        assert words not in html
    assert set(catalog["messages"][0]) == set(catalog["messages"][1])
    assert not [t for t in catalog["messages"][0] if "left" in t or "remaining" in t]


def test_the_console_speaks_the_accounts_language(client: TestClient,
                                                  users: UserStore) -> None:
    users.add("sup-th", "supervisor", PASSWORD, language="th")
    assert login(client, "sup-th").status_code == 303
    page = client.get("/supervisor")
    assert page.status_code == 200
    assert '<html lang="th">' in page.text
    assert "คิวตรวจสอบ" in page.text and "Review queue" not in page.text
    # The flagged game's rule, translated; on a Thai page the sheet is the rule itself.
    assert "ไพ่ที่จั่วหลังเกมจบไม่เปลี่ยนผลของเกม" in page.text
    assert 'class="sheet"' not in page.text
    # ?lang= previews another language; the script's words come in the page's language.
    page = client.get("/supervisor?lang=zh-Hant")
    assert '<html lang="zh-Hant">' in page.text and "審核佇列" in page.text
    assert "佇列已變更" in page.text


def test_the_dealers_page_speaks_the_dealers_language(client: TestClient,
                                                      users: UserStore) -> None:
    users.set_language("dea", "zh-Hans")
    assert login(client, "dea").status_code == 303
    page = client.get("/dealer").text
    assert '<html lang="zh-Hans">' in page and "所有牌已开" in page and "庄家牌已开" in page


def test_an_account_chooses_its_language_in_the_console(client: TestClient,
                                                        users: UserStore) -> None:
    assert login(client, "sup").status_code == 303
    page = client.get("/supervisor").text
    assert 'action="/account/language"' in page and '<option value="en" selected>' in page
    refused = client.post("/account/language", data={"csrf": "forged", "lang": "th"})
    assert refused.status_code == 403 and users.get("sup").language == "en"  # type: ignore[union-attr]
    bad = client.post("/account/language", data={"csrf": csrf_of(page), "lang": "xx"})
    assert bad.status_code == 400 and "unknown language" in bad.text
    done = client.post("/account/language", data={"csrf": csrf_of(page), "lang": "zh-Hant",
                                                   "next": "/supervisor/history"})
    assert done.status_code == 303 and done.headers["location"] == "/supervisor/history"
    assert users.get("sup").language == "zh_Hant"  # type: ignore[union-attr]
    assert "裁決歷史" in client.get("/supervisor/history").text  # this session, at once
    # ... and the next session: the account keeps it.
    client.cookies.clear()
    assert login(client, "sup").status_code == 303
    assert '<html lang="zh-Hant">' in client.get("/supervisor").text


def test_an_english_console_shows_the_sheets_own_thai_sentence(client: TestClient) -> None:
    assert login(client, "sup").status_code == 303
    page = client.get("/supervisor").text
    assert "A card drawn after the game was complete does not change its result" in page
    assert 'class="sheet" lang="th"' in page
    assert "ไพ่ใบนั้นจะถูกเก็บไว้สำหรับเบิร์นในเกมถัดไป" in page
    assert "001_c103d94bd0bf71cc.txt:38" in page


def test_the_login_page_and_refusals_are_translated(client: TestClient) -> None:
    assert "เข้าสู่ระบบ" in client.get("/login?lang=th").text
    assert login(client, "dea").status_code == 303
    page = client.get("/supervisor?lang=zh-Hans")
    assert page.status_code == 403 and "<title>不允许 - dealer-assist</title>" in page.text


def test_an_accounts_language_is_kept_changed_and_checked(tmp_path: Path) -> None:
    with UserStore(tmp_path / "users.db", hasher=CHEAP) as users:
        assert users.add("d1", "dealer", PASSWORD, language="zh-Hant").language == "zh_Hant"
        assert users.add("d2", "dealer", PASSWORD).language == "en"
        assert users.set_language("d2", "TH").language == "th"
        with pytest.raises(UserError, match="unknown language 'fr'"):
            users.add("d3", "dealer", PASSWORD, language="fr")
        assert users.verify("d1", PASSWORD).language == "zh_Hant"


def test_a_version_2_users_file_gets_the_language_column(tmp_path: Path) -> None:
    path = tmp_path / "users.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (name TEXT PRIMARY KEY NOT NULL, role TEXT NOT NULL, "
                     "password_hash TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0, "
                     "failed_logins INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL)")
        conn.execute("INSERT INTO users VALUES ('old', 'supervisor', 'x', 0, 0, '2026-01-01')")
        conn.execute("PRAGMA user_version = 2")
    conn.close()
    with UserStore(path, hasher=CHEAP) as users:
        old = users.get("old")
        assert old is not None and old.language == "en"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    conn.close()


def test_user_add_takes_a_language(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "users.db")
    monkeypatch.setattr(sys, "stdin", io.StringIO(PASSWORD + "\n"))
    assert main(["user", "add", "S-1", "--role", "supervisor", "--language", "zh-Hant",
                 "--password-stdin", "--db", db]) == 0
    assert "language zh_Hant" in capsys.readouterr().out
    assert main(["user", "language", "S-1", "th", "--db", db]) == 0
    assert "language th" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO(PASSWORD + "\n"))
    assert main(["user", "add", "S-2", "--role", "dealer", "--language", "fr",
                 "--password-stdin", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "unknown language 'fr'" in err and "Traceback" not in err


def test_the_display_section(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    assert display_config({}, path) == DisplayConfig()
    assert display_config({"languages": ["zh-Hant", "en"], "layout": "portrait"}, path) == \
        DisplayConfig(("zh_Hant", "en"), "portrait")
    assert display_config({"languages": "th"}, path).languages == ("th",)
    for raw, words in [({"colour": "red"}, "unknown key(s) in [display]: colour"),
                       ({"languages": ["fr"]}, "display.languages: unknown language 'fr'"),
                       ({"languages": ["en", "th", "zh-Hans"]}, "one or 2 languages"),
                       ({"languages": ["th", "TH"]}, "names a language twice"),
                       ({"layout": "diagonal"}, "display.layout: 'diagonal'")]:
        with pytest.raises(ConfigError, match=re.escape(words)) as e:
            display_config(raw, path)
        assert str(path) in str(e.value)
