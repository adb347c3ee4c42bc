"""The house's languages: gettext message catalogs, one `.po` file per language in this folder.

English is the source language (the message ids are the English texts); Thai, Simplified and
Traditional Chinese translate every id. The catalogs are read with Babel's `read_po` when first
used, so nothing needs compiling at install (`make run` works on a fresh checkout).

- `LANGUAGES`: the shipped languages, as the catalogs name them (`zh_Hans`, `zh_Hant`);
  `language(name)` accepts the usual spellings (`zh-Hant`, `zh_TW`, `TH`) and refuses others.
  Both are `config.languages`' (plain data the configuration checks names against).
- `translations(lang)`: a `gettext.NullTranslations` for Jinja2's i18n extension and Python.
- `messages(lang)`: id -> translation, for the JSON catalog a page's script reads.
- `missing(lang)`: the ids a language does not translate (the completeness check).

Extraction (`tools/update_catalogs.py` and `tools/babel.cfg`, outside the package) collects the
ids from the templates and scripts; the flags' rule texts (`domain.flags.FLAGS`) and the
display's server texts are ids as well (`tests/i18n` checks that every one is translated).
Texts with facts in them (a flag's detail, a proposed correction, a link's reason, a refusal:
`details.py`) stay English where they are recorded and are translated when shown, by `say`:
their id's pattern, their fillings in turn.
"""

from __future__ import annotations

import re
from functools import cache
from gettext import NullTranslations
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from dealer_assist.config.languages import language

HERE = Path(__file__).resolve().parent
SOURCE = "en"


def po_file(lang: str) -> Path:
    return HERE / f"{lang}.po"


@cache
def catalog(lang: str) -> Catalog:
    """The message catalog of a shipped language, as Babel reads it."""
    with po_file(language(lang)).open("rb") as f:
        return read_po(f, locale=lang)


@cache
def messages(lang: str) -> dict[str, str]:
    """id -> translation for `lang` (an untranslated id is left out; English maps each id to
    itself)."""
    lang = language(lang)
    out: dict[str, str] = {}
    for m in catalog(lang):
        if m.id and isinstance(m.id, str):
            text = m.string if isinstance(m.string, str) else ""
            if lang == SOURCE:
                out[m.id] = text or m.id
            elif text and not m.fuzzy:
                out[m.id] = text
    return out


class _Catalog(NullTranslations):
    def __init__(self, table: dict[str, str]) -> None:
        super().__init__()
        self._table = table

    def gettext(self, message: str) -> str:
        return self._table.get(message, message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.gettext(singular if n == 1 else plural)


@cache
def translations(lang: str) -> NullTranslations:
    """The translations of `lang`; an id it lacks reads as the English id."""
    return _Catalog(messages(language(lang)))


def gettext(lang: str, message: str) -> str:
    return translations(lang).gettext(message)


@cache
def _patterns(lang: str) -> list[tuple[re.Pattern[str], str]]:
    """The ids with `{0}`, `{1}` as patterns, the longest fixed text first."""
    found = [(re.compile("^" + re.sub(r"\\\{(\d)\\\}", "(.+?)", re.escape(i)) + "$"), i)
             for i in messages(language(lang)) if "{0}" in i and re.sub(r"\{\d\}", "", i)]
    return sorted(found, key=lambda p: -len(re.sub(r"\{\d\}", "", p[1])))


def say(lang: str, text: str) -> str:
    """A server text in `lang`: its translation, or that of the id whose `{0}`, `{1}` it fills
    ("Banker wins 7 to 5" by "Banker wins {0} to {1}"), each filling said in `lang` in turn (an
    id, a text with a pattern of its own, or a list of them joined by ", "). As the display's
    script does. A text no id matches is left as it is."""
    lang = language(lang)
    table = messages(lang)
    if text in table:
        return table[text]
    for pattern, msgid in _patterns(lang):
        hit = pattern.match(text)
        if hit:
            return _fill(lang, table[msgid], hit.groups())
    return text


def _fill(lang: str, translation: str, fillings: tuple[str, ...]) -> str:
    table = messages(lang)
    sep = table.get(", ", ", ")

    def filled(part: str) -> str:
        if part in table:
            return table[part]
        if ", " in part:  # a list: each of its items
            return sep.join(say(lang, each) for each in part.split(", "))
        return say(lang, part)  # a filling is shorter than its text: this ends

    return re.sub(r"\{(\d)\}", lambda m: filled(fillings[int(m.group(1))]), translation)


def ids() -> list[str]:
    """Every message id, as the English catalog lists them."""
    return [m.id for m in catalog(SOURCE) if m.id and isinstance(m.id, str)]


def missing(lang: str) -> list[str]:
    """The ids of the English catalog that `lang` does not translate (empty or fuzzy)."""
    have = messages(lang)
    return [i for i in ids() if i not in have]


__all__ = ["SOURCE", "catalog", "gettext", "ids", "messages", "missing", "say", "translations"]
