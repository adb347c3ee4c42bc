"""The five roads: canonical vectors, ties, dragons, the display grid, and `dealer-assist roads`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealer_assist.cli import main
from dealer_assist.commands.roads import ShoeNotFound, shoe_results
from dealer_assist.domain.roads import (
    BigRoadCell,
    bead_columns,
    big_road,
    derived_road,
    layout,
    outcome_of,
    roads,
    streaks,
)

B, P = "B", "P"


def cells(*spec: str) -> list[list[BigRoadCell]]:
    """Columns written as 'B B1 B' (a digit after the winner counts its ties)."""
    return [[BigRoadCell(c[0] if c[0] != "-" else None, int(c[1:] or 0)) for c in col.split()]
            for col in spec]


# -- the canonical vector of issue 4 and hand-checked sequences -----------------------------

def test_the_canonical_example_gives_blue_red_blue():
    assert derived_road("BPPPB", 1) == "BRB"


# B B | P | B B B | P P | B | P P P P, marked by hand entry by entry (column n, row m):
# big eye boy from (3,1); small road from (3,2); cockroach pig from (4,2).
HAND_CHECKED = "BBPBBBPPBPPPP"


def test_a_hand_checked_shoe_gives_each_road():
    result = roads(HAND_CHECKED)
    assert result.big_eye_boy == "BBRBRBBBRR"
    assert result.small_road == "RBBBBBRBR"
    assert result.cockroach_pig == "RRRRRB"
    assert result.big_road == cells("B B", "P", "B B B", "P P", "B", "P P P P")
    assert result.bead_plate == HAND_CHECKED


def test_alternating_results_are_all_red_and_a_ping_pong_starts_each_road_late():
    plate = "BP" * 6
    assert derived_road(plate, 1) == "R" * 10  # from column 3
    assert derived_road(plate, 2) == "R" * 9
    assert derived_road(plate, 3) == "R" * 8


def test_the_roads_start_where_the_rule_says():
    # Big eye boy's first mark comes at column 2 row 2 or column 3 row 1, whichever first.
    assert derived_road("BP", 1) == ""
    assert derived_road("BPP", 1) == "B"  # column 2 row 2: p = 1, m = 2
    assert derived_road("BPB", 1) == "R"  # column 3 row 1: columns 2 and 1 alike
    assert derived_road("BPB", 2) == ""
    assert derived_road("BPBB", 2) == "B"  # column 3 row 2 against column 1 (one long)
    assert derived_road("BPBP", 2) == "R"  # column 4 row 1: columns 3 and 1 alike
    assert derived_road("BPBPP", 3) == "B"  # column 4 row 2 against column 1 (one long)
    assert derived_road("BPBP", 3) == ""


# -- ties --------------------------------------------------------------------------------------

def test_ties_are_marked_on_the_cell_before_them_and_ignored_by_the_derived_roads():
    plate = "BTPTTPB"
    result = roads(plate)
    assert result.bead_plate == plate
    assert result.big_road == cells("B1", "P2 P", "B")
    assert (result.big_eye_boy, result.small_road, result.cockroach_pig) == (
        derived_road("BPPB", 1), derived_road("BPPB", 2), derived_road("BPPB", 3))


def test_ties_before_the_first_result_sit_on_the_first_cell():
    assert big_road("TTB") == cells("B2")
    assert big_road("TTBTP") == cells("B3", "P")
    assert big_road("TT") == cells("-2")
    assert big_road("") == []
    assert roads("TTT").to_json()["big_road"] == [[{"winner": None, "ties": 3}]]


@given(st.text(alphabet="BPT", max_size=60))
def test_ties_never_change_a_derived_road(plate):
    without = plate.replace("T", "")
    for k in (1, 2, 3):
        assert derived_road(plate, k) == derived_road(without, k)
    assert sum(cell.ties for col in big_road(plate) for cell in col) == plate.count("T")


# -- an independent statement of the rule, on cells of the grid --------------------------------

def oracle(plate: str, k: int) -> str:
    """The rule as dealers say it: compare the cell beside and the one above it, k columns back.

    An entry at row m > 1 is red when column n-k has both rows m and m-1 or neither, blue
    when it has m-1 but not m. At row 1 it compares the two columns before it.
    """
    filled: set[tuple[int, int]] = set()
    col, row, last = 0, 0, None
    marks = ""
    for outcome in plate.replace("T", ""):
        col, row = (col, row + 1) if outcome == last else (col + 1, 1)
        last = outcome
        filled.add((col, row))
        if row > 1 and col - k >= 1:
            marks += "R" if ((col - k, row) in filled) == ((col - k, row - 1) in filled) else "B"
        elif row == 1 and col - k - 1 >= 1:
            depth = {c: max(r for cc, r in filled if cc == c) for c in (col - 1, col - k - 1)}
            marks += "R" if depth[col - 1] == depth[col - k - 1] else "B"
    return marks


@given(st.text(alphabet="BPT", max_size=80))
def test_every_road_agrees_with_the_rule_on_the_grid(plate):
    for k in (1, 2, 3):
        assert derived_road(plate, k) == oracle(plate, k)


# -- a long dragon and the display grid --------------------------------------------------------

def test_a_long_dragon_is_one_logical_column_and_turns_right_on_the_grid():
    plate = "B" * 9 + "PP" + "B" * 7
    columns = big_road(plate)
    assert [len(c) for c in columns] == [9, 2, 7]
    grid = layout(columns)
    placed = {(r, c) for r, line in enumerate(grid) for c, cell in enumerate(line) if cell}
    first = {(r, 0) for r in range(6)} | {(5, 1), (5, 2), (5, 3)}
    second = {(0, 1), (1, 1)}
    third = {(r, 2) for r in range(5)} | {(4, 3), (4, 4)}  # stops above the first's tail
    assert placed == first | second | third
    assert len(grid) == 6 and len(grid[0]) == 5
    assert grid[4][4] == BigRoadCell(B) and grid[1][1] == BigRoadCell(P)


def test_a_dragon_of_the_whole_shoe_runs_along_the_bottom_row():
    result = roads("B" * 30 + "P")
    assert result.big_road == [[BigRoadCell(B)] * 30, [BigRoadCell(P)]]
    assert result.big_eye_boy == "" and result.small_road == ""
    grid = layout(result.big_road)
    assert [grid[5][c] for c in range(25)] == [BigRoadCell(B)] * 25
    assert grid[0][1] == BigRoadCell(P)


def test_a_column_starts_right_of_a_tail_on_the_top_row():
    grid = layout([[name] * 7 for name in "abcdef"] + [["g"] * 3, ["h"]], rows=6)
    # Each column of seven stops above the tail of the one before and turns one row higher,
    # until "f" turns on the top row and runs to column 11; "g" cannot start at column 6 and
    # starts at column 12.
    assert [row[0] for row in grid] == ["a"] * 6 and grid[5][1] == "a"
    assert [grid[4][c] for c in (1, 2, 3)] == ["b"] * 3
    assert [grid[0][c] for c in range(5, 14)] == ["f"] * 7 + ["g", "h"]
    assert [grid[r][12] for r in range(4)] == ["g", "g", "g", None]


def test_the_bead_plate_and_derived_roads_fill_the_grid_down_then_right():
    assert bead_columns("BPTBPTBP") == [list("BPTBPT"), list("BP")]
    grid = layout(bead_columns("BPTBPTBP"))
    assert [row[0] for row in grid] == list("BPTBPT") and grid[1][1] == "P"
    assert streaks("RRBRRRRRRR") == [["R", "R"], ["B"], ["R"] * 7]
    assert layout(streaks("RRBRRRRRRR"))[5][3] == "R"


# -- bad input --------------------------------------------------------------------------------

def test_bad_results_are_refused_with_their_place():
    with pytest.raises(ValueError, match="result 3 is 'X'"):
        roads("BPXB")
    with pytest.raises(ValueError, match="not 'draw'"):
        outcome_of("draw")
    with pytest.raises(ValueError, match="not 4"):
        derived_road("BP", 4)
    assert [outcome_of(w) for w in ("banker", "player", "tie")] == ["B", "P", "T"]


# -- `dealer-assist roads TRACE`: the shoe's complete, non-void games of a real trace -----------

SUITS = "HDCS"
#: Cards P1 B1 P2 B2 of a game won by B, P or T: naturals, so each game ends after four cards.
HANDS = {"B": ("2", "9", "3", "T"), "P": ("9", "2", "T", "3"), "T": ("9", "9", "T", "K")}


def shoe_trace(shoe_id: str, results: str, start: int = 0, void_games: tuple[int, ...] = ()):
    """A standard shoe whose games have `results`; `void_games` voided by a supervisor."""
    clock = iter(range(start, start + 1000))

    def event(src: str, kind: str, **fields):
        n = next(clock)
        return {"ts": f"2026-11-29T1{n // 3600}:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                "src": src, "type": kind, **fields}

    events = [event("dealer", "new_shoe", shoe_id=shoe_id, decks=8, variant="standard")]
    events += [event("shoe", "card", card=c) for c in ("5C", "2D", "3D", "4D", "6D", "7D")]
    for number, result in enumerate(results):
        events.append(event("dealer", "bets_closed"))
        events += [event("shoe", "card", card=rank + SUITS[number % 4]) for rank in HANDS[result]]
    events += [event("supervisor", "decision", game=g, action="void", by="S-104", reason="test")
               for g in void_games]
    events.append(event("dealer", "end_shoe"))
    return events


def write_trace(path: Path, *shoes) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for shoe in shoes for e in shoe))
    return path


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "table.jsonl", shoe_trace("S1", "BPPPB"),
                       shoe_trace("S2", "TBPTPPBTB", start=500, void_games=(2, 6)))


def run_roads(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["roads", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_command_prints_the_last_shoes_roads_without_void_games(trace, capsys):
    status, out, _ = run_roads(capsys, str(trace), "--json")
    assert status == 0
    printed = json.loads(out)
    assert printed["bead_plate"] == "TPTPBTB"  # games 2 (B) and 6 (P) are void
    assert printed == roads("TPTPBTB").to_json()
    assert printed["big_road"][0] == [{"winner": "P", "ties": 2}, {"winner": "P", "ties": 0}]


def test_the_command_takes_a_shoe_by_id(trace, capsys):
    status, out, _ = run_roads(capsys, str(trace), "--json", "--shoe", "S1")
    assert status == 0
    assert json.loads(out)["big_eye_boy"] == "BRB"
    assert json.loads(out)["bead_plate"] == "BPPPB"


def test_the_command_draws_the_roads_without_json(trace, capsys):
    status, out, _ = run_roads(capsys, str(trace), "--shoe", "S1")
    assert status == 0
    assert "big road" in out and "cockroach pig" in out
    assert "  B  P  B" in out


def test_the_command_says_what_is_wrong_with_its_input(trace, tmp_path, capsys):
    status, _, err = run_roads(capsys, str(trace), "--shoe", "S9")
    assert status == 2 and "no shoe 'S9'" in err and "S1, S2" in err
    status, _, err = run_roads(capsys, str(tmp_path / "missing.jsonl"))
    assert status == 2 and "cannot read" in err
    broken = tmp_path / "broken.jsonl"
    broken.write_text(trace.read_text().replace("\n", "\n{not json\n", 1))
    status, _, err = run_roads(capsys, str(broken))
    assert status == 2 and "line 2" in err
    empty = write_trace(tmp_path / "empty.jsonl")
    status, _, err = run_roads(capsys, str(empty))
    assert status == 2 and "no shoe" in err


def test_only_complete_games_with_a_winner_count():
    game = {"game": 0, "status": "complete", "winner": "banker"}
    report = {"shoes": [{"shoe_id": "S7", "games": [
        {**game, "game": 2, "winner": "tie"},
        {**game, "game": 1},
        {**game, "game": 3, "status": "incomplete", "winner": None},
        {**game, "game": 4, "status": "void", "winner": None},
        {**game, "game": 5, "winner": "player"},
    ]}]}
    assert shoe_results(report) == ["B", "T", "P"]
    with pytest.raises(ShoeNotFound, match="S8"):
        shoe_results(report, "S8")


def test_the_documented_example_is_what_the_roads_give():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "roads.md").read_text(encoding="utf-8")
    [example] = doc.split("```json\n")[1:]
    printed = json.loads(example.split("```")[0])
    assert printed == roads(printed["bead_plate"]).to_json()
