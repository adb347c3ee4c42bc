"""The rows of games.csv, flags.csv and decisions.csv, built from the table machine's state.

Every value is text: a missing value is empty, yes/no is `true`/`false`, times are ISO 8601
UTC with milliseconds (`2026-11-29T10:15:02.417Z`), lists are joined with `; `.
`docs/export-format.md` documents every column; the tuples below are the headers.
"""

from __future__ import annotations

from typing import Any

from dealer_assist.domain.events import DecisionMade
from dealer_assist.domain.game import Game
from dealer_assist.domain.rules import POSITIONS
from dealer_assist.domain.shoe import Shoe
from dealer_assist.export.source import ms_stamp

GAME_COLUMNS = (
    "table", "shoe", "shoe_seq", "game", "start_utc", "end_utc",
    *POSITIONS,
    "player_total", "banker_total", "winner", "natural", "player_pair", "banker_pair",
    "winning_bets", "set_aside", "last_game", "status", "flags", "review",
    "decision_seq", "decision_at", "decision_by", "decision_action", "decision_reason",
    "dealer",
)
#: Columns added at the end of games.csv since exports were first written: an export written
#: before one of them lacks it, and verifies against the columns it has (export/compare.py).
ADDED_GAME_COLUMNS = ("dealer",)
FLAG_COLUMNS = ("table", "shoe", "shoe_seq", "game", "code", "severity", "detail", "decided")
DECISION_COLUMNS = (
    "table", "seq", "ts", "shoe", "shoe_seq", "game", "action", "by", "reason",
    "player", "banker", "applied",
)
SEP = "; "

Row = list[str]


def text(value: Any) -> str:
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def game_row(
    table: str,
    shoe: Shoe,
    shoe_seq: int,
    game: Game,
    view: dict[str, Any],
    decision: tuple[int, DecisionMade] | None,
    dealer: str | None = None,
) -> Row:
    """One row of games.csv. `view` is `domain.report.game_view(game, ...)`; `decision` the
    latest applied decision that named this game, with its seq; `dealer` who dealt it (the
    `dealer` of its `bets_closed`), None if no dealer was signed in."""
    by_position = dict(game.cards)
    bets = SEP.join(f"{b['bet']} {b['pays']}" for b in view["winning_bets"])
    flags = SEP.join(f["code"] for f in view["flags"])
    if decision is None:
        decided = ["", "", "", "", ""]
    else:
        seq, made = decision
        decided = [str(seq), ms_stamp(made.ts), made.by, made.action, made.reason]
    return [
        table, shoe.shoe_id, str(shoe_seq), str(game.number),
        ms_stamp(game.started_ts), ms_stamp(game.ended_ts),
        *(by_position.get(p, "") for p in POSITIONS),
        text(view["player_total"]), text(view["banker_total"]), text(view["winner"]),
        text(view["natural"]), text(view["player_pair"]), text(view["banker_pair"]),
        bets, SEP.join(view["set_aside"]), text(view["last_game"]), view["status"], flags,
        view["review"], *decided, text(dealer),
    ]


def flag_rows(table: str, shoe: Shoe, shoe_seq: int) -> list[Row]:
    """The rows of flags.csv for a shoe: its own flags, then each game's in order."""
    rows = [[table, shoe.shoe_id, str(shoe_seq), "", f.code, f.severity, f.detail, ""]
            for f in shoe.flags]
    for game in shoe.games:
        for index, f in enumerate(game.flags):
            rows.append([table, shoe.shoe_id, str(shoe_seq), str(game.number), f.code,
                         f.severity, f.detail, text(index < game.decided_upto)])
    return rows


def decision_row(
    table: str,
    seq: int,
    made: DecisionMade,
    shoe: tuple[str, int] | None,
    problem: str | None,
) -> Row:
    """One row of decisions.csv. `shoe` is the (shoe id, shoe seq) the decision reached, None
    when it reached no shoe of the export; `problem` why it was not applied."""
    shoe_id, shoe_seq = (shoe[0], str(shoe[1])) if shoe else (made.shoe_id or "", "")
    return [
        table, str(seq), ms_stamp(made.ts), shoe_id, shoe_seq, str(made.game), made.action,
        made.by, made.reason, " ".join(made.player), " ".join(made.banker),
        "true" if problem is None else f"false: {problem}",
    ]
