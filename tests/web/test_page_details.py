"""Small things every page gets right (issue 65): the site's icon is there, the language chooser
shows the language the page speaks, and the board's variant word speaks the board's language.

Real parts: the table's app over real users (tests/web/conftest.py); the icon is decoded as
the ICO and PNG files it claims to be; the board's words are checked in chromium in
test_page_details_browser.py.
"""

from __future__ import annotations

import json
import re
import struct

import pytest
from fastapi.testclient import TestClient

from dealer_assist.domain.rules import VARIANTS
from dealer_assist.web.display import display_catalog
from tests.web.conftest import login

SELECTED = re.compile(r'<option value="([^"]+)" selected>([^<]+)</option>')


def icon_sizes(data: bytes) -> list[int]:
    """The sizes of the PNG images in an ICO file (each checked to be a PNG of that size)."""
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind) == (0, 1) and count >= 1
    sizes = []
    for i in range(count):
        width, _, _, _, _, _, length, offset = struct.unpack_from("<BBBBHHII", data, 6 + 16 * i)
        image = data[offset:offset + length]
        assert image[:8] == b"\x89PNG\r\n\x1a\n" and len(image) == length
        assert struct.unpack_from(">II", image, 16) == (width, width)
        sizes.append(width)
    return sizes


def test_the_table_serves_its_icon(client: TestClient) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"] == "image/x-icon"
    assert "max-age" in icon.headers["cache-control"]
    assert icon_sizes(icon.content) == [16, 32, 48]
    assert client.head("/favicon.ico").status_code == 200


@pytest.mark.parametrize("name, query, shown", [
    ("sup", "?lang=th", ("th", "ไทย")),  # an English account previewing Thai
    ("sup", "?lang=zh-Hant", ("zh_Hant", "繁體中文")),
    ("sup", "", ("en", "English")),
])
def test_the_language_chooser_shows_the_language_the_page_speaks(
        client: TestClient, name: str, query: str, shown: tuple[str, str]) -> None:
    login(client, name)
    page = client.get("/supervisor" + query)
    assert page.status_code == 200
    assert SELECTED.findall(page.text) == [shown]


def test_a_thai_accounts_chooser_shows_english_on_an_english_preview(client: TestClient,
                                                                     users) -> None:
    users.set_language("sup", "th")
    login(client, "sup")
    assert SELECTED.findall(client.get("/supervisor").text) == [("th", "ไทย")]
    assert SELECTED.findall(client.get("/supervisor?lang=en").text) == [("en", "English")]


@pytest.mark.parametrize("lang, standard", [("th", "มาตรฐาน"), ("zh_Hans", "标准"),
                                            ("zh_Hant", "標準"), ("en", "standard")])
def test_the_boards_catalog_holds_the_variants_words(lang: str, standard: str) -> None:
    messages = display_catalog((lang,))["messages"][0]
    assert messages["standard"] == standard
    assert set(VARIANTS) <= set(messages)


def test_the_thai_board_page_carries_the_variant_in_thai(client: TestClient) -> None:
    page = client.get("/?lang=th")
    found = re.search(r'<script type="application/json" id="catalog">(.*?)</script>',
                      page.text, re.S)
    assert found, "the board carries its catalog"
    assert json.loads(found.group(1))["messages"][0]["standard"] == "มาตรฐาน"
