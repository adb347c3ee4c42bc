"""The board's variant word in the board's languages, and the site's icon, in chromium.

The board (test_i18n_browser.py's shoe and server) draws the variant with its script: on a Thai
board it reads Thai, on a bilingual board each language its own; chromium decodes the icon the
pages' /favicon.ico serves.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.config.display import DisplayConfig
from tests.web.test_browser import TV, browser, new_page  # noqa: F401  (browser: a fixture)
from tests.web.test_i18n_browser import open_board, served  # noqa: F401  (served: a fixture)

pytestmark = pytest.mark.browser


def variant_words(page: Any) -> list[list[str]]:
    return page.evaluate("""() => Array.from(document.querySelectorAll('#variant .tr'))
        .map(s => [s.lang, s.textContent])""")


@pytest.mark.parametrize("languages, words", [
    (("th",), [["th", "มาตรฐาน"]]),
    (("zh_Hans",), [["zh-Hans", "标准"]]),
    (("zh_Hant", "en"), [["zh-Hant", "標準"], ["en", "standard"]]),
])
def test_the_variant_word_speaks_the_boards_languages(
        browser: Any, served: tuple[Any, str],  # noqa: F811
        languages: tuple[str, ...], words: list[list[str]]) -> None:
    app, url = served
    app.state.display = DisplayConfig(languages)
    page = open_board(browser, url, TV)
    assert variant_words(page) == words
    assert "standard" not in (page.text_content("#variant") or "") or "en" in languages


def test_chromium_draws_the_sites_icon(browser: Any, served: tuple[Any, str]) -> None:  # noqa: F811
    _, url = served
    page = new_page(browser)
    page.goto(url + "login")
    size = page.evaluate("""() => new Promise((done, failed) => {
        const img = new Image();
        img.onload = () => done([img.naturalWidth, img.naturalHeight]);
        img.onerror = () => failed(new Error("the icon does not decode"));
        img.src = "/favicon.ico";
    })""")
    assert size[0] >= 16 and size[0] == size[1]
