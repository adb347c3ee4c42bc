"""The message catalogs: every id the pages, scripts and flags use is in the catalogs, and every
shipped language translates every id, keeping its placeholders; baccarat's own words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dealer_assist import i18n
from dealer_assist.config.languages import LANGUAGES
from dealer_assist.domain.flags import FLAGS
from dealer_assist.i18n.sheets import RULE_SHEETS

SEEDS = Path(i18n.__file__).resolve().parents[3] / "shared" / "seeds"
PERCENT = re.compile(r"%\(\w+\)s")
BRACES = re.compile(r"\{\d\}")


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != i18n.SOURCE])
def test_every_message_id_is_translated_in_every_shipped_language(lang: str) -> None:
    assert i18n.missing(lang) == [], f"{lang}.po lacks translations"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_translation_keeps_the_placeholders_of_its_id(lang: str) -> None:
    for msgid, text in i18n.messages(lang).items():
        for pattern in (PERCENT, BRACES):
            assert sorted(pattern.findall(msgid)) == sorted(pattern.findall(text)), (lang, msgid)


def test_a_missing_translation_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The completeness check can fail: a Thai catalog with one id left empty."""
    po = i18n.po_file("th").read_text(encoding="utf-8")
    emptied = po.replace('msgstr "เจ้ามือ"', 'msgstr ""', 1)
    assert emptied != po
    (tmp_path / "th.po").write_text(emptied, encoding="utf-8")
    (tmp_path / "en.po").write_bytes(i18n.po_file("en").read_bytes())
    monkeypatch.setattr(i18n, "HERE", tmp_path)
    for cached in (i18n.catalog, i18n.messages):
        cached.cache_clear()
    try:
        assert "Banker" in i18n.missing("th") or "BANKER" in i18n.missing("th")
    finally:
        monkeypatch.undo()
        for cached in (i18n.catalog, i18n.messages):
            cached.cache_clear()
    assert i18n.missing("th") == []


@pytest.mark.parametrize(("lang", "banker", "player", "tie"), [
    ("zh_Hant", "莊", "閒", "和"), ("zh_Hans", "庄", "闲", "和"),
    ("th", "เจ้ามือ", "ผู้เล่น", "เสมอ"), ("en", "BANKER", "PLAYER", "TIE")])
def test_the_board_uses_baccarats_own_words(lang: str, banker: str, player: str,
                                            tie: str) -> None:
    assert i18n.gettext(lang, "BANKER") == banker
    assert i18n.gettext(lang, "PLAYER") == player
    assert i18n.gettext(lang, "TIE").startswith(tie)


def test_each_rule_sheet_sentence_is_the_sheets_own_line() -> None:
    assert set(RULE_SHEETS) <= set(FLAGS)
    if not SEEDS.is_dir():
        pytest.skip(f"the operator's sheets are not at {SEEDS}")
    for code, sheet in RULE_SHEETS.items():
        line = (SEEDS / sheet.file).read_text(encoding="utf-8").splitlines()[sheet.line - 1]
        assert sheet.text in line, code


def test_a_server_text_with_numbers_is_translated_by_its_pattern() -> None:
    assert i18n.say("zh_Hant", "Banker wins 7 to 5") == "莊贏 7 比 5"
    assert i18n.say("th", "burn 3 more cards") == "เบิร์นอีก 3 ใบ"
    assert i18n.say("zh_Hans", "Game 4: card exposed, foreign card") == "第 4 局：牌被翻开、外来牌"
    assert i18n.say("th", "a text no catalog holds") == "a text no catalog holds"
    assert i18n.say("en", "Banker wins 7 to 5") == "Banker wins 7 to 5"
