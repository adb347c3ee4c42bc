"""`dealer-assist log DB`: a table's event log, read from the command line.

The events, the games or the supervisors' decisions of a table's log (the SQLite file the
table service writes), chosen by shoe, game, type and time, as lines to read or as JSON
Lines. The log is opened read-only, one connection per reading, so the table may go on
writing it. Which shoe and game an event belongs to is worked out here (`log_view`).
"""

from __future__ import annotations

import argparse
import signal
import sys
import textwrap
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from dealer_assist.commands import command, table_log
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.commands.log_view import (
    Placed,
    Placing,
    decision_line,
    event_json,
    event_line,
    game_json,
    game_line,
    games_of,
    placed_events,
)
from dealer_assist.domain.events import EVENT_TYPES

HELP = f"""\
List what a table's event log holds (the SQLite file `dealer-assist run` writes, e.g.
var/T1.events.db): its events, its games, or its supervisors' decisions. The file is opened
read-only, so this works while the table service writes it.

  log DB                 every event, one line each: seq, time (UTC, as logged), shoe, game,
                         source, type and the event's fields
  log DB --games         one line per game: shoe, game, when its bets closed, the audit's cards,
                         totals, winner, status, review and flags, and the dealer who dealt it
  log DB --decisions     the supervisors' decisions: seq, when, shoe, game, action, by whom
                         and why (a correction's cards too)
  --json                 JSON Lines instead: each event as stored plus its "seq" (with
                         --games, the audit's game object plus "shoe_id", "started" and
                         "dealer")

Filters (all must hold):
  --shoe ID              the shoe's events (from its new_shoe to the next shoe's)
  --game N               game N of each shoe (with --shoe, of that shoe). An event belongs
                         to the game its shoe's last bets_closed started; game 0 is the shoe's
                         burn, before its first game; a decision to the game it names
  --type TYPE            events of that type; repeat it or give a comma list
                         (--type card,card_seen). The types:
{textwrap.fill(", ".join(sorted(EVENT_TYPES)), 91, initial_indent=" " * 25,
               subsequent_indent=" " * 25)}
  --since TIME           at or after TIME;  --until TIME  before TIME. ISO 8601:
                         2026-11-29 (midnight), 2026-11-29T10:15, 2026-11-29T10:15:02Z,
                         2026-11-29T17:15+07:00; a time without an offset is UTC, as the
                         log is. With --games, the time the game's bets closed
  --last N               only the last N lines that match
  --follow               then wait for the table's new events and print those that match as
                         they are logged, until Ctrl-C (not with --games)

Examples:
  dealer-assist log var/T1.events.db --last 20
  dealer-assist log var/T1.events.db --shoe S3 --game 12
  dealer-assist log var/T1.events.db --type decision,interrupted --since 2026-11-29
  dealer-assist log var/T1.events.db --games --shoe S3
  dealer-assist log var/T1.events.db --decisions --json
  dealer-assist log var/T1.events.db --last 10 --follow

Exit status 0 (also when nothing matches: that is said on standard error); 2 if the file is
missing or not a table's log, or a filter is wrong.
"""


#: How often --follow looks for new events, in seconds.
FOLLOW_EVERY = 0.5


def register(subparsers: Any) -> None:
    parser = command(subparsers, "log", "list a table log's events, games or decisions", HELP)
    parser.add_argument("db", metavar="DB", help="the table's event log (SQLite file)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--games", action="store_true", help="one line per game")
    what.add_argument("--decisions", action="store_true", help="the supervisors' decisions")
    parser.add_argument("--json", action="store_true", help="print JSON Lines")
    parser.add_argument("--shoe", metavar="ID", help="only this shoe")
    parser.add_argument("--game", type=_game_number, metavar="N",
                        help="only game N (0: a shoe's burn before its first game)")
    parser.add_argument("--type", action="append", metavar="TYPE", dest="types",
                        help="only events of this type (repeatable, or a comma list)")
    parser.add_argument("--since", type=_time, metavar="TIME", help="at or after TIME")
    parser.add_argument("--until", type=_time, metavar="TIME", help="before TIME")
    parser.add_argument("--last", type=_count, metavar="N", help="only the last N that match")
    parser.add_argument("--follow", action="store_true",
                        help="go on printing new events as the table logs them, until Ctrl-C")
    parser.set_defaults(func=run)


