"""The shipped languages and how people write their names: what a setting may name.

A table's display (`[display] languages`), a user's language and a page's `?lang=` name one of
these. `language(name)` reads the usual spellings (`zh-Hant`, `zh_hant`, `zh-TW`, `TH`) and
refuses any other name with `UnknownLanguage`. The catalogs that translate each one are
`dealer_assist.i18n`'s; this module is plain data, so the configuration can check a name without
loading a catalog.
"""

from __future__ import annotations

LANGUAGES: tuple[str, ...] = ("en", "th", "zh_Hans", "zh_Hant")
#: How a page's `lang` attribute names each language (BCP 47).
HTML_LANG = {"en": "en", "th": "th", "zh_Hans": "zh-Hans", "zh_Hant": "zh-Hant"}
#: Each language in its own words, for menus.
NAMES = {"en": "English", "th": "ไทย", "zh_Hans": "简体中文", "zh_Hant": "繁體中文"}
_ALIASES = {"zh_cn": "zh_Hans", "zh_sg": "zh_Hans", "zh_tw": "zh_Hant", "zh_hk": "zh_Hant",
            "zh_mo": "zh_Hant", "th_th": "th", "en_us": "en", "en_gb": "en"}


class UnknownLanguage(ValueError):
    """A language name that is not one of the shipped languages."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown language {name!r}: the shipped languages are "
                         + ", ".join(HTML_LANG.values()))
        self.name = name


def language(name: str) -> str:
    """The shipped language `name` means (`zh-Hant`, `zh_hant`, `zh-TW` -> `zh_Hant`)."""
    key = name.strip().replace("-", "_").lower()
    for lang in LANGUAGES:
        if lang.lower() == key:
            return lang
    if key in _ALIASES:
        return _ALIASES[key]
    raise UnknownLanguage(name)
