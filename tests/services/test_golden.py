"""Golden traces: the audit of each variant's trace is exactly the reviewed output."""

import json
from pathlib import Path

import pytest

from dealer_assist.services.audit import audit_lines

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "golden"


@pytest.mark.parametrize("variant", ["standard", "super6", "7up"])
def test_golden_trace(variant):
    lines = (GOLDEN / f"{variant}.jsonl").read_text().splitlines()
    expected = json.loads((GOLDEN / f"{variant}.audit.json").read_text())
    got = audit_lines(lines)
    assert got["shoes"][0]["variant"] == variant
    for g_got, g_exp in zip(got["shoes"][0]["games"], expected["shoes"][0]["games"], strict=True):
        assert g_got == g_exp, f"game {g_exp['game']}"
    assert got == expected


def test_golden_spot_checks():
    """A few facts of the goldens restated by hand, so a regenerated file cannot drift unnoticed."""
    std = json.loads((GOLDEN / "standard.audit.json").read_text())["shoes"][0]
    assert std["games"][3]["player"] == ["2H", "2D", "5S"] and std["games"][3]["winner"] == "player"
    assert std["games"][5]["last_game"] and std["status"] == "finished"
    s6 = json.loads((GOLDEN / "super6.audit.json").read_text())["shoes"][0]
    assert {"bet": "banker", "pays": "1:2"} in s6["games"][0]["winning_bets"]
    assert s6["games"][3]["status"] == "void"
    up = json.loads((GOLDEN / "7up.audit.json").read_text())["shoes"][0]
    assert up["games"][0]["winning_bets"] == [{"bet": "tie", "pays": "9:1"}, {"bet": "super7", "pays": "3:2"}]
    assert up["games"][2]["cards"] == 4 and up["games"][2]["winner"] == "banker"
