"""The texts with facts in them are translated when shown: every flag detail domain/table.py
writes, every correction the rules propose, with their fillings (positions, camera zones, a
nested detail). The log keeps the English (the trace's contract); `i18n.say` translates it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from dealer_assist import i18n
from dealer_assist.config import load_paytables
from dealer_assist.config.languages import LANGUAGES
from dealer_assist.domain import table as table_module
from dealer_assist.domain.house import HouseRules
from dealer_assist.i18n import details
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.log import MemoryEventLog
from tests.i18n.scenarios import SCENARIOS, every_flag_trace

TRANSLATED = [lang for lang in LANGUAGES if lang != i18n.SOURCE]
GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"
#: A card code, a game number: facts a translation keeps as they are.
FACT = re.compile(r"\b(?:[2-9TJQKA][SHDC]|\d+)\b")


def shown_texts(events: list[dict]) -> set[str]:
    """Every flag detail and proposal text a supervisor's page shows for `events`."""
    live = LiveTable(MemoryEventLog(), table_id="T1", house=HouseRules(),
                     paytables=load_paytables())
    for event in events:
        live.observe(event)
    texts: set[str] = set()
    for shoe in live.shoe_reports():
        texts.update(f["detail"] for f in shoe["flags"])
        for game in shoe["games"]:
            item = live.review(shoe["shoe_id"], game["game"])
            assert item is not None
            texts.update(f["detail"] for f in item["flags"])
            texts.update(p["text"] for p in item["proposals"])
    return texts


@pytest.fixture(scope="module")
def every_text() -> set[str]:
    texts = shown_texts(every_flag_trace().events)
    for trace in sorted(GOLDEN.glob("*.jsonl")):
        lines = trace.read_text(encoding="utf-8").splitlines()
        texts |= shown_texts([json.loads(line) for line in lines if line.strip()])
    return texts


def test_the_scenarios_raise_every_flag_code() -> None:
    from dealer_assist.domain.flags import FLAGS

    raised = {f["code"] for s in every_flag_trace().audit()["shoes"]
              for f in s["flags"] + [f for g in s["games"] for f in g["flags"]]}
    assert raised == set(FLAGS) and len(SCENARIOS) > 20


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_detail_and_proposal_shown_is_translated_with_its_facts(
        lang: str, every_text: set[str]) -> None:
    assert len(every_text) > 40
    for text in sorted(every_text):
        said = i18n.say(lang, text)
        assert said != text, (lang, text)
        assert "{" not in said, (lang, text, said)
        kept = FACT.findall(said)
        for fact in FACT.findall(text):  # each card and number of the text is still there
            assert fact in kept, (lang, text, said)
            kept.remove(fact)
        # no English word of the text is left: its fillings are translated too
        left = {w for w in re.findall(r"[a-z]{3,}", said) if w in text}
        assert not left, (lang, text, said)


def test_a_detail_reads_with_its_positions_and_zones_translated() -> None:
    detail = "9H belongs at P1 but lies in banker1"
    assert i18n.say("zh_Hant", detail) == "9H 應在 閒1，卻放在莊家 1 號位"
    assert i18n.say("th", detail) == "9H ต้องอยู่ที่ ผู้เล่น 1 แต่วางอยู่ในช่องเจ้ามือ 1"
    nested = "void the shoe from game 1: game 1 started after 2 burn card(s); the burn needs 3"
    assert i18n.say("zh_Hans", nested) == "自第 1 局起整靴无效：第 1 局在烧了 2 张牌后开始；烧牌需要 3 张"
    assert i18n.say("en", detail) == detail


def _fstrings(node: ast.expr) -> list[ast.expr]:
    """The text expressions a detail argument can take (both sides of `a if c else b`)."""
    if isinstance(node, ast.IfExp):
        return _fstrings(node.body) + _fstrings(node.orelse)
    return [node]


def _regex(node: ast.expr) -> re.Pattern[str]:
    """A detail's f-string as a pattern: its fixed text, `.+` for each value put in."""
    if isinstance(node, ast.Constant):
        return re.compile("^" + re.escape(str(node.value)) + "$")
    assert isinstance(node, ast.JoinedStr), ast.dump(node)
    parts = [re.escape(str(v.value)) if isinstance(v, ast.Constant) else ".+"
             for v in node.values]
    return re.compile("^" + "".join(parts) + "$")


def _sample(node: ast.expr) -> str:
    """A detail's f-string with X for each value put in."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    assert isinstance(node, ast.JoinedStr)
    return "".join(str(v.value) if isinstance(v, ast.Constant) else "X" for v in node.values)


def test_every_flag_detail_format_of_the_table_has_an_id() -> None:
    """Read from the table machine's source (every module of domain/): a new
    `flag(game, code, detail)` wording fails here until i18n/details.py has its id (and the
    catalogs its translations)."""
    trees = [ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(Path(table_module.__file__).parent.glob("*.py"))]
    formats = [text for tree in trees for call in ast.walk(tree) if isinstance(call, ast.Call)
               and isinstance(call.func, ast.Attribute) and call.func.attr in ("flag", "_flag")
               and len(call.args) >= 3
               for text in _fstrings(call.args[2])]
    assert len(formats) >= 20
    ids = [(re.sub(r"\{\d\}", "X", msgid),
            re.compile("^" + re.sub(r"\\\{\d\\\}", ".+", re.escape(msgid)) + "$"))
           for msgid in details.DETAILS]
    for node in formats:
        # an id covers the wording if either, its values written as X, fits the other
        pattern, sample = _regex(node), _sample(node)
        assert any(pattern.match(said) or id_pattern.match(sample)
                   for said, id_pattern in ids), f"no id for {ast.unparse(node)}"


def test_every_correction_of_the_flags_has_an_id() -> None:
    assert details.positional("enter the card the rules give to {expect} from the table, "
                              "or void game {n}") == \
        "enter the card the rules give to {0} from the table, or void game {1}"
    for lang in TRANSLATED:
        have = i18n.messages(lang)
        assert [c for c in details.correction_ids() if c not in have] == []
