"""Each picture drawn from fixed data and read back as XML: its marks, labelled counts and the
p-value text, not only that an SVG came out."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

import pytest

from dealer_assist.charts import svg
from dealer_assist.charts.data import (
    by_dealer,
    flags_by_hour,
    from_export_row,
    rates_by,
    recent,
    shifts,
)
from dealer_assist.charts.fit import shoe_fit
from dealer_assist.services.audit import audit_lines

NS = {"s": "http://www.w3.org/2000/svg"}
T0 = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)


def sample_report() -> dict[str, Any]:
    sample = resources.files("dealer_assist.commands").joinpath("sample_shoe.jsonl")
    return audit_lines(sample.read_text().splitlines())


def parse(picture: str) -> ET.Element:
    return ET.fromstring(picture)  # well-formed XML, or this raises


def stamp(minutes: float) -> str:
    t = T0 + timedelta(minutes=minutes)
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def game(n: int, dealer: str | None, minutes: float, *flags: str) -> dict[str, Any]:
    return {"shoe": "S1", "game": n, "dealer": dealer, "start": stamp(minutes),
            "end": stamp(minutes + 0.5), "flags": list(flags),
            "review": "pending" if flags else "none"}


#: Three shifts: D-12 (games 1-3, one flagged twice), D-07 (4-5), D-12 again (6).
GAMES = [game(1, "D-12", 0), game(2, "D-12", 50, "UNNEEDED_DRAW", "MULTI_PULL"),
         game(3, "D-12", 70), game(4, "D-07", 130, "CARD_MISMATCH"), game(5, "D-07", 150),
         game(6, "D-12", 200)]


def test_shifts_are_runs_of_one_dealer_with_their_flags():
    got = shifts(GAMES)
    assert [(s.dealer, s.games, s.flagged, s.flag_count) for s in got] == [
        ("D-12", 3, 1, 2), ("D-07", 2, 1, 1), ("D-12", 1, 0, 0)]
    assert got[0].start == stamp(0) and got[0].end == stamp(70.5)
    assert got[0].flags == {"UNNEEDED_DRAW": 1, "MULTI_PULL": 1} and got[0].pending == 1


def test_flags_by_hour_and_by_dealer_are_drawn_one_bar_each_with_its_count():
    until = T0 + timedelta(minutes=200)
    hours = flags_by_hour(GAMES, until, 4, UTC)
    assert hours == [("06:00", 2), ("07:00", 0), ("08:00", 1), ("09:00", 0)]
    root = parse(svg.bar_chart("Flags by hour", hours))
    bars = root.findall(".//s:g[@class='bar']", NS)
    assert [(b.get("data-label"), b.get("data-value")) for b in bars] == [
        ("06:00", "2"), ("07:00", "0"), ("08:00", "1"), ("09:00", "0")]
    assert [b.find("s:text[@class='count']", NS).text for b in bars] == ["2", "0", "1", "0"]
    heights = [float(b.find("s:rect", NS).get("height")) for b in bars]
    assert heights[0] == 2 * heights[2] > 0 and heights[1] == 0
    dealers = by_dealer(GAMES)
    assert [(d.dealer, d.games, d.flagged, d.flags) for d in dealers] == [
        ("D-07", 2, 1, 1), ("D-12", 4, 1, 2)]
    root = parse(svg.bar_chart("Flags by dealer", [(d.dealer, d.flags) for d in dealers]))
    assert [b.get("data-label") for b in root.findall(".//s:g[@class='bar']", NS)] == [
        "D-07", "D-12"]


def test_recent_keeps_the_games_of_the_last_hours():
    assert [g["game"] for g in recent(GAMES, T0 + timedelta(minutes=200), 2)] == [4, 5, 6]


def test_a_label_is_escaped_not_markup():
    picture = svg.bar_chart("<b>", [('D-1"<script>', 1)])
    root = parse(picture)
    assert "<script>" not in picture
    assert root.find(".//s:g[@class='bar']", NS).get("data-label") == 'D-1"<script>'


def test_the_sample_shoe_against_its_exact_odds():
    shoe = sample_report()["shoes"][0]
    fit = shoe_fit(shoe)
    winners = [g["winner"] for g in shoe["games"]]
    assert fit.observed == {r: winners.count(r) for r in ("banker", "player", "tie")}
    assert fit.games == 80 and fit.unknown_cards == 0
    # the expectation of 80 games from an 8-deck shoe: near 45.9% / 44.6% / 9.5% each
    assert sum(fit.expected.values()) == pytest.approx(80)
    assert fit.expected["banker"] / 80 == pytest.approx(0.4586, abs=0.01)
    assert fit.expected["tie"] / 80 == pytest.approx(0.0952, abs=0.01)
    chi2 = sum((fit.observed[r] - fit.expected[r]) ** 2 / fit.expected[r] for r in fit.observed)
    assert fit.chi2 == pytest.approx(chi2)
    assert fit.p_value == pytest.approx(math.exp(-chi2 / 2))
    root = parse(svg.fit_chart(fit, "Shoe SAMPLE-1"))
    observed = {g.get("data-result"): float(g.get("data-value"))
                for g in root.findall(".//s:g[@class='observed']", NS)}
    assert observed == {r: float(n) for r, n in fit.observed.items()}
    assert len(root.findall(".//s:g[@class='expected']", NS)) == 3
    score = root.find(".//s:text[@class='score']", NS)
    assert score.text == f"X\u00b2 = {fit.chi2:.2f}, p = {fit.p_value:.3f} (80 games)"
    assert score.get("data-p") == f"{fit.p_value:.4f}"


def test_a_shoe_that_runs_far_from_chance_has_a_tiny_p_value():
    shoe = sample_report()["shoes"][0]
    rigged = {**shoe, "games": [{**g, "winner": "banker"} if g["status"] == "complete" else g
                                for g in shoe["games"]]}
    fit = shoe_fit(rigged)
    assert fit.observed["banker"] == 80
    assert fit.p_value is not None and fit.p_value < 1e-6
    assert "p = 0.000" in svg.p_text(fit)


def test_too_few_games_give_no_p_value():
    shoe = sample_report()["shoes"][0]
    fit = shoe_fit({**shoe, "games": shoe["games"][:20]})
    assert fit.games == 20 and fit.p_value is None  # ties expected under 5
    assert "too few games for a p-value" in svg.p_text(fit)


def test_the_timeline_has_a_mark_per_game_flag_and_decision():
    start, end = T0, T0 + timedelta(hours=24)
    games = [(T0 + timedelta(minutes=m), f"S1/{n}") for n, m in enumerate((5, 65, 600), 1)]
    flags = [(T0 + timedelta(minutes=66), "UNNEEDED_DRAW")]
    decisions = [(T0 + timedelta(minutes=90), "accept"), (T0 + timedelta(hours=30), "void")]
    root = parse(svg.timeline("Day", start, end, games, flags, decisions))
    assert [g.get("data-game") for g in root.findall(".//s:line[@class='game']", NS)] == [
        "S1/1", "S1/2", "S1/3"]
    assert [f.get("data-code") for f in root.findall(".//s:circle[@class='flag']", NS)] == [
        "UNNEEDED_DRAW"]
    marks = root.findall(".//s:rect[@class='decision']", NS)
    assert [m.get("data-action") for m in marks] == ["accept", "void"]
    assert float(marks[1].get("x")) <= 90 + 790  # a mark past the day is drawn at its end
    assert root.find(".//s:text[@class='counts']", NS).text == "3 games, 1 flags, 2 decisions"
    assert len(root.findall(".//s:text[@class='tick']", NS)) == 13  # every 2 h, 06:00..06:00


def test_month_rates_per_table_and_dealer():
    rows = [{**g, "table": "T1"} for g in GAMES] + [{**game(1, None, 10), "table": "T2"}]
    assert rates_by(rows, "table") == [("T1", 6, 2, 2 / 6), ("T2", 1, 0, 0.0)]
    assert rates_by(rows, "dealer") == [("(none)", 1, 0, 0.0), ("D-07", 2, 1, 0.5),
                                        ("D-12", 4, 1, 0.25)]
    root = parse(svg.bar_chart("rates", [(n, r) for n, _, _, r in rates_by(rows, "dealer")],
                               percent=True))
    assert [t.text for t in root.findall(".//s:text[@class='count']", NS)] == [
        "0.0%", "50.0%", "25.0%"]


def test_an_export_row_becomes_a_game_row():
    row = {"shoe": "S1", "game": "4", "dealer": "", "start_utc": "2026-11-29T06:00:00.000Z",
           "end_utc": "", "flags": "UNNEEDED_DRAW; MULTI_PULL", "review": "pending"}
    assert from_export_row(row) == {
        "shoe": "S1", "game": 4, "dealer": None, "start": "2026-11-29T06:00:00.000Z",
        "end": None, "flags": ["UNNEEDED_DRAW", "MULTI_PULL"], "review": "pending"}


def test_the_results_plot_has_a_dot_per_decided_game_and_a_mark_per_flagged_game():
    report = sample_report()
    shoes = report["shoes"]
    root = parse(svg.results_plot("audit", shoes, [shoe_fit(s) for s in shoes]))
    band = root.find(".//s:g[@class='shoe']", NS)
    games = shoes[0]["games"]
    assert band.get("data-games") == "80"
    dots = band.findall("s:circle[@class='result']", NS)
    assert [d.get("data-winner") for d in dots] == [g["winner"] for g in games if g["winner"]]
    flagged = [str(g["game"]) for g in games if g["flags"]]
    assert [m.get("data-game") for m in band.findall("s:path[@class='flag']", NS)] == flagged
    assert band.get("data-flagged") == str(len(flagged))
    assert json.dumps(report)  # the report itself is untouched by drawing


def test_a_picture_speaks_the_words_it_is_given_and_keeps_its_data():
    """The words and titles are catalog ids (svg.WORDS, TITLES): in Traditional Chinese the
    labels, legend, score and title change, the marks and their numbers do not."""
    from dealer_assist import i18n

    assert set(svg.WORDS.values()) | set(svg.TITLES.values()) <= set(i18n.ids())
    say = i18n.translations("zh_Hant").gettext
    words = svg.translated_words(say)
    fit = shoe_fit(sample_report()["shoes"][0])
    english, chinese = (parse(svg.fit_chart(fit, svg.title(t, "fit", "SAMPLE-1"), w))
                        for t, w in ((str, None), (say, words)))
    assert english.find("s:title", NS).text == "Shoe SAMPLE-1 against the exact odds"
    assert chinese.find("s:title", NS).text == "牌靴 SAMPLE-1 與精確賠率對比"
    assert [t.text for t in chinese.findall(".//s:text[@class='label']", NS)] == ["莊", "閒", "和"]
    assert chinese.find(".//s:text[@class='legend']", NS).text == \
        f"{say('observed')} / {say('expected by the odds')}"
    assert chinese.find(".//s:text[@class='score']", NS).text == \
        f"X\u00b2 = {fit.chi2:.2f}, p = {fit.p_value:.3f} (80 {say('games')})"
    for mark in ("observed", "expected"):
        assert [g.get("data-value") for g in chinese.findall(f".//s:g[@class='{mark}']", NS)] \
            == [g.get("data-value") for g in english.findall(f".//s:g[@class='{mark}']", NS)]
    # a decision's action in the timeline's tooltip, its code kept in the data
    start = T0
    line = parse(svg.timeline("t", start, start + timedelta(hours=2), [], [],
                              [(start + timedelta(minutes=5), "void")], words))
    mark = line.find(".//s:rect[@class='decision']", NS)
    assert mark.get("data-action") == "void" and mark.find("s:title", NS).text.startswith("無效")
