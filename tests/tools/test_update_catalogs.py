"""The catalog extraction (`tools/update_catalogs.py`): the catalogs already hold every text it
finds, and it adds a new id untranslated, keeping the translations."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer_assist import i18n
from dealer_assist.accounts.pages import ACTIONS
from dealer_assist.domain.flags import FLAGS
from dealer_assist.services.public_view import LINK_WORDS
from dealer_assist.web.display import DISPLAY_TEXTS
from dealer_assist.web.pages import SCRIPT_TEXTS
from tools import update_catalogs as update


def test_the_catalogs_hold_every_text_the_pages_scripts_and_flags_show() -> None:
    """`python tools/update_catalogs.py` would add nothing."""
    templates = set(update.template_ids())
    assert len(templates) > 100 and {"Review queue", "Rule:", "Dealers"} <= templates
    needed = set(update.needed_ids())
    assert {rule.rule for rule in FLAGS.values()} | set(DISPLAY_TEXTS) | set(SCRIPT_TEXTS) \
        | set(ACTIONS.values()) | set(LINK_WORDS.values()) <= needed
    assert sorted(needed - set(i18n.ids())) == []


def test_update_adds_a_new_id_untranslated_and_keeps_the_translations(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for lang in ("en", "th"):
        (tmp_path / f"{lang}.po").write_bytes(i18n.po_file(lang).read_bytes())
    monkeypatch.setattr(i18n, "HERE", tmp_path)
    for cached in (i18n.catalog, i18n.messages):
        cached.cache_clear()
    try:
        assert update.update("th", ["Game %(n)s", "A text new to the pages"]) == \
            ["A text new to the pages"]
        assert update.update("en", ["A text new to the pages"]) == ["A text new to the pages"]
        assert update.update("th", ["A text new to the pages"]) == []
        assert i18n.missing("th") == ["A text new to the pages"]
        assert i18n.gettext("th", "Game %(n)s") == "เกม %(n)s"
    finally:
        monkeypatch.undo()
        for cached in (i18n.catalog, i18n.messages):
            cached.cache_clear()