def _game_number(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a game number") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"{text}: game numbers start at 1 (0: the burn)")
    return number


def _count(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of lines, 1 or more")
    return number


def _time(text: str) -> datetime:
    """An ISO 8601 date or time; without an offset it is UTC."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 date or time (e.g. 2026-11-29 or "
            "2026-11-29T10:15:02Z)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _types(given: list[str] | None) -> frozenset[str] | None:
    if not given:
        return None
    types = frozenset(t.strip() for item in given for t in item.split(",") if t.strip())
    unknown = sorted(types - EVENT_TYPES)
    if unknown or not types:
        raise CommandFailed(f"--type {', '.join(unknown) or '(none)'}: not an event type; "
                            f"known: {', '.join(sorted(EVENT_TYPES))}")
    return types


def _when(ts: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(ts)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Filters:
    """The options' filters on an event placed in its shoe and game, or on a game."""

    def __init__(self, args: argparse.Namespace) -> None:
        if args.since and args.until and args.since >= args.until:
            raise CommandFailed("--since must come before --until")
        if args.follow and args.games:
            raise CommandFailed("--follow prints events or decisions as they come; not with "
                                "--games")
        if args.types and (args.games or args.decisions):
            raise CommandFailed("--type chooses events; --games and --decisions choose "
                                "their own")
        self.shoe, self.game = args.shoe, args.game
        self.since, self.until = args.since, args.until
        self.types = frozenset({"decision"}) if args.decisions else _types(args.types)

    def place(self, shoe: str | None, game: int | None, ts: Any) -> bool:
        if self.shoe is not None and shoe != self.shoe:
            return False
        if self.game is not None and game != self.game:
            return False
        if self.since is None and self.until is None:
            return True
        moment = _when(ts)
        return moment is not None and (self.since is None or moment >= self.since) \
            and (self.until is None or moment < self.until)

    def event(self, placed: Placed) -> bool:
        if self.types is not None and placed.event.get("type") not in self.types:
            return False
        return self.place(placed.shoe, placed.game, placed.event.get("ts"))


def run(args: argparse.Namespace) -> int:
    filters = Filters(args)
    reader = table_log.open_log(args.db)
    rows: Iterable[str]
    if args.games:
        games = (g for g in games_of(table_log.records(reader), args.db)
                 if filters.place(g["shoe_id"], g["game"], g["started"]))
        rows = (game_json(g) if args.json else game_line(g) for g in games)
    else:
        placing, read = Placing(), [0]
        line = decision_line if args.decisions else event_line

        def new_rows() -> Iterator[str]:
            """The rows of the events after those read so far."""
            for placed in placed_events(table_log.records(reader, read[0]), placing):
                read[0] = placed.seq
                if filters.event(placed):
                    yield event_json(placed) if args.json else line(placed)

        rows = new_rows()
        if args.follow:
            return _follow(rows, new_rows, args.last)
    if args.last:
        rows = deque(rows, maxlen=args.last)
    if not _print(rows):
        what = "game" if args.games else "decision" if args.decisions else "event"
        print(f"dealer-assist log: no {what} in {args.db} matches", file=sys.stderr)
    return 0


def _follow(rows: Iterable[str], new_rows: Callable[[], Iterable[str]], last: int | None) -> int:
    """Print `rows` (their last `last`), then the new rows every FOLLOW_EVERY seconds, until
    Ctrl-C (SIGINT), which ends it with status 0.

    Ctrl-C sets a flag the loop checks rather than raising KeyboardInterrupt where it lands: an
    interrupt that lands in a finaliser (a closed read connection's) is swallowed by Python and
    the loop would go on for ever."""
    stopped = threading.Event()
    main = threading.current_thread() is threading.main_thread()  # only it may set handlers
    previous = signal.signal(signal.SIGINT, lambda *_: stopped.set()) if main else None
    try:
        _print(deque(rows, maxlen=last) if last else rows)
        while not stopped.wait(FOLLOW_EVERY):
            _print(new_rows())
    except KeyboardInterrupt:  # Ctrl-C before the handler was set
        pass
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    return 0


def _print(rows: Iterable[str]) -> int:
    """Print the rows; how many there were."""
    count = 0
    for row in rows:
        sys.stdout.write(row + "\n")
        count += 1
    sys.stdout.flush()
    return count
