"""The shipped languages' names (`config.languages`): read as people write them, others refused."""

from __future__ import annotations

import pytest

from dealer_assist.config.languages import UnknownLanguage, language


def test_language_names_are_read_as_people_write_them() -> None:
    assert language("zh-Hant") == "zh_Hant"
    assert language("zh_TW") == "zh_Hant"
    assert language("zh-CN") == "zh_Hans"
    assert language("TH") == "th"
    with pytest.raises(UnknownLanguage, match="'fr'.*zh-Hant"):
        language("fr")
