"""The start-up pay-table check: exact house edges, refusal on a negative edge, band warnings."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from dealer_assist.analysis.composition import full_shoe
from dealer_assist.analysis.edge import house_edges
from dealer_assist.analysis.odds import shoe_odds
from dealer_assist.analysis.paytable_check import (
    PayTableRefused,
    check_paytables,
    enforce_paytables,
    format_paytable_report,
)
from dealer_assist.config import DEFAULT_PAYTABLES, load_paytables


def tables_with(tmp_path: Path, variant: str, bet: str, pay: str):
    """The shipped pay tables with one pay changed, loaded from a real TOML file."""
    text = DEFAULT_PAYTABLES.read_text()
    raw = tomllib.loads(text)
    assert bet in raw[variant]
    lines, section = [], None
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip('[]"')
        if section == variant and line.split("=")[0].strip() == bet:
            line = f'{bet} = "{pay}"'
        lines.append(line)
    path = tmp_path / "paytables.toml"
    path.write_text("\n".join(lines) + "\n")
    return load_paytables(path)


def test_shipped_tables_pass_without_warnings():
    tables = load_paytables()
    report = check_paytables(tables, decks=8)
    assert not report.refused and report.errors == [] and report.warnings == []
    assert len(report.checks) == sum(len(t.bets) for t in tables.values())
    for c in report.checks:
        exact = house_edges(shoe_odds(full_shoe(8), c.variant, exact=True), tables[c.variant])
        assert c.house_edge == exact[c.bet]
    text = format_paytable_report(report)
    assert "full 8-deck shoe" in text and "1.0579%" in text and "1:1, 1:2 on 6" in text
    enforce_paytables(report)  # does not raise


def test_a_negative_edge_refuses_unless_overridden(tmp_path):
    # 10:1 on a tie of chance 0.0951560 (published): edge 1 - 11 x 0.0951560 = -4.6716 %
    report = check_paytables(tables_with(tmp_path, "standard", "tie", "10:1"), decks=8)
    assert report.refused
    assert report.errors == [
        "standard tie pays 10:1: house edge -4.6716% is negative (the house loses)"
    ]
    with pytest.raises(PayTableRefused, match="refusing to start") as err:
        enforce_paytables(report)
    assert "REFUSED" in str(err.value)
    enforce_paytables(report, allow_negative=True)


def test_outside_the_band_warns(tmp_path):
    report = check_paytables(tables_with(tmp_path, "super6", "player_pair", "1:11"), decks=6)
    assert not report.refused
    assert len(report.warnings) == 1 and report.warnings[0].startswith(
        "super6 player_pair pays 1:11"
    )
    assert "WARNING" in format_paytable_report(report)
    narrow = check_paytables(load_paytables(), band=(0.01, 0.12))
    warned = {(c.variant, c.bet) for c in narrow.checks if c.status == "warn"}
    assert ("standard", "tie") in warned and ("7up", "super7") in warned
    assert ("standard", "banker") not in warned
    with pytest.raises(ValueError, match="low < high"):
        check_paytables(load_paytables(), band=(0.2, 0.1))
