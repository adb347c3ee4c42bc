"""The five roads of the scoreboard, from a shoe's results in order.

Results are `B` (banker), `P` (player) and `T` (tie), one per complete, non-void game.

- Bead plate: every result, ties included, in order.
- Big road: logical columns, one per streak of the same winner; a tie is marked on the cell of
  the result before it (its `ties` count). Ties before the shoe's first B or P are marked on
  the first cell; while the shoe has had only ties, that cell's winner is None.
- Big eye boy, small road, cockroach pig (k = 1, 2, 3): a red or blue mark for each big-road
  entry, by the canonical rule on logical columns, ties ignored. For a new entry at row m of
  column n: if m >= 2, let p be the length of column n-k (no mark if that column does not
  exist): red if m <= p, blue if m = p + 1, red if m > p + 1. If m = 1: no mark if column
  n-k-1 does not exist; red if column n-1 is as long as column n-k-1, else blue.

`layout` places logical columns on the display's grid of six rows: a column that runs past
the bottom row, or onto a cell already taken, turns right along its last row (dragon tail).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

BANKER, PLAYER, TIE = "B", "P", "T"
RED, BLUE = "R", "B"
ROWS = 6
OUTCOME_OF_WINNER = {"banker": BANKER, "player": PLAYER, "tie": TIE}
DERIVED_ROADS = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}

T = TypeVar("T")


@dataclass(frozen=True)
class BigRoadCell:
    """One big-road entry: its winner (`B`/`P`) and the ties marked on it."""

    winner: str | None
    ties: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "ties": self.ties}


@dataclass(frozen=True)
class Roads:
    bead_plate: str
    big_road: list[list[BigRoadCell]]
    big_eye_boy: str
    small_road: str
    cockroach_pig: str

    def to_json(self) -> dict[str, Any]:
        """The object `dealer-assist roads --json` prints (see docs/roads.md)."""
        return {
            "bead_plate": self.bead_plate,
            "big_road": [[cell.to_json() for cell in column] for column in self.big_road],
            "big_eye_boy": self.big_eye_boy,
            "small_road": self.small_road,
            "cockroach_pig": self.cockroach_pig,
        }


def outcome_of(winner: str) -> str:
    """`B`, `P` or `T` for a game's winner as the audit writes it (`banker`...)."""
    try:
        return OUTCOME_OF_WINNER[winner]
    except KeyError:
        raise ValueError(f"a winner is banker, player or tie, not {winner!r}") from None


def bead_plate(outcomes: Iterable[str]) -> str:
    """Every result in order, as one string of B, P and T."""
    plate = "".join(outcomes)
    for index, outcome in enumerate(plate):
        if outcome not in (BANKER, PLAYER, TIE):
            raise ValueError(f"result {index + 1} is {outcome!r}: results are B, P or T")
    return plate


def big_road(outcomes: Iterable[str]) -> list[list[BigRoadCell]]:
    """The big road's logical columns, ties marked on the cell before them."""
    columns: list[list[BigRoadCell]] = []
    for outcome in bead_plate(outcomes):
        if outcome == TIE:
            if not columns:
                columns.append([BigRoadCell(None)])
            last = columns[-1][-1]
            columns[-1][-1] = BigRoadCell(last.winner, last.ties + 1)
        elif columns and columns[-1][-1].winner is None:
            columns[-1][-1] = BigRoadCell(outcome, columns[-1][-1].ties)
        elif columns and columns[-1][-1].winner == outcome:
            columns[-1].append(BigRoadCell(outcome))
        else:
            columns.append([BigRoadCell(outcome)])
    return columns


def derived_road(outcomes: Iterable[str], k: int) -> str:
    """The marks (`R`/`B`) of the road that compares with column n-k (1, 2 or 3)."""
    if k not in (1, 2, 3):
        raise ValueError(f"a derived road compares with 1, 2 or 3 columns back, not {k}")
    lengths: list[int] = []
    last = None
    marks = []
    for outcome in bead_plate(outcomes):
        if outcome == TIE:
            continue
        if outcome == last:
            lengths[-1] += 1
        else:
            lengths.append(1)
            last = outcome
        mark = _mark(lengths, k)
        if mark is not None:
            marks.append(mark)
    return "".join(marks)


def _mark(lengths: list[int], k: int) -> str | None:
    """The mark of the newest entry, at row lengths[-1] of column len(lengths)."""
    n, m = len(lengths), lengths[-1]
    if m >= 2:
        if n - k < 1:
            return None
        p = lengths[n - k - 1]
        return BLUE if m == p + 1 else RED
    if n - k - 1 < 1:
        return None
    return RED if lengths[n - 2] == lengths[n - k - 2] else BLUE


def roads(outcomes: Iterable[str]) -> Roads:
    """All five roads of a shoe's results."""
    plate = bead_plate(outcomes)
    return Roads(
        bead_plate=plate,
        big_road=big_road(plate),
        big_eye_boy=derived_road(plate, 1),
        small_road=derived_road(plate, 2),
        cockroach_pig=derived_road(plate, 3),
    )


def streaks(marks: str) -> list[list[str]]:
    """A derived road's marks as columns, one per streak of the same colour (for display)."""
    columns: list[list[str]] = []
    for mark in marks:
        if columns and columns[-1][-1] == mark:
            columns[-1].append(mark)
        else:
            columns.append([mark])
    return columns


def bead_columns(plate: str, rows: int = ROWS) -> list[list[str]]:
    """The bead plate as the display fills it: down each column of `rows`, then right."""
    return [list(plate[i:i + rows]) for i in range(0, len(plate), rows)]


def layout(columns: Sequence[Sequence[T]], rows: int = ROWS) -> list[list[T | None]]:
    """Place logical columns on a grid of `rows` rows; returns grid[row][column].

    Each column starts on the top row, one place right of where the one before started (or
    further right if that cell is taken), and goes down; when it would pass the bottom row or
    reach a taken cell it turns right along its last row (the dragon tail).
    """
    if rows < 1:
        raise ValueError(f"a grid needs at least one row, not {rows}")
    taken: dict[tuple[int, int], T] = {}
    start = -1
    for column in columns:
        start += 1
        while (0, start) in taken:
            start += 1
        row, col, turned = 0, start, False
        for index, cell in enumerate(column):
            if index > 0:
                if not turned and row + 1 < rows and (row + 1, col) not in taken:
                    row += 1
                else:
                    turned = True
                    col += 1
                    while (row, col) in taken:
                        col += 1
            taken[(row, col)] = cell
    width = max((col for _, col in taken), default=-1) + 1
    return [[taken.get((row, col)) for col in range(width)] for row in range(rows)]
