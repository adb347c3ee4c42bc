"""`dealer-assist roads TRACE [--json] [--shoe ID]`: the five roads of a shoe in a trace."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from dealer_assist.commands import audit_trace, command
from dealer_assist.commands.audit import nothing_to_audit
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.config import ConfigError
from dealer_assist.domain.roads import (
    BigRoadCell,
    Roads,
    bead_columns,
    layout,
    outcome_of,
    roads,
    streaks,
)

HELP = """\
Replay a table trace (JSON Lines, table-trace.md) and print the five roads of one shoe, from
its complete, non-void games in order: bead plate, big road, big eye boy, small road and
cockroach pig (docs/roads.md states the rules). The shoe is the last one in the trace, or the
last one with the id given by --shoe.

--json prints one object:
  {"bead_plate": "BPT...", "big_road": [[{"winner": "B", "ties": 0}, ...], ...],
   "big_eye_boy": "RB...", "small_road": "...", "cockroach_pig": "..."}
bead_plate holds B (banker), P (player), T (tie) per game; big_road its logical columns, top
to bottom, each cell with its winner and the ties marked on it; the derived roads hold R (red)
and B (blue) per mark. Without --json the roads are drawn as they appear on the display.

TRACE may also be a table's own log (the SQLite file `dealer-assist run` writes), read
read-only while the table writes.

Exit status 0; 2 if the trace cannot be read, a line is malformed, or the shoe is not in it
(an empty trace: "no shoe in the trace: it holds no events").
"""


class ShoeNotFound(LookupError):
    pass


def register(subparsers: Any) -> None:
    parser = command(subparsers, "roads", "the five scoreboard roads of a shoe in a trace",
                     HELP)
    parser.add_argument("trace", metavar="TRACE",
                        help="trace file (JSON Lines), - for stdin, or a table's log (SQLite)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--shoe", metavar="ID", help="the shoe's id (default: the last shoe)")
    parser.set_defaults(func=run)


def shoe_results(report: dict[str, Any], shoe_id: str | None = None) -> list[str]:
    """B/P/T of the chosen shoe's complete, non-void games, in game order.

    `report` is the `dealer-assist audit --json` object; the shoe is the last one, or the
    last one whose id is `shoe_id`.
    """
    shoes = report.get("shoes", [])
    if shoe_id is not None:
        shoes = [shoe for shoe in shoes if shoe["shoe_id"] == shoe_id]
    if not shoes:
        known = ", ".join(shoe["shoe_id"] for shoe in report.get("shoes", [])) or "none"
        wanted = f"no shoe {shoe_id!r}" if shoe_id is not None else "no shoe"
        raise ShoeNotFound(f"{wanted} in the trace (shoes: {known})")
    games = sorted(shoes[-1]["games"], key=lambda game: game["game"])
    return [
        outcome_of(game["winner"])
        for game in games
        if game["status"] == "complete" and game["winner"] is not None
    ]


def run(args: argparse.Namespace) -> int:
    name = "standard input" if args.trace == "-" else args.trace
    try:
        report = audit_trace(args.trace)
        if not report["shoes"]:
            raise CommandFailed(nothing_to_audit(args.trace))
        result = roads(shoe_results(report, args.shoe))
    except (ShoeNotFound, ConfigError) as exc:
        print(f"dealer-assist roads: {name}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(render(result))
    return 0


def render(result: Roads) -> str:
    """The roads drawn as text, six rows each, as the display lays them out."""
    parts = [
        ("bead plate", _grid(layout(bead_columns(result.bead_plate)), str)),
        ("big road (a digit counts the ties on a cell)", _grid(layout(result.big_road), _cell)),
    ]
    for title, marks in (("big eye boy", result.big_eye_boy), ("small road", result.small_road),
                         ("cockroach pig", result.cockroach_pig)):
        parts.append((f"{title} (R red, B blue)", _grid(layout(streaks(marks)), str)))
    return "\n\n".join(f"{title}:\n{text}" for title, text in parts)


def _cell(cell: BigRoadCell) -> str:
    winner = cell.winner or "T"
    return winner + (str(min(cell.ties, 9)) if cell.ties else "")


def _grid(grid: Sequence[Sequence[Any]], show: Any) -> str:
    if not grid or not grid[0]:
        return "  (empty)"
    return "\n".join(
        "  " + " ".join(f"{show(cell) if cell is not None else '.':<2}" for cell in row).rstrip()
        for row in grid
    )
