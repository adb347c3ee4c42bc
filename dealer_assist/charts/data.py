"""What the pictures show, counted from plain game rows (no drawing here).

A game row is a dict: `shoe`, `game`, `dealer` (None or "" when no dealer was signed in),
`start` and `end` (trace times, ISO 8601 UTC), `flags` (the game's flag codes), `review`.
The live table gives them (`LiveTable.dealt_games`); an export's or a regulator day's
games.csv rows become them with `from_export_row`.

A shift is a dealer's stint: a run of consecutive games (in log order) dealt by one dealer,
from the first game's start to the last game's end.

A dealer's figures (shifts, per-dealer totals and rates) count only the flags charged to the
dealer (`domain.flags.charged`): what the system itself caused (INTERRUPTED) still counts as
a game dealt, never as a flag, a flagged game or a game waiting for review against them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any

from dealer_assist.domain.flags import charged

#: How a game with no dealer signed in is named in the pictures and tables.
NO_DEALER = "(none)"


def from_export_row(row: Mapping[str, str]) -> dict[str, Any]:
    """A games.csv row (export/rows.py's columns, all text) as a game row."""
    return {"shoe": row["shoe"], "game": int(row["game"]), "dealer": row.get("dealer") or None,
            "start": row["start_utc"] or None, "end": row["end_utc"] or None,
            "flags": [c for c in row["flags"].split("; ") if c], "review": row["review"]}


def when(ts: str | None) -> datetime | None:
    """A trace time as an aware datetime (None stays None)."""
    if not ts:
        return None
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


@dataclass
class Shift:
    """A dealer's stint and what its games raised."""

    dealer: str
    start: str | None
    end: str | None
    games: int = 0
    flagged: int = 0
    pending: int = 0
    flags: dict[str, int] = field(default_factory=dict)
    shoes: list[str] = field(default_factory=list)

    @property
    def flag_count(self) -> int:
        return sum(self.flags.values())


def dealer_of(game: Mapping[str, Any]) -> str:
    return str(game.get("dealer") or NO_DEALER)


def shifts(games: Iterable[Mapping[str, Any]]) -> list[Shift]:
    """The shifts of `games` (in log order), oldest first."""
    out: list[Shift] = []
    for game in games:
        dealer = dealer_of(game)
        if not out or out[-1].dealer != dealer:
            out.append(Shift(dealer, game.get("start"), None))
        shift = out[-1]
        shift.end = game.get("end") or game.get("start") or shift.end
        codes = charged(game["flags"])
        shift.games += 1
        shift.flagged += bool(codes)
        shift.pending += bool(codes) and game.get("review") == "pending"
        if game["shoe"] not in shift.shoes:
            shift.shoes.append(game["shoe"])
        for code in codes:
            shift.flags[code] = shift.flags.get(code, 0) + 1
    return out


@dataclass(frozen=True)
class DealerTotal:
    """One dealer's games and flags over a span (several shifts, several tables)."""

    dealer: str
    games: int
    flagged: int
    flags: int

    @property
    def rate(self) -> float:
        """The share of the dealer's games that raised a flag."""
        return self.flagged / self.games if self.games else 0.0


def by_dealer(games: Iterable[Mapping[str, Any]]) -> list[DealerTotal]:
    """Each dealer's games, flagged games and flags, by dealer name."""
    counts: dict[str, list[int]] = {}
    for game in games:
        c = counts.setdefault(dealer_of(game), [0, 0, 0])
        codes = charged(game["flags"])
        c[0] += 1
        c[1] += bool(codes)
        c[2] += len(codes)
    return [DealerTotal(name, *c) for name, c in sorted(counts.items())]


def recent(games: Iterable[Mapping[str, Any]], until: datetime,
           hours: int) -> list[Mapping[str, Any]]:
    """The games that started in the `hours` before `until`."""
    since = until - timedelta(hours=hours)
    out = []
    for game in games:
        start = when(game.get("start"))
        if start is not None and since < start <= until:
            out.append(game)
    return out


def flags_by_hour(games: Iterable[Mapping[str, Any]], until: datetime, hours: int,
                  zone: tzinfo) -> list[tuple[str, int]]:
    """Flags raised by games that started in each of the `hours` hours up to `until`, oldest
    first, each hour labelled `HH:00` on the clock of `zone`."""
    top = until.astimezone(zone).replace(minute=0, second=0, microsecond=0)
    starts = [top - timedelta(hours=n) for n in range(hours - 1, -1, -1)]
    counts = [0] * hours
    for game in games:
        start = when(game.get("start"))
        if start is None:
            continue
        local = start.astimezone(zone)
        for i, hour in enumerate(starts):
            if hour <= local < hour + timedelta(hours=1):
                counts[i] += len(game["flags"])
                break
    return [(f"{hour:%H}:00", n) for hour, n in zip(starts, counts, strict=True)]


Mark = tuple[datetime, str]


def day_marks(shoes: Iterable[Any], decisions: Iterable[Mapping[str, str]]
              ) -> tuple[list[Mark], list[Mark], list[Mark]]:
    """A regulator's day (`services.records.DayView`'s shoes and decisions, export rows) as
    the timeline's marks: each game at its start (`shoe/game`), each flag at its game's end
    (its start while incomplete; a shoe's own flag at the shoe's start), each decision at its
    time (its action)."""
    games: list[Mark] = []
    flags: list[Mark] = []
    for shoe in shoes:
        at: dict[str, datetime | None] = {}
        for row in shoe.games:
            start = when(row["start_utc"])
            at[row["game"]] = when(row["end_utc"]) or start
            if start is not None:
                games.append((start, f"{row['shoe']}/{row['game']}"))
        shoe_start = when(shoe.settings.get("started_utc"))
        for row in shoe.flags:
            moment = at.get(row["game"]) if row["game"] else shoe_start
            if moment is not None:
                flags.append((moment, row["code"]))
    made = [(moment, row["action"]) for row in decisions
            if (moment := when(row["ts"])) is not None]
    return games, flags, made


def game_rows(shoes: Iterable[Any], table: str | None = None) -> list[dict[str, Any]]:
    """The game rows of a regulator's day (its shoes' games.csv rows), with the table."""
    return [{**from_export_row(row), "table": table or row["table"],
             "shoe_seq": row["shoe_seq"]} for shoe in shoes for row in shoe.games]


def rates_by(games: Iterable[Mapping[str, Any]], key: str) -> list[tuple[str, int, int, float]]:
    """(name, games, flagged games, flag rate) for each value of `key` (a table, a dealer;
    by dealer, only the flags charged to the dealer)."""
    counts: dict[str, list[int]] = {}
    for game in games:
        name = str(game.get(key) or NO_DEALER)
        c = counts.setdefault(name, [0, 0])
        c[0] += 1
        c[1] += bool(charged(game["flags"]) if key == "dealer" else game["flags"])
    return [(name, n, flagged, flagged / n if n else 0.0)
            for name, (n, flagged) in sorted(counts.items())]
