"""Golden traces: the audit of each variant's trace is exactly the reviewed output; and the
audit's report is exactly the views of the replayed shoes, however it is made fast."""

import gc
import json
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.devices.deal.mistakes import MISTAKES
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.report import shoe_view
from dealer_assist.services.audit import audit_lines, replay

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


def _many_shoes() -> list[str]:
    """Trace lines of nine shoes of every variant, each with two dealer mistakes."""
    rng = random.Random(66)
    lines = []
    for i in range(9):
        house = HouseRules(variant=("standard", "super6", "7up")[i % 3], burn_after_each_game=i % 2 == 1)
        lines += [json.dumps(e) for e in deal_shoe(
            rng, house, shoe_id=f"S{i}", mistakes=rng.sample(MISTAKES, 2),
            start=datetime(2026, 11, 1, tzinfo=UTC), reveal=i % 2 == 0)]
    return lines


def test_the_audit_is_the_views_of_the_replayed_shoes():
    """The audit lets each shoe go as its view is made, the view taking the shoe's lists:
    the report is still exactly what viewing the replayed shoes gives."""
    lines = _many_shoes()
    paytables = load_paytables()
    machine, _ = replay(lines)
    report = audit_lines(lines, paytables)
    assert report == {"shoes": [shoe_view(s, paytables) for s in machine.shoes]}
    assert len(report["shoes"]) == 9
    assert sum(1 for s in report["shoes"] for g in s["games"] if g["flags"]) >= 9


@pytest.mark.parametrize("enabled", [True, False])
def test_the_audit_leaves_the_cycle_collector_as_it_found_it(enabled):
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        audit_lines(_many_shoes())
        assert gc.isenabled() is enabled
        assert gc.get_freeze_count() == 0  # nothing left out of the collector's sight
    finally:
        (gc.enable if was else gc.disable)()
