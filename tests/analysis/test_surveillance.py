"""The side-bet watcher: one alert per bet when its edge turns, shaped as a trace event."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from dealer_assist.analysis.composition import CompositionError
from dealer_assist.analysis.surveillance import SideBetWatcher
from dealer_assist.config import load_paytables
from dealer_assist.domain.cards import RANKS

PAYTABLES = load_paytables()


def pair_edge(left: dict[str, int]) -> Fraction:
    """House edge of a pair at 11:1: any two cards of the shoe pair with sum n(n-1)/N(N-1)."""
    n = sum(left.values())
    same = sum(k * (k - 1) for k in left.values())
    return 1 - 12 * Fraction(same, n * (n - 1))


def test_pair_alerts_once_per_turn_and_rearms():
    threshold = 0.25  # one deck starts at 29.41 %
    watcher = SideBetWatcher(1, "standard", PAYTABLES["standard"], threshold, bets=["player_pair"])
    cards = ["AS", "AH", "AD", "AC"]  # concentrates the other ranks: edge 23.4 %
    cards += [r + "S" for r in RANKS[1:]]  # one of each: 31.4 %, re-armed
    cards += [r + s for r in "2345" for s in "HDC"]  # down to eight ranks: -4.3 %
    left = {r: 4 for r in RANKS}
    alerting, expected, got = False, [], []
    for i, card in enumerate(cards):
        left[card[0]] -= 1
        edge = pair_edge(left)
        if edge < threshold and not alerting:
            expected.append((i, "player_pair", dict(left)))
        alerting = edge < threshold
        for alert in watcher.feed(card):
            got.append((i, alert["bet"], alert["remaining"]))
            assert alert["edge"] == pytest.approx(float(edge), abs=1e-12)
            assert set(alert) == {"src", "type", "bet", "edge", "remaining"}
            assert (alert["src"], alert["type"]) == ("analysis", "side_bet_alert")
            assert list(alert["remaining"]) == list(RANKS)
    assert len(expected) == 2 and got == expected


def test_default_watch_is_every_side_bet_and_alerts_are_json():
    watcher = SideBetWatcher(8, "standard", PAYTABLES["standard"])
    assert watcher.bets == ("tie", "player_pair", "banker_pair", "big", "small")
    shoe = [r + s for r in RANKS for s in "SHDC" for _ in range(8)]
    random.Random(4).shuffle(shoe)  # a shoe whose pairs and Small turn late, several times
    seen: dict[str, bool] = {}
    alerts = []
    for card in shoe[:-20]:
        new = watcher.feed(card)
        alerts += new
        for bet, edge in watcher.edges.items():
            now = edge < 0
            raised = [a for a in new if a["bet"] == bet]
            assert len(raised) == (1 if now and not seen.get(bet) else 0)
            seen[bet] = now
    assert len(alerts) >= 4 and len({a["bet"] for a in alerts}) >= 2
    assert json.loads(json.dumps(alerts)) == alerts


def test_rearm_margin_keeps_a_wavering_bet_quiet():
    shoe = [r + s for r in RANKS for s in "SHDC" for _ in range(8)]
    random.Random(4).shuffle(shoe)
    counts = []
    for margin in (0.0, 0.05):
        watcher = SideBetWatcher(8, "standard", PAYTABLES["standard"], rearm=margin)
        counts.append(sum(len(watcher.feed(c)) for c in shoe[:-20]))
    assert counts[1] < counts[0]


def test_super7_turns_when_sevens_are_rich():
    watcher = SideBetWatcher(1, "7up", PAYTABLES["7up"])
    assert watcher.bets == ("tie", "super7")
    others = [r + s for r in RANKS if r != "7" for s in "SHDC"]
    alerts = [(i, a) for i, c in enumerate(others) for a in watcher.feed(c)]
    super7 = [(i, a) for i, a in alerts if a["bet"] == "super7"]
    assert len(super7) == 1
    i, alert = super7[0]
    assert alert["remaining"]["7"] == 4 and alert["edge"] < 0
    assert sum(alert["remaining"].values()) == 52 - i - 1


def test_foreign_card_reset_and_bad_set_up():
    watcher = SideBetWatcher(1, "standard", PAYTABLES["standard"], bets=["player_pair"])
    for s in "SHDC":
        watcher.feed("A" + s)
    before = (watcher.remaining, set(watcher.alerting))
    with pytest.raises(CompositionError, match="no A is left"):
        watcher.feed("AS")
    assert (watcher.remaining, watcher.alerting) == before
    watcher.reset()
    assert watcher.remaining == (4,) * 13 and watcher.alerting == set()
    for r in RANKS[:-1]:  # too few cards left for a game: no odds, no alert
        for s in "SHDC":
            watcher.feed(r + s)
    assert sum(watcher.remaining) == 4
    assert watcher.feed("KS") == [] and watcher.edges == {}
    with pytest.raises(ValueError, match="pay table is for '7up'"):
        SideBetWatcher(8, "standard", PAYTABLES["7up"])
    with pytest.raises(ValueError, match="cannot watch super7"):
        SideBetWatcher(8, "standard", PAYTABLES["standard"], bets=["super7"])
