"""`dealer-assist audit TRACE --plot FILE.svg --lang th`: the picture's words in that language,
its marks and data exactly the English picture's; an unknown language is exit 2 with the list."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dealer_assist import i18n
from dealer_assist.cli import main
from dealer_assist.config import languages

NS = "{http://www.w3.org/2000/svg}"
LATIN = re.compile(r"[A-Za-z]{2,}")


def plot(capsys, tmp_path: Path, *lang: str) -> tuple[ET.Element, str]:
    out = tmp_path / f"plot-{'-'.join(lang) or 'en'}.svg"
    status = main(["audit", "--sample", "--plot", str(out), *lang])
    said = capsys.readouterr()
    assert status == 0, said.err
    return ET.parse(out).getroot(), said.out


def marks(root: ET.Element) -> list[tuple[str, dict[str, str]]]:
    """Every element with its attributes: what was drawn, where, with which data."""
    return [(e.tag, dict(e.attrib)) for e in root.iter()]


def texts(root: ET.Element) -> list[str]:
    return [e.text or "" for e in root.iter() if e.tag in (f"{NS}text", f"{NS}title")]


@pytest.mark.parametrize("lang", ["th", "zh-Hant", "zh_Hans"])
def test_a_translated_plot_has_the_languages_words_and_the_same_data(tmp_path, capsys, lang):
    english, report = plot(capsys, tmp_path)
    other, report_other = plot(capsys, tmp_path, "--lang", lang)
    assert report_other == report  # the printed report stays English
    assert marks(other) == marks(english)  # every mark, its place and its data-* the same
    code = languages.language(lang)
    said = "\n".join(texts(other))
    for word in ("Banker", "Player", "Tie", "shoe", "games", "game"):
        assert i18n.gettext(code, word) in said, word
        assert i18n.gettext(code, word) != word
    heading = other.find(f".//{NS}g[@class='shoe']/{NS}text").text
    assert heading.startswith(f"{i18n.gettext(code, 'shoe')} SAMPLE-1: X\u00b2 = ")
    assert f"(80 {i18n.gettext(code, 'games')})" in heading
    # No English word is left but the command line in the title, the shoe's id and the
    # flags' codes (codes, as the web pages' pictures show them).
    codes = {e.get("data-codes") for e in other.iter() if e.get("data-codes")}
    for text in texts(other):
        rest = text.replace("dealer-assist audit --sample", "").replace("SAMPLE", "")
        for code_list in codes:
            rest = rest.replace(code_list, "")
        assert not LATIN.search(rest), text
    # The numbers are the English picture's.
    numbers = [re.findall(r"\d+(?:\.\d+)?", t) for t in texts(english)]
    assert [re.findall(r"\d+(?:\.\d+)?", t) for t in texts(other)] == numbers


def test_english_is_the_default_and_can_be_named(tmp_path, capsys):
    english, _ = plot(capsys, tmp_path)
    named, _ = plot(capsys, tmp_path, "--lang", "en")
    assert ET.tostring(named) == ET.tostring(english)
    assert "Banker" in texts(english)


@pytest.mark.parametrize(("argv", "says"), [
    (["--lang", "fr"], "unknown language 'fr': the shipped languages are en, th, zh-Hans, "
                       "zh-Hant"),
    (["--lang", "th", "--no-plot"], "give --plot FILE.svg too"),
])
def test_an_unknown_language_or_no_picture_is_exit_2(tmp_path, capsys, argv, says):
    out = tmp_path / "x.svg"
    plot_args = [] if "--no-plot" in argv else ["--plot", str(out)]
    status = main(["audit", "--sample", *plot_args, *[a for a in argv if a != "--no-plot"]])
    said = capsys.readouterr()
    assert status == 2 and says in said.err and "Traceback" not in said.err
    assert said.out == "" and not out.exists()
