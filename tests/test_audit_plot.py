"""`dealer-assist audit TRACE --plot FILE.svg`: the picture's data, bad paths (exit 2, a clear
message), and the audit itself unchanged: its output with a plot, and for a trace whose games
name their dealer, is the output without."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dealer_assist.cli import main

NS = {"s": "http://www.w3.org/2000/svg"}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["audit", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_plot_of_the_sample_shoe_holds_its_results_flags_and_score(tmp_path, capsys):
    plot = tmp_path / "sample.svg"
    status, text, _ = run(capsys, "--sample", "--plot", str(plot))
    assert status == 0
    assert text == run(capsys, "--sample")[1]  # the report is the same, plot or not
    report = json.loads(run(capsys, "--sample", "--json")[1])
    games = report["shoes"][0]["games"]
    root = ET.parse(plot).getroot()
    band = root.find(".//s:g[@class='shoe']", NS)
    assert band.get("data-shoe") == "SAMPLE-1" and band.get("data-games") == "80"
    winners = [d.get("data-winner") for d in band.findall("s:circle[@class='result']", NS)]
    assert winners == [g["winner"] for g in games]
    flags = {m.get("data-game"): m.get("data-codes")
             for m in band.findall("s:path[@class='flag']", NS)}
    assert flags == {str(g["game"]): ", ".join(f["code"] for f in g["flags"])
                     for g in games if g["flags"]}
    heading = band.find("s:text", NS).text
    assert heading.startswith("shoe SAMPLE-1: X\u00b2 = ") and "p = 0." in heading
    assert "(80 games)" in heading


@pytest.mark.parametrize(("name", "said"), [
    ("missing/out.svg", "no folder"),
    ("", "is a folder"),
    ("out.png", "the picture is SVG"),
])
def test_a_bad_plot_path_is_a_clear_error_with_exit_2(tmp_path, capsys, name, said):
    target = tmp_path / name if name else tmp_path
    if name == "":
        target = tmp_path.parent / (tmp_path.name + ".svg")
        target.mkdir()
    status, text, err = run(capsys, "--sample", "--plot", str(target))
    assert status == 2
    assert said in err and "Traceback" not in err
    assert text == ""  # nothing printed when the picture cannot be written


def test_a_plot_that_cannot_be_written_is_exit_2(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "out.svg").mkdir()  # a folder where the file would go: it cannot be written
    status, _, err = run(capsys, "--sample", "--plot", str(folder / "out.svg"))
    assert status == 2 and "is a folder" in err


def test_a_trace_whose_games_name_their_dealer_audits_as_without(tmp_path, capsys):
    sample = Path(__file__).resolve().parents[1] / "dealer_assist/commands/sample_shoe.jsonl"
    plain = sample.read_text().splitlines()
    dealt, n = [], 0
    for line in plain:
        event = json.loads(line)
        if event["type"] == "bets_closed":
            n += 1
            event["dealer"] = "D-12" if n <= 40 else "D-07"
        dealt.append(json.dumps(event))
    assert n == 80
    with_dealers = tmp_path / "dealt.jsonl"
    with_dealers.write_text("\n".join(dealt) + "\n")
    for mode in ([], ["--json"]):
        status, text, err = run(capsys, str(with_dealers), *mode)
        assert status == 0 and err == ""
        assert text == run(capsys, str(sample), *mode)[1]
