"""`dealer-assist odds`: text and JSON output, exact fractions, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from dealer_assist.cli import main
from dealer_assist.config import DEFAULT_PAYTABLES

REPO = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["odds", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_text_for_a_full_shoe(capsys):
    status, out, _ = run(capsys)
    assert status == 0
    assert "Banker 0.458597   Player 0.446247   Tie 0.095156" in out
    assert "banker       pays 0.95:1" in out and "1.0579%" in out
    assert out.count("\n    ") == 10  # the 10 x 10 table of final totals


def test_json_of_a_depleted_shoe(capsys):
    remaining = "A=20,2=25,3=30,4=30,5=30,6=30,7=5,8=30,9=30,10=30,J=30,Q=30,K=30"
    status, out, _ = run(capsys, "--remaining", remaining, "--variant", "7up", "--json")
    assert status == 0
    report = json.loads(out)
    assert report["cards_left"] == 350 and report["remaining"]["7"] == 5
    pr = report["probabilities"]
    assert abs(pr["banker"] + pr["player"] + pr["tie"] - 1) < 1e-12
    assert abs(sum(map(sum, pr["totals"])) - 1) < 1e-12
    assert pr["player_pair"] == 5 / 350
    assert set(pr["sevens"]) == {str(n) for n in range(7)} and pr["sevens"]["0"] == 0
    assert set(report["bets"]) == {"player", "banker", "tie", "super7"}
    assert report["bets"]["player"]["pays"] == "1:1, 1:2 on 7"


def test_exact_json_for_one_deck(capsys):
    status, out, _ = run(capsys, "--decks", "1", "--json", "--exact")
    report = json.loads(out)
    assert status == 0 and report["exact"] is True
    pr = {k: Fraction(v) for k, v in report["probabilities"].items() if isinstance(v, str)}
    assert pr["banker"] + pr["player"] + pr["tie"] == 1
    assert pr["player_pair"] == Fraction(3, 51)
    assert Fraction(report["bets"]["player_pair"]["house_edge"]) == 1 - 12 * Fraction(3, 51)


def test_custom_pay_table_file(capsys, tmp_path):
    text = DEFAULT_PAYTABLES.read_text().replace('tie = "8:1"', 'tie = "9:1"', 1)
    path = tmp_path / "tables.toml"
    path.write_text(text)
    status, out, _ = run(capsys, "--paytable", str(path), "--json")
    edge = json.loads(out)["bets"]["tie"]["house_edge"]
    assert status == 0 and abs(edge - (1 - 10 * 0.0951559680236)) < 1e-9


def test_bad_input_exits_2_and_says_what(capsys, tmp_path):
    status, out, err = run(capsys, "--remaining", "1,2,3")
    assert (status, out) == (2, "") and "--remaining: expected 13 counts" in err
    status, _, err = run(capsys, "--remaining", "2,2,0,0,0,0,0,0,0,0,0,0,1")
    assert status == 2 and "holds 5 card(s)" in err
    status, _, err = run(capsys, "--decks", "0")
    assert status == 2 and "decks must be a whole number" in err
    bad = tmp_path / "bad.toml"
    bad.write_text("[standard]\nplayer = 'one'\n")
    status, _, err = run(capsys, "--paytable", str(bad))
    assert status == 2 and str(bad) in err


def test_help_runs_as_a_command():
    done = subprocess.run(
        [sys.executable, "-m", "dealer_assist.cli", "odds", "--help"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0 and "--remaining COUNTS" in done.stdout
